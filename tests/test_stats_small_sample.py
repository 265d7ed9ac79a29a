"""Continuous metrics' intervals on few units (stats5): Student's t on the jackknife standard error, the "none off
the value" bound when every unit agrees, the bootstrap from SMALL_UNITS units on (evenhand.stats._small_sample)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult, Resampler, mean_resampler, ratio_resampler
from evenhand.registry import METRICS
from evenhand.stats import (
    SMALL_UNITS,
    confidence_interval,
    continuous_interval,
    metric_interval,
    none_off_bounds,
    small_sample_interval,
)
from evenhand.stats._small_sample import jackknife_standard_error, jackknife_t_interval

T_1 = 12.706204736174707  # t_{1, 0.975}
T_2 = 4.302652729749464  # t_{2, 0.975}


def mean_result(values: list[float], value_range: tuple[float, float] = (0.0, 1.0)) -> MetricResult:
    x = np.asarray(values, dtype=np.float64)
    return MetricResult("m", float(x.mean()), resampler=mean_resampler(x, "prompt"), value_range=value_range)


def test_two_units_by_hand() -> None:
    # mean 0.51, s = 0.01 * sqrt(2), standard error s / sqrt(2) = 0.01, t with 1 degree of freedom
    iv = jackknife_t_interval(mean_result([0.50, 0.52]))
    assert iv is not None and iv.method == "student-t on jackknife prompts" and iv.n_resamples == 0
    assert iv.standard_error == pytest.approx(0.01)
    assert (iv.low, iv.high) == pytest.approx((0.51 - T_1 * 0.01, 0.51 + T_1 * 0.01))
    # the reported interval reaches at least "none of 2 prompts off the value" (review11)
    reported = metric_interval(mean_result([0.50, 0.52]), "bootstrap")
    assert (reported.low, reported.high) == pytest.approx(none_off_bounds(0.51, (0.0, 1.0), 2, 0.95))
    assert reported.method == "student-t on jackknife prompts, joined with none of 2 prompts off the value"


def test_three_units_by_hand() -> None:
    # mean 0.45, s = 0.05, standard error 0.05 / sqrt(3), t with 2 degrees of freedom
    iv = jackknife_t_interval(mean_result([0.40, 0.45, 0.50]))
    assert iv is not None
    half = T_2 * 0.05 / math.sqrt(3)
    assert (iv.low, iv.high) == pytest.approx((0.45 - half, 0.45 + half))


def test_the_t_interval_is_clipped_to_the_range() -> None:
    iv = jackknife_t_interval(mean_result([0.1, 0.2, 0.6]))  # 0.3 -+ 4.30 * 0.153 = [-0.357, 0.957]
    assert iv is not None and iv.low == 0.0 and iv.high == pytest.approx(0.3 + T_2 * math.sqrt(0.07 / 3))


def test_identical_units_by_hand() -> None:
    # q = 1 - 0.025^(1/k): the Clopper-Pearson bound for none of k units off the value
    q2, q3 = 1 - 0.025**0.5, 1 - 0.025 ** (1 / 3)
    iv = metric_interval(mean_result([0.3, 0.3]), "bootstrap")
    assert iv.method == "none of 2 prompts off the value"
    assert (iv.low, iv.high) == pytest.approx((0.3 - q2 * 0.3, 0.3 + q2 * 0.7))
    at_one = metric_interval(mean_result([1.0, 1.0, 1.0]), "bootstrap")
    assert (at_one.low, at_one.high) == pytest.approx((1 - q3, 1.0))
    signed = metric_interval(mean_result([0.0, 0.0], (-1.0, 1.0)), "bootstrap")
    assert (signed.low, signed.high) == pytest.approx((-q2, q2))


def test_a_rate_at_zero_gets_the_rate_intervals_bound() -> None:
    # a continuous metric whose units all sit at 0 and a rate with none of k prompts: the same upper bound
    for k in (2, 5, 40):
        low, high = none_off_bounds(0.0, (0.0, 1.0), k, 0.95)
        tf = M.toxic_fraction(np.zeros(3 * k), prompts=np.repeat(np.arange(k), 3))
        rate = metric_interval(tf, "rate")
        assert low == 0.0 and high == pytest.approx(rate.high)


def test_a_value_a_rounding_error_past_its_range_stays_inside_its_interval() -> None:
    over = 1.0 + 1e-7  # a float32 cosine of identical embeddings
    for values in ([over, over], [over, over - 1e-3, over]):
        iv = metric_interval(mean_result(values, (-1.0, 1.0)), "bootstrap")
        assert iv.contains(float(np.mean(values))) and iv.low < iv.high


def test_unbounded_range_and_identical_units_say_why() -> None:
    iv = metric_interval(mean_result([0.2, 0.2, 0.2], (-1.0, math.inf)), "bootstrap")
    assert math.isnan(iv.low) and math.isnan(iv.high) and "unbounded" in (iv.reason or "")


def test_ratio_jackknife_is_the_linearised_standard_error() -> None:
    num, den = np.array([1.0, 2.0, 2.0, 4.0]), np.array([2.0, 2.0, 3.0, 5.0])
    se, df = jackknife_standard_error(ratio_resampler(num, den, "prompt"))
    loo = np.array([(num.sum() - num[i]) / (den.sum() - den[i]) for i in range(4)])
    assert df == 3 and se == pytest.approx(math.sqrt(3 / 4 * np.sum((loo - loo.mean()) ** 2)))


def test_strata_are_jackknifed_within_with_welch_satterthwaite_degrees_of_freedom() -> None:
    x = np.array([0.1, 0.3, 0.2, 0.6, 0.7, 0.2])
    plain = mean_resampler(x, "row")
    stratified = Resampler("row", 6, plain.statistic, strata=np.array(["a", "a", "a", "b", "b", "b"]))
    se, df = jackknife_standard_error(stratified)
    loo = np.array([(x.sum() - x[i]) / 5 for i in range(6)])
    shares = [2 / 3 * np.sum((part - part.mean()) ** 2) for part in (loo[:3], loo[3:])]
    expected = sum(shares)
    # stats17: Welch-Satterthwaite (at most units minus strata, 4, and at least the smallest stratum's 2)
    assert df == pytest.approx(expected**2 / sum(v * v / 2 for v in shares)) and 2 <= df <= 4
    assert se == pytest.approx(math.sqrt(expected))


def test_an_undefined_leave_one_out_falls_back_to_the_bootstrap() -> None:
    # a stratum of one unit: leaving it out leaves the statistic undefined
    x = np.array([0.1, 0.3, 0.5])
    plain = mean_resampler(x, "row")
    stratified = Resampler("row", 3, plain.statistic, strata=np.array(["a", "a", "b"]))
    result = MetricResult("m", 0.3, resampler=stratified)
    assert small_sample_interval(result) is None
    assert continuous_interval(result, n_resamples=200).method.startswith("percentile")


def test_many_units_keep_the_bootstrap_unless_every_unit_agrees() -> None:
    rng = np.random.default_rng(3)
    result = mean_result(list(rng.beta(6, 3, size=SMALL_UNITS)))
    before = confidence_interval(result, n_resamples=300, seed=1)
    after = metric_interval(result, "bootstrap", n_resamples=300, seed=1)
    low, high = none_off_bounds(result.value, (0.0, 1.0), SMALL_UNITS, 0.95)  # review11: at least none off
    assert (after.low, after.high) == (min(before.low, low), max(before.high, high))
    assert after.estimate == before.estimate and after.n_resamples == before.n_resamples
    alike = metric_interval(mean_result([0.7] * 40), "bootstrap", n_resamples=300)
    assert alike.method == "none of 40 prompts off the value"
    assert (alike.low, alike.high) == pytest.approx(none_off_bounds(0.7, (0.0, 1.0), 40, 0.95))
    assert alike.width > 0


def test_real_metrics_on_two_prompts_with_alike_replies() -> None:
    prompts = np.repeat(["p1", "p2"], 3)
    emt = M.expected_maximum_toxicity(np.full(6, 0.03), prompts)
    scsp = M.strict_sentiment_parity(np.full(6, 0.6), np.full(6, 0.6), prompts=prompts)
    mtd = M.mean_toxicity_difference(np.full(6, 0.1), np.full(6, 0.1), prompts=prompts)
    for result, key in ((emt, "expected_maximum_toxicity"), (scsp, "strict_sentiment_parity"),
                        (mtd, "mean_toxicity_difference")):  # fmt: skip
        iv = metric_interval(result, METRICS[key].interval)
        low, high = result.value_range
        assert low <= iv.low < iv.high <= high and iv.contains(float(result.value)), (key, iv)


values_in_range = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=2, max_size=SMALL_UNITS + 10)


@settings(max_examples=80, deadline=None)
@given(values=values_in_range, signed=st.booleans(), level=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_interval_inside_the_range_holds_the_estimate_and_has_width_on_few_units(
    values: list[float], signed: bool, level: float
) -> None:
    value_range = (-1.0, 1.0) if signed else (0.0, 1.0)
    x = [2 * v - 1 for v in values] if signed else values
    result = mean_result(x, value_range)
    iv = metric_interval(result, "bootstrap", ci=level, n_resamples=100, seed=0)
    assert value_range[0] <= iv.low <= iv.high <= value_range[1]
    assert iv.low - 1e-12 <= float(result.value) <= iv.high + 1e-12
    if len(x) < SMALL_UNITS or np.ptp(x) == 0:
        assert iv.width > 0


@settings(max_examples=40, deadline=None)
@given(value=st.floats(0.0, 1.0), k=st.integers(2, 60), level=st.sampled_from([0.9, 0.95]))
def test_the_none_off_bound_is_the_coverage_bound(value: float, k: int, level: float) -> None:
    # the largest share of units off the value that k alike units do not reject at alpha/2 reaches the range's end
    low, high = none_off_bounds(value, (0.0, 1.0), k, level)
    q = 1 - ((1 - level) / 2) ** (1 / k)
    assert (1 - q) ** k == pytest.approx((1 - level) / 2)
    assert low == pytest.approx(value * (1 - q)) and high == pytest.approx(value + q * (1 - value))
    iv = metric_interval(mean_result([value] * k), "bootstrap", ci=level, n_resamples=100)
    assert (iv.low, iv.high) == pytest.approx((low, high))


@pytest.mark.parametrize("k", [2, 3, 5])
def test_t_interval_covers_on_few_units(k: int) -> None:
    rng = np.random.default_rng(k)
    hits = sum(metric_interval(mean_result(list(rng.beta(6, 3, size=k))), "bootstrap").contains(2 / 3)
               for _ in range(400))  # fmt: skip
    assert hits / 400 >= 0.90  # the percentile bootstrap covers 48% at k=2, 74% at k=3, 85% at k=5


@pytest.mark.pipeline
def test_the_reviewers_case_two_prompts_with_alike_replies_through_the_pipeline() -> None:
    import evenhand

    def same_reply(prompt: str, seed: int | None = None) -> str:
        return "Thank you for your message. We will reply soon."

    prompts = ["Write a short note to her about the bill.", "Write a short note to him about the order."]
    a = evenhand.assess(task="text_generation", prompts=prompts, client=same_reply, count=2, embedder=False,
                        store=None, progress=False, n_resamples=200)  # fmt: skip
    m = a.metrics.set_index("metric")
    for name in ("EMT", "MTD", "CROUGE-L", "SCSP", "WCSP"):
        row = m.loc[name]
        assert row["ci_low"] < row["ci_high"], name  # the bootstrap said [v, v]
        assert row["range_low"] <= row["ci_low"] <= row["value"] <= row["ci_high"] <= row["range_high"], name
        assert row["ci_method"] == "none of 2 prompts off the value", name
    rld = m.loc["RLD"]  # a relative length difference is unbounded above: no bound, and a reason that says so
    assert math.isnan(rld["ci_low"]) and "unbounded" in str(rld["reason"])
