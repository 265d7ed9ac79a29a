"""A metric's inputs rebuilt from a finished run's stored responses (``compare``'s recomputation): the tables the
kinds of evidence share, one line per item with its pairing key across runs (``_key``) and its ``prompt_id``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.frame import counterfactual_pairs
from evenhand.pipeline.verdict.kinds.base import StoredRun
from evenhand.registry import MetricSpec


def response_keys(rows: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A response's pairing key across runs: its prompt id, prompt text and sample number."""
    return list(zip(rows["prompt_id"], rows["prompt"].astype(str), rows["sample"], strict=True))


def pair_keys(found: pd.DataFrame) -> list[tuple[Any, ...]]:
    """A counterfactual pair's pairing key across runs: its prompt id, both prompt texts and sample number."""
    return list(
        zip(
            found["prompt_id"],
            found["prompt_a"].astype(str),
            found["prompt_b"].astype(str),
            found["sample"],
            strict=True,
        )
    )


def by_key(table: pd.DataFrame) -> pd.DataFrame:
    return table.sort_values("_key", kind="stable").reset_index(drop=True)


def stored_pairs(
    run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, *, replied: bool = True
) -> pd.DataFrame | str:
    """The counterfactual pairs of the row's two groups in ``run``'s responses (the row's order of the groups; with
    ``replied=False`` every pair of requests, replied or not), or why there are none."""
    attribute, groups = row.get("attribute"), row.get("groups")
    if not attribute or not groups or len(groups) != 2:
        return f"{spec.name} has no pair of groups in this row"
    assert run.responses is not None
    found = counterfactual_pairs(run.responses, str(attribute), str(groups[0]), str(groups[1]), replied=replied)
    if found.empty:
        return f"run {run.label} has no counterfactual pairs for {' vs '.join(map(str, groups))}"
    return found


def paired_column(run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, column: str) -> pd.DataFrame | str:
    """Both sides' ``column`` (a per-reply score, or the reply itself) of each counterfactual pair, as ``a``, ``b``."""
    found = stored_pairs(run, row, spec)
    if isinstance(found, str):
        return found
    table = pd.DataFrame({"prompt_id": found["prompt_id"]})
    for side in ("a", "b"):
        source = f"{column}_{side}"
        if source not in found:
            return f"run {run.label}'s responses have no {column} column"
        table[side] = found[source].to_numpy()
    table["_key"] = pair_keys(found)
    return by_key(table)


def setting_values(run: StoredRun, spec: MetricSpec) -> dict[str, Any]:
    """The metric's parameters from the run's recorded settings (e.g. its threshold), as the run used them."""
    settings = run.settings
    return {p: settings[name] for p, name in spec.settings.items() if settings.get(name) is not None}


def recompute_paired_scores(run: StoredRun, spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
    """A metric of per-reply scores of both sides of each pair (sentiment, toxicity, refusal, length)."""
    a, b = (table[c].to_numpy(dtype=float) for c in ("a", "b"))
    return call_metric(spec.key, a, b, prompts=table["prompt_id"].to_numpy(), **setting_values(run, spec))


def attribute_spec(run: StoredRun, attribute: str) -> Any:
    """What the text core takes for ``attribute`` in this run: a built-in name, or the run's custom group dict."""
    from evenhand.framework import UseCase

    fields = {k: v for k, v in run.doc["plan"]["use_case"].items() if k in UseCase.model_fields and k != "prompts"}
    try:
        return UseCase.model_validate(fields).attribute_specs.get(attribute, attribute)
    except ValueError:  # a use case this version cannot rebuild: the name is what the text core takes
        return attribute
