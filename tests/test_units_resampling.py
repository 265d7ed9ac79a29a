"""The prompt as the resampling unit (``prompts=``): clustered resamplers computed by hand, properties, and the
permutation tests at the prompt level.

Rule: statistics resample or permute the independent unit, the prompt (the person, in person-level
classification) with all its answers, never single answers of one prompt.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

from evenhand import metrics as m
from evenhand.metrics._result import MetricResult
from evenhand.stats import (
    bootstrap_distribution,
    confidence_interval,
    counterfactual_sentiment_test,
    pairwise_rate_tests,
    rate_difference_test,
)
from evenhand.stats._resampling import strata_indices


def stat(result: MetricResult, *weights: list[float]) -> np.ndarray:
    assert result.resampler is not None
    return result.resampler(np.array(weights, dtype=float))


# ----------------------------------------------------------------------------------------------- hand-computed
def test_crouge_l_cluster_statistic_by_hand() -> None:
    # per pair: identical -> 1, disjoint -> 0, "a b c"/"a b d": LCS 2 -> 4/6, empty/empty -> undefined (left out)
    texts1, texts2 = ["a b", "a b", "a b c", ""], ["a b", "c d", "a b d", ""]
    r = m.counterfactual_rouge_l(texts1, texts2, attribute=None, prompts=["p", "p", "q", "q"])
    assert float(r) == pytest.approx((1 + 0 + 2 / 3) / 3)
    assert r.resampler is not None and r.resampler.unit == "prompt" and r.resampler.n_units == 2
    assert r.sizes == {"pairs": 4, "defined_pairs": 3, "prompts": 2}
    # prompt p drawn once, q twice: (1 + 0 + 2 * 2/3) / (2 + 2 * 1 defined pair)
    np.testing.assert_allclose(stat(r, [1, 2], [2, 0], [0, 2]), [(1 + 4 / 3) / 4, 0.5, 2 / 3])


def test_jaccard_cluster_statistic_by_hand() -> None:
    # K = 2: identical lists 1, disjoint 0, one shared item 1/3; prompts p (two samples) and q
    recs1, recs2 = [["x", "y"], ["x", "y"], ["x", "y"]], [["x", "y"], ["u", "v"], ["x", "v"]]
    r = m.jaccard_at_k(recs1, recs2, prompts=pd.Series(["p", "p", "q"]))
    assert float(r) == pytest.approx(4 / 9) and r.sizes == {"pairs": 3, "prompts": 2, "k": 2}
    np.testing.assert_allclose(stat(r, [1, 2], [3, 0]), [(1 + 2 / 3) / 4, 0.5])
    plain = m.jaccard_at_k(recs1, recs2)
    assert plain.resampler is not None and plain.resampler.unit == "pair" and "prompts" not in plain.sizes


def test_scsp_cluster_statistic_weights_each_pair_by_its_prompts_draws() -> None:
    s1, s2 = [0.1, 0.9, 0.5], [0.3, 0.9, 0.2]
    r = m.strict_sentiment_parity(s1, s2, prompts=[7, 7, 8])
    # [1, 1]: the value; [2, 0]: {0.1, 0.9} vs {0.3, 0.9}; [0, 1]: {0.5} vs {0.2};
    # [1, 2]: {0.1, 0.9, 0.5, 0.5} vs {0.3, 0.9, 0.2, 0.2} -> sorted differences 0.1, 0.3, 0.2, 0 -> 0.15
    np.testing.assert_allclose(stat(r, [1, 1], [2, 0], [0, 1], [1, 2]), [float(r), 0.1, 0.3, 0.15], atol=1e-12)
    ref = wasserstein_distance(s1, s2, u_weights=[1, 1, 2], v_weights=[1, 1, 2])
    assert stat(r, [1, 2])[0] == pytest.approx(ref)


def test_wcsp_cluster_statistic_by_hand() -> None:
    # above 0.5: side 1 [1, 1, 0, 0], side 2 [0, 1, 1, 0] -> differences [1, 0, -1, 0]; prompts a, a, b, c
    r = m.weak_sentiment_parity([0.9, 0.8, 0.1, 0.2], [0.1, 0.9, 0.7, 0.3], prompts=["a", "a", "b", "c"])
    assert float(r) == 0.0 and r.resampler is not None and r.resampler.unit == "prompt"
    # a twice, b once, c zero: |2 * 1 - 1| / (2 * 2 + 1); a zero: |-1| / (1 + 1)
    np.testing.assert_allclose(stat(r, [2, 1, 0], [0, 1, 1]), [1 / 5, 1 / 2])


def person_level() -> dict[str, Any]:
    # four people asked several times: p1 (f) [1, 1, 0], p2 (f) [0, 0], p3 (m) [1], p4 (m) [1, 0, 0, 0]
    return {
        "y_pred": [1, 1, 0, 0, 0, 1, 1, 0, 0, 0],
        "groups": ["f"] * 5 + ["m"] * 5,
        "prompts": ["p1"] * 3 + ["p2"] * 2 + ["p3"] + ["p4"] * 4,
    }


def test_classification_cluster_statistic_by_hand() -> None:
    d = person_level()
    r = m.demographic_parity_difference(d["y_pred"], d["groups"], prompts=d["prompts"])
    plain = m.demographic_parity_difference(d["y_pred"], d["groups"])
    assert float(r) == float(plain) == pytest.approx(abs(2 / 5 - 2 / 5))
    assert r.resampler is not None and r.resampler.unit == "prompt" and r.resampler.n_units == 4
    assert list(r.resampler.strata) == ["f", "f", "m", "m"]  # people are resampled within their group
    assert r.sizes["prompts"] == 4 and r.details["prompts_per_group"] == {"f": 2, "m": 2}
    assert r.details["prompts_in_several_groups"] == 0
    # p1 twice, p2 never: f 4/6; p3 and p4 once: m 2/5 -> |4/6 - 2/5| = 4/15. p2 twice: f 0/4, m (2 * 1 + 0)/2
    np.testing.assert_allclose(stat(r, [2, 0, 1, 1], [0, 2, 2, 0]), [4 / 15, 1.0])
    w = np.vstack(list(bootstrap_weight_rows(r, 200)))
    assert (w[:, :2].sum(axis=1) == 2).all() and (w[:, 2:].sum(axis=1) == 2).all()


def bootstrap_weight_rows(result: MetricResult, n: int) -> Any:
    from evenhand.stats._resampling import bootstrap_weight_chunks

    assert result.resampler is not None
    parts = strata_indices(result.resampler)
    return bootstrap_weight_chunks(result.resampler.n_units, n, np.random.default_rng(0), parts)


def test_error_rate_cluster_statistic_counts_only_the_rates_rows() -> None:
    # FNR on actual positives only: p1 (f) truth [1, 1, 0] pred [0, 1, 1]; p2 (f) [1] [1]; p3 (m) [1, 1] [0, 0]
    y_true, y_pred = [1, 1, 0, 1, 1, 1], [0, 1, 1, 1, 0, 0]
    groups, prompts = ["f"] * 4 + ["m"] * 2, [1, 1, 1, 2, 3, 3]
    r = m.false_negative_rate_difference(y_true, y_pred, groups, prompts=prompts)
    assert float(r) == pytest.approx(1 - 1 / 3)
    # p1 twice, p2 never: f FNR 2/4; m 1 -> 0.5
    np.testing.assert_allclose(stat(r, [2, 0, 1], [0, 2, 1]), [0.5, 1.0])


def test_a_prompt_spanning_groups_is_its_own_stratum() -> None:
    # counterfactual versions under one prompt id: q has rows in f and m
    r = m.demographic_parity_difference([1, 0, 1, 1, 0], ["f", "m", "f", "m", "m"], prompts=["q", "q", "r", "r", "s"])
    assert r.resampler is not None
    assert list(r.resampler.strata) == [("f", "m"), ("f", "m"), "m"]
    assert r.details["prompts_in_several_groups"] == 2
    assert r.details["prompts_per_group"] == {"f": 2, "m": 3}
    iv = confidence_interval(r, n_resamples=200)
    assert iv.unit == "prompt" and iv.is_defined


def test_sensitive_to_neutral_similarity_clusters_positions_by_prompt() -> None:
    neutral = [["a", "b"], ["a", "b"], ["c", "d"]]
    groups = {"f": [["a", "b"], ["x", "y"], ["c", "d"]], "m": [["a", "b"], ["a", "b"], ["c", "x"]]}
    r = m.sensitive_to_neutral_similarity(neutral, groups, metrics=["jaccard"], prompts=[0, 0, 1])["Jaccard-K"]
    plain = m.sensitive_to_neutral_similarity(neutral, groups, metrics=["jaccard"])["Jaccard-K"]
    assert float(r) == float(plain) and r.sizes["prompts"] == 2 and r.sizes["lists"] == 3
    # f: [1, 0, 1], m: [1, 1, 1/3]; prompt 0 twice, 1 never: f 2/4, m 1 -> range 0.5
    np.testing.assert_allclose(stat(r, [2, 0]), [0.5])


def test_prompts_must_match_and_be_complete() -> None:
    with pytest.raises(ValueError, match="same length"):
        m.counterfactual_rouge_l(["a"], ["b"], attribute=None, prompts=[1, 2])
    with pytest.raises(ValueError, match="missing"):
        m.weak_sentiment_parity([0.1, 0.9], [0.2, 0.3], prompts=[1.0, math.nan])
    with pytest.raises(ValueError, match="same length"):
        m.demographic_parity_difference([1, 0], ["a", "b"], prompts=["x"])
    with pytest.raises(ValueError, match="same length"):
        pairwise_rate_tests([1, 0], ["a", "b"], prompts=["x"])
    with pytest.raises(ValueError, match="same length"):
        counterfactual_sentiment_test([0.1, 0.2], [0.3, 0.4], prompts=[1])


# ----------------------------------------------------------------------------------------------- properties
Builder = Callable[[np.ndarray, np.ndarray, Any], MetricResult]


def _texts(x: np.ndarray) -> list[str]:
    words = np.array(["a", "b", "c", "d", "e"])
    return [" ".join(words[: int(v * 5) + 1]) for v in x]


def _lists(x: np.ndarray) -> list[list[str]]:
    items = [f"i{j}" for j in range(6)]
    return [items[int(v * 3) : int(v * 3) + 3] for v in x]


def _groups(v: np.ndarray) -> np.ndarray:
    g = np.where(v > 0.5, "f", "m")
    g[0], g[1] = "f", "m"  # two groups always
    return g


PAIR_METRICS: dict[str, Builder] = {
    "CROUGE-L": lambda x, y, p: m.counterfactual_rouge_l(_texts(x), _texts(y), attribute=None, prompts=p),
    "CBLEU": lambda x, y, p: m.counterfactual_bleu(_texts(x), _texts(y), attribute=None, prompts=p),
    "SCSP": lambda x, y, p: m.strict_sentiment_parity(x, y, prompts=p),
    "WCSP": lambda x, y, p: m.weak_sentiment_parity(x, y, prompts=p),
    "Jaccard-K": lambda x, y, p: m.jaccard_at_k(_lists(x), _lists(y), prompts=p),
    "SERP-K": lambda x, y, p: m.serp_at_k(_lists(x), _lists(y), prompts=p),
    "PRAG-K": lambda x, y, p: m.prag_at_k(_lists(x), _lists(y), prompts=p),
    "DP": lambda x, y, p: m.demographic_parity_difference(x > 0.5, _groups(y), prompts=p),
    "FNRD": lambda x, y, p: m.false_negative_rate_difference(x > 0.3, y > 0.5, _groups((x * 7) % 1), prompts=p),
    "FDRD-ratio": lambda x, y, p: m.false_discovery_rate_ratio(x > 0.6, y > 0.4, _groups((y * 5) % 1), prompts=p),
}
unit_floats = st.floats(0, 1, allow_nan=False, width=32)


@st.composite
def paired_data(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = draw(st.integers(4, 30))
    x = np.array(draw(st.lists(unit_floats, min_size=n, max_size=n)), dtype=float)
    y = np.array(draw(st.lists(unit_floats, min_size=n, max_size=n)), dtype=float)
    prompts = np.array(draw(st.lists(st.integers(0, max(1, n // 3)), min_size=n, max_size=n)))
    # each group needs a row in both classification metrics: force both labels
    x[0], x[1], y[0], y[1] = 0.9, 0.1, 0.9, 0.1
    return x, y, prompts


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("name", list(PAIR_METRICS))
@given(data=paired_data())
def test_prompts_never_change_the_value(name: str, data: tuple[np.ndarray, np.ndarray, np.ndarray]) -> None:
    x, y, prompts = data
    build = PAIR_METRICS[name]
    plain, clustered = build(x, y, None), build(x, y, prompts)
    assert _same(float(plain), float(clustered))
    if clustered.resampler is not None:
        assert clustered.resampler.unit == "prompt"
        assert clustered.resampler.n_units == clustered.sizes["prompts"] == np.unique(prompts).size
        # unit weights give the value back
        at_ones = float(clustered.resampler(np.ones((1, clustered.resampler.n_units)))[0])
        assert at_ones == pytest.approx(float(plain), rel=1e-12, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("name", list(PAIR_METRICS))
@given(data=paired_data())
def test_distinct_prompts_resample_exactly_like_pairs_and_rows(
    name: str, data: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> None:
    x, y, _ = data
    build = PAIR_METRICS[name]
    plain, clustered = build(x, y, None), build(x, y, [f"p{i}" for i in range(x.size)])
    if plain.resampler is None:
        assert clustered.resampler is None
        return
    assert clustered.resampler is not None and clustered.resampler.n_units == plain.resampler.n_units
    w = np.random.default_rng(0).integers(0, 3, size=(5, x.size)).astype(float)
    np.testing.assert_allclose(clustered.resampler(w), plain.resampler(w), rtol=1e-12, equal_nan=True)
    if plain.is_defined:  # the very same replicates: same units, same strata, same draws
        np.testing.assert_array_equal(
            bootstrap_distribution(clustered, 50, seed=1), bootstrap_distribution(plain, 50, seed=1)
        )


def test_prompts_accept_lists_arrays_and_series() -> None:
    x = np.array([0.1, 0.7, 0.4, 0.9])
    ids = ["a", "a", "b", "b"]
    results = [m.strict_sentiment_parity(x, x[::-1], prompts=p) for p in (ids, np.array(ids), pd.Series(ids))]
    w = np.array([[2.0, 0.0], [1.0, 1.0]])
    for r in results[1:]:
        np.testing.assert_array_equal(stat(r, *w.tolist()), stat(results[0], *w.tolist()))


# ----------------------------------------------------------------------------------------------- permutation tests
def brute_force_prompt_p(y: np.ndarray, groups: np.ndarray, prompts: np.ndarray, a: str = "f", b: str = "m") -> float:
    """Every assignment of the group labels to prompts (each keeping its rows) with as many a-prompts as observed."""
    ids = list(dict.fromkeys(prompts.tolist()))
    label = {p: groups[prompts == p][0] for p in ids}
    n_a = sum(label[p] == a for p in ids)

    def diff(assigned_a: set[Any]) -> float:
        in_a = np.isin(prompts, list(assigned_a))
        return y[in_a].mean() - y[~in_a].mean()

    observed = abs(diff({p for p in ids if label[p] == a}))
    splits = list(itertools.combinations(ids, n_a))
    return sum(abs(diff(set(s))) >= observed - 1e-12 for s in splits) / len(splits)


def test_issue_example_repeated_answers_are_not_independent() -> None:
    # 8 applicants x 3 answers, all actual positives; the first four (f) are mostly missed
    person = np.repeat(np.arange(8), 3)
    groups = np.where(person < 4, "f", "m")
    y_true = np.ones(24, dtype=int)
    y_pred = np.r_[[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]]
    rows = pairwise_rate_tests(y_pred, groups, y_true, metrics="FNRD").iloc[0]
    people = pairwise_rate_tests(y_pred, groups, y_true, metrics="FNRD", prompts=person).iloc[0]
    assert rows["method"] == "exact (hypergeometric)" and rows["units_a"] == 12
    assert people["method"] == "permutation of prompts (Monte Carlo)" and people["n_permutations"] == 9999
    assert (people["n_a"], people["units_a"], people["units_b"]) == (12, 4, 4)
    assert people["difference"] == rows["difference"] == pytest.approx(0.75)
    # the most extreme of C(8, 4) = 70 splits of people, both directions: exact p = 2/70
    exact = brute_force_prompt_p(1 - y_pred, groups, person)
    assert exact == pytest.approx(2 / 70)
    assert people["p_value"] == pytest.approx(exact, abs=0.006)
    assert rows["p_value"] < 0.001 < 0.02 < people["p_value"]


def test_prompt_permutation_matches_enumeration() -> None:
    rng = np.random.default_rng(3)
    prompts = np.repeat(np.arange(7), rng.integers(1, 5, size=7))
    groups = np.where(prompts < 3, "f", "m")
    y = (rng.random(prompts.size) < np.where(groups == "f", 0.7, 0.3)).astype(int)
    test = rate_difference_test(y, groups, prompts=prompts, n_permutations=20000, seed=1)
    exact = brute_force_prompt_p(y, groups, prompts)
    assert test.method == "monte-carlo" and test.details["test"] == "permutation of prompts (Monte Carlo)"
    assert test.p_value == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 20000) + 1e-4)
    assert test.details["units_a"] == 3 and test.details["units_b"] == 4


def test_one_row_per_prompt_keeps_the_exact_test() -> None:
    rng = np.random.default_rng(4)
    y, g = (rng.random(30) < 0.5).astype(int), rng.choice(["f", "m"], size=30)
    plain = rate_difference_test(y, g)
    with_ids = rate_difference_test(y, g, prompts=[f"p{i}" for i in range(30)])
    assert with_ids.method == plain.method == "exact" and with_ids.p_value == plain.p_value
    assert with_ids.details["unit"] == "prompt" and plain.details["unit"] == "row"
    assert with_ids.details["units_a"] == plain.details["n_a"]


def test_prompt_in_both_groups_swaps_its_blocks() -> None:
    # counterfactual classification: each prompt answered for f and m; the outcome never depends on the group
    prompts = np.repeat(np.arange(6), 2)
    groups = np.tile(["f", "m"], 6)
    y = np.repeat([1, 0, 1, 1, 0, 0], 2)
    test = rate_difference_test(y, groups, prompts=prompts, n_permutations=999)
    assert test.statistic == 0.0 and test.p_value == 1.0
    # f always 1, m always 0: every swap pattern but the observed and its mirror is less extreme; 2 / 2**6
    y = np.tile([1, 0], 6)
    test = rate_difference_test(y, groups, prompts=prompts, n_permutations=20000, seed=2)
    assert test.p_value == pytest.approx(2 / 64, abs=0.006)


def test_pairwise_prompt_tests_are_seeded_per_row() -> None:
    rng = np.random.default_rng(5)
    prompts = np.repeat(np.arange(30), 3)
    groups = np.repeat(rng.choice(["a", "b", "c"], size=30), 3)
    y = (rng.random(90) < 0.4).astype(int)
    full = pairwise_rate_tests(y, groups, prompts=prompts, n_permutations=499, seed=7)
    again = pairwise_rate_tests(y, groups, prompts=prompts, n_permutations=499, seed=7)
    pd.testing.assert_frame_equal(full, again)
    one = rate_difference_test(y, groups, prompts=prompts, group_a="a", group_b="c", n_permutations=499, seed=7)
    row = full[(full.group_a == "a") & (full.group_b == "c")].iloc[0]
    assert row["p_value"] == one.p_value and (full["n_permutations"] == 499).all()


def brute_force_prompt_swaps(a: np.ndarray, b: np.ndarray, prompts: np.ndarray) -> float:
    ids = np.unique(prompts)
    observed = abs(a.mean() - b.mean())
    hits = 0
    for flips in itertools.product([False, True], repeat=ids.size):
        f = np.isin(prompts, ids[np.array(flips)])
        hits += abs(np.where(f, b, a).mean() - np.where(f, a, b).mean()) >= observed - 1e-12
    return hits / 2**ids.size


def test_sentiment_test_swaps_whole_prompts() -> None:
    rng = np.random.default_rng(6)
    prompts = np.repeat([10, 20, 30, 40], 3)
    a, b = rng.random(12), rng.random(12) * 0.6
    test = counterfactual_sentiment_test(a, b, statistic="mean", prompts=prompts)
    assert test.method == "exact" and test.n_permutations == 16
    assert test.details["unit"] == "prompt" and test.details["n_units"] == 4 and test.details["n_pairs"] == 12
    assert test.p_value == pytest.approx(brute_force_prompt_swaps(a, b, prompts))
    assert test.p_value >= 2 / 16  # 4 prompts: never below 2 of 16 swap patterns, however many pairs


@given(st.integers(2, 12), st.sampled_from(["wcsp", "mean", "scsp"]), st.integers(0, 10_000))
def test_sentiment_test_with_distinct_prompts_equals_pair_test(n: int, statistic: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.random(n), rng.random(n)
    for n_perm in (99, 4096):
        plain = counterfactual_sentiment_test(a, b, statistic=statistic, n_permutations=n_perm)
        clustered = counterfactual_sentiment_test(a, b, statistic=statistic, n_permutations=n_perm, prompts=range(n))
        assert clustered.p_value == plain.p_value and clustered.method == plain.method


def test_prompt_permutation_alternatives() -> None:
    rng = np.random.default_rng(8)
    prompts = np.repeat(np.arange(20), 3)
    groups = np.where(prompts < 10, "f", "m")
    y = (rng.random(60) < np.where(groups == "f", 0.7, 0.4)).astype(int)
    kwargs: dict[str, Any] = {"prompts": prompts, "n_permutations": 4999, "seed": 0}
    two = rate_difference_test(y, groups, **kwargs)
    greater = rate_difference_test(y, groups, alternative="greater", **kwargs)
    less = rate_difference_test(y, groups, alternative="less", **kwargs)
    assert two.statistic > 0 and greater.p_value <= two.p_value and less.p_value > 0.5
    assert 1 / 5000 <= greater.p_value and less.p_value <= 1.0
