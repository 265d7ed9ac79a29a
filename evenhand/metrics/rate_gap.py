"""The signed gap between two groups' rates behind a classification difference metric (DP, FNRD, FORD, FPRD, FDRD).

The metrics report ``|B(G') − B(G'')|``: how far apart two groups' rates are, not which group is ahead. Comparing
two runs on that absolute value hides a gap that changed sides: −0.08 (G' behind) and +0.09 (G' ahead) differ by
0.17, their absolute values by 0.01. :func:`signed_rate_gap` gives ``B(first) − B(second)`` from the same rates and
with the same resampling units and strata as the metric (rows within groups, or prompts with ``prompts=``), so a
comparison can bootstrap it exactly as it bootstraps the metric (:mod:`evenhand.comparison.signed`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from evenhand._validation import FloatArray
from evenhand.errors import InputError
from evenhand.metrics._group_data import label, prepare
from evenhand.metrics._result import MetricResult
from evenhand.metrics.classification import (
    _prompt_resampler,
    _rates_from_counts,
    _resampler,
    _units,
    rate_cells,
    rate_counts_of,
)


def signed_rate_gap(
    metric: str, *args: Any, first: Any, second: Any, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``B(first) − B(second)``: the signed difference of the rate behind ``metric`` between two groups.

    Args:
        metric: a difference metric's function name (``"demographic_parity_difference"``) or short name (``"DP"``).
        *args: the metric's own data: ``y_pred, groups`` for DP, ``y_true, y_pred, groups`` for the others.
        first, second: the two groups (as the data names them, compared as text).
        pos_label, prompts: as in :func:`~evenhand.metrics.demographic_parity_difference`.

    Returns:
        A :class:`MetricResult` in [-1, 1] (NaN when either rate is undefined) whose resampler draws the same
        units, in the same strata, as the metric's.
    """
    try:
        spec = rate_cells(metric, ratio=False)  # any spelling the registry knows; a ratio has no sign
    except KeyError:
        raise InputError(f"signed_rate_gap takes a classification difference metric, got {metric!r}") from None
    short = spec.short
    expected = 3 if spec.needs_truth else 2
    if len(args) != expected:
        raise InputError(f"{short} takes {'y_true, y_pred, groups' if spec.needs_truth else 'y_pred, groups'}")
    y_true, y_pred, groups = args if spec.needs_truth else (None, *args)
    prep = prepare(y_true, y_pred, groups, pos_label)
    names = [str(label(g)) for g in prep.labels]
    missing = [str(g) for g in (first, second) if str(g) not in names]
    if missing:
        raise InputError(f"group(s) {', '.join(missing)} not in the data (groups: {', '.join(names)})")
    i, j = names.index(str(first)), names.index(str(second))
    num, den, rates = _rates_from_counts(prep.counts.astype(np.float64), spec)
    value = float(rates[i] - rates[j])

    def gap(replicates: FloatArray) -> FloatArray:
        return np.asarray(replicates[..., i] - replicates[..., j], dtype=np.float64)

    units = _units(prompts, prep)
    sizes = {"rows": int(prep.codes.size), "groups": int(prep.labels.size)}
    if units is None:
        resampler = _resampler(prep, spec, False, gap)
    else:
        sizes["prompts"] = units.n
        resampler = _prompt_resampler(prep, spec, False, units, gap)
    reason = None
    if math.isnan(value):
        undefined = [names[k] for k in (i, j) if math.isnan(rates[k])]
        reason = f"the {spec.rate} is undefined for {' and '.join(undefined)} ({spec.empty_reason})"
    return MetricResult(
        name=f"{short} ({first} − {second})",
        value=value,
        per_item=rates,
        item_unit="group",
        item_labels=prep.labels,
        sizes=sizes,
        reason=reason,
        details={
            "rate": spec.rate,
            "groups": [str(first), str(second)],
            "rates": dict(zip(names, rates.tolist(), strict=True)),
            "numerators": dict(zip(names, num.astype(int).tolist(), strict=True)),
            "denominators": dict(zip(names, den.astype(int).tolist(), strict=True)),
        },
        resampler=resampler,
        rate_counts=rate_counts_of(prep, spec, units, "difference", columns=(i, j)),
        value_range=(-1.0, 1.0),
        higher_is_fairer=False,
        params={"pos_label": label(pos_label) if pos_label is not None else None, "first": first, "second": second},
    )
