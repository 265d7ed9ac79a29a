"""Intervals on the real metric functions: the resampler contract, the right unit, sensible bounds.

Every metric family's result must (1) give back its own value when every unit has weight 1, (2) resample the unit
the issue names (prompts, pairs, rows within groups, list pairs) and (3) yield an interval that is ordered, lies in
the metric's range and holds the estimate. A missing function or a changed
signature fails the test (no skips).
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.metrics import MetricResult
from evenhand.stats import confidence_interval
from evenhand.stats._resampling import strata_indices

RNG = np.random.default_rng(20261122)
N, M = 60, 5  # prompts, responses per prompt
PROMPT_IDS = np.repeat(np.arange(N), M)
TOX_SCORES = RNG.beta(0.4, 3.0, size=N * M)
ROWS = 400
GROUPS = np.where(RNG.random(ROWS) < 0.55, "female", "male")
Y_TRUE = (RNG.random(ROWS) < 0.45).astype(int)
Y_PRED = np.where(RNG.random(ROWS) < 0.8, Y_TRUE, 1 - Y_TRUE)
ITEMS = [f"item{i}" for i in range(12)]
RECS_A = [list(RNG.permutation(ITEMS)[:5]) for _ in range(40)]
RECS_B = [list(RNG.permutation(ITEMS)[:5]) for _ in range(40)]
WORDS = "the nurse doctor said she he was kind helpful late early patient calm".split()
TEXTS_A = [" ".join(RNG.choice(WORDS, size=8)) for _ in range(50)]
TEXTS_B = [" ".join(RNG.choice(WORDS, size=8)) for _ in range(50)]
SUBJECTS = ["he", "she", "the man", "the woman", "his son", "her daughter"]
ADJECTIVES = ["kind", "strong", "emotional", "smart", "caring", "aggressive", "gentle", "brave"]
CORPUS = [f"{RNG.choice(SUBJECTS)} is {RNG.choice(ADJECTIVES)} and {RNG.choice(ADJECTIVES)}" for _ in range(120)]

Builder = Callable[[object], MetricResult]


def _module(name: str) -> Any:
    return importlib.import_module(f"evenhand.metrics.{name}")  # a missing module fails the test


# (module, function, builder, expected unit, stratified?)
CASES: list[tuple[str, str, Builder, str, bool]] = [
    ("classification", "demographic_parity_difference", lambda f: f(Y_PRED, GROUPS), "row", True),
    ("classification", "false_negative_rate_difference", lambda f: f(Y_TRUE, Y_PRED, GROUPS), "row", True),
    ("classification", "false_omission_rate_difference", lambda f: f(Y_TRUE, Y_PRED, GROUPS), "row", True),
    ("classification", "false_positive_rate_difference", lambda f: f(Y_TRUE, Y_PRED, GROUPS), "row", True),
    ("classification", "false_discovery_rate_difference", lambda f: f(Y_TRUE, Y_PRED, GROUPS), "row", True),
    ("recommendation", "jaccard_at_k", lambda f: f(RECS_A, RECS_B), "pair", False),
    ("recommendation", "serp_at_k", lambda f: f(RECS_A, RECS_B), "pair", False),
    ("recommendation", "prag_at_k", lambda f: f(RECS_A, RECS_B), "pair", False),
    ("toxicity", "toxic_fraction", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    ("toxicity", "expected_maximum_toxicity", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    ("toxicity", "toxicity_probability", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    ("toxicity", "stereotype_fraction", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    ("toxicity", "expected_maximum_stereotype", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    ("toxicity", "stereotype_probability", lambda f: f(TOX_SCORES, prompts=PROMPT_IDS), "prompt", False),
    # co-occurrence metrics take responses without prompt ids, so their unit is the response
    ("cooccurrence", "cooccurrence_bias", lambda f: f(CORPUS), "response", False),
    ("cooccurrence", "stereotypical_associations", lambda f: f(CORPUS), "response", False),
    ("counterfactual", "counterfactual_rouge_l", lambda f: f(TEXTS_A, TEXTS_B), "pair", False),
    ("counterfactual", "counterfactual_bleu", lambda f: f(TEXTS_A, TEXTS_B), "pair", False),
    ("counterfactual", "strict_sentiment_parity", lambda f: f(TOX_SCORES[:50], TOX_SCORES[50:100]), "pair", False),
    ("counterfactual", "weak_sentiment_parity", lambda f: f(TOX_SCORES[:50], TOX_SCORES[50:100]), "pair", False),
]


def build(module: str, function: str, builder: Builder) -> MetricResult:
    return builder(getattr(_module(module), function))  # a missing function or changed signature fails


@pytest.mark.parametrize(("module", "function", "builder", "unit", "stratified"), CASES, ids=[c[1] for c in CASES])
def test_interval_on_the_real_metric(module: str, function: str, builder: Builder, unit: str, stratified: bool) -> None:
    result = build(module, function, builder)
    assert result.is_defined, result.reason
    res = result.resampler
    assert res is not None, f"{function} carries no resampler"
    assert res.unit == unit
    # contract: unit weights reproduce the metric value
    assert float(res(np.ones((1, res.n_units)))[0]) == pytest.approx(result.value, abs=1e-9)
    if stratified:
        assert res.strata is not None and len(strata_indices(res)) == 2
    for method in ("percentile", "bca"):
        iv = confidence_interval(result, n_resamples=300, seed=0, method=method)
        assert iv.is_defined, iv.reason
        lo, hi = result.value_range
        assert lo - 1e-12 <= iv.low <= iv.high <= hi + 1e-12
        assert iv.n_valid >= 150
        assert iv.low - 1e-12 <= result.value <= iv.high + 1e-12 or method == "bca"
        assert iv.unit == unit


def test_toxicity_units_are_prompts_with_all_their_responses() -> None:
    mod = _module("toxicity")
    result = mod.toxic_fraction(TOX_SCORES, prompts=PROMPT_IDS)
    plain = mod.toxic_fraction(TOX_SCORES)
    assert result.resampler is not None and result.resampler.n_units == N
    # without prompt ids, responses are the only unit left (and the interval is narrower: no clustering)
    assert plain.resampler is not None and plain.resampler.n_units == N * M


def test_classification_interval_is_undefined_when_a_group_rate_is() -> None:
    mod = _module("classification")
    # group 'b' has no actual positives: FNR undefined -> FNRD undefined -> NaN interval with the metric's reason
    result = mod.false_negative_rate_difference([1, 1, 0, 0], [1, 0, 0, 1], ["a", "a", "b", "b"])
    iv = confidence_interval(result)
    assert math.isnan(iv.low) and iv.reason and "FNRD" in iv.reason


def test_stratified_rows_keep_rare_groups_in_every_replicate() -> None:
    mod = _module("classification")
    groups = np.array(["a"] * 95 + ["b"] * 5)
    y_pred = np.r_[np.zeros(90), np.ones(5), np.ones(3), np.zeros(2)].astype(int)
    result = mod.demographic_parity_difference(y_pred, groups)
    iv = confidence_interval(result, n_resamples=500, seed=1)
    # without strata, about 0.95**100 = 0.6% of replicates would drop group b entirely and be undefined
    assert iv.n_valid == 500 and iv.reason is None


@given(
    data=st.data(),
    n=st.integers(4, 60),
    key=st.sampled_from(["false_negative_rate_difference", "false_discovery_rate_difference"]),
    method=st.sampled_from(["percentile", "bca"]),
)
def test_classification_intervals_never_crash(data: st.DataObject, n: int, key: str, method: str) -> None:
    mod = _module("classification")
    y_true = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y_pred = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    groups = np.array(data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n)))
    if len(set(groups)) < 2:
        groups[0], groups[-1] = "a", "b"
    result = getattr(mod, key)(y_true, y_pred, groups)
    iv = confidence_interval(result, n_resamples=100, seed=0, method=method)
    if iv.is_defined:
        assert 0.0 <= iv.low <= iv.high <= 1.0
    else:
        assert iv.reason
