"""Benjamini-Hochberg adjustment when several group pairs, attributes or metrics are tested at once."""

from __future__ import annotations

from typing import Any

import numpy as np

from evenhand._validation import as_float_array
from evenhand.errors import InputError
from evenhand.metrics._result import FloatArray


def benjamini_hochberg(p_values: Any) -> FloatArray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate control).

    With the ``m`` defined p-values sorted, ``p_(1) <= ... <= p_(m)``, the adjusted value of ``p_(i)`` is
    ``min_{j >= i} min(1, m * p_(j) / j)``. Rejecting every hypothesis whose adjusted p-value is at most ``q``
    keeps the expected share of false rejections at most ``q`` (for independent or positively dependent tests).
    Range: [0, 1], never below the raw p-value.

    NaN p-values (tests that were undefined) stay NaN and do not count towards ``m``. Computed with
    :func:`scipy.stats.false_discovery_control`.
    """
    p = as_float_array(p_values, "p_values", allow_empty=True, allow_nan=True)
    defined = ~np.isnan(p)
    if (p[defined] < 0).any() or (p[defined] > 1).any():
        bad = int(np.flatnonzero(defined & ((p < 0) | (p > 1)))[0])
        raise InputError(f"p_values must lie in [0, 1]; p_values[{bad}] = {p[bad]!r}")
    out = np.full(p.shape, np.nan)
    if defined.any():
        from scipy.stats import false_discovery_control

        out[defined] = false_discovery_control(p[defined], method="bh")
    return out


def omnibus_then_pairs(p_values: Any, families: Any) -> FloatArray:
    """Adjusted p-values for tests that come in families (one metric's pairs of groups of one attribute).

    Attributes with many groups test many pairs: religion's 15 pairs × 5 metrics. A flat Benjamini-Hochberg
    adjustment bounds the share of false findings among the findings, so where one group is treated differently its
    true findings let chance findings on untouched pairs through. Here each family first gets an omnibus test
    (Bonferroni: ``min(1, k * min p)`` over its ``k`` defined p-values); the omnibus p-values are adjusted by
    Benjamini-Hochberg across the families; and a pair's adjusted p is the larger of its family's adjusted omnibus p
    and its Holm-adjusted p within the family (so within a family that shows a difference, the pairs that carry it
    are found with the chance of any false pair held at the level)::

        p_adjusted(pair) = max(BH(omnibus)[family], Holm(p within family)[pair])

    A family of one test (two groups) gets exactly its Benjamini-Hochberg adjusted p. Where nothing differs at all,
    a pair can only be rejected at level ``q`` when its family's omnibus is, so the chance of any rejection stays at
    most ``q`` (as with the flat adjustment). NaN p-values stay NaN and count nowhere.
    """
    p = as_float_array(p_values, "p_values", allow_empty=True, allow_nan=True)
    labels = np.asarray(families, dtype=object)
    if labels.shape[0] != p.size:
        raise InputError(f"families has {labels.shape[0]} labels for {p.size} p-values; give one per p-value")
    benjamini_hochberg(p)  # validates the range
    keys = [tuple(x) if isinstance(x, (list, tuple, np.ndarray)) else (x,) for x in labels]
    members: dict[tuple[Any, ...], list[int]] = {}
    for i, key in enumerate(keys):
        if not np.isnan(p[i]):
            members.setdefault(key, []).append(i)
    out = np.full(p.shape, np.nan)
    if not members:
        return out
    omnibus = np.array([min(1.0, len(idx) * float(p[idx].min())) for idx in members.values()])
    adjusted = benjamini_hochberg(omnibus)
    for gate, idx in zip(adjusted, members.values(), strict=True):
        within = p[idx]
        order = np.argsort(within, kind="stable")
        k = len(idx)
        holm = np.maximum.accumulate(np.minimum(1.0, (k - np.arange(k)) * within[order]))
        for rank, position in enumerate(order):
            out[idx[position]] = max(float(gate), float(holm[rank]))
    return out
