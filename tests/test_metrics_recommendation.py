"""Recommendation fairness metrics (paper 3.3): hand-computed examples, input handling, properties, resampling."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics as m
from evenhand.metrics.recommendation import recommendation_metrics, sensitive_to_neutral_similarity

# R' = [a, b, c], R'' = [a, c, d]  (K = 3)
#   Jaccard: |{a, c}| / |{a, b, c, d}| = 1/2
#   ψ(R', R''): a rank 1 -> 3, c rank 3 -> 1: 4/6;  ψ(R'', R'): a -> 3, c rank 2 -> 2: 5/6;  SERP = 2/3
#   η(R', R''): (a,b) a∈R'', b∉R'' ✓; (a,c) a before c in R'' ✓; (b,c) b∉R'' ✗ -> 2/3
#   η(R'', R'): (a,c) ✓; (a,d) d∉R' ✓; (c,d) ✓ -> 3/3;  PRAG = 2/3
R1 = [["a", "b", "c"], ["x", "y", "z"]]
R2 = [["a", "c", "d"], ["z", "y", "x"]]
# second pair: same set, reversed order. Jaccard 1; ψ both ways: x->3*? x rank1 (3) + y (2) + z (1) = 1 -> SERP 1;
# η: no pair keeps its order -> 0


def test_hand_computed() -> None:
    jac, serp, prag = m.jaccard_at_k(R1, R2), m.serp_at_k(R1, R2), m.prag_at_k(R1, R2)
    np.testing.assert_allclose(jac.per_item, [1 / 2, 1.0])
    np.testing.assert_allclose(serp.per_item, [2 / 3, 1.0])
    np.testing.assert_allclose(prag.per_item, [2 / 3, 0.0])
    assert float(jac) == pytest.approx(3 / 4)
    assert float(serp) == pytest.approx(5 / 6)
    assert float(prag) == pytest.approx(1 / 3)
    for result, name in ((jac, "Jaccard-K"), (serp, "SERP-K"), (prag, "PRAG-K")):
        assert result.name == name and result.higher_is_fairer and result.value_range == (0.0, 1.0)
        assert result.sizes == {"pairs": 2, "k": 3} and result.item_unit == "pair"


def test_prag_reaches_one_on_identical_lists_unlike_printed_constant() -> None:
    lists = [[f"i{j}" for j in range(10)]]
    assert float(m.prag_at_k(lists, lists)) == 1.0
    assert float(m.serp_at_k(lists, lists)) == 1.0


def test_combined_equals_single_functions() -> None:
    together = recommendation_metrics(R1, R2)
    assert list(together) == ["Jaccard-K", "SERP-K", "PRAG-K"]
    assert float(together["SERP-K"]) == float(m.serp_at_k(R1, R2))
    assert list(recommendation_metrics(R1, R2, metrics=["prag-k"])) == ["PRAG-K"]
    with pytest.raises(ValueError, match="unknown recommendation metric"):
        recommendation_metrics(R1, R2, metrics=["ndcg"])


def test_normalization() -> None:
    left = [["The  Matrix", "Alien"]]
    right = [["the matrix", " ALIEN "]]
    assert float(m.jaccard_at_k(left, right)) == 1.0
    assert float(m.jaccard_at_k(left, right, normalize=False)) == 0.0
    assert (
        float(m.jaccard_at_k(left, [["THE MATRIX!", "x"]], normalize=lambda s: " ".join(s.lower().strip("!").split())))
        == 1 / 3
    )


def test_input_types() -> None:
    expected = float(m.serp_at_k(R1, R2))
    assert float(m.serp_at_k(np.array(R1), np.array(R2))) == pytest.approx(expected)
    assert float(m.serp_at_k(pd.Series(R1), pd.Series(R2))) == pytest.approx(expected)
    assert float(m.serp_at_k([tuple(r) for r in R1], R2)) == pytest.approx(expected)
    assert float(m.jaccard_at_k([[1, 2, 3]], [[3, 4, 5]])) == pytest.approx(1 / 5)


def test_clear_errors() -> None:
    with pytest.raises(ValueError, match="same number of lists"):
        m.jaccard_at_k(R1, R2[:1])
    with pytest.raises(ValueError, match="same length K=3"):
        m.jaccard_at_k(R1, [["a", "b"], ["x", "y", "z"]])
    with pytest.raises(ValueError, match="same item twice"):
        m.serp_at_k([["a", "A", "b"]], [["a", "b", "c"]])
    with pytest.raises(TypeError, match="list of lists"):
        m.jaccard_at_k(["a", "b"], ["a", "b"])
    with pytest.raises(ValueError, match="empty"):
        m.jaccard_at_k([], [])
    with pytest.raises(ValueError, match="missing item"):
        m.jaccard_at_k([["a", None]], [["a", "b"]])
    with pytest.raises(ValueError, match="fewer than k=3"):
        m.jaccard_at_k([["a", "b"]], [["a", "b", "c"]], k=3)
    with pytest.raises(ValueError, match="positive integer"):
        m.jaccard_at_k(R1, R2, k=0)


def test_k_truncates_unequal_lists() -> None:
    left = [["a", "b", "c", "d"]]
    right = [["a", "b"]]
    assert float(m.serp_at_k(left, right, k=2)) == 1.0


def test_duplicates_mask() -> None:
    # the repeated "a" keeps its slot but matches nothing: [a, -, b] vs [a, b, c]
    result = m.jaccard_at_k([["a", "a", "b"]], [["a", "b", "c"]], duplicates="mask")
    assert float(result) == pytest.approx(2 / 4)
    serp = m.serp_at_k([["a", "a", "b"]], [["a", "b", "c"]], duplicates="mask")
    assert float(serp) == pytest.approx(min(3 + 1, 3 + 2) / 6)


def test_prag_undefined_for_k1() -> None:
    result = m.prag_at_k([["a"]], [["a"]])
    assert math.isnan(float(result)) and "K ≥ 2" in result.reason
    assert float(m.serp_at_k([["a"]], [["a"]])) == 1.0


def test_pair_resampler_is_a_mean() -> None:
    result = m.serp_at_k(R1, R2)
    assert result.resampler.unit == "pair" and result.resampler.n_units == 2
    np.testing.assert_allclose(result.resampler(np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 3.0]])), [5 / 6, 2 / 3, 1.0])


def test_sensitive_to_neutral() -> None:
    neutral = [["a", "b", "c"], ["x", "y", "z"]]
    groups = {"female": [["a", "c", "d"], ["x", "y", "z"]], "male": [["a", "b", "c"], ["x", "y", "z"]]}
    out = sensitive_to_neutral_similarity(neutral, groups)
    jac = out["Jaccard-K"]
    # female: mean(1/2, 1) = 3/4, male: 1 -> range 1/4, std 1/8
    np.testing.assert_allclose(jac.per_item, [0.75, 1.0])
    assert list(jac.item_labels) == ["female", "male"]
    assert float(jac) == pytest.approx(0.25)
    assert jac.details["SNSR"] == pytest.approx(0.25) and jac.details["SNSV"] == pytest.approx(0.125)
    assert jac.details["min"] == 0.75 and jac.details["max"] == 1.0
    # directed SERP: ψ(female, neutral) for [a, c, d] vs [a, b, c] = (3 + 2) / 6
    assert out["SERP-K"].details["group_similarity"]["female"] == pytest.approx((5 / 6 + 1) / 2)
    assert float(sensitive_to_neutral_similarity(neutral, groups, statistic="min")["Jaccard-K"]) == 0.75
    np.testing.assert_allclose(jac.resampler(np.ones((1, 2))), [0.25])
    np.testing.assert_allclose(jac.resampler(np.array([[0.0, 1.0]])), [0.0])
    # mappings keyed by prompt id are aligned by key
    keyed = sensitive_to_neutral_similarity(
        {"p1": neutral[0], "p2": neutral[1]},
        {g: {"p2": v[1], "p1": v[0]} for g, v in groups.items()},
        metrics=["jaccard"],
    )
    assert float(keyed["Jaccard-K"]) == pytest.approx(0.25)
    with pytest.raises(ValueError, match="one list per prompt"):
        sensitive_to_neutral_similarity(neutral, {"f": neutral[:1]})


# ----------------------------------------------------------------------------------------------- properties
def _ranked(k: int) -> st.SearchStrategy[list[str]]:
    return st.permutations([f"item{i}" for i in range(2 * k)]).map(lambda p: list(p[:k]))


pairs = st.integers(min_value=2, max_value=6).flatmap(
    lambda k: st.lists(st.tuples(_ranked(k), _ranked(k)), min_size=1, max_size=8)
)


def _brute(metric: str, r1: list[str], r2: list[str]) -> float:
    k = len(r1)
    if metric == "jaccard":
        return len(set(r1) & set(r2)) / len(set(r1) | set(r2))

    def psi(x: list[str], y: list[str]) -> float:
        return sum((k - x.index(v)) for v in x if v in y) / (k * (k + 1) / 2)

    def eta(x: list[str], y: list[str]) -> float:
        count = 0
        for v1 in x:
            for v2 in x:
                if v1 != v2 and v1 in y and x.index(v1) < x.index(v2):
                    if v2 not in y or y.index(v1) < y.index(v2):
                        count += 1
        return count / (k * (k - 1) / 2)

    f = psi if metric == "serp" else eta
    return min(f(r1, r2), f(r2, r1))


FUNCS = {"jaccard": m.jaccard_at_k, "serp": m.serp_at_k, "prag": m.prag_at_k}


@given(pairs, st.sampled_from(list(FUNCS)))
def test_matches_brute_force(data, metric: str) -> None:
    r1, r2 = [a for a, _ in data], [b for _, b in data]
    expected = [_brute(metric, a, b) for a, b in data]
    np.testing.assert_allclose(FUNCS[metric](r1, r2).per_item, expected, atol=1e-12)


@given(pairs, st.sampled_from(list(FUNCS)))
def test_symmetric_bounded_and_identity(data, metric: str) -> None:
    r1, r2 = [a for a, _ in data], [b for _, b in data]
    forward, backward = FUNCS[metric](r1, r2), FUNCS[metric](r2, r1)
    np.testing.assert_allclose(forward.per_item, backward.per_item)
    assert 0.0 <= float(forward) <= 1.0
    assert float(FUNCS[metric](r1, r1)) == pytest.approx(1.0)


@given(pairs, st.randoms(use_true_random=False))
def test_pair_order_does_not_matter(data, rnd) -> None:
    shuffled = list(data)
    rnd.shuffle(shuffled)
    for func in FUNCS.values():
        a = func([x for x, _ in data], [y for _, y in data])
        b = func([x for x, _ in shuffled], [y for _, y in shuffled])
        assert float(a) == pytest.approx(float(b))


@given(st.integers(min_value=1, max_value=8))
def test_disjoint_lists_score_zero(k: int) -> None:
    left = [[f"a{i}" for i in range(k)]]
    right = [[f"b{i}" for i in range(k)]]
    assert float(m.jaccard_at_k(left, right)) == 0.0
    assert float(m.serp_at_k(left, right)) == 0.0
    if k > 1:
        assert float(m.prag_at_k(left, right)) == 0.0


@given(pairs, st.sampled_from(["range", "std", "min", "max"]))
def test_neutral_form_group_order_and_identity(data, statistic: str) -> None:
    neutral = [a for a, _ in data]
    other = [b for _, b in data]
    forward = sensitive_to_neutral_similarity(neutral, {"g1": neutral, "g2": other}, statistic=statistic)
    backward = sensitive_to_neutral_similarity(neutral, {"g2": other, "g1": neutral}, statistic=statistic)
    for name, result in forward.items():
        assert float(result) == pytest.approx(float(backward[name]))
        assert result.details["group_similarity"]["g1"] == pytest.approx(1.0)  # identical to neutral
        np.testing.assert_allclose(result.resampler(np.ones((1, len(data)))), [float(result)])
    same = sensitive_to_neutral_similarity(neutral, {"g1": neutral, "g2": neutral})
    assert all(float(r) == pytest.approx(0.0) for r in same.values())
