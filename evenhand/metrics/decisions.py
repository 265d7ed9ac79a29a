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

from dataclasses import replace
from typing import Any

import numpy as np

from evenhand._validation import FloatArray, as_array, as_float_array, check_same_length, paired_by_position
from evenhand.errors import InputError
from evenhand.metrics._result import MetricResult, paired_mean, undefined
from evenhand.metrics.rate_gap import signed_rate_gap
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


@paired_by_position
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


@paired_by_position
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


def _error_rate_gap(key: str, rate_key: str, truth: Any, decisions_a: Any, decisions_b: Any, prompts: Any
                    ) -> MetricResult:  # fmt: skip
    """The signed difference of one error rate between the A and B versions of the same cases: the classification
    family's rate engine (:func:`~evenhand.metrics.signed_rate_gap` of ``rate_key``) on the versions' answers, each
    version a row of its group, each case's true outcome on both of its rows, so the per-group rates, their resampler
    (prompts, or pairs, with both their versions) and counts are the person-level metric's, under the paired view."""
    spec = METRICS[key]
    a, b = _decision_pairs(decisions_a, decisions_b)
    t = as_float_array(truth, "truth", bounds=(0.0, 1.0))
    n = check_same_length(truth=t, decisions_a=a, decisions_b=b)
    if not np.isin(t, (0.0, 1.0)).all():
        raise InputError("truth: 1 where the case's true outcome is the counted class, else 0")
    units = np.arange(n) if prompts is None else as_array(prompts, "prompts")
    check_same_length(truth=t, prompts=units)
    gap = signed_rate_gap(rate_key, np.concatenate([t, t]) == 1, np.concatenate([a, b]) == 1,
                          np.array(["a"] * n + ["b"] * n), first="a", second="b",
                          prompts=np.concatenate([units, units]))  # fmt: skip
    cases = int(gap.details["denominators"]["a"])
    if cases == 0:
        which = "is the counted class" if spec.harm == "false negatives" else "is another class"
        return undefined(spec.name, f"no counterfactual pair whose true outcome {which}", value_range=spec.value_range)
    rates, errors = gap.details["rates"], gap.details["numerators"]
    details = {"rate_a": rates["a"], "rate_b": rates["b"], "errors_a": errors["a"], "errors_b": errors["b"],
               "cases": cases}  # fmt: skip
    sizes = {"pairs": n, "cases": cases, **({"prompts": gap.sizes["prompts"]} if prompts is not None else {})}
    return replace(gap, **spec.identity(), details=details, sizes=sizes, params={})


@paired_by_position
def counterfactual_false_negative_rate_difference(
    truth: Any, decisions_a: Any, decisions_b: Any, *, prompts: Any = None
) -> MetricResult:
    """Counterfactual false negative rate difference (CFNRD): ``FNR' - FNR''`` over the counterfactual pairs whose
    true outcome is the counted class (``t_i = 1``), ``FNR' = sum_i t_i (1 - d'_i) / sum_i t_i``: the share of those
    cases the A version misses, minus the B version's. Range [-1, 1], signed (above 0: the A version is denied what
    it should get more often); 0 is fairer. The same rate as FNRD (paper 3.2.2), computed by the same engine on the
    versions of the same cases instead of groups of different persons.

    Args:
        truth: 1 where pair ``i``'s case truly is the counted class (approve), else 0 (the same for both versions).
        decisions_a, decisions_b: 1 where pair ``i``'s version for group A (B) got the counted class, else 0.
        prompts: optional prompt id of each pair: the resampling unit becomes the prompt with all its pairs.

    ``details``: ``rate_a``, ``rate_b`` (each version's FNR), ``errors_a``, ``errors_b`` and ``cases`` (the pairs
    in the rate's denominator).

    >>> float(counterfactual_false_negative_rate_difference([1, 1, 1, 1, 0], [0, 0, 1, 1, 0], [1, 0, 1, 1, 1]))
    0.25
    """
    return _error_rate_gap("counterfactual_false_negative_rate_difference", "false_negative_rate_difference", truth,
                           decisions_a, decisions_b, prompts)  # fmt: skip


@paired_by_position
def counterfactual_false_positive_rate_difference(
    truth: Any, decisions_a: Any, decisions_b: Any, *, prompts: Any = None
) -> MetricResult:
    """Counterfactual false positive rate difference (CFPRD): ``FPR' - FPR''`` over the counterfactual pairs whose
    true outcome is another class (``t_i = 0``), ``FPR' = sum_i (1 - t_i) d'_i / sum_i (1 - t_i)``: the share of
    those cases the A version is given the counted class, minus the B version's. Range [-1, 1], signed; 0 is fairer.
    The same rate as FPRD (paper 3.2.2), by the same engine, over the versions of the same cases.

    Args:
        truth, decisions_a, decisions_b, prompts: as in :func:`counterfactual_false_negative_rate_difference`.

    >>> float(counterfactual_false_positive_rate_difference([0, 0, 0, 0, 1], [1, 0, 0, 0, 1], [0, 0, 0, 0, 0]))
    0.25
    """
    return _error_rate_gap("counterfactual_false_positive_rate_difference", "false_positive_rate_difference", truth,
                           decisions_a, decisions_b, prompts)  # fmt: skip
