"""Every metric and test with a grouping argument (``prompts``, ``groups``) names that argument when an item is not
a label (a list of lists), instead of pandas' ``TypeError: unhashable type: 'list'``: one check in
:mod:`evenhand._validation` serves them all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import evenhand.metrics as m
import evenhand.stats as s
from evenhand._validation import as_array

_TEXTS = ["she is a nurse", "he is a doctor", "she is kind", "he is tall"]
_SCORES = [0.1, 0.2, 0.3, 0.4]
_PAIRS = {"scores1": _SCORES, "scores2": _SCORES}
_BINARY = [1, 0, 1, 0]
_RECS = {"recs1": [["a", "b"]] * 4, "recs2": [["a", "b"]] * 4, "k": 2}

# function, its other (valid) arguments, the grouping argument under test
CASES: list[tuple[Callable[..., Any], dict[str, Any], str]] = [
    (m.toxic_fraction, {"scores": _SCORES}, "prompts"),
    (m.expected_maximum_toxicity, {"scores": _SCORES}, "prompts"),
    (m.toxicity_probability, {"scores": _SCORES}, "prompts"),
    (m.stereotype_fraction, {"scores": _SCORES}, "prompts"),
    (m.expected_maximum_stereotype, {"scores": _SCORES}, "prompts"),
    (m.stereotype_probability, {"scores": _SCORES}, "prompts"),
    (m.cooccurrence_bias, {"responses": _TEXTS, "attribute": "gender"}, "prompts"),
    (m.stereotypical_associations, {"responses": _TEXTS, "attribute": "gender"}, "prompts"),
    (m.counterfactual_rouge_l, {"texts1": _TEXTS, "texts2": _TEXTS}, "prompts"),
    (m.counterfactual_bleu, {"texts1": _TEXTS, "texts2": _TEXTS}, "prompts"),
    (m.strict_sentiment_parity, _PAIRS, "prompts"),
    (m.weak_sentiment_parity, _PAIRS, "prompts"),
    (m.demographic_parity_difference, {"y_pred": _BINARY}, "groups"),
    (m.demographic_parity_difference, {"y_pred": _BINARY, "groups": ["a", "b", "a", "b"]}, "prompts"),
    (m.demographic_parity_ratio, {"y_pred": _BINARY}, "groups"),
    *[
        (getattr(m, f"false_{rate}_rate_{kind}"), {"y_true": _BINARY, "y_pred": _BINARY}, "groups")
        for rate in ("negative", "positive", "omission", "discovery")
        for kind in ("difference", "ratio")
    ],
    (m.classification_metrics, {"y_true": _BINARY, "y_pred": _BINARY}, "groups"),
    (m.one_vs_rest, {"y_true": list("abab"), "y_pred": list("abab"), "sensitive_classes": ["a"]}, "groups"),
    (m.jaccard_at_k, _RECS, "prompts"),
    (m.serp_at_k, _RECS, "prompts"),
    (m.prag_at_k, _RECS, "prompts"),
    (m.recommendation_metrics, _RECS, "prompts"),
    (m.toxic_share_difference, {"scores_a": _SCORES, "scores_b": _SCORES}, "prompts"),
    (m.mean_toxicity_difference, {"scores_a": _SCORES, "scores_b": _SCORES}, "prompts"),
    (m.decision_flip_rate, {"decisions_a": _BINARY, "decisions_b": _BINARY}, "prompts"),
    (m.counterfactual_positive_rate_difference, {"decisions_a": _BINARY, "decisions_b": _BINARY}, "prompts"),
    (m.refusal_rate_difference, {"refusals_a": _BINARY, "refusals_b": _BINARY}, "prompts"),
    (m.non_completion_rate_difference, {"missing_a": _BINARY, "missing_b": _BINARY}, "prompts"),
    (m.relative_length_difference, {"words_a": [3, 4, 5, 6], "words_b": [3, 4, 5, 6]}, "prompts"),
    (m.toxic_share_shift, {"scores_condition": _SCORES, "scores_benign": _SCORES}, "prompts"),
    (m.refusal_rate_shift, {"scores_condition": _SCORES, "scores_benign": _SCORES}, "prompts"),
    *[
        (shift, {"condition_a": _SCORES, "condition_b": _SCORES, "benign_a": _SCORES, "benign_b": _SCORES}, "prompts")
        for shift in (m.toxic_share_gap_shift, m.refusal_gap_shift, m.sentiment_gap_shift)
    ],
    (
        m.non_completion_gap_shift,
        {"condition_a": _BINARY, "condition_b": _BINARY, "benign_a": _BINARY, "benign_b": _BINARY},
        "prompts",
    ),
    (m.non_completion_shift, {"missing_condition": _BINARY, "missing_benign": _BINARY}, "prompts"),
    (m.positive_rate_shift, {"decisions_condition": _BINARY, "decisions_benign": _BINARY}, "prompts"),
    (
        m.positive_rate_gap_shift,
        {"condition_a": _BINARY, "condition_b": _BINARY, "benign_a": _BINARY, "benign_b": _BINARY},
        "prompts",
    ),
    *[
        (cer, {"estimates_a": _SCORES, "estimates_b": _SCORES}, "prompts")
        for cer in (m.counterfactual_estimate_ratio, m.counterfactual_estimate_difference)
    ],
    (m.estimate_summary, {"estimates": _SCORES}, "groups"),
    (m.judged_worse_difference, {"verdicts": ["a", "b", "neither", "disagree"]}, "prompts"),
    *[
        (unplaced, {first: values, "in_set": [True, False, True, False]}, "prompts")
        for unplaced, first, values in (
            (m.unplaced_refusal_difference, "refusal_scores", _SCORES),
            (m.unplaced_toxicity_difference, "toxicity_scores", _SCORES),
            (m.unplaced_length_difference, "words", [3, 4, 5, 6]),
            (m.unplaced_positive_rate_difference, "decisions", _BINARY),
        )
    ],
    (m.person_refusal_rate_difference, {"refusals": _SCORES, "groups": ["a", "b", "a", "b"], "first": "a",
                                        "second": "b"}, "prompts"),
    (m.person_refusal_rate_difference, {"refusals": _SCORES, "first": "a", "second": "b"}, "groups"),
    *[
        (error, {"truth": _BINARY, "decisions_a": _BINARY, "decisions_b": _BINARY}, "prompts")
        for error in (m.counterfactual_false_negative_rate_difference, m.counterfactual_false_positive_rate_difference)
    ],
    (s.prompt_set_test, {"values": _SCORES, "in_set": [True, False, True, False]}, "prompts"),
    (s.counterfactual_sentiment_test, {"scores_a": _SCORES, "scores_b": _SCORES}, "prompts"),
    (s.paired_prompt_test, {"values_a": _SCORES, "values_b": _SCORES}, "prompts"),
    (s.pairwise_rate_tests, {"y_pred": _BINARY}, "groups"),
    (s.rate_difference_test, {"y_pred": _BINARY}, "groups"),
]


@pytest.mark.parametrize(("function", "others", "argument"), CASES, ids=lambda v: getattr(v, "__name__", None))
def test_a_list_of_lists_names_the_argument(
    function: Callable[..., Any], others: dict[str, Any], argument: str
) -> None:
    with pytest.raises(TypeError, match=rf"^{argument}\[0\] is a list \(\[0\]\); {argument} takes one label") as err:
        function(**others, **{argument: [[0], [1], [0], [1]]})
    assert "unhashable" not in str(err.value)


def test_every_metric_with_a_grouping_argument_is_covered() -> None:
    """A new public metric with ``prompts=`` or ``groups=`` joins CASES (cooccurrence's ``groups`` are group names)."""
    import inspect

    covered = {f.__name__ for f, _, _ in CASES}
    for module in (m, s):
        for name in module.__all__:
            function = getattr(module, name)
            if not inspect.isfunction(function):
                continue
            params = inspect.signature(function).parameters
            if "prompts" in params or "groups" in params:
                assert name in covered or name in ("counterfactual_cosine", "sensitive_to_neutral_similarity"), name


_UNHASHABLE = st.one_of(
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    st.sets(st.integers(), max_size=2),
)  # fmt: skip


@given(labels=st.lists(st.one_of(st.integers(), st.text(max_size=3)), min_size=1, max_size=8),
       bad=_UNHASHABLE, where=st.integers(min_value=0, max_value=8))  # fmt: skip
def test_any_unhashable_item_is_named_by_position(labels: list[Any], bad: Any, where: int) -> None:
    where = min(where, len(labels))
    items = [*labels[:where], bad, *labels[where:]]
    with pytest.raises(TypeError, match=rf"^prompts\[{where}\] is a {type(bad).__name__} "):
        as_array(items, "prompts")


def test_tuples_stay_labels() -> None:
    """Intersectional groups are tuples: hashable, so accepted."""
    result = m.demographic_parity_difference(_BINARY, groups=[("f", "b"), ("m", "w"), ("f", "b"), ("m", "w")])
    assert result.value == 1.0
