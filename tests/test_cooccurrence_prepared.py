"""COBS and SA prepared once for many corpora (``prepare_cooccurrence``), and the group-shuffle test that uses them
(perf10): every figure must be the one the text path gives, float for float, or the speed-up would change results."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.errors import InputError
from evenhand.metrics.cooccurrence import cooccurrence_bias, prepare_cooccurrence, stereotypical_associations
from evenhand.pipeline.families.stereotype import _group_versions
from evenhand.stats import PreparedStatistic, group_shuffle_test

# group words of gender and race (one a two-word term, one a context-ruled colour), adjectives, stop words,
# punctuation, clitics and numbers: what the tokenizer and the mention matcher treat specially
WORDS = ["she", "he", "her", "him", "woman", "man", "Black", "white", "Asian", "African American", "emotional",
         "logical", "gentle", "ambitious", "smart", "lazy", "nurse", "engineer", "the", "is", "and", "very", "car",
         "don't", "she's", "42", ",", ".", "!", '"', "Dr.", "U.S."]  # fmt: skip
TEXT = st.lists(st.sampled_from(WORDS), min_size=0, max_size=25).map(" ".join)
METRICS: list[tuple[Any, dict[str, Any]]] = [
    (cooccurrence_bias, {"attribute": "gender", "groups": ("female", "male")}),
    (cooccurrence_bias, {"attribute": "race", "groups": ("black", "white"), "beta": 0.8}),
    (cooccurrence_bias, {"attribute": {"a": ["she", "her"], "b": ["he", "him"]}, "target": ["smart", "lazy"]}),
    (stereotypical_associations, {"attribute": "gender"}),
    (stereotypical_associations, {"attribute": "race", "count": "product", "target": "profession"}),
    (stereotypical_associations, {"attribute": {"a": ["she"], "b": ["he"], "c": ["man"]}}),
]


def _same(a: Any, b: Any) -> None:
    """Two MetricResults with identical figures (NaN equals NaN; arrays compared exactly)."""
    assert (a.reason, a.sizes, a.params, a.details.keys()) == (b.reason, b.sizes, b.params, b.details.keys())
    assert a.value == b.value or (np.isnan(a.value) and np.isnan(b.value))
    if a.per_item is not None or b.per_item is not None:
        np.testing.assert_array_equal(a.per_item, b.per_item, strict=True)
        np.testing.assert_array_equal(a.item_labels, b.item_labels)
    assert repr(a.details) == repr(b.details)  # the signed per-word ratios, the group counts


@settings(max_examples=60, deadline=None)
@given(
    pool=st.lists(TEXT, min_size=1, max_size=12),
    picks=st.lists(st.integers(0, 1000), min_size=1, max_size=20),
    which=st.integers(0, len(METRICS) - 1),
)
def test_a_prepared_metric_equals_the_metric_on_the_selected_texts(
    pool: list[str], picks: list[int], which: int
) -> None:
    metric, options = METRICS[which]
    index = [p % len(pool) for p in picks]  # any selection, repeats and reorderings included
    prepared = prepare_cooccurrence(metric, pool, **options)
    _same(prepared(index), metric([pool[i] for i in index], **options))
    _same(prepared(list(range(len(pool)))), metric(pool, **options))  # the whole pool, as it was given


def test_a_prepared_metric_refuses_what_it_cannot_compute() -> None:
    with pytest.raises(InputError, match="cooccurrence_bias or stereotypical_associations"):
        prepare_cooccurrence(len, ["she is smart"])
    with pytest.raises(InputError, match="prompts"):
        prepare_cooccurrence(cooccurrence_bias, ["she is smart"], prompts=[1])
    with pytest.raises(InputError, match="indices must lie in"):
        prepare_cooccurrence(stereotypical_associations, ["she is smart", "he is lazy"])([0, 2])
    with pytest.raises(InputError, match="responses is empty"):  # as the metric refuses an empty corpus
        prepare_cooccurrence(cooccurrence_bias, ["she is smart", "he is lazy"])([])


class _Prepared:
    """The metric as a PreparedStatistic, as the stereotype family gives it to the shuffle test."""

    def __init__(self, metric: Any, options: dict[str, Any]) -> None:
        self.metric, self.options, self.calls = metric, options, 0

    def prepare(self, texts: list[str]) -> Any:
        self.calls += 1
        on = prepare_cooccurrence(self.metric, texts, **self.options)
        return lambda corpus: float(on(corpus).value)


def _corpus(seed: int, stereotyped: bool) -> tuple[list[str], list[int]]:
    """60 replies to 12 prompts; a third of the prompts' replies mix "she" and "he" (shuffled within the prompt)."""
    rng = np.random.default_rng(seed)
    texts, prompts = [], []
    for p in range(12):
        pronoun = "she" if p % 2 else "he"
        for r in range(5):
            who = ("he" if r % 2 else "she") if p % 3 == 0 else pronoun
            warm = rng.random() < ((0.9 if who == "she" else 0.1) if stereotyped else 0.5)
            adjectives = "emotional and gentle" if warm else "logical and ambitious"
            texts.append(f"The answer, {r}: {who} is {adjectives}. A Black nurse or a white engineer? Dr. Lee's car.")
            prompts.append(p)
    return texts, prompts


@pytest.mark.parametrize("stereotyped", [True, False])
@pytest.mark.parametrize(("metric", "options"), [METRICS[0], METRICS[3]])
def test_the_shuffle_test_gives_the_same_figures_prepared_or_on_texts(
    metric: Any, options: dict[str, Any], stereotyped: bool
) -> None:
    """The old path (a statistic of texts, recomputed on each shuffled corpus) and the prepared one agree exactly:
    the observed value, the p-value, the number of permutations run and every detail."""
    texts, prompts = _corpus(7, stereotyped)
    versions = _group_versions(texts, "gender")
    prepared = _Prepared(metric, options)
    assert isinstance(prepared, PreparedStatistic)
    runs = [
        group_shuffle_test(texts, versions, statistic, units=prompts, n_permutations=199, max_texts=50, seed=3)
        for statistic in (lambda corpus: float(metric(corpus, **options).value), prepared)
    ]
    assert runs[0].to_dict() == runs[1].to_dict()
    assert prepared.calls == 1  # tokenized once, not once per shuffle
    assert runs[0].details["n_shuffled_within"] > 0 and runs[0].n_permutations is not None
    if stereotyped:  # no early stop: every permutation ran, and the association is found
        assert runs[0].n_permutations == 199 and runs[0].p_value < 0.05
