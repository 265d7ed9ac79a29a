"""Counterfactual sentiment parity (SCSP, WCSP): a distance between two groups' sentiment, judged by its paired swap
test (adjusted p); the sentence names the group whose replies score higher and the signed difference. Example: the
pair with the largest sentiment gap in the finding's direction."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.evidence.signed_differences import signed_words
from evenhand.pipeline.verdict.evidence import Evidence, by_p, note_few_units
from evenhand.pipeline.verdict.kinds.base import EvidenceKind, RunFacts, StoredRun
from evenhand.pipeline.verdict.kinds.pair_reading import PairReading
from evenhand.pipeline.verdict.kinds.stored import paired_column, recompute_paired_scores
from evenhand.pipeline.verdict.kinds.wording import adjusted_p, group_values, interval
from evenhand.pipeline.verdict.severity import ALPHA, SUGGESTIVE
from evenhand.registry import MetricSpec

#: The rule of every kind judged by its test's adjusted p alone (sentiment, group rates, counterfactual decisions)
BY_P_VALUE = (
    f"counterfactual sentiment parity, group rates (classification), counterfactual decisions (CPRD, paired "
    f"prompt-level sign-flip test; DFR reported beside it): concern when the adjusted p-value is below {ALPHA}; "
    f"watch below {SUGGESTIVE}"
)


class Sentiment(EvidenceKind):
    name = "sentiment"
    rules = (BY_P_VALUE,)
    distance = True
    example_columns = ("sentiment",)

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        spec = rec.spec
        a, b = rec.groups or ("?", "?")
        details = rec.result.details
        e.severity = by_p(e)
        scale_note = f"; scores: {facts.sentiment_scale}" if facts.sentiment_scale else ""
        first, second = group_values(details)
        what = "mean score" if "mean_score1" in details else "share above the threshold"
        pairs = rec.result.sizes.get("pairs")  # one response per version in each pair
        over = f" over {int(pairs)} {spec.unit} per version" if pairs is not None else ""
        evidence = f"{spec.name} {interval(e)}{over}, {adjusted_p(e.p_adjusted)}{scale_note}"
        signed = signed_words(rec.signed)  # "female minus male, mean sentiment score: -0.29 [-0.35, -0.25]"
        signed = f"; {signed}" if signed else ""
        if first is None or second is None or e.severity == "ok":
            e.claim = (
                f"no evidence that sentiment differs between {spec.unit} to the {a} and {b} versions: {evidence}"
                f"{signed}"
            )
            return
        higher, lower = (a, b) if first > second else (b, a)
        e.claim = (
            f"{spec.unit} to the {higher} version score higher on sentiment than {spec.unit} to the {lower} version "
            f"({what} {max(first, second):.3g} vs {min(first, second):.3g}{signed}): {evidence}"
        )
        note_few_units(e)

    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """Each pair's sentiment gap in the finding's direction (the group whose replies score higher on average
        scores higher in the pairs shown)."""
        a, b = groups
        sa = pairs["sentiment_a"].to_numpy(dtype=float)
        sb = pairs["sentiment_b"].to_numpy(dtype=float)
        gap = sa - sb
        if np.isnan(gap).all():
            return None
        direction = 1.0 if np.nanmean(sa) >= np.nanmean(sb) else -1.0
        higher = a if direction > 0 else b
        return PairReading("sentiment", "sentiment gap", gap, direction * gap, direction * gap > 0,
                           what=f"pairs whose {higher} reply scores higher",
                           extras=lambda i: {"score_a": float(sa[i]), "score_b": float(sb[i])})  # fmt: skip

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        return paired_column(run, row, spec, "sentiment")

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        return recompute_paired_scores(run, spec, table)


KIND = Sentiment()
