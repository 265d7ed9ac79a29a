"""How metric functions pair pandas Series (faults14). evenhand pairs the values of its arguments by position, as
scikit-learn and Fairlearn do: lists, arrays and Series alike, whatever a Series' index says. One case of that is a
trap, and is refused: two Series whose indexes hold the same labels in another order (one of them sorted or shuffled
after they were taken from one frame), which pandas itself would align by label, so that position pairs the wrong
rows. Series with different labels (two filtered halves of a frame, the usual way to get each group's values) are
paired by position, documented (docs/text-metrics.md)."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand import metrics as m
from evenhand.metric_functions import lazy_functions

values = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=2, max_size=12)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=12),
       offset=st.integers(0, 99))  # fmt: skip
def test_series_with_other_labels_pair_by_position_as_lists_do(pairs: list[tuple[float, float]], offset: int) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    as_lists = m.mean_toxicity_difference(a, b).value
    same_index = m.mean_toxicity_difference(pd.Series(a), pd.Series(b)).value
    # two filtered halves of one frame: rows 0..n-1 and n+offset..: different labels, paired by position
    halves = m.mean_toxicity_difference(pd.Series(a), pd.Series(b, index=range(len(b) + offset, 2 * len(b) + offset)))
    assert _same(as_lists, same_index) and _same(as_lists, halves.value)
    assert _same(as_lists, m.mean_toxicity_difference(np.asarray(a), tuple(b)).value)


@settings(max_examples=60, deadline=None)
@given(pairs=st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=12, unique_by=lambda p: p[0]),
       seed=st.integers(0, 2**32 - 1))  # fmt: skip
def test_series_with_the_same_labels_in_another_order_are_refused(pairs: list[tuple[float, float]], seed: int) -> None:
    a = pd.Series([x for x, _ in pairs])
    b = pd.Series([y for _, y in pairs]).sample(frac=1.0, random_state=seed % 2**32)
    if b.index.equals(a.index):  # the shuffle kept the order: nothing to refuse
        assert _same(m.mean_toxicity_difference(a, b).value, m.mean_toxicity_difference(list(a), list(b)).value)
        return
    with pytest.raises(ValueError, match=r"scores_a and scores_b .*same labels in another order") as refused:
        m.mean_toxicity_difference(a, b)
    assert "\n" not in str(refused.value) and "reindex" in str(refused.value)
    # aligned first (as the message says), they are read
    m.mean_toxicity_difference(a, b.reindex(a.index))
    m.mean_toxicity_difference(a.to_numpy(), b.to_numpy())


def test_keyword_arguments_and_three_series_are_checked_too() -> None:
    y_true = pd.Series([1, 0, 1, 0], index=[10, 11, 12, 13])
    y_pred = pd.Series([1, 1, 0, 0], index=[10, 11, 12, 13])
    groups = pd.Series(["a", "a", "b", "b"], index=[13, 12, 11, 10])
    with pytest.raises(ValueError, match="y_true and groups"):
        m.false_positive_rate_difference(y_true, y_pred, groups=groups)
    with pytest.raises(ValueError, match="y_pred and groups"):
        m.demographic_parity_difference(y_pred, groups)
    m.demographic_parity_difference(y_pred, groups.to_list())  # a list is paired by position


def test_every_metric_function_checks_its_series() -> None:
    for name, module in lazy_functions().items():
        function = getattr(importlib.import_module(module), name)
        assert getattr(function, "__wrapped__", None) is not None, f"{module}.{name} does not check its Series"
        assert getattr(m, name) is function  # the public name is the function itself
