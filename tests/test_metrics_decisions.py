"""Counterfactual decisions (DFR, CPRD): values computed by hand from the formulas, every input type, property tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand import metrics
from evenhand.errors import InputError
from evenhand.registry import METRICS
from evenhand.stats import confidence_interval

# 6 pairs: A = 1 1 0 1 0 1, B = 0 1 0 0 1 1
A = [1, 1, 0, 1, 0, 1]
B = [0, 1, 0, 0, 1, 1]


def test_the_flip_rate_by_hand() -> None:
    # differing pairs: 1, 4, 5 (1-0, 1-0, 0-1) -> 3 of 6
    result = metrics.decision_flip_rate(A, B)
    assert float(result) == pytest.approx(3 / 6)
    assert result.details == {"rate_a": pytest.approx(4 / 6), "rate_b": pytest.approx(3 / 6), "flips_to_a": 2,
                               "flips_to_b": 1}  # fmt: skip
    assert result.sizes == {"pairs": 6}


def test_the_positive_rate_difference_by_hand_is_signed() -> None:
    # A's positive rate 4/6, B's 3/6: +1/6; swapping the sides flips the sign
    assert float(metrics.counterfactual_positive_rate_difference(A, B)) == pytest.approx(1 / 6)
    assert float(metrics.counterfactual_positive_rate_difference(B, A)) == pytest.approx(-1 / 6)
    result = metrics.counterfactual_positive_rate_difference(A, B, prompts=[0, 0, 1, 1, 2, 2])
    assert result.sizes == {"pairs": 6, "prompts": 3} and result.details["flip_rate"] == pytest.approx(0.5)


@pytest.mark.parametrize("convert", [list, tuple, np.asarray, pd.Series, lambda v: [bool(x) for x in v]])
def test_lists_arrays_series_and_booleans_give_the_same_values(convert: object) -> None:
    to = convert  # type: ignore[assignment]
    assert float(metrics.decision_flip_rate(to(A), to(B))) == pytest.approx(0.5)  # type: ignore[operator]
    assert float(metrics.counterfactual_positive_rate_difference(to(A), to(B))) == pytest.approx(1 / 6)  # type: ignore[operator]


def test_the_registry_declares_range_direction_and_scope() -> None:
    for key in ("decision_flip_rate", "counterfactual_positive_rate_difference"):
        spec = METRICS[key]
        assert spec.scope == "pair" and spec.family == "counterfactual_decisions" and not spec.higher_is_fairer
        assert callable(getattr(metrics, key))
    assert METRICS["decision_flip_rate"].value_range == (0.0, 1.0)
    assert METRICS["counterfactual_positive_rate_difference"].value_range == (-1.0, 1.0)
    assert METRICS["counterfactual_positive_rate_difference"].direction == "closer to 0 is fairer"
    result = metrics.counterfactual_positive_rate_difference(A, B)
    assert result.name == "CPRD" and result.value_range == (-1.0, 1.0)


def test_bad_inputs_name_the_argument() -> None:
    with pytest.raises(InputError, match="decisions_a"):
        metrics.decision_flip_rate([0.5, 1], [0, 1])
    with pytest.raises(InputError):
        metrics.decision_flip_rate([0, 1, 1], [0, 1])
    with pytest.raises(InputError):
        metrics.counterfactual_positive_rate_difference([], [])


def test_the_prompt_resampler_draws_prompts_with_all_their_pairs() -> None:
    result = metrics.counterfactual_positive_rate_difference(A, B, prompts=[0, 0, 1, 1, 2, 2])
    assert result.resampler is not None and result.resampler.unit == "prompt" and result.resampler.n_units == 3
    # weights (1, 1, 1) give the value; (2, 0, 1): prompt 0 twice (diffs +1, 0), prompt 2 once (-1, 0) -> 1/6
    assert result.resampler(np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]])).tolist() == pytest.approx([1 / 6, 1 / 6])
    interval = confidence_interval(result, n_resamples=200, seed=0)
    assert interval.low <= float(result) <= interval.high


decisions = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(decisions)
def test_properties(pairs: list[tuple[int, int]]) -> None:
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    flips = float(metrics.decision_flip_rate(a, b))
    diff = float(metrics.counterfactual_positive_rate_difference(a, b))
    assert 0.0 <= flips <= 1.0 and -1.0 <= diff <= 1.0
    assert abs(diff) <= flips + 1e-12  # a positive-rate gap needs at least as many flips
    assert float(metrics.decision_flip_rate(b, a)) == pytest.approx(flips)  # symmetric
    assert float(metrics.counterfactual_positive_rate_difference(b, a)) == pytest.approx(-diff)  # antisymmetric
    assert float(metrics.decision_flip_rate(a, a)) == 0.0
    assert float(metrics.counterfactual_positive_rate_difference(a, a)) == 0.0
