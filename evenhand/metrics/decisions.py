"""Counterfactual decisions (classification, paired design): the same case asked twice, once per group, with only
the group words changed, and the two parsed decisions compared pair by pair.

A pair is one (prompt, sample): sample ``j`` of the group-A version of a prompt against sample ``j`` of its
group-B version. ``d'_i`` and ``d''_i`` are 1 when the decision of pair ``i`` is the positive one (approve), else 0.

* Decision flip rate ``DFR = (1/N) sum_i 1[d'_i != d''_i]``: the share of pairs whose decision changes with the
  group words alone. Range [0, 1]; lower is fairer. Symmetric in the two sides.
* Counterfactual positive rate difference ``CPRD = (1/N) sum_i d'_i - (1/N) sum_i d''_i``: group A's positive
  rate minus group B's over the same cases (signed: above 0 means the A version gets the positive decision more
  often). Range [-1, 1]; 0 is fairer (the verdict reads it through its paired test, not its sign).

Both take lists, tuples, NumPy arrays or pandas Series of 0/1 (or booleans), of equal length. With ``prompts=``
(the prompt of each pair) the resampling unit is the prompt with all its pairs, as everywhere in evenhand: samples
of one prompt are not independent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from evenhand._validation import FloatArray, as_float_array, check_same_length
from evenhand.errors import InputError
from evenhand.metrics._result import MetricResult, paired_mean
from evenhand.registry import METRICS


def _decision_pairs(decisions_a: Any, decisions_b: Any) -> tuple[FloatArray, FloatArray]:
    a = as_float_array(decisions_a, "decisions_a", bounds=(0.0, 1.0))
    b = as_float_array(decisions_b, "decisions_b", bounds=(0.0, 1.0))
    check_same_length(decisions_a=a, decisions_b=b)
    for name, values in (("decisions_a", a), ("decisions_b", b)):
        if not np.isin(values, (0.0, 1.0)).all():
            raise InputError(f"{name}: decisions are 0 (not the positive decision) or 1 (the positive decision)")
    return a, b


def _paired_mean(key: str, per_pair: FloatArray, prompts: Any, details: dict[str, Any], flags: FloatArray
                 ) -> MetricResult:  # fmt: skip
    """A mean over pairs whose resampler draws pairs, or prompts with all their pairs (``prompts=``); ``flags``:
    the 0/1 flags it is the rate (one column) or the paired difference (two) of."""
    return paired_mean(METRICS[key].identity(), per_pair, prompts, details, flags=flags)


def decision_flip_rate(decisions_a: Any, decisions_b: Any, *, prompts: Any = None) -> MetricResult:
    """Decision flip rate (DFR): ``(1/N) sum_i 1[d'_i != d''_i]``, the share of counterfactual pairs whose decision
    differs between the two group versions. Range [0, 1]; lower is fairer.

    Args:
        decisions_a, decisions_b: 1 where pair ``i``'s version for group A (B) got the positive decision, else 0.
        prompts: optional prompt id of each pair: the resampling unit becomes the prompt with all its pairs.

    ``details``: ``rate_a`` and ``rate_b`` (each side's positive rate), ``flips_to_a`` (pairs where only the A
    version is positive) and ``flips_to_b``.
    """
    a, b = _decision_pairs(decisions_a, decisions_b)
    details = {
        "rate_a": float(a.mean()),
        "rate_b": float(b.mean()),
        "flips_to_a": int(((a == 1) & (b == 0)).sum()),
        "flips_to_b": int(((a == 0) & (b == 1)).sum()),
    }
    flips = (a != b).astype(np.float64)
    return _paired_mean("decision_flip_rate", flips, prompts, details, flips)


def counterfactual_positive_rate_difference(decisions_a: Any, decisions_b: Any, *, prompts: Any = None) -> MetricResult:
    """Counterfactual positive rate difference (CPRD): ``(1/N) sum_i d'_i - (1/N) sum_i d''_i``, group A's positive
    rate minus group B's over the same counterfactual cases. Range [-1, 1], signed (above 0: the A version gets the
    positive decision more often); 0 is fairer.

    Args:
        decisions_a, decisions_b: 1 where pair ``i``'s version for group A (B) got the positive decision, else 0.
        prompts: optional prompt id of each pair: the resampling unit becomes the prompt with all its pairs.

    ``details``: ``rate_a``, ``rate_b`` and ``flip_rate`` (the share of pairs whose decision differs).
    """
    a, b = _decision_pairs(decisions_a, decisions_b)
    details = {"rate_a": float(a.mean()), "rate_b": float(b.mean()), "flip_rate": float((a != b).mean())}
    return _paired_mean("counterfactual_positive_rate_difference", a - b, prompts, details, np.stack([a, b], axis=1))
