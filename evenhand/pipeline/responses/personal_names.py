"""The personal names behind an assessment's counterfactual prompts (results.json ``names``, the report's names
section): whether names were read, and per attribute the names found in the prompts and the names each group's
version used in their place.

A prompt such as "Write a reminder to Lakisha Robinson about the overdue balance." signals race by a name only; its
counterfactual versions give the person a name drawn from each group's list (:func:`evenhand.counterfactual_prompts`,
``names=True``). The names used are rebuilt here from the prompts with the same seed, and kept only where the
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
    attribute is listed when its counterfactual prompts in ``frame`` name people."""
    from evenhand.text.counterfactual import counterfactual_prompts

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
        sent = set(zip(rows["group"], rows["prompt_id"].astype(int), rows["prompt"], strict=True))
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="no prompt mentions", category=UserWarning)
            cf = counterfactual_prompts(
                use_case.prompts,
                attribute=specs[attribute],
                names=True,
                name_seed=0,
                subject=use_case.name_subject,
                change_system_prompt=use_case.change_system_prompt,
            )
        found: dict[str, None] = {}
        groups: dict[str, dict[str, None]] = {}
        renamed = 0
        for k, (row, pid) in enumerate(zip(cf.names, cf.source_index.tolist(), strict=True)):
            used = {g: pairs for g, pairs in row.items() if (g, int(pid), prompt_text(cf.prompts[g][k])) in sent}
            renamed += bool(used)
            for group, pairs in used.items():
                for written, replacement in pairs:
                    found.setdefault(written)
                    groups.setdefault(group, {}).setdefault(replacement)
        if renamed:
            out["attributes"][attribute] = {
                "signals": ftu.signals,
                "found": list(found),
                "n_prompts": renamed,
                "groups": {g: list(groups.get(g, {})) for g in cf.groups if g in groups},
            }
    return out


def signals_by_attribute(names: Mapping[str, Any]) -> dict[str, str]:
    """Attribute -> how its counterfactual prompts signal groups (``"names"``, ``"words and names"``), for the
    attributes whose prompts named people (the verdict's sentences say so)."""
    return {a: str(entry.get("signals") or "names") for a, entry in (names.get("attributes") or {}).items()}
