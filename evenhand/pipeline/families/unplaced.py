"""The people no name list can place (issue 33, observational; beyond the paper): per attribute whose prompts name
such people (:mod:`evenhand.framework.unplaced` defines which prompts: ``FTUSummary.unplaced_prompts``), the replies
to those prompts against the replies to the other prompts: refusals, answer length and toxic replies (text tasks),
the positive decision (classification), each with a two-sided permutation test over prompts. The tests are adjusted
as their own set (``FamilySpec.adjusted_apart``), apart from the run's confirmatory tests. Only the replies to the
original prompts are compared (their counterfactual versions cannot vary a group no list places); their scores are
those the other families gave them, scored here only where no family did, and the tests count refusals and toxic
replies at the thresholds the metrics use."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.framework import Plan
from evenhand.metrics.parity import word_counts
from evenhand.pipeline.evidence.records import ALL, Comparison, MetricRecord
from evenhand.pipeline.families.base import Family, Needs, RunContext, record, run_scorer, undefined_record
from evenhand.pipeline.families.calls import setting_arguments
from evenhand.pipeline.families.classification import Classification
from evenhand.pipeline.families.refusal_length import REFUSAL_CAVEAT, detector_name
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.responses.parsers import choose_label_parser, label_text, parse_labels
from evenhand.pipeline.stages import counted
from evenhand.registry import METRICS, Inputs
from evenhand.stats._prompt_sets import SetStatistic

#: Random draws of the permutation test: p resolves to 1 / 20,000 (as the paired tests of refusal and length)
SET_PERMUTATIONS = 19_999
#: The frame column each metric's inputs read, and how its test compares the two sets
_COLUMN: dict[Inputs, tuple[str, SetStatistic]] = {
    "refusal_sets": ("refusal", "difference"),
    "length_sets": ("words", "log_ratio"),
    "toxicity_sets": ("toxicity", "difference"),
    "decision_sets": ("label", "difference"),
}


class UnplacedNames(Family):
    metric_families = ("unplaced_names",)
    test_method = "permutation of prompts between the two sets ({method})"

    @property
    def name(self) -> str:
        return "people no name list can place"

    def needs(self, plan: Plan) -> Needs:
        return Needs(originals=True)

    def build(self, plan: Plan, settings: RunSettings) -> None:
        inputs = {METRICS[k].inputs for k in self.planned(plan)}
        self.refusal: Any = run_scorer("refusal", settings) if "refusal_sets" in inputs else None

    def prepare(self, ctx: RunContext) -> None:
        """The scores the metrics read, where no other family gave them: refusal scores (the detector the refusal
        family uses), lengths in words and parsed labels of the replies."""
        frame = ctx.frame
        if self.refusal is not None and "refusal" not in frame:
            ctx.score("refusal", self.refusal)
            ctx.described.setdefault("refusal_detector", detector_name(ctx.settings))
            if ctx.settings.scoring.refusal is None and REFUSAL_CAVEAT not in ctx.caveats:
                ctx.caveats.append(REFUSAL_CAVEAT)
            ctx.described.setdefault("refusal_threshold", ctx.settings.scoring.refusal_threshold)
        inputs = {METRICS[k].inputs for k in self.planned(ctx.plan)}
        if "length_sets" in inputs and "words" not in frame:
            answered = (frame["status"] == "ok") & frame["response"].notna()
            frame["words"] = np.where(answered, word_counts(frame["response"].fillna("")), np.nan)
        if "decision_sets" in inputs and "label" not in frame:
            cs = ctx.settings.classification
            frame["label"] = parse_labels(frame["response"], choose_label_parser(cs, ctx.label_parser))

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        out: list[MetricRecord] = []
        originals = ok_rows(ctx.frame, original=True)
        prompts = originals["prompt_id"].to_numpy()
        for attribute in self.attributes(ctx.plan):
            in_set = _in_set(ctx, attribute, originals)
            for key in self.planned(ctx.plan, attribute):
                for cls, values, rows in _inputs(ctx, key, originals):
                    # one value per attribute (scope "attribute"): the two sets are prompts, not the attribute's groups
                    comparison = ALL if cls is None else Comparison(cls=cls)
                    if not len(rows):
                        out.append(undefined_record(key, attribute, comparison, "no replies to compare"))
                        continue
                    result = ctx.metric(key, values, in_set[rows], prompts=prompts[rows])
                    out.append(record(key, attribute, comparison, result))
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """A two-sided permutation test over prompts per row: which prompts are in the set is shuffled, each prompt
        with all its replies (:func:`evenhand.stats.prompt_set_test`); refusals and toxic replies are counted at the
        metric's threshold, as the metric counts them."""
        from evenhand.stats import prompt_set_test

        originals = ok_rows(ctx.frame, original=True)
        prompts = originals["prompt_id"].to_numpy()
        own = [r for r in records if r.family in self.metric_families and r.result.is_defined]
        for rec in counted(own, lambda r: True):
            in_set = _in_set(ctx, rec.attribute or "", originals)
            cut = setting_arguments(rec.key, ctx.settings).get("threshold")
            for cls, values, rows in _inputs(ctx, rec.key, originals):
                if cls != rec.comparison.cls:
                    continue
                counted_values = values if cut is None else (values >= float(cut)).astype(float)
                rec.test = prompt_set_test(
                    counted_values,
                    in_set[rows],
                    prompts[rows],
                    statistic=_COLUMN[rec.spec.inputs][1],
                    n_permutations=SET_PERMUTATIONS,
                    seed=ctx.settings.statistics.seed,
                )


def _in_set(ctx: RunContext, attribute: str, originals: pd.DataFrame) -> Any:
    """Per reply to an original prompt: whether its prompt names a person whose ``attribute`` no list can place."""
    return originals["prompt_id"].isin(ctx.plan.ftu[attribute].unplaced_prompts).to_numpy()


def _inputs(ctx: RunContext, key: str, originals: pd.DataFrame) -> list[tuple[str | None, Any, Any]]:
    """Per class compared (None: the one positive decision, or an outcome of text replies): the metric's values and
    the positions in ``originals`` they come from. Refusal and toxicity keep their scores (the metric applies the
    cut); decisions are 1 for the class, answers that parse into no label left out."""
    spec = METRICS[key]
    column, _ = _COLUMN[spec.inputs]
    raw = originals[column] if column in originals else pd.Series(np.nan, index=originals.index)
    if spec.inputs != "decision_sets":
        values = raw.to_numpy(dtype=float)
        kept = np.flatnonzero(~np.isnan(values))
        return [(None, values[kept], kept)]
    classes = Classification.classes(ctx)
    parsed = np.flatnonzero(raw.notna().to_numpy())
    labels = raw.to_numpy(dtype=object)[parsed]
    return [
        (None if len(classes) == 1 else str(label_text(cls)), (labels == label_text(cls)).astype(float), parsed)
        for cls in classes
    ]
