"""Bootstrap intervals on the MetricResult / Resampler contract (synthetic results)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evenhand.metrics._result import MetricResult, Resampler, mean_resampler, ratio_resampler, undefined
from evenhand.stats import Interval, bootstrap_distribution, confidence_interval
from evenhand.stats._resampling import bootstrap_weight_chunks, jackknife_influence, strata_indices


def mean_result(values: np.ndarray, unit: str = "prompt") -> MetricResult:
    x = np.asarray(values, dtype=float)
    return MetricResult("M", float(x.mean()), per_item=x, resampler=mean_resampler(x, unit))


# ------------------------------------------------------------------------------------------- weights
def test_weights_are_draw_counts_summing_to_n() -> None:
    rng = np.random.default_rng(0)
    chunks = list(bootstrap_weight_chunks(50, 1000, rng))
    w = np.vstack(chunks)
    assert w.shape == (1000, 50)
    assert np.all(w.sum(axis=1) == 50)
    assert np.all(w >= 0) and np.all(w == np.round(w))
    # each unit is drawn once per replicate on average
    assert abs(w.mean() - 1.0) < 0.02


def test_stratified_weights_keep_stratum_sizes() -> None:
    strata = np.array(["a"] * 7 + ["b"] * 3 + ["a"] * 2)
    res = Resampler("row", strata.size, lambda w: w.sum(axis=1), strata=strata)
    parts = strata_indices(res)
    w = np.vstack(list(bootstrap_weight_chunks(strata.size, 200, np.random.default_rng(1), parts)))
    assert np.all(w[:, strata == "a"].sum(axis=1) == 9)
    assert np.all(w[:, strata == "b"].sum(axis=1) == 3)


def test_strata_may_be_tuples() -> None:
    strata = np.empty(4, dtype=object)
    strata[:] = [("f", "black"), ("m", "white"), ("f", "black"), ("m", "white")]
    res = Resampler("row", 4, lambda w: w.sum(axis=1), strata=strata)
    assert sorted(p.tolist() for p in strata_indices(res)) == [[0, 2], [1, 3]]


# ------------------------------------------------------------------------------------------- hand examples
def test_two_point_mean_percentile_interval_by_hand() -> None:
    # Units 0 and 1; a replicate draws 2 units: weights (2,0), (1,1), (0,2) with prob 1/4, 1/2, 1/4.
    # The mean of [0, 1] is then 0, 0.5 or 1, so a 50% percentile interval (quartiles) is [0.5, 0.5] nearly always
    # and a 95% interval spans [0, 1].
    r = mean_result(np.array([0.0, 1.0]))
    wide = confidence_interval(r, ci=0.95, n_resamples=4000, seed=3)
    assert (wide.low, wide.high) == (0.0, 1.0)
    narrow = confidence_interval(r, ci=0.4, n_resamples=4000, seed=3)
    assert (narrow.low, narrow.high) == (0.5, 0.5)
    draws = bootstrap_distribution(r, n_resamples=4000, seed=3)
    shares = [np.mean(draws == v) for v in (0.0, 0.5, 1.0)]
    np.testing.assert_allclose(shares, [0.25, 0.5, 0.25], atol=0.03)


def test_ratio_resampler_clusters_responses_by_prompt() -> None:
    # TF with 3 prompts x 4 responses: toxic counts 4, 0, 0 -> TF = 4/12. A replicate's TF is 4k/12 with
    # k ~ Binomial(3, 1/3) copies of prompt 0: the bootstrap support is {0, 1/3, 2/3, 1}.
    r = MetricResult("TF", 4 / 12, resampler=ratio_resampler([4, 0, 0], [4, 4, 4], "prompt"))
    draws = bootstrap_distribution(r, n_resamples=3000, seed=0)
    np.testing.assert_allclose(np.unique(draws), [0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(np.mean(draws == 0), (2 / 3) ** 3, atol=0.03)


def test_matches_normal_theory_for_a_large_mean() -> None:
    x = np.random.default_rng(5).random(2000)
    iv = confidence_interval(mean_result(x), n_resamples=4000, seed=1)
    se = x.std() / math.sqrt(x.size)
    assert iv.low == pytest.approx(x.mean() - 1.96 * se, abs=0.25 * se)
    assert iv.high == pytest.approx(x.mean() + 1.96 * se, abs=0.25 * se)
    assert iv.standard_error == pytest.approx(se, rel=0.06)


def test_bca_matches_scipy_on_a_skewed_sample() -> None:
    from scipy.stats import bootstrap

    x = np.random.default_rng(11).exponential(size=40) ** 2
    ours = confidence_interval(mean_result(x), n_resamples=20000, seed=0, method="bca")
    ref = bootstrap((x,), np.mean, method="BCa", n_resamples=20000, rng=np.random.default_rng(0))
    se = ours.standard_error
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.1 * se)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)
    # the skew moves BCa to the right of the percentile interval
    pct = confidence_interval(mean_result(x), n_resamples=20000, seed=0)
    assert ours.high > pct.high


def test_jackknife_influence_of_a_mean_is_the_centred_data() -> None:
    # For a mean, (n-1)(mean_loo_bar - mean_loo_i) = x_i - mean(x); scaled by 1/n
    x = np.array([1.0, 2.0, 4.0, 8.0])
    u = jackknife_influence(mean_resampler(x, "prompt"), np.random.default_rng(0))
    np.testing.assert_allclose(u, (x - x.mean()) / 4)


def test_stratified_bca_matches_scipy_two_sample_bca() -> None:
    # a difference of means with each sample resampled separately = scipy's multi-sample bootstrap
    from scipy.stats import bootstrap

    rng = np.random.default_rng(12)
    a, b = rng.exponential(size=15) ** 2, rng.exponential(size=45)
    x = np.r_[a, b]
    in_a = np.r_[np.ones(15), np.zeros(45)]

    def diff(w: np.ndarray) -> np.ndarray:
        return (w @ (x * in_a)) / (w @ in_a) - (w @ (x * (1 - in_a))) / (w @ (1 - in_a))

    res = Resampler("row", 60, diff, strata=in_a.astype(int))
    ours = confidence_interval(res, n_resamples=20000, seed=0, method="bca")
    ref = bootstrap((a, b), lambda p, q: p.mean() - q.mean(), method="BCa", n_resamples=20000, rng=1)
    se = ours.standard_error
    assert ours.low == pytest.approx(ref.confidence_interval.low, abs=0.1 * se)
    assert ours.high == pytest.approx(ref.confidence_interval.high, abs=0.15 * se)


def test_grouped_jackknife_above_the_unit_limit() -> None:
    x = np.random.default_rng(0).random(5000)
    u = jackknife_influence(mean_resampler(x, "pair"), np.random.default_rng(0))
    assert u.size == 2000
    assert abs(u.sum()) < 1e-8


# ------------------------------------------------------------------------------------------- reproducibility
def test_same_seed_same_interval_and_generators_work() -> None:
    r = mean_result(np.random.default_rng(2).random(300))
    a = confidence_interval(r, seed=7)
    b = confidence_interval(r, seed=7)
    c = confidence_interval(r, seed=8)
    assert a == b and a != c
    g = confidence_interval(r, seed=np.random.default_rng(7))
    assert (g.low, g.high) == (a.low, a.high)


def test_distribution_and_interval_use_the_same_replicates() -> None:
    r = mean_result(np.random.default_rng(4).random(100))
    draws = bootstrap_distribution(r, n_resamples=500, seed=9)
    iv = confidence_interval(r, n_resamples=500, seed=9, ci=0.9)
    np.testing.assert_allclose([iv.low, iv.high], np.quantile(draws, [0.05, 0.95]))


# ------------------------------------------------------------------------------------------- undefined cases
def test_undefined_metric_gives_nan_interval_with_reason() -> None:
    iv = confidence_interval(undefined("FNRD", "group 'b' has no actual positives"))
    assert math.isnan(iv.low) and math.isnan(iv.high)
    assert "no actual positives" in (iv.reason or "")
    assert not iv.is_defined and not iv.contains(0.0)


def test_result_without_resampler_gives_nan_with_reason() -> None:
    iv = confidence_interval(MetricResult("COBS", 0.3))
    assert math.isnan(iv.low) and "no resampler" in (iv.reason or "")


def test_single_unit_cannot_be_resampled() -> None:
    iv = confidence_interval(mean_result(np.array([0.4])))
    assert math.isnan(iv.low) and "fewer than 2" in (iv.reason or "")


def test_undefined_replicates_are_dropped_and_reported() -> None:
    # ratio with one unit carrying all of the denominator: replicates without it are 0/0
    r = MetricResult("R", 0.5, resampler=ratio_resampler([1, 0, 0, 0, 0, 0, 0, 0, 0, 0], [2] + [0] * 9, "row"))
    iv = confidence_interval(r, n_resamples=1000, seed=0)
    # P(unit 0 drawn at least once in 10 draws) = 1 - 0.9**10 = 0.65
    assert 0.6 < iv.n_valid / 1000 < 0.7
    assert iv.low == iv.high == 0.5
    assert "undefined and left out" in (iv.reason or "")


def test_mostly_undefined_replicates_give_nan() -> None:
    # defined only when unit 0 is drawn at least twice: P = 1 - 0.9**10 - 0.9**9 = 0.26 < 1/2
    res = Resampler("row", 10, lambda w: np.where(w[:, 0] >= 2, 0.5, np.nan))
    iv = confidence_interval(MetricResult("R", 0.5, resampler=res), n_resamples=1000, seed=0)
    assert math.isnan(iv.low) and "are defined" in (iv.reason or "")
    assert 200 < iv.n_valid < 320


def test_constant_metric_gives_a_point_interval() -> None:
    iv = confidence_interval(mean_result(np.zeros(50)), method="bca")
    assert (iv.low, iv.high) == (0.0, 0.0)
    assert iv.standard_error == 0.0


def test_bare_resampler_needs_no_result() -> None:
    res = mean_resampler(np.arange(10.0), "pair")
    iv = confidence_interval(res, n_resamples=200)
    assert iv.estimate == 4.5 and iv.unit == "pair"
    iv2 = confidence_interval(res, n_resamples=200, estimate=4.0)
    assert iv2.estimate == 4.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"ci": 95}, ValueError),
        ({"ci": 0.0}, ValueError),
        ({"ci": "0.95"}, TypeError),
        ({"n_resamples": 1}, ValueError),
        ({"n_resamples": 10.5}, TypeError),
        ({"method": "bootstrap-t"}, ValueError),
        ({"seed": "zero"}, TypeError),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        confidence_interval(mean_result(np.arange(5.0)), **kwargs)


def test_not_a_result_raises_type_error() -> None:
    with pytest.raises(TypeError, match="MetricResult"):
        confidence_interval([0.1, 0.2])  # type: ignore[arg-type]


def test_interval_unpacks_and_serialises() -> None:
    iv = confidence_interval(mean_result(np.arange(10.0)), n_resamples=100)
    low, high = iv
    assert (low, high) == (iv.low, iv.high)
    d = iv.to_dict()
    assert d["method"] == "percentile" and d["reason"] is None
    assert Interval(math.nan, math.nan, math.nan, 0.95, "bca", 10, 0, "row").to_dict()["low"] is None


# ------------------------------------------------------------------------------------------- properties
unit_values = arrays(np.float64, st.integers(2, 60), elements=st.floats(0, 1, allow_nan=False))


@given(x=unit_values, seed=st.integers(0, 2**16), method=st.sampled_from(["percentile", "bca"]))
def test_interval_is_ordered_and_inside_the_data_range(x: np.ndarray, seed: int, method: str) -> None:
    iv = confidence_interval(mean_result(x), n_resamples=200, seed=seed, method=method)
    assert iv.low <= iv.high
    assert x.min() - 1e-12 <= iv.low and iv.high <= x.max() + 1e-12


@given(x=unit_values, shift=st.floats(-5, 5), seed=st.integers(0, 100))
def test_shift_equivariance(x: np.ndarray, shift: float, seed: int) -> None:
    a = confidence_interval(mean_result(x), n_resamples=100, seed=seed)
    b = confidence_interval(mean_result(x + shift), n_resamples=100, seed=seed)
    assert b.low == pytest.approx(a.low + shift, abs=1e-9)
    assert b.high == pytest.approx(a.high + shift, abs=1e-9)


@given(x=unit_values, seed=st.integers(0, 100))
def test_higher_level_gives_a_nested_wider_interval(x: np.ndarray, seed: int) -> None:
    narrow = confidence_interval(mean_result(x), ci=0.8, n_resamples=200, seed=seed)
    wide = confidence_interval(mean_result(x), ci=0.99, n_resamples=200, seed=seed)
    assert wide.low <= narrow.low + 1e-12 and narrow.high <= wide.high + 1e-12


@given(
    counts=arrays(np.int64, st.integers(2, 30), elements=st.integers(0, 25)),
    seed=st.integers(0, 100),
)
def test_ratio_interval_is_a_valid_fraction(counts: np.ndarray, seed: int) -> None:
    m = 25
    r = MetricResult(
        "TF", counts.sum() / (m * counts.size), resampler=ratio_resampler(counts, np.full(counts.size, m), "prompt")
    )
    iv = confidence_interval(r, n_resamples=100, seed=seed)
    assert 0.0 <= iv.low <= iv.high <= 1.0
    assert iv.n_valid == 100


def test_interval_table_one_row_per_metric() -> None:
    from evenhand.stats import interval_table

    a, b = mean_result(np.arange(10.0)), undefined("FNRD", "no positives")
    table = interval_table({"EMT": a, "FNRD": b}, n_resamples=100)
    assert table["metric"].tolist() == ["EMT", "FNRD"]
    assert table.loc[0, "low"] == confidence_interval(a, n_resamples=100).low
    assert math.isnan(table.loc[1, "low"]) and "no positives" in table.loc[1, "reason"]
    assert interval_table([a], n_resamples=100)["metric"].tolist() == ["M"]
    with pytest.raises(TypeError, match="MetricResult"):
        interval_table({"x": 0.3})  # type: ignore[dict-item]


def test_a_degenerate_bootstrap_says_it_cannot_show_uncertainty() -> None:
    """At 0% every replicate is 0 and the bootstrap gives [0, 0]; the interval now says why and where to look
    (review7: the README's quickstart call read as certainty on 2-10 prompts)."""
    from evenhand import metrics as m
    from evenhand import stats

    none = m.toxic_fraction([0.1] * 8, threshold=0.5, prompts=[0, 0, 1, 1, 2, 2, 3, 3])
    iv = stats.confidence_interval(none, seed=0)
    assert (iv.low, iv.high) == (0.0, 0.0) and iv.reason is not None and "metric_interval" in iv.reason
    assert stats.metric_interval(none, "rate").high > 0.5
    some = m.toxic_fraction([0.1, 0.7, 0.2, 0.3, 0.05, 0.6, 0.9, 0.8], threshold=0.5, prompts=[0, 0, 1, 1, 2, 2, 3, 3])
    assert stats.confidence_interval(some, seed=0).reason is None
