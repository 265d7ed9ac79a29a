"""Noise floor for counterfactual similarity, with simple per-pair similarity functions."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.stats import NoiseFloor, noise_floor, noise_floor_from_scores


def jaccard(left: list[str], right: list[str]) -> np.ndarray:
    out = []
    for x, y in zip(left, right, strict=True):
        a, b = set(x.split()), set(y.split())
        out.append(len(a & b) / len(a | b) if a | b else 1.0)
    return np.array(out)


def test_hand_computed_example() -> None:
    # prompt 1: counterfactual pairs (abc, abe) -> 2/4, (abd, acd) -> 2/4; same-prompt pairs
    #   group A (abc, abd) -> 2/4, group B (abe, acd) -> 1/5.
    # prompt 2: counterfactual (xy, xw) -> 1/3, (xz, yz) -> 1/3; same-prompt (xy, xz) -> 1/3, (xw, yz) -> 0.
    # counterfactual = (0.5 + 0.5 + 1/3 + 1/3) / 4; each group's own floor: A (0.5 + 1/3) / 2, B (0.2 + 0) / 2;
    # the baseline is the larger, A's.
    nf = noise_floor(
        ["a b c", "a b d", "x y", "x z"], ["a b e", "a c d", "x w", "y z"], ["p1", "p1", "p2", "p2"], jaccard
    )
    assert nf.counterfactual == pytest.approx((1 + 2 / 3) / 4)
    assert nf.baseline == pytest.approx((0.5 + 1 / 3) / 2) == nf.floor_a and nf.floor_b == pytest.approx(0.1)
    assert nf.summary()["floor_b"] == pytest.approx(0.1)
    assert nf.gap == pytest.approx(nf.baseline - nf.counterfactual)
    assert (nf.n_prompts, nf.n_counterfactual_pairs, nf.n_baseline_pairs) == (2, 4, 4)
    assert nf.per_prompt["prompt_id"].tolist() == ["p1", "p2"]
    np.testing.assert_allclose(nf.per_prompt["baseline"], [0.35, 1 / 6])  # per prompt: both groups' pairs
    # two prompts: the gap bootstrap sees prompt 1 twice (0.5 - 0.5), prompt 2 twice (1/3 - 1/3) or one of each
    # (A's floor 5/12 against 5/12): group A's floor equals the counterfactual similarity in every replicate
    assert nf.gap == pytest.approx(0) and nf.gap_interval.low == pytest.approx(0) == nf.gap_interval.high


def test_the_floor_without_groups_is_the_mean_of_all_pairs() -> None:
    nf = noise_floor_from_scores([0.5, 0.5], [1, 1], [0.9, 0.1], [1, 1])
    assert nf.baseline == pytest.approx(0.5) and math.isnan(nf.floor_a)
    split = noise_floor_from_scores([0.5, 0.5], [1, 1], [0.9, 0.1], [1, 1], baseline_sides=[0, 1])
    assert split.baseline == pytest.approx(0.9) and split.gap == pytest.approx(0.4) and split.floor_b == 0.1
    with pytest.raises(ValueError, match="baseline_sides"):
        noise_floor_from_scores([0.5], [1], [0.9], [1], baseline_sides=[2])


def test_the_swap_test_of_the_group_floor_is_exact_by_enumeration() -> None:
    """Brute force over every swap pattern of 3 rows of one prompt: the Monte Carlo p with many swaps agrees."""
    import itertools

    from evenhand.stats import swap_test_of_gap

    rng = np.random.default_rng(5)
    a, b = rng.random((3, 4)), rng.random((3, 4))  # toy "replies": vectors; similarity 1 - mean |x - y|

    def sim(x: np.ndarray, y: np.ndarray) -> float:
        return float(1 - np.abs(x - y).mean())

    first, second = np.array([0, 1]), np.array([1, 2])
    links = list(zip(first, second, strict=True))

    def floor(xa: np.ndarray, xb: np.ndarray) -> float:
        return float(
            max(np.mean([sim(xa[i], xa[j]) for i, j in links]), np.mean([sim(xb[i], xb[j]) for i, j in links]))
        )

    observed = floor(a, b)
    hits = []
    for flips in itertools.product([False, True], repeat=3):
        f = np.array(flips)
        xa, xb = np.where(f[:, None], b, a), np.where(f[:, None], a, b)
        hits.append(floor(xa, xb) >= observed - 1e-12)
    same = np.array([sim(a[i], a[j]) for i, j in links] + [sim(b[i], b[j]) for i, j in links])
    cross = np.array([sim(a[i], b[j]) for i, j in links] + [sim(b[i], a[j]) for i, j in links])
    p = swap_test_of_gap(same, cross, first, second, n_permutations=40_000, seed=1)
    assert p == pytest.approx(np.mean(hits), abs=0.01)


def test_pairs_with_more_samples_use_consecutive_samples() -> None:
    seen: list[tuple[str, str]] = []

    def record(left: list[str], right: list[str]) -> list[float]:
        seen.extend(zip(left, right, strict=True))
        return [0.5] * len(left)

    noise_floor(["a1", "a2", "a3"], ["b1", "b2", "b3"], [7, 7, 7], record, n_resamples=10)
    assert seen[:3] == [("a1", "b1"), ("a2", "b2"), ("a3", "b3")]
    assert sorted(seen[3:]) == [("a1", "a2"), ("a2", "a3"), ("b1", "b2"), ("b2", "b3")]


def test_attribute_effect_is_distinguishable_and_pure_noise_is_not() -> None:
    rng = np.random.default_rng(0)
    n_prompts, m = 200, 4
    ids = np.repeat(np.arange(n_prompts), m)
    # synthetic "similarities": same-prompt pairs ~ 0.62, counterfactual pairs ~ 0.60 (or 0.62 when no effect)
    base = np.clip(rng.normal(0.62, 0.1, size=2 * n_prompts * (m - 1)), 0, 1)
    base_ids = np.tile(np.repeat(np.arange(n_prompts), m - 1), 2)
    for cf_mean, expect in [(0.55, True), (0.62, False)]:
        cf = np.clip(rng.normal(cf_mean, 0.1, size=n_prompts * m), 0, 1)
        nf = noise_floor_from_scores(cf, ids, base, base_ids, name="CROUGE-L")
        assert nf.distinguishable is expect
        assert nf.gap_interval.contains(nf.gap)
        assert nf.counterfactual_interval.contains(cf.mean())


def test_prompts_with_one_response_are_left_out_with_a_note() -> None:
    nf = noise_floor(["a", "a b", "c"], ["a", "a c", "d"], [1, 1, 2], jaccard, n_resamples=50)
    assert nf.n_prompts == 1 and nf.n_counterfactual_pairs == 2
    assert "1 of 2 prompts" in (nf.reason or "")


def test_single_response_per_prompt_gives_nan_with_reason() -> None:
    nf = noise_floor(["a", "b"], ["a", "c"], [1, 2], jaccard)
    assert math.isnan(nf.gap) and math.isnan(nf.baseline) and not nf.distinguishable
    assert "two or more responses per prompt" in (nf.reason or "")
    assert nf.summary()["gap"] is None


def test_seeded_and_accepts_series() -> None:
    a = pd.Series(["a b", "a c", "b c", "c d"])
    b = pd.Series(["a d", "a b", "b d", "c e"])
    ids = pd.Series([1, 1, 2, 2])
    x = noise_floor(a, b, ids, jaccard, seed=4)
    y = noise_floor(a.tolist(), b.tolist(), ids.tolist(), jaccard, seed=4)
    assert x.gap_interval == y.gap_interval
    assert isinstance(x, NoiseFloor) and x.summary()["n_prompts"] == 2


def test_errors_name_the_problem() -> None:
    with pytest.raises(TypeError, match="callable"):
        noise_floor(["a"], ["b"], [1], 42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="rouge_l"):
        noise_floor(["a"], ["b"], [1], "meteor")
    with pytest.raises(ValueError, match="same length"):
        noise_floor(["a", "b"], ["b"], [1, 1], jaccard)
    with pytest.raises(ValueError, match="one per pair"):
        noise_floor(["a", "b"], ["b", "c"], [1, 1], lambda x, y: [0.5])
    with pytest.raises(TypeError, match="str"):
        noise_floor(["a", None], ["b", "c"], [1, 1], jaccard)  # type: ignore[list-item]


@given(
    m=st.integers(2, 5),
    n=st.integers(1, 12),
    shift=st.floats(-0.3, 0.3),
    seed=st.integers(0, 1000),
)
def test_gap_properties(m: int, n: int, shift: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    ids = np.repeat(np.arange(n), m)
    base_ids = np.tile(np.repeat(np.arange(n), m - 1), 2)
    cf = rng.random(n * m) * 0.5 + 0.25
    base = rng.random(base_ids.size) * 0.5 + 0.25
    nf = noise_floor_from_scores(cf, ids, base, base_ids, n_resamples=50, seed=seed)
    shifted = noise_floor_from_scores(cf + shift, ids, base, base_ids, n_resamples=50, seed=seed)
    assert nf.gap == pytest.approx(base.mean() - cf.mean())
    assert shifted.gap == pytest.approx(nf.gap - shift)
    if n >= 2:
        assert shifted.gap_interval.low == pytest.approx(nf.gap_interval.low - shift, abs=1e-9)
        assert nf.gap_interval.low <= nf.gap_interval.high


def test_named_similarities_use_the_counterfactual_metrics_maths() -> None:
    from evenhand.metrics import counterfactual as cf

    a = ["he was kind and calm", "he was late", "she said the plan works", "she said it works"]
    b = ["she was kind and calm", "she was very late", "he said the plan fails", "he said it fails"]
    ids = [1, 1, 2, 2]
    for name, metric, label in [
        ("rouge_l", cf.counterfactual_rouge_l, "CROUGE-L"),
        ("bleu", cf.counterfactual_bleu, "CBLEU"),
    ]:
        nf = noise_floor(a, b, ids, name, attribute="gender", n_resamples=50)
        assert nf.name == label
        # with the same neutralization, the counterfactual side is the metric itself
        assert nf.counterfactual == pytest.approx(float(metric(a, b, attribute="gender")))


def test_undefined_pair_similarities_are_left_out() -> None:
    nf = noise_floor_from_scores([0.5, np.nan, 0.7], [1, 1, 2], [0.6, 0.8, np.nan], [1, 2, 2], n_resamples=20)
    assert nf.counterfactual == pytest.approx(0.6) and nf.baseline == pytest.approx(0.7)
    assert nf.n_counterfactual_pairs == 2 and nf.n_baseline_pairs == 2


def _rouge_like(rng: np.random.Generator, k: int, delta: float) -> tuple[np.ndarray, ...]:
    """k prompts, each with 4 same-prompt scores around its own level and 3 counterfactual ones delta lower."""
    mu = rng.uniform(0.3, 0.8, size=(k, 1))
    base = np.clip(mu + rng.normal(0, 0.1, (k, 4)), 0, 1)
    cf = np.clip(mu - delta + rng.normal(0, 0.1, (k, 3)), 0, 1)
    return cf.ravel(), np.repeat(np.arange(k), 3), base.ravel(), np.repeat(np.arange(k), 4)


@pytest.mark.slow
def test_the_gap_interval_covers_on_two_prompts() -> None:
    """left6: on 2 prompts the gap's expanded percentile bootstrap covered the true gap about half the time
    (its replicates are the 2 prompts' values re-mixed); on the house's small-sample rule it covers about 90%+."""
    truth, runs, covered = 0.1, 200, 0
    for seed in range(runs):
        floor = noise_floor_from_scores(*_rouge_like(np.random.default_rng(seed), 2, truth), name="CROUGE-L",
                                        n_resamples=199, seed=seed)  # fmt: skip
        assert floor.gap_interval.method == "student-t on jackknife prompts" and floor.gap_interval.level == 0.95
        covered += floor.gap_interval.low <= truth <= floor.gap_interval.high
    assert covered / runs >= 0.85, covered


def test_the_gap_interval_on_alike_prompts_and_from_30_prompts() -> None:
    """Every prompt gives the same gap: the bound for none of k prompts off it, within the gap's range (CROUGE-L's
    [0, 1] gives [-1, 1]), not "exactly v". From 30 prompts the expanded bootstrap stays as it was."""
    ids = np.repeat(np.arange(4), 2)
    floor = noise_floor_from_scores(np.full(8, 0.5), ids, np.full(8, 0.7), ids, name="CROUGE-L", n_resamples=199)
    q = 1 - 0.025 ** (1 / 4)
    assert floor.gap == pytest.approx(0.2)
    assert (floor.gap_interval.low, floor.gap_interval.high) == pytest.approx((0.2 - q * 1.2, 0.2 + q * 0.8))
    args = _rouge_like(np.random.default_rng(0), 30, 0.1)
    floor = noise_floor_from_scores(*args, name="CROUGE-L", n_resamples=199)
    assert floor.gap_interval.method == "percentile" and floor.gap_interval.level == 0.95
