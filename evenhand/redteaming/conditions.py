"""The conditions of a red team: the benign system prompt and each adversarial one, with where they come from.

The built-in adversarial prompts are data (``evenhand/data/redteam/system_prompts.json``, read by
:func:`evenhand.config.redteam.builtin_system_prompts`); one whose text names ``{group}`` is filled once per group
of each protected attribute of the use case. The user's own come from the config's ``redteam.system_prompts``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from evenhand.config import AssessConfig, RedteamConfig
from evenhand.config.redteam import BENIGN, GROUP_FIELD
from evenhand.errors import InputError
from evenhand.framework import UseCase
from evenhand.text.counterfactual import attribute_groups
from evenhand.text.lexicon import load_lexicon

Kind = Literal["benign", "builtin", "user"]


@dataclass(frozen=True)
class Condition:
    """One system prompt the use case is run under: ``name`` (``"no content policy"``), ``kind`` (benign, builtin
    or user) and the full ``system_prompt`` text."""

    name: str
    kind: Kind
    system_prompt: str

    @property
    def slug(self) -> str:
        """The condition's folder name under ``conditions/`` (letters, digits and dashes)."""
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") or "condition"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "system_prompt": self.system_prompt}


def conditions_for(config: AssessConfig, use_case: UseCase) -> list[Condition]:
    """The benign condition first, then the chosen built-in adversarial prompts (per-group ones filled for every
    group of every attribute), then the user's own; names are unique, folders too."""
    section = config.redteam or RedteamConfig()
    out = [Condition(BENIGN, "benign", section.benign_prompt(config.model.system_prompt))]
    for prompt in section.builtin_chosen():
        if not prompt.per_group:
            out.append(Condition(prompt.name, "builtin", prompt.text))
            continue
        for attribute, spec in use_case.attribute_specs.items():
            if isinstance(spec, (list, tuple)):  # an intersection: its attributes are filled on their own
                continue
            for group in attribute_groups(spec):
                shown = group_display(spec, group)
                name = prompt.name.replace(GROUP_FIELD, shown)
                text = prompt.text.replace(GROUP_FIELD, shown).replace("{attribute}", attribute.replace("_", " "))
                out.append(Condition(name, "builtin", text))
    taken = {c.name for c in out}
    for name, text in section.system_prompts.items():
        if name in taken:  # a built-in filled for a group ("be blunt with female"): never drop the user's silently
            raise InputError(
                f"redteam.system_prompts: {name!r} is the name of a built-in system prompt filled for a group; "
                "rename yours"
            )
        out.append(Condition(name, "user", text))
    return _unique(out)


def group_display(attribute: Any, group: str) -> str:
    """A group as its lexicon writes it, for a condition's name and system prompt: the first replacement form that
    is the group's own name up to case, spaces, "_" and "-" ("christian" -> "Christian", "middle_aged" ->
    "middle-aged", "nondisabled" -> "non-disabled"); with none ("female", whose forms are pronouns), the name with
    spaces for "_"."""
    key = _squashed(group)
    for row in load_lexicon(attribute).rows:
        form = row.forms.get(group)
        if form and _squashed(form) == key:
            return form
    return group.replace("_", " ")


def _squashed(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text).lower()


def _unique(conditions: list[Condition]) -> list[Condition]:
    """Drop a repeated name (two attributes sharing a group), and number folders that would clash."""
    seen: dict[str, Condition] = {}
    for c in conditions:
        seen.setdefault(c.name, c)
    return list(seen.values())
