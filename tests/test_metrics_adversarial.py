"""The red team's shifts (evenhand.metrics.adversarial): hand-computed from their formulas, the registry's facts, and
properties (swapping the condition and the benign side flips the sign; identical sides give 0 and p = 1)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand import metrics
from evenhand.metrics.adversarial import per_prompt_means
from evenhand.registry import FAMILIES, METRICS
from evenhand.stats import confidence_interval, paired_prompt_test

SHIFTS = ("toxic_share_shift", "refusal_rate_shift")
GAPS = ("toxic_share_gap_shift", "refusal_gap_shift", "sentiment_gap_shift")
NON_COMPLETION = ("non_completion_shift", "non_completion_gap_shift")


def test_toxic_share_shift_by_hand() -> None:
    # flags at 0.5: condition 1, 0, 1; benign 0, 0, 1 -> per slot 1, 0, 0 -> prompt p 0.5, prompt q 0 -> 0.25
    r = metrics.toxic_share_shift([0.9, 0.2, 0.8], [0.1, 0.1, 0.9], prompts=["p", "p", "q"])
    assert r.name == "TSS" and r.value == pytest.approx(0.25)
    assert r.details == {"rate_condition": pytest.approx(0.75), "rate_benign": pytest.approx(0.5)}
    assert dict(r.sizes) == {"pairs": 3, "prompts": 2} and r.item_unit == "prompt"
    assert list(r.per_item) == [0.5, 0.0]
    # resampling draws prompts: every replicate is a mean of the two prompts' differences
    iv = confidence_interval(r, n_resamples=400, seed=1)
    assert 0.0 <= iv.low <= 0.25 <= iv.high <= 0.5
    # without prompts each slot is its own unit: the mean of 1, 0, 0
    assert metrics.refusal_rate_shift([0.9, 0.2, 0.8], [0.1, 0.1, 0.9]).value == pytest.approx(1 / 3)


def test_gap_shifts_by_hand() -> None:
    # flags: condition A 1, 0 and B 0, 0 (gap 1, 0); benign A 0, 0 and B 0, 1 (gap 0, -1) -> shift 1, 1
    r = metrics.toxic_share_gap_shift([0.9, 0.1], [0.1, 0.1], [0.1, 0.1], [0.1, 0.9], prompts=["p", "q"])
    assert r.name == "TGS" and r.value == pytest.approx(1.0)
    assert r.details["gap_condition"] == pytest.approx(0.5) and r.details["gap_benign"] == pytest.approx(-0.5)
    s = metrics.sentiment_gap_shift([0.8, 0.6], [0.2, 0.4], [0.5, 0.5], [0.5, 0.5], prompts=["p", "q"])
    assert s.value == pytest.approx(0.4)  # (0.6 + 0.2) / 2 - 0
    assert metrics.refusal_gap_shift([], [], [], [], threshold=0.5).reason is not None


def test_registry_declares_each_shift_once_as_an_adversarial_risk() -> None:
    assert FAMILIES["adversarial"].risk == "adversarial"
    for key in (*SHIFTS, *GAPS, *NON_COMPLETION):
        spec = METRICS[key]
        assert spec.family == "adversarial" and spec.judge == "adversarial" and spec.signed and spec.formula
        assert spec.module == "evenhand.metrics.adversarial"
    assert METRICS["toxic_share_shift"].settings == {"threshold": "toxicity_threshold"}
    assert METRICS["refusal_gap_shift"].settings == {"threshold": "refusal_threshold"}
    assert METRICS["sentiment_gap_shift"].value_range == (-2.0, 2.0) and METRICS["sentiment_gap_shift"].pairwise
    ncs, ngs = METRICS["non_completion_shift"], METRICS["non_completion_gap_shift"]
    assert (ncs.name, ncs.value_range, ncs.settings, ncs.scope) == ("NCS", (-1.0, 1.0), {}, "use_case")
    assert (ngs.name, ngs.value_range) == ("NGS", (-2.0, 2.0)) and ngs.pairwise


scores = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_swapping_condition_and_benign_flips_the_sign(data: st.DataObject) -> None:
    c = data.draw(scores)
    b = data.draw(st.lists(st.floats(0.0, 1.0), min_size=len(c), max_size=len(c)))
    prompts = data.draw(st.lists(st.sampled_from("pqrs"), min_size=len(c), max_size=len(c)))
    for key in SHIFTS:
        fn = getattr(metrics, key)
        assert fn(c, b, prompts=prompts).value == pytest.approx(-fn(b, c, prompts=prompts).value, abs=1e-12)
    for key in GAPS:
        fn = getattr(metrics, key)
        forward, backward = fn(c, b, b, c, prompts=prompts), fn(b, c, c, b, prompts=prompts)
        assert forward.value == pytest.approx(-backward.value, abs=1e-12)
        assert -2.0 <= forward.value <= 2.0


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_identical_conditions_give_zero_and_p_one(values: list[float], data: st.DataObject) -> None:
    prompts = data.draw(st.lists(st.sampled_from("pqrst"), min_size=len(values), max_size=len(values)))
    for key in SHIFTS:
        r = getattr(metrics, key)(values, values, prompts=prompts)
        assert r.value == 0.0
    r = metrics.sentiment_gap_shift(values, values[::-1], values, values[::-1], prompts=prompts)
    assert r.value == pytest.approx(0.0, abs=1e-12)
    sides = per_prompt_means(values, prompts)
    test = paired_prompt_test(sides, sides, None, statistic="difference", n_permutations=999, seed=0)
    assert test.p_value == 1.0 and test.statistic == 0.0


def test_the_shift_is_the_statistic_of_its_sign_flip_test() -> None:
    rng = np.random.default_rng(3)
    c, b = rng.random(40), rng.random(40)
    prompts = np.repeat(np.arange(10), 4)
    r = metrics.toxic_share_shift(c, b, prompts=prompts)
    flags = [per_prompt_means((x >= 0.5).astype(float), prompts) for x in (c, b)]
    test = paired_prompt_test(*flags, None, statistic="difference", n_permutations=999, seed=0)
    assert math.isclose(test.statistic, r.value, abs_tol=1e-12)


def test_non_completion_shifts_by_hand() -> None:
    # no reply (1) under the condition: 1, 1, 0; under benign: 0, 0, 0 -> prompt p 1, prompt q 0 -> 0.5
    r = metrics.non_completion_shift([1, 1, 0], [0, 0, 0], prompts=["p", "p", "q"])
    assert r.name == "NCS" and r.value == pytest.approx(0.5)
    assert r.details == {"rate_condition": pytest.approx(0.5), "rate_benign": 0.0}
    assert dict(r.sizes) == {"pairs": 3, "prompts": 2} and list(r.per_item) == [1.0, 0.0]
    # every request blocked under the condition: 1 minus the benign rate (a quarter of benign's failed)
    assert metrics.non_completion_shift([1, 1, 1, 1], [0, 1, 0, 0]).value == pytest.approx(0.75)
    # A blocked under the condition on both prompts, B never; under benign B failed once -> gaps 1, 1 vs 0, -1
    g = metrics.non_completion_gap_shift([1, 1], [0, 0], [0, 0], [0, 1], prompts=["p", "q"])
    assert g.name == "NGS" and g.value == pytest.approx(1.5)
    assert g.details["gap_condition"] == 1.0 and g.details["gap_benign"] == pytest.approx(-0.5)
    with pytest.raises(ValueError, match="0/1 flags"):
        metrics.non_completion_shift([0.5], [0.0])


flags = st.lists(st.sampled_from([0, 1]), min_size=1, max_size=30)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_non_completion_swap_flips_the_sign_and_identical_gives_zero_and_p_one(data: st.DataObject) -> None:
    c = data.draw(flags)
    b = data.draw(st.lists(st.sampled_from([0, 1]), min_size=len(c), max_size=len(c)))
    prompts = data.draw(st.lists(st.sampled_from("pqrs"), min_size=len(c), max_size=len(c)))
    forward = metrics.non_completion_shift(c, b, prompts=prompts)
    backward = metrics.non_completion_shift(b, c, prompts=prompts)
    assert forward.value == pytest.approx(-backward.value, abs=1e-12) and -1.0 <= forward.value <= 1.0
    gap = metrics.non_completion_gap_shift(c, b, b, c, prompts=prompts)
    assert gap.value == pytest.approx(-metrics.non_completion_gap_shift(b, c, c, b, prompts=prompts).value, abs=1e-12)
    assert -2.0 <= gap.value <= 2.0
    assert metrics.non_completion_shift(c, c, prompts=prompts).value == 0.0
    assert metrics.non_completion_gap_shift(c, b, c, b, prompts=prompts).value == pytest.approx(0.0, abs=1e-12)
    sides = per_prompt_means(np.asarray(c, dtype=float), prompts)
    test = paired_prompt_test(sides, sides, None, statistic="difference", n_permutations=999, seed=0)
    assert test.p_value == 1.0 and test.statistic == 0.0


# ------------------------------------------------------------------------------ decisions (classification)
DECISIONS = ("positive_rate_shift", "positive_rate_gap_shift")


def test_positive_rate_shift_by_hand() -> None:
    # positive (1) under the condition: 0, 1, 0; under benign: 1, 1, 1 -> per slot -1, 0, -1
    # -> prompt p (-1 + 0) / 2 = -0.5, prompt q -1 -> PRS = (-0.5 - 1) / 2 = -0.75
    r = metrics.positive_rate_shift([0, 1, 0], [1, 1, 1], prompts=["p", "p", "q"])
    assert r.name == "PRS" and r.value == pytest.approx(-0.75)
    assert r.details == {"rate_condition": pytest.approx(0.25), "rate_benign": 1.0}
    assert dict(r.sizes) == {"pairs": 3, "prompts": 2} and list(r.per_item) == [-0.5, -1.0]
    with pytest.raises(ValueError, match=r"0/1 flags \(1: the positive decision\)"):
        metrics.positive_rate_shift([0.5], [1])


def test_positive_rate_gap_shift_by_hand() -> None:
    # slot: (condition A, condition B, benign A, benign B)
    #   p/0: (0, 1, 1, 1) -> CPRD under the condition -1, under benign 0 -> -1
    #   p/1: (1, 1, 1, 1) -> 0 - 0 = 0
    #   q/0: (0, 1, 1, 0) -> -1 - (+1) = -2
    # per prompt: p -0.5, q -2 -> PGS = -1.25; gaps: condition (-0.5 + -1) / 2 = -0.75, benign (0 + 1) / 2 = 0.5
    r = metrics.positive_rate_gap_shift([0, 1, 0], [1, 1, 1], [1, 1, 1], [1, 1, 0], prompts=["p", "p", "q"])
    assert r.name == "PGS" and r.value == pytest.approx(-1.25)
    assert r.details["gap_condition"] == pytest.approx(-0.75) and r.details["gap_benign"] == pytest.approx(0.5)
    assert r.details["condition_a"] == pytest.approx(0.25) and r.details["benign_b"] == pytest.approx(0.5)
    # it is CPRD under the condition minus CPRD under benign, when each prompt has the same number of slots
    a, b, c, d = [0, 1, 0, 1], [1, 1, 1, 0], [1, 1, 1, 1], [1, 1, 0, 0]
    prompts = ["p", "p", "q", "q"]
    cprd = metrics.counterfactual_positive_rate_difference
    expected = cprd(a, b, prompts=prompts).value - cprd(c, d, prompts=prompts).value
    assert metrics.positive_rate_gap_shift(a, b, c, d, prompts=prompts).value == pytest.approx(expected)
    assert metrics.positive_rate_gap_shift([], [], [], []).reason is not None


def test_registry_declares_the_decision_shifts() -> None:
    prs, pgs = METRICS["positive_rate_shift"], METRICS["positive_rate_gap_shift"]
    for spec in (prs, pgs):
        assert spec.family == "adversarial" and spec.judge == "adversarial" and spec.signed and spec.formula
        assert spec.module == "evenhand.metrics.adversarial" and spec.settings == {} and spec.unit == "decisions"
    assert (prs.name, prs.value_range, prs.scope) == ("PRS", (-1.0, 1.0), "use_case")
    assert (pgs.name, pgs.value_range) == ("PGS", (-2.0, 2.0)) and pgs.pairwise
    assert len({m.name for m in METRICS.values()}) == len(METRICS)  # no short name used twice


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_decision_shifts_swap_flips_the_sign_and_identical_gives_zero_and_p_one(data: st.DataObject) -> None:
    c = data.draw(flags)
    b = data.draw(st.lists(st.sampled_from([0, 1]), min_size=len(c), max_size=len(c)))
    prompts = data.draw(st.lists(st.sampled_from("pqrs"), min_size=len(c), max_size=len(c)))
    forward = metrics.positive_rate_shift(c, b, prompts=prompts)
    assert forward.value == pytest.approx(-metrics.positive_rate_shift(b, c, prompts=prompts).value, abs=1e-12)
    assert -1.0 <= forward.value <= 1.0
    gap = metrics.positive_rate_gap_shift(c, b, b, c, prompts=prompts)
    assert gap.value == pytest.approx(-metrics.positive_rate_gap_shift(b, c, c, b, prompts=prompts).value, abs=1e-12)
    assert -2.0 <= gap.value <= 2.0
    # swapping the two groups flips the sign too (A minus B becomes B minus A under both prompts)
    d = data.draw(st.lists(st.sampled_from([0, 1]), min_size=len(c), max_size=len(c)))
    groups = metrics.positive_rate_gap_shift(c, b, d, c, prompts=prompts)
    assert groups.value == pytest.approx(-metrics.positive_rate_gap_shift(b, c, c, d, prompts=prompts).value)
    assert metrics.positive_rate_shift(c, c, prompts=prompts).value == 0.0
    same = metrics.positive_rate_gap_shift(c, b, c, b, prompts=prompts)
    assert same.value == pytest.approx(0.0, abs=1e-12)
    gaps = np.asarray(c, dtype=float) - np.asarray(b, dtype=float)
    sides = per_prompt_means(gaps, prompts)
    test = paired_prompt_test(sides, sides, None, statistic="difference", n_permutations=999, seed=0)
    assert test.p_value == 1.0 and test.statistic == 0.0


def test_the_decision_gap_shift_is_the_statistic_of_its_sign_flip_test() -> None:
    rng = np.random.default_rng(5)
    ca, cb, ba, bb = (rng.integers(0, 2, 40) for _ in range(4))
    prompts = np.repeat(np.arange(10), 4)
    r = metrics.positive_rate_gap_shift(ca, cb, ba, bb, prompts=prompts)
    sides = [per_prompt_means((x - y).astype(float), prompts) for x, y in ((ca, cb), (ba, bb))]
    test = paired_prompt_test(*sides, None, statistic="difference", n_permutations=999, seed=0)
    assert math.isclose(test.statistic, r.value, abs_tol=1e-12)
