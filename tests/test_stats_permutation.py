"""Permutation tests (classification rates, counterfactual sentiment) and Benjamini-Hochberg."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from evenhand.stats import (
    benjamini_hochberg,
    counterfactual_sentiment_test,
    pairwise_rate_tests,
    rate_difference_test,
)


# ------------------------------------------------------------------------------------------- classification rates
def test_exact_p_value_by_hand() -> None:
    # a = [1,1,1,1], b = [0,0,0,0]: 4 positives among 8 rows; only the two splits (4,0) and (0,4) are as extreme,
    # each with hypergeometric probability 1 / C(8, 4) = 1/70.
    test = rate_difference_test([1, 1, 1, 1, 0, 0, 0, 0], ["a"] * 4 + ["b"] * 4)
    assert test.statistic == 1.0
    assert test.p_value == pytest.approx(2 / 70)
    assert test.method == "exact" and test.n_permutations is None
    assert test.groups == ("a", "b")
    greater = rate_difference_test([1, 1, 1, 1, 0, 0, 0, 0], ["a"] * 4 + ["b"] * 4, alternative="greater")
    assert greater.p_value == pytest.approx(1 / 70)
    less = rate_difference_test([1, 1, 1, 1, 0, 0, 0, 0], ["a"] * 4 + ["b"] * 4, alternative="less")
    assert less.p_value == pytest.approx(1.0)


def test_small_example_matches_enumeration() -> None:
    # rates 2/3 vs 1/3; 3 positives in 6 rows: P(k) = 1/20, 9/20, 9/20, 1/20 for k = 0..3 positives in group a,
    # every split has |difference| >= 1/3, so p = 1; one-sided P(k >= 2) = 1/2.
    y, g = [1, 1, 0, 0, 1, 0], ["a", "a", "a", "b", "b", "b"]
    assert rate_difference_test(y, g).p_value == pytest.approx(1.0)
    assert rate_difference_test(y, g, alternative="greater").p_value == pytest.approx(0.5)


def test_matches_scipy_exact_permutation_test() -> None:
    from scipy.stats import permutation_test

    rng = np.random.default_rng(0)
    ya, yb = (rng.random(7) < 0.7).astype(int), (rng.random(6) < 0.3).astype(int)
    ours = rate_difference_test(np.r_[ya, yb], ["a"] * 7 + ["b"] * 6)
    ours_greater = rate_difference_test(np.r_[ya, yb], ["a"] * 7 + ["b"] * 6, alternative="greater")
    # two-sided here means |rate_a - rate_b| at least as large (not scipy's doubled one-sided p)
    ref = {
        name: permutation_test(
            (ya, yb), stat, permutation_type="independent", n_resamples=np.inf, alternative="greater"
        ).pvalue
        for name, stat in [("abs", lambda a, b: abs(a.mean() - b.mean())), ("diff", lambda a, b: a.mean() - b.mean())]
    }
    assert ours.p_value == pytest.approx(ref["abs"], rel=1e-9)
    assert ours_greater.p_value == pytest.approx(ref["diff"], rel=1e-9)


def test_error_rates_permute_only_the_conditioning_rows() -> None:
    y_true = np.array([1, 1, 1, 0, 0, 1, 1, 1, 0, 0])
    y_pred = np.array([0, 0, 1, 1, 1, 1, 1, 1, 0, 0])
    groups = np.array(["f"] * 5 + ["m"] * 5)
    test = rate_difference_test(y_pred, groups, y_true, metric="FNRD")
    # FNR among actual positives: f -> 2/3, m -> 0/3; the same as DP of (1 - y_pred) on those 6 rows alone
    assert test.details["rate_a"] == pytest.approx(2 / 3) and test.details["rate_b"] == 0.0
    pos = y_true == 1
    same = rate_difference_test(1 - y_pred[pos], groups[pos])
    assert test.p_value == pytest.approx(same.p_value)
    assert test.statistic == pytest.approx(same.statistic)


@pytest.mark.parametrize(
    ("metric", "rows", "outcome"),
    [
        ("false_positive_rate", lambda t, p: t == 0, lambda t, p: p),
        ("FORD", lambda t, p: p == 0, lambda t, p: t),
        ("fdr", lambda t, p: p == 1, lambda t, p: 1 - t),
    ],
)
def test_each_error_rate_definition(metric, rows, outcome) -> None:
    rng = np.random.default_rng(3)
    t, p = (rng.random(60) < 0.5).astype(int), (rng.random(60) < 0.5).astype(int)
    g = np.where(rng.random(60) < 0.5, "x", "y")
    test = rate_difference_test(p, g, t, metric=metric)
    keep = rows(t, p)
    o = outcome(t, p)[keep]
    assert test.details["rate_a"] == pytest.approx(o[g[keep] == "x"].mean())
    assert test.details["rate_b"] == pytest.approx(o[g[keep] == "y"].mean())


def test_agrees_with_the_classification_metric() -> None:
    from evenhand.metrics import classification as cls

    rng = np.random.default_rng(8)
    t, p = (rng.random(200) < 0.4).astype(int), (rng.random(200) < 0.5).astype(int)
    g = np.where(rng.random(200) < 0.4, "f", "m")
    for name, key in [("false_negative_rate_difference", "FNRD"), ("false_discovery_rate_difference", "FDRD")]:
        metric = getattr(cls, name)(t, p, g)
        assert abs(rate_difference_test(p, g, t, metric=key).statistic) == pytest.approx(float(metric))
    dp = cls.demographic_parity_difference(p, g)
    assert abs(rate_difference_test(p, g).statistic) == pytest.approx(float(dp))


def test_empty_conditioning_rows_give_nan_with_reason() -> None:
    test = rate_difference_test([0, 1, 1, 0], ["a", "a", "b", "b"], [1, 1, 0, 0], metric="FNRD")
    assert math.isnan(test.p_value) and "no actual positives (Y=1)" in (test.reason or "")


def test_all_same_outcome_gives_p_one() -> None:
    assert rate_difference_test([1, 1, 1, 1], ["a", "b", "a", "b"]).p_value == pytest.approx(1.0)


def test_group_selection_and_errors() -> None:
    y, g = [1, 0, 1, 0, 1, 1], ["a", "a", "b", "b", "c", "c"]
    with pytest.raises(ValueError, match="pairwise_rate_tests"):
        rate_difference_test(y, g)
    test = rate_difference_test(y, g, group_a="c", group_b="a")
    assert test.groups == ("c", "a") and test.statistic == pytest.approx(0.5)
    with pytest.raises(ValueError, match="does not occur"):
        rate_difference_test(y, g, group_a="a", group_b="z")
    with pytest.raises(ValueError, match="both"):
        rate_difference_test(y, g, group_a="a")
    with pytest.raises(ValueError, match="binary"):
        rate_difference_test([2, 0, 1, 0], ["a", "a", "b", "b"])
    with pytest.raises(ValueError, match="y_true"):
        rate_difference_test([1, 0, 1, 0], ["a", "a", "b", "b"], metric="FPRD")
    with pytest.raises(ValueError, match="metric must be"):
        rate_difference_test([1, 0, 1, 0], ["a", "a", "b", "b"], metric="accuracy")
    with pytest.raises(ValueError, match="same length"):
        rate_difference_test([1, 0, 1], ["a", "a", "b", "b"])
    with pytest.raises(ValueError, match="alternative"):
        rate_difference_test([1, 0, 1, 0], ["a", "a", "b", "b"], alternative="bigger")


def test_accepts_series_and_arrays() -> None:
    y, g = [1, 1, 0, 0, 1, 0], ["a", "a", "a", "b", "b", "b"]
    expected = rate_difference_test(y, g).p_value
    assert rate_difference_test(pd.Series(y), pd.Series(g)).p_value == expected
    assert rate_difference_test(np.array(y), np.array(g)).p_value == expected


def test_pairwise_tests_adjust_over_all_rows() -> None:
    rng = np.random.default_rng(1)
    g = rng.choice(["a", "b", "c"], size=300)
    t = (rng.random(300) < 0.5).astype(int)
    p = (rng.random(300) < np.where(g == "c", 0.8, 0.4)).astype(int)
    frame = pairwise_rate_tests(p, g, t, metrics=["DP", "FPRD"])
    assert list(frame.columns) == [
        "metric", "group_a", "group_b", "rate_a", "rate_b", "difference", "n_a", "n_b", "units_a", "units_b",
        "p_value", "p_adjusted", "method", "n_permutations", "reason",
    ]  # fmt: skip
    assert len(frame) == 6
    # without prompt ids every row is its own unit and the test is the exact one
    assert (frame["units_a"] == frame["n_a"]).all() and (frame["method"] == "exact (hypergeometric)").all()
    assert frame["n_permutations"].isna().all()
    np.testing.assert_allclose(frame["p_adjusted"], benjamini_hochberg(frame["p_value"]))
    dp = frame[frame.metric == "demographic_parity"].set_index(["group_a", "group_b"])
    assert dp.loc[("a", "c"), "p_value"] < 1e-3 and dp.loc[("a", "b"), "p_value"] > 0.01


@given(
    y=arrays(np.int64, st.integers(4, 40), elements=st.integers(0, 1)),
    data=st.data(),
)
def test_rate_test_properties(y: np.ndarray, data: st.DataObject) -> None:
    g = np.array(data.draw(st.lists(st.sampled_from(["a", "b"]), min_size=y.size, max_size=y.size)))
    if len(set(g)) < 2:
        g[0], g[-1] = "a", "b"
    ab = rate_difference_test(y, g, group_a="a", group_b="b")
    ba = rate_difference_test(y, g, group_a="b", group_b="a")
    assert 0.0 < ab.p_value <= 1.0
    assert ab.p_value == pytest.approx(ba.p_value)
    assert ab.statistic == pytest.approx(-ba.statistic)
    greater = rate_difference_test(y, g, group_a="a", group_b="b", alternative="greater")
    assert greater.p_value <= ab.p_value + 1e-12 or ab.statistic < 0


# ------------------------------------------------------------------------------------------- counterfactual sentiment
def brute_force_p(a: np.ndarray, b: np.ndarray, stat) -> float:
    observed = abs(stat(a, b))
    hits = 0
    for flips in itertools.product([False, True], repeat=a.size):
        f = np.array(flips)
        hits += abs(stat(np.where(f, b, a), np.where(f, a, b))) >= observed - 1e-12
    return hits / 2**a.size


def test_sentiment_exact_enumeration_matches_brute_force() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random(8), rng.random(8) * 0.7
    mean = counterfactual_sentiment_test(a, b, statistic="mean")
    assert mean.method == "exact" and mean.n_permutations == 256
    assert mean.p_value == pytest.approx(brute_force_p(a, b, lambda x, y: x.mean() - y.mean()))
    wcsp = counterfactual_sentiment_test(a, b, statistic="wcsp", threshold=0.4)
    assert wcsp.p_value == pytest.approx(brute_force_p(a, b, lambda x, y: (x > 0.4).mean() - (y > 0.4).mean()))


def test_scsp_statistic_is_the_wasserstein_distance() -> None:
    from scipy.stats import wasserstein_distance

    rng = np.random.default_rng(2)
    a, b = rng.random(30), rng.random(30) ** 2
    test = counterfactual_sentiment_test(a, b, statistic="scsp", n_permutations=999)
    assert test.statistic == pytest.approx(wasserstein_distance(a, b))
    assert test.method == "monte-carlo" and 1 / 1000 <= test.p_value <= 1


def test_monte_carlo_agrees_with_exact() -> None:
    rng = np.random.default_rng(4)
    a, b = rng.random(12), rng.random(12) * 0.8
    exact = counterfactual_sentiment_test(a, b, statistic="mean", n_permutations=4096)
    mc = counterfactual_sentiment_test(a, b, statistic="mean", n_permutations=4095, seed=1)
    assert exact.method == "exact" and mc.method == "monte-carlo"
    assert mc.p_value == pytest.approx(exact.p_value, abs=4 * math.sqrt(exact.p_value * (1 - exact.p_value) / 4095))


def test_identical_pairs_give_p_one_and_shifted_pairs_a_small_p() -> None:
    x = np.random.default_rng(5).random(100) * 0.5
    assert counterfactual_sentiment_test(x, x, statistic="mean").p_value == 1.0
    shifted = counterfactual_sentiment_test(x, x + 0.3, statistic="wcsp", threshold=0.5, n_permutations=999)
    assert shifted.p_value == pytest.approx(1 / 1000)


def test_sentiment_test_is_seeded() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.random(50), rng.random(50)
    assert counterfactual_sentiment_test(a, b, seed=3) == counterfactual_sentiment_test(a, b, seed=3)


def test_sentiment_test_errors() -> None:
    with pytest.raises(ValueError, match="statistic"):
        counterfactual_sentiment_test([0.1], [0.2], statistic="median")
    with pytest.raises(ValueError, match="two-sided"):
        counterfactual_sentiment_test([0.1], [0.2], statistic="scsp", alternative="greater")
    with pytest.raises(ValueError, match=r"\[0.0, 1.0\]"):
        counterfactual_sentiment_test([1.5], [0.2])
    with pytest.raises(ValueError, match="same length"):
        counterfactual_sentiment_test([0.1, 0.3], [0.2])


@given(
    pairs=arrays(np.float64, st.tuples(st.integers(1, 9), st.just(2)), elements=st.floats(0, 1)),
    statistic=st.sampled_from(["wcsp", "scsp", "mean"]),
)
def test_sentiment_p_is_symmetric_in_the_groups(pairs: np.ndarray, statistic: str) -> None:
    ab = counterfactual_sentiment_test(pairs[:, 0], pairs[:, 1], statistic=statistic)
    ba = counterfactual_sentiment_test(pairs[:, 1], pairs[:, 0], statistic=statistic)
    assert 0 < ab.p_value <= 1
    assert ab.p_value == pytest.approx(ba.p_value)


# ------------------------------------------------------------------------------------------- Benjamini-Hochberg
def test_benjamini_hochberg_by_hand() -> None:
    # sorted p: .01 .03 .04 .5 -> m p / rank: .04 .06 .0533 .5 -> running min from the top: .04 .0533 .0533 .5
    adjusted = benjamini_hochberg([0.01, 0.04, 0.03, 0.5])
    np.testing.assert_allclose(adjusted, [0.04, 0.16 / 3, 0.16 / 3, 0.5])


def test_benjamini_hochberg_keeps_nan_out_of_the_count() -> None:
    adjusted = benjamini_hochberg(pd.Series([0.01, np.nan, 0.02]))
    np.testing.assert_allclose(adjusted, [0.02, np.nan, 0.02])
    assert benjamini_hochberg([]).size == 0
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        benjamini_hochberg([0.2, 1.2])


@given(arrays(np.float64, st.integers(1, 30), elements=st.floats(0, 1)))
def test_benjamini_hochberg_properties(p: np.ndarray) -> None:
    adjusted = benjamini_hochberg(p)
    assert np.all(adjusted >= p - 1e-12) and np.all(adjusted <= 1.0)
    order = np.argsort(p, kind="stable")
    assert np.all(np.diff(adjusted[order]) >= -1e-12)  # monotone in the raw p-values
    assert adjusted.min() == pytest.approx(min(1.0, (p * p.size / (np.argsort(np.argsort(p)) + 1)).min()))


def test_sentiment_statistics_agree_with_the_counterfactual_metrics() -> None:
    from evenhand.metrics import counterfactual as cf

    rng = np.random.default_rng(9)
    a, b = rng.random(40), rng.random(40) ** 1.5
    scsp = counterfactual_sentiment_test(a, b, statistic="scsp", n_permutations=99)
    assert scsp.statistic == pytest.approx(float(cf.strict_sentiment_parity(a, b)))
    wcsp = counterfactual_sentiment_test(a, b, statistic="wcsp", threshold=0.3, n_permutations=99)
    assert abs(wcsp.statistic) == pytest.approx(float(cf.weak_sentiment_parity(a, b, threshold=0.3)))


def test_tests_hold_their_level_under_the_null() -> None:
    # 300 datasets with no group difference: about 5% (at most ~8%) of p-values fall at or below 0.05
    rng = np.random.default_rng(10)
    rate_p, sent_p = [], []
    for _ in range(300):
        g = np.where(rng.random(120) < 0.5, "a", "b")
        rate_p.append(rate_difference_test((rng.random(120) < 0.3).astype(int), g).p_value)
        base = rng.random(40)
        a, b = np.clip(base + rng.normal(0, 0.1, 40), 0, 1), np.clip(base + rng.normal(0, 0.1, 40), 0, 1)
        sent_p.append(counterfactual_sentiment_test(a, b, statistic="mean", n_permutations=199, seed=rng).p_value)
    for p in (np.array(rate_p), np.array(sent_p)):
        assert 0.01 <= np.mean(p <= 0.05) <= 0.085


def test_every_classification_rate_is_testable_and_agrees() -> None:
    # the permutation tests take their rate definitions from evenhand.metrics.classification, their names from the
    # registry's alias table
    from evenhand.metrics import classification as cls
    from evenhand.registry import rate_metrics

    rng = np.random.default_rng(11)
    t, p = (rng.random(300) < 0.4).astype(int), (rng.random(300) < 0.5).astype(int)
    g = np.where(rng.random(300) < 0.5, "f", "m")
    for spec in rate_metrics():
        name, key = spec.key, spec.name
        value = getattr(cls, name)(p, g) if key == "DP" else getattr(cls, name)(t, p, g)
        for spelling in (key, key.lower(), name, name.removesuffix("_difference")):
            test = rate_difference_test(p, g, t, metric=spelling)
            assert test.details["metric"] == name.removesuffix("_difference")
            assert abs(test.statistic) == pytest.approx(float(value))
