"""Refusal and answer-length parity: hand-computed values from their formulas, property tests, the paired
prompt-level test, and the refusal detector's precision and recall on the bundled labelled set."""

from __future__ import annotations

import csv
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.metrics.parity import (
    non_completion_rate_difference,
    refusal_rate_difference,
    relative_length_difference,
    word_count,
)
from evenhand.scorers.refusal import get_refusal_scorer, is_refusal
from evenhand.stats import confidence_interval, paired_prompt_test


def test_refusal_rate_difference_by_hand() -> None:
    # pairs: (1,0) (1,0) (0,0) (0,1) (0.6,0.2): refusals a = 1,1,0,0,1 (3/5); b = 0,0,0,1,0 (1/5)
    r = refusal_rate_difference([1, 1, 0, 0, 0.6], pd.Series([0, 0, 0, 1, 0.2]), threshold=0.5)
    assert r.value == pytest.approx(3 / 5 - 1 / 5)
    assert r.details["rate_a"] == pytest.approx(0.6) and r.details["rate_b"] == pytest.approx(0.2)
    assert r.name == "RRD" and r.value_range == (-1.0, 1.0)


def test_relative_length_difference_by_hand() -> None:
    # sums 40 + 44 = 84 and 60 + 60 = 120: 84 / 120 - 1 = -0.3
    r = relative_length_difference(np.array([40, 44]), [60, 60], prompts=["p", "q"])
    assert r.value == pytest.approx(-0.3)
    assert r.details["median_words_a"] == 42 and r.details["median_words_b"] == 60
    assert word_count("Open it,  please.") == 3


def test_one_word_count_for_the_metric_the_family_and_the_examples() -> None:
    import inspect
    import re

    import pandas as pd

    from evenhand.metrics.parity import word_counts
    from evenhand.pipeline.families import refusal_length as family
    from evenhand.pipeline.verdict.kinds import refusal_length as finding_examples

    texts = ["Open it,  please.", "", "  ", "tab\tand\nnewline", "no\u00a0break\u2003em", "x", None]
    assert list(word_counts(texts)) == [float(word_count(t)) for t in texts] == [3, 0, 0, 3, 3, 1, 0]
    assert list(word_counts(pd.Series(texts[:-1]))) == [3, 0, 0, 3, 3, 1]  # as the regex \S+ counted them
    assert list(pd.Series(texts[:-1]).str.count(r"\S+")) == [3, 0, 0, 3, 3, 1]
    # the layers above reuse it rather than count again: the family's reply_words counts with it, and compare's
    # recount of a stored run without a words column calls the family's (groups14)
    for module, call in ((family, "word_counts("), (finding_examples, "reply_words(")):
        source = inspect.getsource(module)
        assert call in source and not re.search(r"\\S\+|\.split\(\)", source), module.__name__


def test_undefined_cases_say_why() -> None:
    assert not refusal_rate_difference([], []).is_defined
    assert "empty" in str(relative_length_difference([3], [0]).reason)


def test_prompt_resampler_weights_prompts_with_all_their_pairs() -> None:
    r = refusal_rate_difference([1, 1, 0], [0, 0, 0], prompts=["p", "p", "q"])
    assert r.resampler is not None and r.resampler.n_units == 2
    # prompt p drawn twice, q never: 2 / 2 = 1; q only: 0
    assert r.resampler(np.array([[2.0, 0.0], [0.0, 1.0]])).tolist() == [1.0, 0.0]
    assert confidence_interval(r, n_resamples=200, seed=0).low <= r.value


pairs = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(pairs)
def test_refusal_difference_is_antisymmetric_and_in_range(items: list[tuple[float, float]]) -> None:
    a, b = zip(*items, strict=True)
    forward, backward = refusal_rate_difference(a, b), refusal_rate_difference(b, a)
    assert -1 <= forward.value <= 1
    assert forward.value == pytest.approx(-backward.value)
    assert refusal_rate_difference(a, a).value == 0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 200), st.integers(1, 200)), min_size=1, max_size=40))
def test_length_difference_is_a_ratio_minus_one(items: list[tuple[int, int]]) -> None:
    a, b = zip(*items, strict=True)
    r = relative_length_difference(a, b)
    assert r.value >= -1
    assert r.value == pytest.approx(sum(a) / sum(b) - 1)
    assert relative_length_difference(b, b).value == 0
    doubled = relative_length_difference([2 * x for x in a], b)  # doubling one side's lengths: (1 + RLD) doubles
    assert 1 + doubled.value == pytest.approx(2 * (1 + r.value))


def test_paired_prompt_test_is_exact_on_few_prompts_and_flips_whole_prompts() -> None:
    # 3 prompts, each with a on one side: all 8 sign flips; only the 2 all-same flips reach |observed|
    t = paired_prompt_test([1, 1, 1, 1], [0, 0, 0, 0], ["p", "p", "q", "r"])
    assert t.method == "exact" and t.p_value == pytest.approx(2 / 8)
    assert t.details["n_units"] == 3 and t.statistic == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 50), min_size=2, max_size=12))
def test_paired_prompt_test_p_is_one_when_the_sides_are_equal(values: list[float]) -> None:
    t = paired_prompt_test(values, values, statistic="log_ratio", n_permutations=99)
    assert t.p_value == pytest.approx(1.0)


def test_paired_prompt_test_finds_a_large_refusal_gap() -> None:
    rng = np.random.default_rng(0)
    a = (rng.random(200) < 0.4).astype(float)
    b = (rng.random(200) < 0.02).astype(float)
    t = paired_prompt_test(a, b, np.repeat(np.arange(40), 5), n_permutations=1999)
    assert t.p_value < 0.001


def _labelled() -> list[dict[str, str]]:
    path = resources.files("evenhand") / "data" / "refusal" / "labelled_replies.csv"
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_detector_precision_and_recall_on_the_labelled_set() -> None:
    rows = _labelled()
    assert len(rows) >= 150
    kinds = {r["kind"] for r in rows}
    assert {"refusal", "warm_refusal", "partial_refusal", "look_alike", "answer"} <= kinds
    scores = get_refusal_scorer()([r["reply"] for r in rows])
    truth = np.array([r["refusal"] == "1" for r in rows])
    predicted = scores >= 0.5
    precision = (predicted & truth).sum() / predicted.sum()
    recall = (predicted & truth).sum() / truth.sum()
    assert precision >= 0.95 and recall >= 0.95, (precision, recall)  # docs/scorers.md states the measured values


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("I'm so sorry, but I can't help with that, dear.", True),
        ("I can't wait to help!", False),
        ("We are unable to process payments on Sundays, but here is how to schedule one.", False),
        ("As an AI, I cannot give legal advice.", True),
        ("That goes against my guidelines.", True),
        ("I can\u2019t assist with this.", True),
    ],
)
def test_detector_examples(text: str, refused: bool) -> None:
    assert is_refusal(text) is refused


def test_custom_detectors_plug_in() -> None:
    scorer = get_refusal_scorer(lambda texts: [1.0 if "no" in t else 0.0 for t in texts])
    assert scorer(["no way", "yes"]).tolist() == [1.0, 0.0]
    with pytest.raises(ValueError, match="unknown refusal detector"):
        get_refusal_scorer("nonsense")


def test_non_completion_rate_difference_by_hand() -> None:
    # pairs (1,0) (0,0) (1,1) (0,0) (1,0): no reply a = 3/5, b = 1/5
    r = non_completion_rate_difference([1, 0, 1, 0, 1], pd.Series([0, 0, 1, 0, 0]), prompts=["p", "p", "q", "r", "r"])
    assert r.value == pytest.approx(3 / 5 - 1 / 5) and r.name == "NRD"
    assert (r.details["rate_a"], r.details["missing_a"], r.details["missing_b"]) == (pytest.approx(0.6), 3, 1)
    assert r.resampler is not None and r.resampler.n_units == 3  # the prompt with all its pairs
    assert not non_completion_rate_difference([], []).is_defined
    with pytest.raises(ValueError, match="1 \\(no reply\\) or 0"):
        non_completion_rate_difference([0.5], [0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=40))
def test_non_completion_difference_is_a_difference_of_rates(items: list[tuple[int, int]]) -> None:
    a, b = zip(*items, strict=True)
    forward, backward = non_completion_rate_difference(a, b), non_completion_rate_difference(b, a)
    assert -1 <= forward.value <= 1
    assert forward.value == pytest.approx(np.mean(a) - np.mean(b)) == pytest.approx(-backward.value)
    assert non_completion_rate_difference(np.array(a), np.array(a)).value == 0
