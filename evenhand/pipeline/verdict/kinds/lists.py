"""Recommendation lists (Jaccard-K, SERP-K, PRAG-K): against their same-prompt noise floor, as text similarity; without
one (one answer per prompt), lists that differ by group are only worth watching. Example: the pair of lists with the
least overlap."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.parsers import k_slots
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.kinds.base import EvidenceKind, RunFacts, StoredRun
from evenhand.pipeline.verdict.kinds.pair_reading import PairReading
from evenhand.pipeline.verdict.kinds.similarity import judge_against_floor
from evenhand.pipeline.verdict.kinds.stored import by_key, pair_keys, stored_pairs
from evenhand.pipeline.verdict.kinds.wording import interval, over
from evenhand.registry import MetricSpec


def _items(value: Any) -> list[str]:
    """A parsed K-item list as strings ([] for an answer that gave no list)."""
    return [str(i) for i in value] if isinstance(value, (list, tuple, np.ndarray)) else []


def stored_items(value: Any) -> list[str]:
    """A K-item list as stored: a list (JSON, Parquet) or one text cell with items joined by " | " (CSV)."""
    if isinstance(value, str):
        return [item.strip() for item in value.split(" | ")] if value.strip() else []
    return [str(item) for item in value] if value is not None and not isinstance(value, float) else []


class Lists(EvidenceKind):
    name = "lists"
    rules = (
        "recommendation similarity: as counterfactual similarity, against the same-prompt noise floor of the lists; "
        "without a floor (one answer per prompt), watch when the interval excludes 1",
    )
    example_columns = ("items",)

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        if e.gap is not None:
            judge_against_floor(rec, e, what="recommendations for", unit="answers")
            return
        spec = rec.spec
        a, b = rec.groups or ("?", "?")
        value = f"{spec.name} {interval(e)}{over(rec, spec)}"
        if e.ci_high is not None and e.ci_high < 1:
            e.severity = "watch"
            e.claim = (
                f"recommendations for the {a} and {b} versions differ, but without two or more answers per prompt "
                f"this cannot be told apart from sampling: {value} (1 = the same lists)"
            )
        else:
            e.claim = f"recommendations for the {a} and {b} versions agree: {value}"

    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """Each pair of lists' overlap (Jaccard of the items): the less overlap, the stronger."""
        lists = [(_items(x), _items(y)) for x, y in zip(pairs["items_a"].tolist(), pairs["items_b"].tolist(),
                                                         strict=True)]  # fmt: skip
        if not lists:
            return None
        overlaps = []
        for left, right in lists:
            sa, sb = {i.lower() for i in left}, {i.lower() for i in right}
            overlaps.append(len(sa & sb) / len(sa | sb) if sa | sb else 1.0)
        jaccard = np.asarray(overlaps, dtype=float)
        return PairReading("lists", "Jaccard", jaccard, -jaccard, np.ones(jaccard.size, dtype=bool),
                           extras=lambda i: {"items_a": lists[i][0], "items_b": lists[i][1]})  # fmt: skip

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """The pairs of K-item lists the run compared, as the pipeline's recommendation family keeps them (a pair where
        either list has an item; a shorter list filled up with empty slots that match nothing)."""
        k, groups = run.settings.get("k"), row.get("groups")
        if not isinstance(k, int) or not groups or len(groups) != 2:
            return f"run {run.label} does not record the K of its lists"
        assert run.responses is not None
        if "items" not in run.responses:
            return f"run {run.label}'s responses have no items column"
        found = stored_pairs(run, row, spec)
        if isinstance(found, str):
            return found
        lists = {side: [stored_items(v) for v in found[f"items_{side}"]] for side in ("a", "b")}
        full = [bool(a) or bool(b) for a, b in zip(lists["a"], lists["b"], strict=True)]
        table = pd.DataFrame({"prompt_id": found["prompt_id"], "a": lists["a"], "b": lists["b"]})[full]
        table["a"], table["b"] = ([k_slots(items, k) for items in table[side]] for side in ("a", "b"))
        table["_key"] = [key for key, keep in zip(pair_keys(found), full, strict=True) if keep]
        return by_key(table)

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        """As the recommendation family calls it (K and case-folding recorded)."""
        settings = run.settings
        options = {"k": settings["k"], "normalize": settings.get("normalize", True), "duplicates": "mask"}
        return call_metric(spec.key, table["a"].tolist(), table["b"].tolist(), prompts=table["prompt_id"].to_numpy(),
                           **options)  # fmt: skip


KIND = Lists()
