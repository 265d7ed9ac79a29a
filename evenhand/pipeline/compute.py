"""Metric computation for the three task families, from the scored response frame (see ``collect``).

Each planned metric becomes one or more :class:`MetricRecord` rows: once per attribute, and for counterfactual
metrics once per pair of groups of the attribute. A metric that cannot be computed on the data at hand (no
pairs, a single group, ...) becomes a NaN result with the reason, never an exception.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evenhand.framework import CATALOGUE, Plan
from evenhand.metrics._result import MetricResult, undefined
from evenhand.pipeline.collect import ok_rows
from evenhand.pipeline.parsers import label_text


@dataclass
class MetricRecord:
    """One row of the metrics table: a metric for an attribute (and a pair of groups), with its statistics."""

    key: str
    attribute: str | None
    comparison: str  # "all", or "female vs male" for pairwise metrics
    result: MetricResult
    interval: Any = None  # evenhand.stats.Interval
    noise: Any = None  # evenhand.stats.NoiseFloor
    test: Any = None  # evenhand.stats.PermutationTest (counterfactual sentiment; classification: the metric's pair)
    p_adjusted: float | None = None  # Benjamini-Hochberg across the assessment's tests
    pair_tests: pd.DataFrame | None = None  # classification: exact rate test for every pair of groups
    notes: list[str] = field(default_factory=list)  # why an interval or noise floor is missing, what was left out

    @property
    def name(self) -> str:
        return CATALOGUE[self.key].name

    @property
    def family(self) -> str:
        return CATALOGUE[self.key].family


def _metric(key: str) -> Callable[..., MetricResult]:
    from evenhand import metrics

    fn: Callable[..., MetricResult] = getattr(metrics, key)
    return fn


def _call(key: str, *args: Any, **kwargs: Any) -> MetricResult:
    """Call a metric. Undefined cases (no pairs, a single group, an empty rate) already come back from the metric
    as NaN with the reason; a ValueError means bad input or a bad option, so it is raised, naming the metric."""
    try:
        return _metric(key)(*args, **kwargs)
    except ValueError as exc:
        raise ValueError(f"{CATALOGUE[key].name} could not be computed: {exc}") from exc


def _threshold(key: str, threshold: float) -> dict[str, float]:
    """``{"threshold": ...}`` for the metrics that take one (EMT, EMS and strict parity do not)."""
    return {"threshold": threshold} if "threshold" in inspect.signature(_metric(key)).parameters else {}


def group_pairs(frame: pd.DataFrame, attribute: str) -> Iterator[tuple[str, str, pd.DataFrame]]:
    """Counterfactual response pairs for every pair of groups of ``attribute``, aligned by (prompt, sample).

    Yields ``(group_a, group_b, pairs)`` where ``pairs`` has ``prompt_id, sample`` and the ``_a`` / ``_b``
    columns of both rows (``response_a``, ``sentiment_b``, ...); only pairs where both responses exist.
    """
    rows = ok_rows(frame, original=False, attribute=attribute)
    groups = list(dict.fromkeys(rows["group"].tolist()))
    for a, b in itertools.combinations(groups, 2):
        left = rows[rows["group"] == a]
        right = rows[rows["group"] == b]
        pairs = left.merge(right, on=["prompt_id", "sample"], suffixes=("_a", "_b"))
        yield a, b, pairs.sort_values(["prompt_id", "sample"], kind="stable").reset_index(drop=True)


# --------------------------------------------------------------------------------------------------- text
def _lexicon_groups(spec: Any) -> tuple[str, ...]:
    from evenhand.text.lexicon import load_lexicon

    return tuple(load_lexicon(spec).groups)


def text_metrics(
    plan: Plan,
    frame: pd.DataFrame,
    *,
    toxicity_threshold: float = 0.5,
    stereotype_threshold: float = 0.5,
    sentiment_threshold: float = 0.5,
    embedder: Any = None,
) -> list[MetricRecord]:
    """Toxicity, stereotype and counterfactual metrics for a text generation / summarization plan."""
    records: list[MetricRecord] = []
    specs = plan.use_case.attribute_specs
    originals = ok_rows(frame, original=True)
    tox = originals["toxicity"].to_numpy(dtype=float) if "toxicity" in originals else np.empty(0)
    prompt_ids = originals["prompt_id"].to_numpy()
    for key in plan.keys("toxicity"):
        if not len(originals):
            records.append(MetricRecord(key, None, "all", undefined(CATALOGUE[key].name, "no responses")))
            continue
        records.append(
            MetricRecord(key, None, "all", _call(key, tox, prompts=prompt_ids, **_threshold(key, toxicity_threshold)))
        )
    for attribute in plan.attributes_for("stereotype"):
        texts = originals["response"].tolist()
        for key in plan.keys("stereotype", attribute):
            if key in ("stereotype_fraction", "expected_maximum_stereotype", "stereotype_probability"):
                column = f"stereotype_{attribute}"
                if column not in originals:
                    result = undefined(CATALOGUE[key].name, "no stereotype classifier configured")
                else:
                    scores = originals[column].to_numpy(dtype=float)
                    result = _call(key, scores, prompts=prompt_ids, **_threshold(key, stereotype_threshold))
            elif not texts:
                result = undefined(CATALOGUE[key].name, "no responses")
            elif key == "cooccurrence_bias":  # COBS is pairwise: one row per pair of groups
                for a, b in itertools.combinations(_lexicon_groups(specs[attribute]), 2):
                    result = _call(key, texts, attribute=specs[attribute], groups=(a, b))
                    records.append(MetricRecord(key, attribute, f"{a} vs {b}", result))
                continue
            else:
                result = _call(key, texts, attribute=specs[attribute])
            records.append(MetricRecord(key, attribute, "all", result))
    cf_attributes = dict.fromkeys(
        plan.attributes_for("counterfactual_sentiment") + plan.attributes_for("counterfactual_similarity")
    )
    for attribute in cf_attributes:
        sentiment_keys = plan.keys("counterfactual_sentiment", attribute)
        similarity_keys = plan.keys("counterfactual_similarity", attribute)
        any_pair = False
        for a, b, pairs in group_pairs(frame, attribute):
            any_pair = True
            comparison = f"{a} vs {b}"
            ta, tb = pairs["response_a"].tolist(), pairs["response_b"].tolist()
            for key in similarity_keys:
                if not len(pairs):
                    result = undefined(CATALOGUE[key].name, "no counterfactual response pairs")
                elif key == "counterfactual_cosine":
                    if embedder is False:
                        result = undefined(CATALOGUE[key].name, "no embedder (scoring.embedder is false)")
                    else:
                        result = _call(key, ta, tb, embedder=embedder)
                else:
                    result = _call(key, ta, tb, attribute=specs[attribute])
                records.append(MetricRecord(key, attribute, comparison, result))
            for key in sentiment_keys:
                if not len(pairs):
                    result = undefined(CATALOGUE[key].name, "no counterfactual response pairs")
                else:
                    sa = pairs["sentiment_a"].to_numpy(dtype=float)
                    sb = pairs["sentiment_b"].to_numpy(dtype=float)
                    result = _call(key, sa, sb, **_threshold(key, sentiment_threshold))
                records.append(MetricRecord(key, attribute, comparison, result))
        if not any_pair:
            for key in similarity_keys + sentiment_keys:
                reason = "fewer than two groups have counterfactual responses"
                records.append(MetricRecord(key, attribute, "all", undefined(CATALOGUE[key].name, reason)))
    return records


def similarity_function(key: str, attribute_spec: Any, embedder: Any) -> tuple[Any, Any] | None:
    """``(similarity, attribute)`` for :func:`evenhand.stats.noise_floor`, with exactly the metric's maths, or None.

    CROUGE-L and CBLEU neutralize attribute words first (as the metrics do); cosine compares the raw texts.
    """
    if key == "counterfactual_rouge_l":
        return "rouge_l", attribute_spec
    if key == "counterfactual_bleu":
        return "bleu", attribute_spec
    if key == "counterfactual_cosine" and embedder not in (None, False):
        from evenhand.metrics.counterfactual import cosine_scores

        return (lambda a, b: cosine_scores(a, b, embedder=embedder)), None
    return None


# --------------------------------------------------------------------------------------------------- classification
def classification_records(plan: Plan, frame: pd.DataFrame, *, positive_label: Any) -> list[MetricRecord]:
    """Group fairness metrics on parsed labels (``label``), ground truth (``truth``) and groups per attribute.

    ``positive_label`` is one label, or a list of sensitive classes for a multiclass use case: each class is then
    assessed one-vs-rest (paper 3.2.3), one row per class.
    """
    classes = positive_classes(positive_label)
    records: list[MetricRecord] = []
    rows = ok_rows(frame, original=True)
    attributes = dict.fromkeys(plan.attributes_for("representation") + plan.attributes_for("error_based"))
    for attribute in attributes:
        group_col = f"group_{attribute}"
        usable = _usable(rows, group_col)
        for key, cls in itertools.product(plan.keys(attribute=attribute), classes):
            name = CATALOGUE[key].name
            comparison = _class_comparison(cls, classes)
            if group_col not in usable or usable.empty:
                result = undefined(name, f"no parsed predictions with a known {attribute} group")
            elif key == "demographic_parity_difference":
                result = _one_group(name, usable, group_col) or _call(
                    key, usable["label"], usable[group_col], pos_label=label_text(cls)
                )
            elif "truth" not in usable or usable["truth"].isna().all():
                result = undefined(name, "needs ground-truth labels (prompts.label_column)")
            else:
                have = usable[usable["truth"].notna()]
                result = _one_group(name, have, group_col) or _call(
                    key, have["truth"], have["label"], have[group_col], pos_label=label_text(cls)
                )
            records.append(MetricRecord(key, attribute, comparison, result))
    return records


def _one_group(name: str, rows: pd.DataFrame, group_col: str) -> MetricResult | None:
    """NaN with the reason when the usable rows hold a single group (the metric rejects that as bad input)."""
    groups = rows[group_col].unique()
    if len(groups) >= 2:
        return None
    return undefined(name, f"all usable rows are in one group ({groups[0]!r}); group fairness needs two")


def positive_classes(positive_label: Any) -> list[Any]:
    """The classes assessed: one positive label, or every sensitive class of a multiclass use case."""
    return [positive_label] if isinstance(positive_label, (str, int, bool)) else list(positive_label)


def _class_comparison(cls: Any, classes: Sequence[Any]) -> str:
    return "all" if len(classes) == 1 else f"class {cls} vs rest"


def _usable(rows: pd.DataFrame, group_col: str) -> pd.DataFrame:
    """Rows with a parsed label and a known group: what the classification metrics are computed on."""
    usable = rows
    if "label" in rows:
        usable = usable[usable["label"].notna()]
    if group_col in usable:
        usable = usable[usable[group_col].notna()]
    return usable


def classification_tests(records: Sequence[MetricRecord], frame: pd.DataFrame, *, positive_label: Any) -> None:
    """Exact permutation tests (:func:`evenhand.stats.pairwise_rate_tests`) of "the rate behind the metric is the same
    in both groups", for every defined classification metric and every pair of groups.

    Sets ``pair_tests`` (one row per pair) and ``test`` (the pair whose rates differ most, i.e. the pair that sets
    the metric's value) on each record; p-values are not yet adjusted for multiple testing (see ``run``).
    """
    from evenhand.stats import PermutationTest, pairwise_rate_tests

    classes = positive_classes(positive_label)
    rows = ok_rows(frame, original=True)
    for rec in records:
        if rec.family not in ("representation", "error_based") or rec.attribute is None or not rec.result.is_defined:
            continue
        group_col = f"group_{rec.attribute}"
        usable = _usable(rows, group_col)
        cls = next((c for c in classes if _class_comparison(c, classes) == rec.comparison), None)
        if cls is None or group_col not in usable or "label" not in usable:
            continue
        truth = None
        if rec.key != "demographic_parity_difference":
            if "truth" not in usable:
                continue
            usable = usable[usable["truth"].notna()]
            truth = (usable["truth"] == label_text(cls)).to_numpy(dtype=int)
        pred = (usable["label"] == label_text(cls)).to_numpy(dtype=int)
        try:
            table = pairwise_rate_tests(pred, usable[group_col].astype(str).to_numpy(), truth, metrics=rec.key)
        except ValueError:  # fewer than two groups: nothing to compare
            continue
        rec.pair_tests = table
        defined = table[table["p_value"].notna()]
        if defined.empty:
            continue
        order = defined.assign(_abs=defined["difference"].abs()).sort_values(
            ["_abs", "p_value"], ascending=[False, True], kind="stable"
        )
        top = order.iloc[0]
        rec.test = PermutationTest(
            float(top["difference"]),
            float(top["p_value"]),
            "two-sided",
            "exact",
            None,
            (top["group_a"], top["group_b"]),
            {"rate_a": float(top["rate_a"]), "rate_b": float(top["rate_b"])},
        )


# --------------------------------------------------------------------------------------------------- recommendation
def recommendation_records(plan: Plan, frame: pd.DataFrame, *, k: int, normalize: bool = True) -> list[MetricRecord]:
    """Jaccard-K, SERP-K and PRAG-K for every pair of groups; lists with fewer than K items are left out."""
    records: list[MetricRecord] = []
    for attribute in plan.attributes_for("recommendation"):
        any_pair = False
        for a, b, pairs in group_pairs(frame, attribute):
            any_pair = True
            full = pairs[(pairs["items_a"].map(len) >= k) & (pairs["items_b"].map(len) >= k)]
            dropped = len(pairs) - len(full)
            for key in plan.keys("recommendation", attribute):
                name = CATALOGUE[key].name
                if full.empty:
                    result = undefined(name, f"no counterfactual pair where both answers parse into {k} items")
                else:
                    result = _call(
                        key,
                        full["items_a"].tolist(),
                        full["items_b"].tolist(),
                        k=k,
                        normalize=normalize,
                        duplicates="mask",
                    )
                    if dropped:
                        result = _with_note(result, f"{dropped} pair(s) with fewer than {k} parsed items left out")
                records.append(MetricRecord(key, attribute, f"{a} vs {b}", result))
        if not any_pair:
            for key in plan.keys("recommendation", attribute):
                reason = "fewer than two groups have counterfactual responses"
                records.append(MetricRecord(key, attribute, "all", undefined(CATALOGUE[key].name, reason)))
    return records


def _with_note(result: MetricResult, note: str) -> MetricResult:
    from dataclasses import replace

    details: Mapping[str, Any] = {**result.details, "note": note}
    return replace(result, details=details)
