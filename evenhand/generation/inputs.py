"""Prompt lists shaped for the runner: counterfactual prompts flattened prompt-major with their groups and ids."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand.errors import InputError, InputTypeError

from ..conversation import Prompt, as_prompt_list


def counterfactual_inputs(cf: Any) -> tuple[list[Prompt], list[str | None], list[int], tuple[str, ...]]:
    """Flatten counterfactual prompts prompt-major (prompt, then group) with aligned prompt ids."""
    if isinstance(cf, Mapping):
        group_names = tuple(str(g) for g in cf)
        columns = {str(g): as_prompt_list(cf[g], f"prompts[{g!r}]") for g in cf}
        source = None
    elif hasattr(cf, "groups") and hasattr(cf, "__getitem__"):
        group_names = tuple(str(g) for g in cf.groups)
        columns = {g: as_prompt_list(cf[g], f"prompts[{g!r}]") for g in group_names}
        source = getattr(cf, "source_index", None)
    else:
        raise InputTypeError(
            "counterfactual prompts must be a CounterfactualPrompts object or a {group: [prompts...]} dict, "
            f"got {type(cf).__name__}"
        )
    if len(group_names) < 2:
        raise InputError(f"counterfactual generation needs at least two groups, got {list(group_names)}")
    lengths = {g: len(v) for g, v in columns.items()}
    if len(set(lengths.values())) != 1:
        raise InputError(f"every group needs the same number of prompts (they are aligned pairs), got {lengths}")
    n = next(iter(lengths.values()))
    ids = [int(i) for i in source] if source is not None else list(range(n))
    if len(ids) != n:
        raise InputError(f"source_index has {len(ids)} entries for {n} prompts per group")
    prompts: list[Prompt] = []
    groups: list[str | None] = []
    prompt_ids: list[int] = []
    for i in range(n):
        for g in group_names:
            prompts.append(columns[g][i])
            groups.append(g)
            prompt_ids.append(ids[i])
    return prompts, groups, prompt_ids, group_names
