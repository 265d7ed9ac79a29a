"""Numeric outcomes (task ``estimation``, beyond the paper; issue 36): the numbers a use case answers, compared between
the counterfactual versions of each prompt.

An assistant that advises a salary, a price or a credit limit is asked each request once per group, with only the
group words or the person's name changed (the name-audit design of Haim, Salinas and Nyarko 2024), and the number
read from each reply (:func:`evenhand.text.numbers.parse_numbers`) is compared pair by pair. A pair is one (prompt,
sample): sample ``j`` of the group-A version against sample ``j`` of the group-B version. Both metrics are signed,
first group against second, 0 at parity:

* Counterfactual Estimate Ratio ``CER = exp((1/N) sum_i log(y'_i / y''_i)) - 1``: the geometric mean of the
  per-pair ratios, minus 1 (-0.081: the first group's numbers are 8.1% lower for the same prompt). On the log scale
  each prompt's own size cancels (a car's price and a salary weigh alike). Pairs where either number is 0 or negative
  have no ratio and are left out of CER. Range (-1, inf).
* Counterfactual Estimate Difference ``CED = (1/N) sum_i (y'_i - y''_i)``: the mean difference in the answers' unit
  (-6,300: dollars). Range (-inf, inf).

A pair whose reply on either side held no number (NaN: a refusal, a non-answer) is left out of both; ``details``
count such replies per side (``unparsed_a``, ``unparsed_b``), since a model that declines one group's version more
often shows it there. With ``prompts=`` the resampling unit is the prompt with all its pairs. Their tests are the
paired sign-flip permutation over prompts (:func:`evenhand.stats.paired_prompt_test`: the log numbers for CER, the
numbers for CED), their same-version noise floor :func:`evenhand.stats.estimate_noise_floor`.

:func:`estimate_summary` describes each group's numbers (how many replies held one, refused or held none; mean,
median, spread) for any design.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import (
    FloatArray,
    as_array,
    as_float_array,
    check_same_length,
    paired_by_position,
    power_of_two_scale,
)
from evenhand.errors import InputError
from evenhand.metrics._result import MetricResult, Resampler, prompt_units, undefined
from evenhand.registry import METRICS

BoolArray = npt.NDArray[np.bool_]

_BEYOND_FLOATS = "is beyond the largest floating-point number (about 1.8e308): the numbers compared are too large"


def _expm1(x: float) -> float:
    """``exp(x) - 1``; infinity (not OverflowError) where it is no float."""
    try:
        return math.expm1(x)
    except OverflowError:
        return math.inf


def _mean(values: FloatArray, average: Any = np.mean) -> float:
    """The mean (or ``average=np.median``) of finite ``values`` without overflow (NaN for none): taken after an exact
    power-of-two scaling (the median of two numbers is their mean)."""
    if not values.size:
        return math.nan
    scale = power_of_two_scale(values)
    return float(average(values / scale)) * scale


def _estimate_pairs(estimates_a: Any, estimates_b: Any) -> tuple[FloatArray, FloatArray]:
    a = as_float_array(estimates_a, "estimates_a", allow_empty=True, allow_nan=True)
    b = as_float_array(estimates_b, "estimates_b", allow_empty=True, allow_nan=True)
    check_same_length(estimates_a=a, estimates_b=b)
    return a, b


def _side_details(a: FloatArray, b: FloatArray, used: BoolArray) -> dict[str, Any]:
    """Each side's mean and median over the pairs compared, and the replies without a number per side."""
    used_mask = np.asarray(used, dtype=bool)
    kept_a, kept_b = a[used_mask], b[used_mask]
    mean_a, mean_b = _mean(kept_a), _mean(kept_b)
    with np.errstate(over="ignore"):
        ratio = float(np.float64(mean_a) / np.float64(mean_b)) - 1.0 if mean_b > 0 and mean_a >= 0 else math.nan
    return {
        "mean_a": mean_a,
        "mean_b": mean_b,
        "median_a": _mean(kept_a, np.median),
        "median_b": _mean(kept_b, np.median),
        "ratio_of_means": ratio if math.isfinite(ratio) else math.nan,  # 1e308 / 1e-10: no float
        "unparsed_a": int(np.isnan(a).sum()),
        "unparsed_b": int(np.isnan(b).sum()),
        "left_out_pairs": int((~used_mask).sum()),
        "total_pairs": int(a.size),
    }


def _mean_over_used(
    key: str,
    per_pair: FloatArray,
    used: BoolArray,
    prompts: Any,
    details: dict[str, Any],
    transform: str,
    scale: float = 1.0,
) -> MetricResult:
    """The mean of ``per_pair * scale`` over the used pairs (``transform="exp"``: ``exp(mean) - 1``), resampling
    prompts with all their used pairs (``prompts=``), else pairs. ``per_pair`` is given divided by ``scale`` (a power
    of two) so that its sums do not overflow; a value that is no float (above about 1.8e308) is NaN with a reason,
    and so is a replicate that is none (NaN: not defined)."""
    spec = METRICS[key]
    used_mask = np.asarray(used, dtype=bool)
    n_used = int(used_mask.sum())
    values = np.where(used_mask, per_pair, 0.0)
    counts = used_mask.astype(np.float64)
    sizes = {"pairs": n_used}
    if prompts is None:
        numerators, denominators, unit = values[used_mask], counts[used_mask], "pair"
    else:
        units = prompt_units(prompts, per_pair.size, "pair")
        numerators, denominators, unit = units.sums(values), units.sums(counts), "prompt"
        keep = denominators > 0  # a prompt none of whose pairs was compared brings nothing to a replicate
        numerators, denominators = numerators[keep], denominators[keep]
        sizes["prompts"] = int(keep.sum())

    def statistic(w: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            mean = (w @ numerators) / (w @ denominators)
            value = np.asarray(np.expm1(mean) if transform == "exp" else mean * scale, dtype=np.float64)
        return np.where(np.isinf(value), np.nan, value)

    with np.errstate(over="ignore"):
        per_item = np.where(used_mask, per_pair * scale, np.nan)
    common: dict[str, Any] = {
        **spec.identity(),
        "per_item": np.where(np.isinf(per_item), np.nan, per_item),
        "item_unit": "pair",
        "sizes": sizes,
        "details": details,
    }
    if n_used == 0:
        why = "no pair where both replies hold a number" if transform != "exp" else (
            "no pair where both replies hold a positive number (a ratio needs two)")  # fmt: skip
        return undefined(reason=why, **common)
    mean = float(values.sum() / n_used)
    value = _expm1(mean) if transform == "exp" else mean * scale
    if not math.isfinite(value):
        return undefined(reason=f"{spec.name} {_BEYOND_FLOATS}", **common)
    return MetricResult(
        value=value,
        resampler=Resampler(unit, int(numerators.size), statistic),
        **common,
    )


@paired_by_position
def counterfactual_estimate_ratio(estimates_a: Any, estimates_b: Any, *, prompts: Any = None) -> MetricResult:
    """Counterfactual Estimate Ratio (CER): ``exp((1/N) sum_i log(y'_i / y''_i)) - 1`` over the ``N`` counterfactual
    pairs where both replies hold a positive number. Range (-1, inf); 0 is parity; -0.081: the first group's numbers
    are 8.1% lower than the second's for the same prompt (geometric mean of the ratios).

    Args:
        estimates_a, estimates_b: the number read from each pair's group-A and group-B reply (NaN where the reply
            held none); lists, NumPy arrays or pandas Series of equal length.
        prompts: optional prompt id of each pair; the resampling unit becomes the prompt with all its pairs.

    ``details``: each side's mean and median over the compared pairs (``mean_a``, ``median_a``, ...), the ratio of
    the means minus 1 (``ratio_of_means``), the replies without a number per side (``unparsed_a``, ``unparsed_b``),
    and the pairs left out (``left_out_pairs``; ``nonpositive_pairs`` of them had a number of 0 or less).

    >>> round(float(counterfactual_estimate_ratio([90, 180], [100, 200])), 6)
    -0.1
    """
    a, b = _estimate_pairs(estimates_a, estimates_b)
    both = ~np.isnan(a) & ~np.isnan(b)
    positive = both & (np.where(both, a, 1.0) > 0) & (np.where(both, b, 1.0) > 0)
    safe_a, safe_b = np.where(positive, a, 1.0), np.where(positive, b, 1.0)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore", under="ignore"):
        ratio = safe_a / safe_b
        # the log of the ratio, or (1e308 / 1e-10 is no float, nor 1e-300 / 1e308 above zero) the difference of logs
        log_ratio = np.where(np.isfinite(ratio) & (ratio > 0), np.log(ratio), np.log(safe_a) - np.log(safe_b))
    log_ratio = np.where(positive, log_ratio, 0.0)
    details = _side_details(a, b, positive)
    details["nonpositive_pairs"] = int((both & ~positive).sum())
    if positive.any():
        details["geometric_mean_a"] = float(np.exp(np.log(a[positive]).mean()))
        details["geometric_mean_b"] = float(np.exp(np.log(b[positive]).mean()))
    return _mean_over_used("counterfactual_estimate_ratio", log_ratio, positive, prompts, details, "exp")


@paired_by_position
def counterfactual_estimate_difference(estimates_a: Any, estimates_b: Any, *, prompts: Any = None) -> MetricResult:
    """Counterfactual Estimate Difference (CED): ``(1/N) sum_i (y'_i - y''_i)``, the first group's number minus the
    second's for the same prompt, in the answers' unit, over the ``N`` pairs where both replies hold a number.
    Range (-inf, inf); 0 is parity.

    Args and ``details`` as in :func:`counterfactual_estimate_ratio` (without the geometric means).

    >>> float(counterfactual_estimate_difference([71_300, 70_000], [77_600, 76_000]))
    -6150.0
    """
    a, b = _estimate_pairs(estimates_a, estimates_b)
    both = ~np.isnan(a) & ~np.isnan(b)
    kept_a, kept_b = np.where(both, a, 0.0), np.where(both, b, 0.0)
    scale = power_of_two_scale(kept_a, kept_b)  # 1.0 unless a number is near the float range's end
    difference = np.where(both, kept_a / scale - kept_b / scale, 0.0)
    details = _side_details(a, b, both)
    return _mean_over_used("counterfactual_estimate_difference", difference, both, prompts, details, "none", scale)


_SUMMARY_COLUMNS = ["group", "replies", "numbers", "refusals", "non_numbers", "share_with_number", "mean", "median",
                    "sd", "min", "max"]  # fmt: skip


def estimate_summary(estimates: Any, groups: Any, *, refusals: Any = None) -> pd.DataFrame:
    """Each group's numbers: one row per group (in order of first appearance) with ``replies``, ``numbers`` (replies
    that held one), ``refusals`` and ``non_numbers`` (the replies without a number that a refusal detector flagged,
    and the others; ``<NA>`` without ``refusals=``), ``share_with_number``, and the ``mean``, ``median``, ``sd``
    (sample standard deviation), ``min`` and ``max`` of its numbers (NaN without any).

    Args:
        estimates: the number read from each reply (NaN where the reply held none).
        groups: each reply's group (the version's group in a counterfactual design, the person's otherwise).
        refusals: optional, per reply: 1 (or True) where the reply is a refusal (e.g. from
            :func:`evenhand.scorers.refusal.get_refusal_scorer`); only replies without a number count as refusals.

    >>> summary = estimate_summary([10.0, 30.0, float("nan"), 5.0], ["a", "a", "a", "b"])
    >>> summary[["group", "numbers", "mean"]].values.tolist()
    [['a', 2, 20.0], ['b', 1, 5.0]]
    """
    values = as_float_array(estimates, "estimates", allow_empty=True, allow_nan=True)
    labels = as_array(groups, "groups", allow_empty=True)
    check_same_length(estimates=values, groups=labels)
    refused = None
    if refusals is not None:
        refused = as_float_array(refusals, "refusals", allow_empty=True, bounds=(0.0, 1.0))
        check_same_length(estimates=values, refusals=refused)
        if not np.isin(refused, (0.0, 1.0)).all():
            raise InputError("refusals: 1 (or True) where a reply is a refusal, else 0")
    codes, names = pd.factorize(pd.Series(labels, dtype=object), sort=False)
    rows = []
    for k, name in enumerate(names):
        mine = codes == k
        numbers = values[mine][~np.isnan(values[mine])]
        missing = int(mine.sum()) - numbers.size
        n_refused: Any = pd.NA if refused is None else int((refused[mine] == 1)[np.isnan(values[mine])].sum())
        rows.append({
            "group": name,
            "replies": int(mine.sum()),
            "numbers": int(numbers.size),
            "refusals": n_refused,
            "non_numbers": pd.NA if refused is None else missing - n_refused,
            "share_with_number": numbers.size / mine.sum(),
            "mean": float(numbers.mean()) if numbers.size else math.nan,
            "median": float(np.median(numbers)) if numbers.size else math.nan,
            "sd": float(numbers.std(ddof=1)) if numbers.size > 1 else math.nan,
            "min": float(numbers.min()) if numbers.size else math.nan,
            "max": float(numbers.max()) if numbers.size else math.nan,
        })  # fmt: skip
    frame = pd.DataFrame.from_records(rows, columns=_SUMMARY_COLUMNS)
    return frame.astype({"refusals": "Int64", "non_numbers": "Int64"})
