"""Two runs compared on few prompts (evenhand.comparison): the difference's interval follows the runs' own
small-sample rule (evenhand.stats.difference_bounds) instead of a percentile bootstrap that undercovers there."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.stats import COMPARE_SMALL_UNITS, SMALL_UNITS, difference_bounds
from evenhand.stats._small_sample import jackknife_t_interval

T_3 = 3.182446305284263  # t_{3, 0.975}


def mean_result(values: list[float] | np.ndarray) -> MetricResult:
    x = np.asarray(values, dtype=np.float64)
    return MetricResult("m", float(x.mean()), resampler=mean_resampler(x, "prompt"), value_range=(0.0, 1.0))


def test_paired_by_hand_is_the_paired_t_interval() -> None:
    # per-prompt differences 0.1, 0.2, 0.0, 0.1: mean 0.1, s = sqrt(0.02 / 3), standard error s / 2, t with 3 df
    a, b = [0.2, 0.3, 0.5, 0.4], [0.3, 0.5, 0.5, 0.5]
    low, high, method = difference_bounds(mean_result(a), mean_result(b), paired=True)  # type: ignore[misc]
    half = T_3 * math.sqrt(0.02 / 3) / 2
    assert (low, high) == pytest.approx((0.1 - half, 0.1 + half))
    assert method == "student-t on jackknife prompts"


def test_independent_by_hand_is_mover_of_each_runs_t_interval() -> None:
    a, b = mean_result([0.2, 0.3, 0.5, 0.4]), mean_result([0.3, 0.5, 0.5, 0.5])
    ia, ib = jackknife_t_interval(a), jackknife_t_interval(b)
    assert ia is not None and ib is not None
    low, high, method = difference_bounds(a, b, paired=False)  # type: ignore[misc]
    d = ib.estimate - ia.estimate
    assert low == pytest.approx(d - math.hypot(ib.estimate - ib.low, ia.high - ia.estimate))
    assert high == pytest.approx(d + math.hypot(ib.high - ib.estimate, ia.estimate - ia.low))
    assert method.startswith("MOVER")


def test_every_prompt_moved_alike_is_not_exact() -> None:
    # each of 12 prompts moved by exactly +0.1: the bootstrap says [0.1, 0.1]; the none-off bound does not
    a = np.linspace(0.1, 0.6, 12)
    low, high, method = difference_bounds(mean_result(a), mean_result(a + 0.1), paired=True)  # type: ignore[misc]
    assert low < 0.1 < high and method == "none of 12 prompts off the value"
    assert low >= -1.0 and high <= 1.0


def test_a_run_compared_with_itself_keeps_an_exact_zero() -> None:
    a = mean_result([0.2, 0.3, 0.5])
    assert difference_bounds(a, a, paired=True) is None  # the caller's bootstrap gives [0, 0]


def test_from_small_units_on_the_bootstrap_is_kept() -> None:
    rng = np.random.default_rng(0)
    a = mean_result(rng.uniform(size=SMALL_UNITS))
    assert difference_bounds(a, a, paired=False) is None
    assert difference_bounds(a, mean_result(rng.uniform(size=SMALL_UNITS)), paired=True) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=SMALL_UNITS - 1),
    st.booleans(),
)
def test_difference_bounds_hold_the_estimate_within_the_range(pairs: list[tuple[float, float]], paired: bool) -> None:
    a, b = mean_result([p[0] for p in pairs]), mean_result([p[1] for p in pairs])
    bounds = difference_bounds(a, b, paired=paired)
    if bounds is None:
        return
    low, high, _ = bounds
    d = float(b.value) - float(a.value)
    assert -1.0 - 1e-12 <= low <= d + 1e-12 and d - 1e-12 <= high <= 1.0 + 1e-12


def test_paired_agrees_with_scipy_on_random_prompts() -> None:
    rng = np.random.default_rng(3)
    a = rng.uniform(0.2, 0.8, size=9)
    b = np.clip(a + rng.normal(0.05, 0.1, size=9), 0, 1)
    low, high, _ = difference_bounds(mean_result(a), mean_result(b), paired=True)  # type: ignore[misc]
    d = b - a
    ref = sps.t.interval(0.95, d.size - 1, loc=d.mean(), scale=d.std(ddof=1) / math.sqrt(d.size))
    assert (low, high) == pytest.approx(ref)


@pytest.mark.pipeline
def test_planted_bias_on_few_prompts_is_still_worse_on_the_small_sample_interval() -> None:
    from test_compare_fixtures import biased_run, fair_run

    import evenhand

    result = evenhand.compare(fair_run(), biased_run())
    scsp = next(r for r in result.to_dict()["metrics"] if r["metric"] == "SCSP")["differences"][0]
    assert f"fewer than {COMPARE_SMALL_UNITS} units" in scsp["note"]
    assert "student-t on jackknife prompts" in scsp["note"]
    assert scsp["ci_low"] > 0 and scsp["change"] == "worse"
