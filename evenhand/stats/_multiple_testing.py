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
