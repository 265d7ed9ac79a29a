"""Comparing a gap between two groups with its sign: the classification difference metrics (DP, FNRD, FORD, FPRD,
FDRD) report ``|rate(G') − rate(G'')|``, which hides which group is ahead. Two runs whose gaps point opposite ways
(−0.08 and +0.09) differ by 0.17, not by the 0.01 between their absolute values, and a run-to-run interval on the
absolute values cannot show it. So when both runs have exactly the same two groups, the row is compared on the signed
gap ``rate(first) − rate(second)`` (groups in the order the rate tests and findings name them), recomputed from the
stored responses with the same units and strata as the metric (:func:`evenhand.metrics.rate_gap.signed_rate_gap`).

The change is clear when the p of ``gap(B) − gap(A)``, read off its interval and adjusted across the comparison's
rows (:func:`evenhand.comparison.rows.judge_rows`), is below ``1 - level``; it is then *improved* when the size of the
gap clearly shrank (the interval of ``|gap(B)| − |gap(A)|``, from the same replicates, is below 0) and *worse*
otherwise: a gap that moved clearly without shrinking is larger, or now disadvantages the other group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from evenhand.comparison.pairing import SignedGap, percentile_interval
from evenhand.comparison.recompute import prediction_inputs
from evenhand.comparison.runs import Run
from evenhand.metrics._result import FloatArray, MetricResult
from evenhand.registry import METRICS

_OWN_SIGNED = frozenset(m.name for m in METRICS.values() if m.signed)  # results of metrics that are signed gaps


def signed_pair(
    key: Any, full_a: MetricResult, full_b: MetricResult, direction: Any = None
) -> tuple[str, str] | None:
    """The two groups to compare a row's gap between, or None: the row must be a classification difference metric,
    and both runs must have the same two groups (with more, the metric's value is the widest of several gaps). Their
    order is the row's own (``direction``, its ``signed_direction``: "white minus black", the lexicon's group order
    that the rate tests and findings follow, issue 37); a file without one: alphabetical."""
    spec = METRICS.get(str(key)) if key else None
    # a group-rate difference (a registry key is never a ratio: the ratio variant, min / max, has no sign)
    if spec is None or spec.rate is None:
        return None
    groups = [_group_names(full_a), _group_names(full_b)]
    if groups[0] is None or groups[0] != groups[1] or len(groups[0]) != 2:
        return None
    first, sep, second = str(direction or "").partition(" minus ")
    if sep and sorted((first, second)) == groups[0]:
        return first, second
    first, second = sorted(groups[0], key=str)
    return first, second


def own_signed_pair(row: dict[str, Any]) -> tuple[str, str] | None:
    """The row's pair of groups when its metric is itself a signed gap (``MetricSpec.signed``: RRD, RLD), else None:
    such a row is judged by whether the size of its gap clearly shrank, as the classification gaps are."""
    spec = METRICS.get(str(row.get("key")))
    groups = row.get("groups")
    if spec is None or not spec.signed or not groups or len(groups) != 2:
        return None
    return str(groups[0]), str(groups[1])


def _group_names(result: MetricResult) -> list[str] | None:
    labels = result.item_labels
    return None if labels is None else sorted(str(g) for g in np.asarray(labels).tolist())


def recompute_signed(run: Run, row: dict[str, Any], table: pd.DataFrame, pair: tuple[str, str]) -> MetricResult:
    """The signed gap of ``row``'s rate between ``pair`` on ``table`` (an item table of classification rows)."""
    from evenhand.metrics.rate_gap import signed_rate_gap

    args, positive = prediction_inputs(run, row, table)
    return signed_rate_gap(str(row["key"]), *args, first=pair[0], second=pair[1], pos_label=positive,
                           prompts=table["prompt_id"].to_numpy())  # fmt: skip


def signed_gap(
    pair: tuple[str, str], res_a: MetricResult, res_b: MetricResult, draws: tuple[FloatArray, FloatArray], level: float
) -> SignedGap:
    """The two runs' gaps and the interval of the change in the gap's size, from the replicates of both runs."""
    replicates_a, replicates_b = draws
    size = percentile_interval(np.abs(replicates_b) - np.abs(replicates_a), level)
    low, high = size or (None, None)
    own = res_a.name in _OWN_SIGNED
    return SignedGap(pair, float(res_a.value), float(res_b.value), low, high, own)


def describe(gap: SignedGap) -> str:
    """``the gap female − male went from -0.08 to +0.09``."""
    first, second = gap.groups
    return f"the gap {first} − {second} went from {gap.baseline:+.3g} to {gap.run:+.3g}"
