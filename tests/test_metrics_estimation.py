"""Numeric outcomes (issue 36): CER and CED by hand from their formulas, property tests, the prompt-level resampler,
the per-group summary, the same-version noise floor, and the paired sign-flip test's null rate and power."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics
from evenhand.errors import InputError
from evenhand.metrics.estimation import (
    counterfactual_estimate_difference,
    counterfactual_estimate_ratio,
    estimate_summary,
)
from evenhand.registry import METRICS
from evenhand.stats import confidence_interval, estimate_noise_floor, paired_prompt_test

NAN = float("nan")


def test_ratio_by_hand() -> None:
    # ratios 90/100 = 0.9 and 180/200 = 0.9, 60/50 = 1.2: exp((2 log 0.9 + log 1.2) / 3) - 1
    r = counterfactual_estimate_ratio([90, 180, 60], [100, 200, 50])
    assert r.value == pytest.approx(math.exp((2 * math.log(0.9) + math.log(1.2)) / 3) - 1)
    assert r.name == "CER" and r.value_range == (-1.0, math.inf) and not r.higher_is_fairer
    assert r.details["mean_a"] == pytest.approx(110) and r.details["mean_b"] == pytest.approx(350 / 3)
    assert r.details["median_a"] == 90 and r.details["median_b"] == 100
    assert r.details["ratio_of_means"] == pytest.approx(110 / (350 / 3) - 1)
    assert r.details["geometric_mean_a"] == pytest.approx((90 * 180 * 60) ** (1 / 3))
    assert r.sizes == {"pairs": 3}


def test_difference_by_hand() -> None:
    # the example: $71,300 vs $77,600 and $70,000 vs $76,000: mean of -6,300 and -6,000
    r = counterfactual_estimate_difference(pd.Series([71_300, 70_000]), np.array([77_600, 76_000]))
    assert r.value == pytest.approx(-6_150) and r.name == "CED"
    assert r.value_range == (-math.inf, math.inf)
    assert METRICS["counterfactual_estimate_difference"].describe_range() == "[-∞, ∞]"


def test_pairs_without_a_number_or_a_ratio_are_left_out_and_counted() -> None:
    a = [90, NAN, 100, -10, 0, 50]
    b = [100, 80, NAN, 20, 30, NAN]
    ratio = counterfactual_estimate_ratio(a, b)
    assert ratio.value == pytest.approx(-0.1)  # only (90, 100): -10 and 0 have no log ratio
    assert ratio.details["unparsed_a"] == 1 and ratio.details["unparsed_b"] == 2
    assert ratio.details["nonpositive_pairs"] == 2 and ratio.details["left_out_pairs"] == 5
    assert np.isnan(ratio.per_item[1:]).all() and ratio.per_item[0] == pytest.approx(math.log(0.9))
    difference = counterfactual_estimate_difference(a, b)
    assert difference.value == pytest.approx((-10 - 30 - 30) / 3)  # (90,100), (-10,20), (0,30)
    assert difference.sizes == {"pairs": 3}
    empty = counterfactual_estimate_ratio([NAN, -1], [1, 2])
    assert not empty.is_defined and "positive number" in str(empty.reason)
    assert not counterfactual_estimate_difference([], []).is_defined


def test_the_resampler_draws_prompts_with_all_their_compared_pairs() -> None:
    a, b = [90, 99, 180, NAN], [100, 100, 200, 50]
    prompts = ["p", "p", "q", "r"]  # r's only pair has no number: r brings nothing
    r = counterfactual_estimate_ratio(a, b, prompts=prompts)
    assert r.resampler is not None and r.resampler.unit == "prompt" and r.resampler.n_units == 2
    assert r.sizes == {"pairs": 3, "prompts": 2}
    assert r.resampler(np.ones((1, 2)))[0] == pytest.approx(r.value)
    # q drawn twice, p never: only q's ratio
    assert r.resampler(np.array([[0.0, 2.0]]))[0] == pytest.approx(-0.1)
    d = counterfactual_estimate_difference(a, b, prompts=prompts)
    assert d.resampler is not None and d.resampler(np.array([[2.0, 0.0]]))[0] == pytest.approx((-10 - 1) / 2)
    iv = confidence_interval(counterfactual_estimate_ratio(np.arange(1, 41.0), np.arange(2, 42.0)), seed=0)
    assert iv.low <= -0.0 and iv.high < 0


def test_inputs_are_validated() -> None:
    with pytest.raises(InputError, match="same length"):
        counterfactual_estimate_ratio([1, 2], [1])
    with pytest.raises(InputError, match="infinite"):
        counterfactual_estimate_difference([math.inf], [1])
    assert metrics.counterfactual_estimate_ratio is counterfactual_estimate_ratio  # lazily public


positive = st.floats(min_value=1e-2, max_value=1e4, allow_nan=False)  # ratios up to 1e6: CER + 1 keeps its digits
finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False)


@given(st.lists(st.tuples(positive, positive), min_size=1, max_size=30))
def test_ratio_properties(pairs: list[tuple[float, float]]) -> None:
    a, b = (np.array(x) for x in zip(*pairs, strict=True))
    forward = counterfactual_estimate_ratio(a, b).value
    backward = counterfactual_estimate_ratio(b, a).value
    assert math.log1p(forward) == pytest.approx(-math.log1p(backward), rel=1e-6, abs=1e-9)  # swapped: inverted
    assert forward > -1
    # each prompt's own scale cancels: multiplying both sides of any pair by any factor changes nothing
    factors = np.geomspace(1e-2, 1e2, a.size)
    assert counterfactual_estimate_ratio(a * factors, b * factors).value == pytest.approx(forward, abs=1e-9)
    assert counterfactual_estimate_ratio(a, a).value == 0.0


@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=30), finite)
def test_difference_properties(pairs: list[tuple[float, float]], shift: float) -> None:
    a, b = (np.array(x) for x in zip(*pairs, strict=True))
    value = counterfactual_estimate_difference(a, b).value
    assert counterfactual_estimate_difference(b, a).value == pytest.approx(-value, abs=1e-6)
    assert counterfactual_estimate_difference(a + shift, b + shift).value == pytest.approx(value, abs=1e-3)
    assert value == pytest.approx(float(np.mean(a) - np.mean(b)), abs=1e-3)


@given(st.lists(st.tuples(positive, positive, st.integers(0, 4)), min_size=2, max_size=20))
def test_prompt_resampler_at_unit_weights_is_the_value(rows: list[tuple[float, float, int]]) -> None:
    a, b, prompts = (list(x) for x in zip(*rows, strict=True))
    for fn in (counterfactual_estimate_ratio, counterfactual_estimate_difference):
        r = fn(a, b, prompts=prompts)
        assert r.resampler is not None
        assert r.resampler(np.ones((1, r.resampler.n_units)))[0] == pytest.approx(r.value, rel=1e-9, abs=1e-6)


# --------------------------------------------------------------------------------------------------- summary
def test_summary_by_hand() -> None:
    frame = estimate_summary([10.0, 30.0, NAN, NAN, 5.0], ["a", "a", "a", "a", "b"], refusals=[0, 0, 1, 0, 1])
    a, b = frame.iloc[0], frame.iloc[1]
    assert (a["group"], a["replies"], a["numbers"], a["refusals"], a["non_numbers"]) == ("a", 4, 2, 1, 1)
    assert a["mean"] == 20 and a["median"] == 20 and a["sd"] == pytest.approx(math.sqrt(200)) and a["min"] == 10
    assert a["share_with_number"] == 0.5
    assert (b["numbers"], b["refusals"], b["non_numbers"]) == (1, 0, 0)  # a refusal with a number counts as a number
    assert math.isnan(b["sd"])
    bare = estimate_summary([1.0, NAN], ["x", "y"])
    assert bare["refusals"].isna().all() and math.isnan(bare.iloc[1]["mean"])
    with pytest.raises(InputError, match="refusals"):
        estimate_summary([1.0], ["x"], refusals=[0.5])


@given(st.lists(st.tuples(st.one_of(finite, st.just(NAN)), st.sampled_from("abc")), min_size=1, max_size=40))
def test_summary_counts_add_up(rows: list[tuple[float, str]]) -> None:
    values, groups = (list(x) for x in zip(*rows, strict=True))
    frame = estimate_summary(values, groups)
    assert frame["replies"].sum() == len(values)
    assert frame["numbers"].sum() == int(np.sum(~np.isnan(values)))
    for _, row in frame.iterrows():
        mine = np.array([v for v, g in rows if g == row["group"]])
        numbers = mine[~np.isnan(mine)]
        if numbers.size:
            assert row["median"] == pytest.approx(np.median(numbers)) and row["min"] <= row["mean"] <= row["max"]


# --------------------------------------------------------------------------------------------------- noise floor
def test_noise_floor_by_hand() -> None:
    # two prompts, two samples each; same-version pairs differ by 4, the versions by 20 (linear scale)
    floor = estimate_noise_floor([100, 104, 100, 96], [80, 84, 80, 76], [1, 1, 2, 2], scale="linear")
    assert (floor.counterfactual, floor.floor_a, floor.floor_b, floor.baseline) == (20, 4, 4, 4)
    assert floor.gap == 16 and floor.n_prompts == 2 and floor.n_baseline_pairs == 4
    # log scale: |log(100/80)| etc.; the floor is the tighter group's
    log = estimate_noise_floor([100, 110], [100, 100], ["p", "p"])
    assert log.counterfactual == pytest.approx(math.log(1.1) / 2)
    assert log.floor_a == pytest.approx(math.log(1.1)) and log.floor_b == 0 and log.baseline == 0
    single = estimate_noise_floor([1, 2], [1, 2], [1, 2])
    assert single.n_prompts == 0 and "two or more" in str(single.reason)
    with pytest.raises(InputError, match="scale"):
        estimate_noise_floor([1], [1], [1], scale="ratio")  # type: ignore[arg-type]


def _answers(rng: np.random.Generator, n_prompts: int, samples: int, gap: float) -> tuple[np.ndarray, ...]:
    """Each prompt its own scale (a salary, a price); samples vary by about 8%; the B version offered ``gap`` less."""
    prompts = np.repeat(np.arange(n_prompts), samples)
    scale = rng.lognormal(10.5, 1.0, n_prompts)[prompts]
    a = scale * rng.lognormal(0.0, 0.08, prompts.size)
    b = scale * rng.lognormal(0.0, 0.08, prompts.size) * (1 - gap)
    return a, b, prompts


def test_paired_tests_and_floor_hold_their_level_and_find_a_gap() -> None:
    """40 seeds of no difference: at most 5% rejections by the sign-flip tests of CER and CED and by the floor's swap
    test (binomial: at most 4 of 40 expected in 95% of runs); a 5% gap is found in at least 38 (power about 99%)."""
    rejections = {"CER": 0, "CED": 0, "floor": 0}
    found = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        a, b, prompts = _answers(rng, 30, 3, gap=0.0)
        cer = paired_prompt_test(np.log(a), np.log(b), prompts, n_permutations=999, seed=seed)
        ced = paired_prompt_test(a, b, prompts, n_permutations=999, seed=seed)
        floor = estimate_noise_floor(a, b, prompts, n_resamples=200, n_permutations=999, stop_after=20, seed=seed)
        rejections["CER"] += cer.p_value < 0.05
        rejections["CED"] += ced.p_value < 0.05
        rejections["floor"] += floor.p_value < 0.05
        a, b, prompts = _answers(rng, 30, 3, gap=0.05)
        found += paired_prompt_test(np.log(a), np.log(b), prompts, n_permutations=999, seed=seed).p_value < 0.05
    assert all(count <= 4 for count in rejections.values()), rejections
    assert found >= 38
