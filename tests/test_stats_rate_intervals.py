"""Intervals for rates and rate differences at the edges (issue 37): published worked examples, hand computations,
scipy as a reference, and properties across the family."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import beta, binomtest
from scipy.stats import t as student_t

from evenhand import metrics as M
from evenhand.errors import InputError
from evenhand.metrics._result import RateCounts
from evenhand.metrics.rate_gap import signed_rate_gap
from evenhand.registry import METRICS
from evenhand.stats import (
    binomial_bounds,
    confidence_interval,
    effective_rate,
    metric_interval,
    newcombe_bounds,
    rate_interval,
)

Z = 1.959963984540054


# ------------------------------------------------------------------------------ one proportion: published values
@pytest.mark.parametrize(
    ("x", "n", "wilson", "exact"),
    [  # Newcombe (1998a), Statistics in Medicine 17: 857-872, Table II: methods 3 (score) and 5 (exact)
        (81, 263, (0.2553, 0.3662), (0.2527, 0.3676)),
        (15, 148, (0.0624, 0.1605), (0.0578, 0.1617)),
        (0, 20, (0.0, 0.1611), (0.0, 0.1684)),
        (1, 29, (0.0061, 0.1718), (0.0009, 0.1776)),
    ],
)
def test_single_proportion_published_examples(x: int, n: int, wilson: tuple, exact: tuple) -> None:
    for method, expected in (("wilson", wilson), ("clopper-pearson", exact)):
        low, high = binomial_bounds(x, n, method=method)
        assert (round(float(low[0]), 4), round(float(high[0]), 4)) == expected


@pytest.mark.parametrize("n", [1, 7, 40, 263])
def test_wilson_and_clopper_pearson_agree_with_scipy(n: int) -> None:
    xs = np.arange(n + 1)
    for method, ref in (("wilson", "wilson"), ("clopper-pearson", "exact")):
        low, high = binomial_bounds(xs, np.full(xs.size, n), 0.9, method)
        for x in xs:
            ci = binomtest(int(x), n).proportion_ci(confidence_level=0.9, method=ref)
            assert low[x] == pytest.approx(ci.low, abs=1e-12)
            assert high[x] == pytest.approx(ci.high, abs=1e-12)


def test_jeffreys_is_the_beta_posterior_quantiles_by_hand() -> None:
    low, high = binomial_bounds([0, 3, 10], [10, 10, 10], method="jeffreys")
    assert low[0] == 0.0 and high[2] == 1.0  # the conventional ends at x = 0 and x = n
    assert high[0] == pytest.approx(beta.ppf(0.975, 0.5, 10.5))
    assert (low[1], high[1]) == pytest.approx((beta.ppf(0.025, 3.5, 7.5), beta.ppf(0.975, 3.5, 7.5)))


# ------------------------------------------------------------------------ two proportions: published values
@pytest.mark.parametrize(
    ("counts", "expected"),
    [  # Newcombe (1998b), Statistics in Medicine 17: 873-890, Table II, method 10 (hybrid score, no correction)
        ((56, 70, 48, 80), (0.0524, 0.3339)),
        ((9, 10, 3, 10), (0.1705, 0.8090)),
        ((6, 7, 2, 7), (0.0582, 0.8062)),
        ((5, 56, 0, 29), (-0.0381, 0.1926)),
        ((0, 10, 0, 20), (-0.1611, 0.2775)),
        ((0, 10, 0, 10), (-0.2775, 0.2775)),
        ((10, 10, 0, 20), (0.6791, 1.0)),
        ((10, 10, 0, 10), (0.6075, 1.0)),
    ],
)
def test_newcombe_independent_published_examples(counts: tuple, expected: tuple) -> None:
    assert tuple(round(b, 4) for b in newcombe_bounds(*counts)) == expected


def _pairs(table: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """One pair per row of a paired 2x2 table ``[[both, first only], [second only, neither]]``."""
    (both, first), (second, neither) = table
    a = np.repeat([1, 1, 0, 0], [both, first, second, neither]).astype(float)
    b = np.repeat([1, 0, 1, 0], [both, first, second, neither]).astype(float)
    return a, b


@pytest.mark.parametrize("table", [[[59, 6], [16, 80]], [[1, 1], [7, 12]], [[14, 5], [0, 22]], [[3, 0], [0, 40]]])
def test_paired_difference_is_newcombes_paired_method_10_by_hand(table: list[list[int]]) -> None:
    """Newcombe (1998c, Statistics in Medicine 17: 2635-2650), method 10: Wilson bounds of both margins and
    psi = (AD - BC - N/2) / sqrt(margins) when AD - BC > N/2, 0 up to N/2, (AD - BC) / sqrt(margins) below 0."""
    (a, b), (c, d) = table
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    w1 = binomtest(a + b, n).proportion_ci(method="wilson")
    w2 = binomtest(a + c, n).proportion_ci(method="wilson")
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    det = a * d - b * c
    psi = 0.0 if margins == 0 else (det - n / 2 if det > n / 2 else 0.0 if det >= 0 else det) / math.sqrt(margins)
    low = p1 - p2 - math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2 - 2 * psi * (p1 - w1.low) * (w2.high - p2))
    high = p1 - p2 + math.sqrt((p2 - w2.low) ** 2 + (w1.high - p1) ** 2 - 2 * psi * (p2 - w2.low) * (w1.high - p1))
    first, second = _pairs(table)
    result = M.refusal_rate_difference(first, second)
    iv = rate_interval(result.rate_counts, method="wilson")
    # review11: with no discordant pair (B = C = 0), joined with Wilson's bound for none of the N pairs discordant
    unseen = float(binomtest(0, n).proportion_ci(method="wilson").high) if b + c == 0 else 0.0
    expected = (max(min(low, p1 - p2 - unseen), -1.0), min(max(high, p1 - p2 + unseen), 1.0))
    assert (iv.low, iv.high) == pytest.approx(expected, abs=1e-12)
    assert iv.estimate == pytest.approx(p1 - p2)
    wider = expected != pytest.approx((max(low, -1.0), min(high, 1.0)), abs=1e-12)
    joined = ", joined with none of the units' pairs discordant" if wider else ""
    assert iv.method == "newcombe (wilson) on effective pairs" + joined


# ------------------------------------------------------------------------------------ clustered: by hand
def test_effective_trials_by_hand() -> None:
    # 4 prompts x 5 replies, 2 + 0 + 0 + 1 toxic: p = 0.15, residuals s - p t = 1.25, -0.75, -0.75, 0.25
    er = effective_rate([2, 0, 0, 1], [5, 5, 5, 5])
    variance = 4 / 3 * (1.25**2 + 2 * 0.75**2 + 0.25**2) / 20**2
    n_star = 0.15 * 0.85 / variance * (Z / student_t.ppf(0.975, 3)) ** 2
    assert er.rate == 0.15 and er.units == 4
    assert er.effective_trials == pytest.approx(n_star) and er.effective_trials == pytest.approx(5.2757, abs=1e-4)
    counts = RateCounts(np.array([[2.0], [0], [0], [1]]), np.full((4, 1), 5.0), "rate", "prompt")
    iv = rate_interval(counts)
    x = 0.15 * n_star
    lo, hi = beta.ppf(0.025, x, n_star - x + 1), beta.ppf(0.975, x + 1, n_star - x)
    assert (iv.low, iv.high) == pytest.approx((lo, hi))
    assert iv.effective_n == {"rate": pytest.approx(n_star)}


def test_no_toxic_reply_over_40_prompts_is_consistent_with_about_9_percent() -> None:
    """The demo's TF 0.000 [0.000, 0.000]: with none seen among 40 prompts, Clopper-Pearson's upper bound on 40
    units, 1 - 0.025^(1/40), whatever the number of replies per prompt."""
    scores = np.zeros(200)
    prompts = np.repeat(np.arange(40), 5)
    tf = M.toxic_fraction(scores, 0.5, prompts)
    iv = metric_interval(tf, METRICS["toxic_fraction"].interval)
    assert tf.value == 0.0 and iv.estimate == 0.0
    assert (iv.low, iv.high) == pytest.approx((0.0, 1 - 0.025 ** (1 / 40)))
    assert iv.high == pytest.approx(0.0881, abs=1e-4)
    assert confidence_interval(tf).width == 0.0  # what the bootstrap said


def test_refusal_difference_over_9_prompts_with_none_refused() -> None:
    """The demo's RRD 0.000 [0.000, 0.000] over 9 prompts: both sides' upper bound on 9 prompts, square-and-add."""
    rrd = M.refusal_rate_difference(np.zeros(18), np.zeros(18), prompts=np.repeat(np.arange(9), 2))
    iv = metric_interval(rrd, "rate")
    u = 1 - 0.025 ** (1 / 9)
    assert (iv.low, iv.high) == pytest.approx((-u, u))


def test_spread_of_two_independent_groups_is_the_distance_of_the_difference_interval() -> None:
    rng = np.random.default_rng(0)
    groups = np.repeat(["f", "m"], [30, 50])
    y = (rng.random(80) < np.where(groups == "f", 0.1, 0.4)).astype(int)
    dp = M.demographic_parity_difference(y, groups)
    signed = signed_rate_gap("DP", y, groups, first="m", second="f")
    d = rate_interval(signed.rate_counts)
    s = rate_interval(dp.rate_counts)
    assert s.estimate == pytest.approx(dp.value) and d.estimate == pytest.approx(dp.value)
    assert (s.low, s.high) == pytest.approx((max(d.low, -d.high, 0.0), max(abs(d.low), abs(d.high))))
    f_count, m_count = int(y[groups == "f"].sum()), int(y[groups == "m"].sum())
    assert (d.low, d.high) == pytest.approx(
        newcombe_bounds(m_count, 50, f_count, 30, method="clopper-pearson"), abs=1e-12
    )


def test_spread_of_three_groups_holds_all_pairs_together() -> None:
    groups = np.repeat(["a", "b", "c"], 40)
    y = np.r_[np.zeros(40), np.zeros(36), np.ones(4), np.zeros(30), np.ones(10)].astype(int)
    dp = M.demographic_parity_difference(y, groups)
    iv = metric_interval(dp, "rate")
    assert iv.method == "newcombe (clopper-pearson) on effective rows, simultaneous over 3 pairs"
    level = 1 - 0.05 / 3  # each pair at 1 - alpha / 3
    lo, hi = newcombe_bounds(10, 40, 0, 40, level=level, method="clopper-pearson")  # the widest pair: c - a
    assert iv.high == pytest.approx(hi) and iv.low == pytest.approx(lo)
    assert iv.estimate == dp.value == 0.25


def test_metric_interval_dispatch_and_fallback() -> None:
    rng = np.random.default_rng(1)
    scores, prompts = rng.random(60), np.repeat(np.arange(20), 3)
    tf = M.toxic_fraction(scores, 0.8, prompts)
    assert metric_interval(tf, "rate").method == "clopper-pearson on effective prompts"
    assert metric_interval(tf, "rate").n_resamples == 0
    # 20 prompts: below SMALL_UNITS, a "bootstrap" metric's interval is Student's t on the jackknife (stats5)
    small = "student-t on jackknife prompts"  # review11: joined with the none-off bound where that is wider
    assert metric_interval(tf, "bootstrap", n_resamples=200).method.startswith(small)
    emt = M.expected_maximum_toxicity(scores, prompts)  # no counts: the continuous rule, whatever is declared
    assert emt.rate_counts is None and metric_interval(emt, "rate", n_resamples=200).method.startswith(small)
    wrong = RateCounts(np.zeros((2, 1)), np.ones((2, 1)), "rate", "prompt")
    from dataclasses import replace

    odd = metric_interval(replace(tf, rate_counts=wrong), "rate", n_resamples=200)
    assert odd.method.startswith(small) and "counts do not give its value" in (odd.reason or "")
    with pytest.raises(InputError):
        metric_interval(tf, "wald")
    with pytest.raises(InputError):
        rate_interval(tf.rate_counts, method="wald")  # type: ignore[arg-type]


def test_every_rate_metric_carries_counts_that_give_its_value() -> None:
    """The registry's ``interval="rate"`` metrics: their results carry RateCounts whose value is the metric's."""
    rng = np.random.default_rng(2)
    a, b, p = rng.random(90), rng.random(90), np.repeat(np.arange(30), 3)
    y, yp, g = rng.integers(0, 2, 90), rng.integers(0, 2, 90), rng.choice(["x", "y", "z"], 90)
    from evenhand.metrics import adversarial as A

    results = {
        "toxic_fraction": M.toxic_fraction(a, 0.7, p),
        "toxicity_probability": M.toxicity_probability(a, p, 0.7),
        "stereotype_fraction": M.stereotype_fraction(a, 0.7),
        "stereotype_probability": M.stereotype_probability(a, p, 0.9),
        "toxic_share_difference": M.toxic_share_difference(a, b, 0.6, prompts=p),
        "demographic_parity_difference": M.demographic_parity_difference(yp, g, prompts=p),
        "false_negative_rate_difference": M.false_negative_rate_difference(y, yp, g),
        "false_omission_rate_difference": M.false_omission_rate_difference(y, yp, g, prompts=p),
        "false_positive_rate_difference": M.false_positive_rate_difference(y, yp, g),
        "false_discovery_rate_difference": M.false_discovery_rate_difference(y, yp, g, prompts=p),
        "decision_flip_rate": M.decision_flip_rate(a > 0.5, b > 0.4, prompts=p),
        "counterfactual_positive_rate_difference": M.counterfactual_positive_rate_difference(a > 0.5, b > 0.4),
        "refusal_rate_difference": M.refusal_rate_difference(a, b, 0.7, prompts=p),
        "person_refusal_rate_difference": M.person_refusal_rate_difference(a, g, 0.7, first="x", second="y", prompts=p),
        "non_completion_rate_difference": M.non_completion_rate_difference(a > 0.9, b > 0.8, prompts=p),
        "toxic_share_shift": A.toxic_share_shift(a, b, 0.6, prompts=p),
        "refusal_rate_shift": A.refusal_rate_shift(a, b, 0.6),
        "non_completion_shift": A.non_completion_shift(a > 0.9, b > 0.8, prompts=p),
        "positive_rate_shift": A.positive_rate_shift(a > 0.5, b > 0.5, prompts=p),
    }
    declared = {k for k, spec in METRICS.items() if spec.interval == "rate"}
    assert declared == set(results)
    for key, result in results.items():
        assert result.rate_counts is not None, key
        assert result.rate_counts.value == pytest.approx(result.value, abs=1e-12), key
        iv = metric_interval(result, "rate")
        assert iv.n_resamples == 0 and iv.low <= result.value <= iv.high, key


# ------------------------------------------------------------------------------------------- properties
counts_1d = st.lists(st.tuples(st.integers(0, 6), st.integers(1, 6)), min_size=1, max_size=25).map(
    lambda rows: (np.array([min(s, t) for s, t in rows], float), np.array([t for _, t in rows], float))
)
methods = st.sampled_from(["wilson", "jeffreys", "clopper-pearson"])


@given(counts_1d, methods, st.floats(0.5, 0.99))
def test_rate_interval_holds_its_estimate_inside_zero_one(data: tuple, method: str, level: float) -> None:
    s, t = data
    iv = rate_interval(RateCounts(s[:, None], t[:, None], "rate", "prompt"), level, method)  # type: ignore[arg-type]
    assert 0.0 <= iv.low <= iv.estimate <= iv.high <= 1.0
    if s.sum() == 0:
        assert iv.low == 0.0 and iv.high > 0.0  # none seen is never "exactly 0"
    if s.sum() == t.sum():
        assert iv.high == 1.0 and iv.low < 1.0


@given(counts_1d, methods)
def test_more_successes_never_lower_the_upper_bound_below_none(data: tuple, method: str) -> None:
    s, t = data
    none = rate_interval(RateCounts(np.zeros((s.size, 1)), t[:, None], "rate", "prompt"), method=method)  # type: ignore[arg-type]
    some = rate_interval(RateCounts(s[:, None], t[:, None], "rate", "prompt"), method=method)  # type: ignore[arg-type]
    assert some.high >= none.high - 1e-12


@given(counts_1d, st.integers(0, 2**31 - 1))
def test_rate_interval_ignores_unit_order(data: tuple, seed: int) -> None:
    s, t = data
    order = np.random.default_rng(seed).permutation(s.size)
    one = rate_interval(RateCounts(s[:, None], t[:, None], "rate", "prompt"))
    other = rate_interval(RateCounts(s[order, None], t[order, None], "rate", "prompt"))
    assert (one.low, one.high) == pytest.approx((other.low, other.high), abs=1e-12)


pair_flags = st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 5)), min_size=1, max_size=40)


@given(pair_flags, methods)
def test_difference_interval_is_antisymmetric_and_inside(data: list, method: str) -> None:
    a = np.array([x for x, _, _ in data], float)
    b = np.array([y for _, y, _ in data], float)
    p = [k for _, _, k in data]
    ab = M.refusal_rate_difference(a, b, prompts=p)
    ba = M.refusal_rate_difference(pd.Series(b), list(b * 0 + a), prompts=np.array(p))  # lists, Series, arrays
    one = rate_interval(ab.rate_counts, method=method)  # type: ignore[arg-type]
    other = rate_interval(ba.rate_counts, method=method)  # type: ignore[arg-type]
    assert -1.0 <= one.low <= ab.value <= one.high <= 1.0
    assert (one.low, one.high) == pytest.approx((-other.high, -other.low), abs=1e-12)
    assert one.low < one.high  # never zero-width, even when both sides are all 0 or all 1


@given(st.lists(st.tuples(st.integers(0, 2), st.booleans()), min_size=4, max_size=60))
def test_spread_interval_holds_the_gap_and_is_a_distance(rows: list) -> None:
    groups = np.array([["a", "b", "c"][g] for g, _ in rows])
    y = np.array([int(v) for _, v in rows])
    if len(set(groups.tolist())) < 2:
        return
    dp = M.demographic_parity_difference(y, groups)
    iv = metric_interval(dp, "rate")
    assert 0.0 <= iv.low <= dp.value <= iv.high <= 1.0


# ------------------------------------------------------------------------------- coverage (fast; full: benchmarks)
@pytest.mark.parametrize(("p", "k", "m"), [(0.01, 10, 1), (0.05, 40, 5), (0.30, 10, 1), (0.01, 200, 5)])
def test_rate_interval_covers_at_the_edges(p: float, k: int, m: int) -> None:
    """300 clustered data sets per cell (intra-prompt correlation 0.3; benchmarks/bench_edge_intervals.py has the
    full grid): the declared interval of TF holds the true rate in at least 90% (nominal 95%, about 1.3 points of
    standard error), where the bootstrap held a 1% rate over 10 prompts in 9%."""
    rng = np.random.default_rng([k, m, int(p * 100)])
    scale = 0.7 / 0.3
    prompts = np.repeat(np.arange(k), m)
    hits = 0
    for _ in range(300):
        u = rng.beta(p * scale, (1 - p) * scale, size=k)
        tf = M.toxic_fraction((rng.random((k, m)) < u[:, None]).astype(float).ravel(), 0.5, prompts)
        iv = metric_interval(tf, "rate")
        hits += iv.low <= p <= iv.high
    assert hits / 300 >= 0.90
