"""The personal names behind an assessment's counterfactual prompts (results.json ``names``, the report's names
section): whether names were read, and per attribute the names found in the prompts and the names each group's
version used in their place.

A prompt such as "Write a reminder to Lakisha Robinson about the overdue balance." signals race by a name only; its
counterfactual versions give the person a name drawn from each group's list (:func:`evenhand.counterfactual_prompts`,
``names=True``). The names used are those the counterfactual requests carried (generated runs and lists of replies);
a responses table brought from outside has them rebuilt from its prompts with the same seed, kept only where the
response frame holds exactly that version of the prompt (so a user's own counterfactual prompts never get names they
did not use).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pandas as pd

from evenhand.conversation import prompt_text
from evenhand.framework import Plan
from evenhand.pipeline.responses.frame import SWAPPED_NAMES

#: What a reader must keep in mind when groups were signalled by names (a caveat of every such assessment).
NAMES_CAVEAT = (
    "Personal names stand for groups only statistically: a name counts for a group because most of its bearers are "
    "in that group in population data (US Census surnames, SSA first names; at least 80%), not because it says who "
    "the person is; a counterfactual by name measures how the model treats names that signal a group"
)


def names_used(plan: Plan, frame: pd.DataFrame) -> dict[str, Any]:
    """``{"read": bool, "seed": int, "attributes": {attribute: {"signals", "found", "n_prompts", "groups"}}}``:
    ``found`` the names in the prompts (as written) that signal a group, ``n_prompts`` the counterfactual prompts
    whose person was renamed, ``groups`` each group's names used in their place (distinct, in order of use). An
    attribute is listed when its counterfactual prompts in ``frame`` name people.

    The names are those the requests carried from the counterfactual prompts they were made from (the frame's
    :data:`~evenhand.pipeline.responses.frame.SWAPPED_NAMES`); a frame without them (a responses table brought from
    outside) has them rebuilt from its prompts with the same seed (:func:`_rebuilt`)."""
    use_case = plan.use_case
    out: dict[str, Any] = {"read": use_case.names, "seed": 0, "attributes": {}}
    if not use_case.names or frame.empty:
        return out
    versions = frame[frame["group"].notna()]
    specs = use_case.attribute_specs
    for attribute, ftu in plan.ftu.items():
        if not ftu.n_named or attribute not in specs:
            continue  # no name flagged
        rows = versions[versions["attribute"] == attribute]
        if rows.empty:
            continue
        groups, swapped = _carried(rows) if SWAPPED_NAMES in rows else _rebuilt(plan, attribute, rows)
        found: dict[str, None] = {}
        replacements: dict[str, dict[str, None]] = {}
        for used in swapped:
            for group, pairs in used.items():
                for written, replacement in pairs:
                    found.setdefault(written)
                    replacements.setdefault(group, {}).setdefault(replacement)
        renamed = sum(1 for used in swapped if used)
        if renamed:
            out["attributes"][attribute] = {
                "signals": ftu.signals,
                "found": list(found),
                "n_prompts": renamed,
                "groups": {g: list(replacements[g]) for g in groups if g in replacements},
            }
    return out


_Swapped = dict[str, tuple[tuple[str, str], ...]]


def _carried(rows: pd.DataFrame) -> tuple[list[str], list[_Swapped]]:
    """The groups, and per source prompt (in prompt order) each group's swapped names, as the requests carried them
    (a group whose version swapped no name is left out)."""
    first = rows.drop_duplicates(["prompt_id", "group"])
    groups = [str(g) for g in dict.fromkeys(first["group"])]
    by_prompt: dict[int, _Swapped] = {}
    for pid, group, pairs in zip(first["prompt_id"], first["group"], first[SWAPPED_NAMES], strict=True):
        used = by_prompt.setdefault(int(pid), {})
        if isinstance(pairs, tuple):  # None: that version swapped no name
            used[str(group)] = pairs
    ordered = [{g: by_prompt[pid][g] for g in groups if g in by_prompt[pid]} for pid in sorted(by_prompt)]
    return groups, ordered


def _rebuilt(plan: Plan, attribute: str, rows: pd.DataFrame) -> tuple[list[str], list[_Swapped]]:
    """What :func:`_carried` gives, for a frame whose requests carried no names: the counterfactual prompts rebuilt
    from the use case's prompts with the same seed, each version's names kept only where ``rows`` hold exactly that
    version of the prompt (so a user's own counterfactual prompts never get names they did not use)."""
    from evenhand.text.counterfactual import counterfactual_prompts

    use_case = plan.use_case
    sent = set(zip(rows["group"], rows["prompt_id"].astype(int), rows["prompt"], strict=True))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="no prompt mentions", category=UserWarning)
        cf = counterfactual_prompts(
            use_case.prompts,
            attribute=use_case.attribute_specs[attribute],
            names=True,
            name_seed=0,
            subject=use_case.subjects,
            change_system_prompt=use_case.change_system_prompt,
        )
    swapped = [  # the frame holds a conversation's version as its text
        {g: pairs for g, pairs in row.items() if (g, int(pid), prompt_text(cf.prompts[g][k])) in sent}
        for k, (row, pid) in enumerate(zip(cf.names, cf.source_index.tolist(), strict=True))
    ]
    return list(cf.groups), swapped


def signals_by_attribute(names: Mapping[str, Any]) -> dict[str, str]:
    """Attribute -> how its counterfactual prompts signal groups (``"names"``, ``"words and names"``), for the
    attributes whose prompts named people (the verdict's sentences say so)."""
    return {a: str(entry.get("signals") or "names") for a, entry in (names.get("attributes") or {}).items()}
