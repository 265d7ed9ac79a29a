"""CER and CED at the edge of the float range (faults14): numbers near 1e308 gave ``inf`` without a reason (CED's
sum overflowed even where the mean is a float, CER's ratio 1e308 / 1e-10 overflowed before its log). Now a value that
is a float is computed without overflow, and one that is not (a difference above 1.8e308, a ratio above it) is NaN
with a reason; never ``inf``, never a RuntimeWarning."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.metrics.estimation import counterfactual_estimate_difference, counterfactual_estimate_ratio
from evenhand.stats import confidence_interval

BIG = 1e308


def _quiet(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return function(*args, **kwargs)


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([BIG, BIG], [0.0, 0.0], BIG),
        ([1.7e308] * 3, [1e308] * 3, 7e307),
        ([1.7e308, -1.7e308], [0.0, 0.0], 0.0),
        ([1e308, 5e307], [-5e307, -1e308], 1.5e308),
    ],
)
def test_ced_of_huge_numbers_is_their_mean_difference(a: list[float], b: list[float], expected: float) -> None:
    result = _quiet(counterfactual_estimate_difference, a, b, prompts=[f"p{i}" for i in range(len(a))])
    assert result.reason is None and math.isclose(result.value, expected, rel_tol=1e-12, abs_tol=1e-300)
    assert np.isfinite(result.details["mean_a"]) and np.isfinite(result.details["mean_b"])


def test_ced_beyond_the_float_range_is_nan_with_a_reason() -> None:
    result = _quiet(counterfactual_estimate_difference, [BIG, BIG], [-BIG, -BIG], prompts=["p", "q"])
    assert math.isnan(result.value) and "largest" in (result.reason or ""), result.reason


@pytest.mark.parametrize(("a", "b"), [([BIG], [1e-10]), ([BIG, BIG], [1e-300, 1e-300]), ([1e-300], [BIG])])
def test_cer_beyond_the_float_range_is_nan_with_a_reason(a: list[float], b: list[float]) -> None:
    result = _quiet(counterfactual_estimate_ratio, a, b)
    if a[0] < b[0]:  # 1e-300 / 1e308: the ratio is 1e-608, CER = -1 to the last digit: a float
        assert result.reason is None and result.value == -1.0
        return
    assert math.isnan(result.value) and "largest" in (result.reason or ""), result.reason
    assert not np.isinf(result.details["ratio_of_means"])


def test_cer_of_huge_numbers_whose_ratio_is_a_float_is_computed() -> None:
    result = _quiet(counterfactual_estimate_ratio, [BIG, 1.5e308], [5e307, 7.5e307])
    assert result.reason is None and math.isclose(result.value, 1.0, rel_tol=1e-12)


def test_the_interval_of_a_huge_ced_is_computed() -> None:
    a = [1.5e308, 1.6e308, 1.7e308, 1.4e308]
    result = _quiet(counterfactual_estimate_difference, a, [1e308] * 4, prompts=["p", "q", "r", "s"])
    interval = _quiet(confidence_interval, result, n_resamples=200)
    assert interval.n_valid == 200 and 4e307 <= interval.low <= interval.high <= 7e307, interval


finite = st.floats(min_value=-1.7976931348623157e308, max_value=1.7976931348623157e308, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(pairs=st.lists(st.tuples(finite, finite), min_size=1, max_size=6))
def test_ced_and_cer_are_never_inf_and_nan_says_why(pairs: list[tuple[float, float]]) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    for metric in (counterfactual_estimate_difference, counterfactual_estimate_ratio):
        result = _quiet(metric, a, b)
        assert not math.isinf(result.value), (metric.__name__, a, b)
        assert math.isfinite(result.value) or result.reason, (metric.__name__, a, b)
        assert not np.isinf(result.per_item).any()
    exact = sum(x - y for x, y in pairs) / len(pairs)  # Python floats: inf where the true mean is out of range
    ced = counterfactual_estimate_difference(a, b).value
    if math.isfinite(exact) and abs(exact) < 1e307:
        assert math.isclose(ced, exact, rel_tol=1e-9, abs_tol=1e-9 * max(abs(x) for p in pairs for x in p))


def test_the_paired_test_of_huge_numbers_gives_the_p_value_it_gives_at_any_scale() -> None:
    """CED's sign-flip test on numbers near 1e308 summed them into inf: statistic NaN, p-value 0.0 (a finding from
    nothing). The mean difference is now tested at an exact power-of-two scale: the same p-value as 1.5, 1.6, ..."""
    from evenhand.stats import paired_prompt_test

    small = _quiet(paired_prompt_test, [1.5, 1.6, 1.7, 1.4], [1.0] * 4, ["p", "q", "r", "s"], n_permutations=99)
    huge = _quiet(paired_prompt_test, [1.5e308, 1.6e308, 1.7e308, 1.4e308], [1e308] * 4, ["p", "q", "r", "s"],
                  n_permutations=99)  # fmt: skip
    assert huge.p_value == small.p_value and math.isclose(huge.statistic, small.statistic * 1e308, rel_tol=1e-9)
    beyond = _quiet(paired_prompt_test, [BIG] * 4, [-BIG] * 4, ["p", "q", "r", "s"], n_permutations=99)
    assert math.isnan(beyond.p_value) and beyond.reason


def test_the_paired_log_ratio_test_of_huge_numbers_is_the_one_at_ordinary_scale() -> None:
    """faults17: the ``log_ratio`` statistic summed numbers near 1e308 into inf: log(inf / inf) is NaN with p-value 0.0
    or 1.0 (a finding, or its absence, from nothing). The ratio does not depend on the scale: taken at an exact
    power-of-two scale it is the statistic and p-value of the same numbers at ordinary size (the + 1/2 of each total
    scaled with them)."""
    from evenhand.stats import paired_prompt_test

    ratio = [1.5, 1.6, 1.7, 1.4, 1.7, 1.5]
    huge = [x * 1e308 for x in ratio]
    prompts = ["p", "q", "r", "s", "t", "u"]
    scaled = _quiet(paired_prompt_test, huge, [1e308] * 6, prompts, statistic="log_ratio", n_permutations=99)
    plain = _quiet(paired_prompt_test, ratio, [1.0] * 6, prompts, statistic="log_ratio", n_permutations=99)
    assert math.isfinite(scaled.statistic) and scaled.p_value == plain.p_value, (scaled, plain)
    assert math.isclose(scaled.statistic, math.log(sum(ratio) / 6.0), rel_tol=1e-9)
    # the same numbers at an ordinary scale keep their exact + 1/2
    assert math.isclose(plain.statistic, math.log((sum(ratio) + 0.5) / 6.5), rel_tol=1e-12)
    flipped = _quiet(paired_prompt_test, [1e308] * 6, huge, prompts, statistic="log_ratio", n_permutations=99)
    assert math.isclose(flipped.statistic, -scaled.statistic, rel_tol=1e-12) and flipped.p_value == scaled.p_value


def test_a_log_ratio_of_a_negative_total_is_nan_with_a_reason_never_a_p_value() -> None:
    from evenhand.stats import paired_prompt_test

    result = _quiet(paired_prompt_test, [-3.0, -2.0, -4.0], [1.0, 2.0, 1.0], statistic="log_ratio", n_permutations=99)
    assert math.isnan(result.statistic) and math.isnan(result.p_value) and "above -1/2" in (result.reason or "")
