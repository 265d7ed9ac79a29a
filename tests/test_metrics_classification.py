"""Classification fairness metrics (paper 3.2): hand-computed examples, input handling, properties, resampling."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics as m
from evenhand.registry import ALIASES, rate_metrics

# the group-rate metrics' function names, from the registry's one alias table: differences -> short name, and
# every function (differences and their ratios)
SHORT_NAMES = {spec.key: spec.name for spec in rate_metrics()}
FUNCTION_NAMES = [name for name, a in ALIASES.items() if a.key in SHORT_NAMES and (a.ratio or name == a.key)]

# Group a: Y = 1 1 1 0 0, Ŷ = 1 0 0 0 1 -> TP 1, FN 2, TN 1, FP 1
# Group b: Y = 1 1 0 0 0, Ŷ = 1 1 0 1 1 -> TP 2, FN 0, TN 1, FP 2
Y_TRUE = [1, 1, 1, 0, 0, 1, 1, 0, 0, 0]
Y_PRED = [1, 0, 0, 0, 1, 1, 1, 0, 1, 1]
GROUPS = ["a"] * 5 + ["b"] * 5

# expected group rates from the confusion counts above
HAND = {
    "DP": (2 / 5, 4 / 5),  # (TP+FP)/n
    "FNRD": (2 / 3, 0 / 2),  # FN/(TP+FN)
    "FORD": (2 / 3, 0 / 1),  # FN/(FN+TN)
    "FPRD": (1 / 2, 2 / 3),  # FP/(FP+TN)
    "FDRD": (1 / 2, 2 / 4),  # FP/(TP+FP)
}
FUNCS = {
    "DP": m.demographic_parity_difference,
    "FNRD": m.false_negative_rate_difference,
    "FORD": m.false_omission_rate_difference,
    "FPRD": m.false_positive_rate_difference,
    "FDRD": m.false_discovery_rate_difference,
}
RATIO_FUNCS = {
    "DP": m.demographic_parity_ratio,
    "FNRD": m.false_negative_rate_ratio,
    "FORD": m.false_omission_rate_ratio,
    "FPRD": m.false_positive_rate_ratio,
    "FDRD": m.false_discovery_rate_ratio,
}


def _call(key: str, y_true, y_pred, groups, ratio: bool = False, **kw):
    func = (RATIO_FUNCS if ratio else FUNCS)[key]
    return func(y_pred, groups, **kw) if key == "DP" else func(y_true, y_pred, groups, **kw)


@pytest.mark.parametrize("key", list(HAND))
def test_hand_computed_two_groups(key: str) -> None:
    ra, rb = HAND[key]
    result = _call(key, Y_TRUE, Y_PRED, GROUPS)
    assert result.name == key
    assert float(result) == pytest.approx(abs(ra - rb))
    np.testing.assert_allclose(result.per_item, [ra, rb])
    assert list(result.item_labels) == ["a", "b"]
    assert result.details["rates"] == pytest.approx({"a": ra, "b": rb})
    assert result.details["pairwise"][0]["difference"] == pytest.approx(abs(ra - rb))
    assert result.sizes["rows"] == 10 and result.sizes["groups"] == 2
    assert not result.higher_is_fairer and result.value_range == (0.0, 1.0)


@pytest.mark.parametrize("key", ["DP", "FPRD", "FDRD"])
def test_hand_computed_ratio(key: str) -> None:
    ra, rb = HAND[key]
    result = _call(key, Y_TRUE, Y_PRED, GROUPS, ratio=True)
    assert float(result) == pytest.approx(min(ra, rb) / max(ra, rb))
    assert result.higher_is_fairer


def test_confusion_counts_in_details() -> None:
    result = m.false_negative_rate_difference(Y_TRUE, Y_PRED, GROUPS)
    assert result.details["confusion"] == {
        "a": {"tn": 1, "fp": 1, "fn": 2, "tp": 1},
        "b": {"tn": 1, "fp": 2, "fn": 0, "tp": 2},
    }
    assert result.details["numerators"] == {"a": 2, "b": 0}
    assert result.details["denominators"] == {"a": 3, "b": 2}
    assert result.details["max_group"] == "a" and result.details["min_group"] == "b"


def test_three_groups_largest_pairwise_difference() -> None:
    y_pred = [1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0]
    groups = ["x"] * 4 + ["y"] * 4 + ["z"] * 4  # rates 0.5, 0.25, 0.75
    result = m.demographic_parity_difference(y_pred, groups)
    assert float(result) == pytest.approx(0.5)
    pairs = {(p["group_a"], p["group_b"]): p["difference"] for p in result.details["pairwise"]}
    assert pairs == pytest.approx({("x", "y"): 0.25, ("x", "z"): 0.25, ("y", "z"): 0.5})
    assert float(m.demographic_parity_ratio(y_pred, groups)) == pytest.approx(0.25 / 0.75)


def test_accepts_lists_arrays_series_bools_and_strings() -> None:
    expected = float(m.false_negative_rate_difference(Y_TRUE, Y_PRED, GROUPS))
    as_bool = [bool(v) for v in Y_TRUE], [bool(v) for v in Y_PRED]
    as_str = ["yes" if v else "no" for v in Y_TRUE], ["yes" if v else "no" for v in Y_PRED]
    variants = [
        (np.array(Y_TRUE), np.array(Y_PRED), np.array(GROUPS)),
        (pd.Series(Y_TRUE), pd.Series(Y_PRED), pd.Series(GROUPS, dtype="category")),
        (*as_bool, tuple(GROUPS)),
        (np.array(Y_TRUE, dtype=float), np.array(Y_PRED, dtype=float), GROUPS),
    ]
    for y_true, y_pred, groups in variants:
        assert float(m.false_negative_rate_difference(y_true, y_pred, groups)) == pytest.approx(expected)
    assert float(m.false_negative_rate_difference(*as_str, GROUPS, pos_label="yes")) == pytest.approx(expected)


def test_string_labels_need_pos_label() -> None:
    with pytest.raises(ValueError, match="pos_label"):
        m.demographic_parity_difference(["yes", "no"], ["a", "b"])
    with pytest.raises(ValueError, match="not 0/1"):
        m.demographic_parity_difference([0, 1, 2], ["a", "b", "b"])
    with pytest.raises(ValueError, match="does not occur"):
        m.demographic_parity_difference(["yes", "no"], ["a", "b"], pos_label="Yes")


def test_clear_errors() -> None:
    with pytest.raises(ValueError, match="same length"):
        m.false_positive_rate_difference([1, 0, 1], [1, 0], ["a", "b"])
    with pytest.raises(ValueError, match="single group"):
        m.demographic_parity_difference([1, 0, 1], ["a", "a", "a"])
    with pytest.raises(ValueError, match="missing"):
        m.demographic_parity_difference([1, None, 0], ["a", "b", "b"])
    with pytest.raises(ValueError, match="missing"):
        m.demographic_parity_difference([1, 0, 0], ["a", None, "b"])
    with pytest.raises(ValueError, match="empty"):
        m.demographic_parity_difference([], [])
    with pytest.raises(TypeError):
        m.demographic_parity_difference("1010", ["a", "b", "a", "b"])
    with pytest.raises(ValueError, match="unknown classification metric"):
        m.classification_metrics(Y_TRUE, Y_PRED, GROUPS, metrics=["TPR"])
    with pytest.raises(ValueError, match="needs y_true"):
        m.classification_metrics(None, Y_PRED, GROUPS, metrics=["FNRD"])


def test_undefined_rate_gives_nan_with_reason() -> None:
    # group b has no actual positives: its FNR is undefined, the two-group FNRD too (LangFair asserts here)
    result = m.false_negative_rate_difference([1, 0, 0, 0], [1, 0, 1, 0], ["a", "a", "b", "b"])
    assert math.isnan(float(result))
    assert "no actual positives" in result.reason and "'b'" in result.reason
    assert result.details["undefined"] == {"b": "no actual positives (Y=1)"}
    assert math.isnan(result.per_item[1]) and result.per_item[0] == 0.0


def test_zero_rates_do_not_crash() -> None:
    # both groups have FNR 0 (LangFair's `assert fnr1 and fnr2` fails on this); the difference is 0
    y = [1, 0, 1, 0]
    assert float(m.false_negative_rate_difference(y, y, ["a", "a", "b", "b"])) == 0.0
    ratio = m.false_negative_rate_ratio(y, y, ["a", "a", "b", "b"])
    assert math.isnan(float(ratio)) and "0/0" in ratio.reason


def test_undefined_group_is_excluded_when_two_others_remain() -> None:
    y_true = [1, 1, 1, 1, 0, 0]
    y_pred = [1, 0, 0, 0, 0, 1]
    result = m.false_negative_rate_difference(y_true, y_pred, ["a", "a", "b", "b", "c", "c"])
    assert float(result) == pytest.approx(0.5)
    assert set(result.details["undefined"]) == {"c"}


def test_multiclass_one_vs_rest() -> None:
    y_true = ["deny", "approve", "review", "deny", "approve", "deny"]
    y_pred = ["deny", "approve", "deny", "approve", "approve", "deny"]
    groups = ["a", "a", "a", "b", "b", "b"]
    out = m.one_vs_rest(y_true, y_pred, groups, sensitive_classes=["deny"], metrics=["DP", "FPRD"])
    assert set(out) == {"deny"}
    # deny predicted: a 2/3, b 1/3
    assert float(out["deny"]["DP"]) == pytest.approx(1 / 3)
    # actual non-deny: a {approve, review} -> predicted deny once of 2; b {approve} -> 0 of 1
    assert float(out["deny"]["FPRD"]) == pytest.approx(0.5)
    direct = m.demographic_parity_difference(y_pred, groups, pos_label="deny")
    assert float(direct) == float(out["deny"]["DP"])
    with pytest.raises(ValueError, match="sensitive_classes"):
        m.one_vs_rest(y_true, y_pred, groups, sensitive_classes=[])


def test_classification_metrics_matches_single_functions() -> None:
    together = m.classification_metrics(Y_TRUE, Y_PRED, GROUPS)
    assert list(together) == ["DP", "FNRD", "FORD", "FPRD", "FDRD"]
    for key, result in together.items():
        assert float(result) == pytest.approx(float(_call(key, Y_TRUE, Y_PRED, GROUPS)))
    ratios = m.classification_metrics(Y_TRUE, Y_PRED, GROUPS, ratio=True, metrics=["DP", "false_positive_rate_ratio"])
    assert list(ratios) == ["DP-ratio", "FPR-ratio"]
    assert list(m.classification_metrics(None, Y_PRED, GROUPS)) == ["DP"]


def test_decision_framework_helper() -> None:
    assert list(m.classification_metrics_for(prevalence_parity=True)) == ["demographic_parity_difference"]
    assert list(m.classification_metrics_for(False, "assistive")) == [
        "false_negative_rate_difference",
        "false_omission_rate_difference",
    ]
    assert list(m.classification_metrics_for(False, "punitive")) == [
        "false_positive_rate_difference",
        "false_discovery_rate_difference",
    ]
    unknown = m.classification_metrics_for(False)
    assert len(unknown) == 4 and all("not stated" in why for why in unknown.values())
    for name in unknown:
        assert callable(getattr(m, name)) and name in SHORT_NAMES
    with pytest.raises(ValueError, match="intervention"):
        m.classification_metrics_for(False, "helpful")  # type: ignore[arg-type]
    assert len(FUNCTION_NAMES) == 10 and all(hasattr(m, name) for name in FUNCTION_NAMES)


def test_resampler_reproduces_value_and_reweights_rows() -> None:
    for key in HAND:
        for ratio in (False, True):
            result = _call(key, Y_TRUE, Y_PRED, GROUPS, ratio=ratio)
            sampler = result.resampler
            assert sampler.unit == "row" and sampler.n_units == 10
            assert list(sampler.strata) == GROUPS
            ones = np.ones((1, 10))
            np.testing.assert_allclose(sampler(ones), [float(result)], equal_nan=True)
            # doubling row 0 equals duplicating it in the input
            weights = ones.copy()
            weights[0, 0] = 2
            dup = _call(key, [*Y_TRUE, Y_TRUE[0]], [*Y_PRED, Y_PRED[0]], [*GROUPS, GROUPS[0]], ratio=ratio)
            np.testing.assert_allclose(sampler(weights), [float(dup)], equal_nan=True)


# ----------------------------------------------------------------------------------------------- properties
rows = st.integers(min_value=2, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n).filter(lambda g: len(set(g)) > 1),
    )
)


def _brute_force(key: str, y_true: list[bool], y_pred: list[bool], groups: list[str]) -> float:
    rates = []
    for g in sorted(set(groups)):
        rows_g = [(t, p) for t, p, gg in zip(y_true, y_pred, groups, strict=True) if gg == g]
        cond = {
            "DP": ([p for t, p in rows_g], lambda v: v),
            "FNRD": ([p for t, p in rows_g if t], lambda v: not v),
            "FORD": ([t for t, p in rows_g if not p], lambda v: v),
            "FPRD": ([p for t, p in rows_g if not t], lambda v: v),
            "FDRD": ([t for t, p in rows_g if p], lambda v: not v),
        }[key]
        values, hit = cond
        if values:
            rates.append(sum(1 for v in values if hit(v)) / len(values))
    return max(rates) - min(rates) if len(rates) >= 2 else math.nan


@given(rows, st.sampled_from(list(HAND)))
def test_matches_brute_force(data, key: str) -> None:
    y_true, y_pred, groups = data
    got = float(_call(key, y_true, y_pred, groups))
    want = _brute_force(key, y_true, y_pred, groups)
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want, abs=1e-12)


@given(rows, st.sampled_from(list(HAND)), st.randoms(use_true_random=False))
def test_invariant_to_row_order_and_group_names(data, key: str, rnd) -> None:
    y_true, y_pred, groups = data
    base = _call(key, y_true, y_pred, groups)
    order = list(range(len(groups)))
    rnd.shuffle(order)
    names = sorted(set(groups))
    renamed = dict(zip(names, [f"group-{i}" for i in rnd.sample(range(len(names)), len(names))], strict=True))
    shuffled = _call(key, [y_true[i] for i in order], [y_pred[i] for i in order], [renamed[groups[i]] for i in order])
    assert float(shuffled) == pytest.approx(float(base), nan_ok=True)


@given(rows, st.sampled_from(list(HAND)))
def test_range_and_ratio_consistency(data, key: str) -> None:
    y_true, y_pred, groups = data
    diff = float(_call(key, y_true, y_pred, groups))
    ratio = float(_call(key, y_true, y_pred, groups, ratio=True))
    if not math.isnan(diff):
        assert 0.0 <= diff <= 1.0
    if not math.isnan(ratio):
        assert 0.0 <= ratio <= 1.0
        assert (ratio == pytest.approx(1.0)) == (diff == pytest.approx(0.0))


@given(st.lists(st.booleans(), min_size=4, max_size=40))
def test_identical_groups_are_perfectly_fair(values: list[bool]) -> None:
    doubled = values + values
    groups = ["a"] * len(values) + ["b"] * len(values)
    assert float(m.demographic_parity_difference(doubled, groups)) == 0.0


def test_resampler_sparse_path_matches_dense(monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.metrics import classification

    rng = np.random.default_rng(3)
    y_true, y_pred = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    groups = rng.choice(list("abcde"), 300)
    weights = rng.poisson(1.0, (5, 300)).astype(float)
    dense = m.false_positive_rate_difference(y_true, y_pred, groups).resampler(weights)
    monkeypatch.setattr(classification, "_DENSE_ONEHOT_LIMIT", 0)
    sparse = m.false_positive_rate_difference(y_true, y_pred, groups).resampler(weights)
    np.testing.assert_allclose(dense, sparse)


def test_group_memo_follows_content() -> None:
    groups = np.array(["a", "a", "b", "b"])
    first = m.demographic_parity_difference([1, 0, 0, 0], groups)
    assert float(first) == 0.5
    groups[1] = "b"  # mutate in place: the memo must not return stale codes
    second = m.demographic_parity_difference([1, 0, 0, 0], groups)
    np.testing.assert_allclose(second.per_item, [1.0, 0.0])
    np.testing.assert_allclose(first.per_item, [0.5, 0.0])


def test_pairwise_ratios() -> None:
    result = m.demographic_parity_difference([1, 1, 1, 0, 0, 0], ["a", "a", "b", "b", "c", "c"])
    pairs = {(p["group_a"], p["group_b"]): p["ratio"] for p in result.details["pairwise"]}
    assert pairs[("a", "b")] == pytest.approx(0.5)
    assert pairs[("a", "c")] == 0.0
    assert pairs[("b", "c")] == 0.0  # 0 / 0.5


def test_helper_output_feeds_classification_metrics() -> None:
    chosen = m.classification_metrics_for(False, "punitive")
    results = m.classification_metrics(Y_TRUE, Y_PRED, GROUPS, metrics=list(chosen))
    assert list(results) == ["FPRD", "FDRD"]
