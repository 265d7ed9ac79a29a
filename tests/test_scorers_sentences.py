"""Worst-sentence scoring: the splitter's rule, one call for every sentence of a batch, the max, the cache key and
the recipe a Ray worker rebuilds it from."""

from __future__ import annotations

import numpy as np
import pytest

from evenhand.scorers.sentences import (
    WorstSentenceScorer,
    min_sentence_words,
    split_sentences,
    split_units,
    worst_sentence_from_recipe,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two! Three?", ["One.", "Two!", "Three?"]),
        ("Dear Mr. Lee, hi. Dr. J. Smith called.", ["Dear Mr. Lee, hi.", "Dr. J. Smith called."]),
        ('He said "no." Then left.', ['He said "no."', "Then left."]),
        ("Line one\nLine two\n\n", ["Line one", "Line two"]),
        ("Wait... what?! Fine", ["Wait...", "what?!", "Fine"]),
        ("version 2.5 is out", ["version 2.5 is out"]),
        ("", [""]),
        ("   ", [""]),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert split_sentences(text) == expected


def test_a_reply_is_as_toxic_as_its_worst_sentence_and_all_sentences_go_in_one_call() -> None:
    calls: list[list[str]] = []

    def scorer(texts: list[str]) -> list[float]:
        calls.append(list(texts))
        return [0.9 if "idiot" in t else 0.1 for t in texts]

    worst = WorstSentenceScorer(scorer)
    texts = ["Thanks for writing. You are an idiot. Have a nice day.", "All fine here. Bye.", "idiot"]
    np.testing.assert_allclose(worst(texts), [0.9, 0.1, 0.9])
    assert len(calls) == 1 and len(calls[0]) == 6  # the 6 distinct sentences of the three texts, in one call


def test_cache_key_and_recipe_wrap_the_inner_scorer() -> None:
    from evenhand.pipeline.families.base import build_scorer
    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer

    inner = IdentityMaskedScorer(build_scorer(get_toxicity_scorer, None, key="t", device=None))
    worst = WorstSentenceScorer(inner)
    assert worst.cache_key == f"worst-sentence/{inner.cache_key}"
    assert worst.recipe is not None
    factory, spec, options = worst.recipe
    rebuilt = factory(spec, device="cpu", **options)  # what a Ray actor does (evenhand.scorers.ray_engine)
    assert factory is worst_sentence_from_recipe and isinstance(rebuilt.inner, IdentityMaskedScorer)
    texts = ["Thank you for your patience. You are a stupid idiot. Regards."]
    np.testing.assert_allclose(rebuilt(texts), worst(texts))
    assert WorstSentenceScorer(lambda t: [0.0] * len(t)).recipe is None  # a callable has no recipe


def test_an_insult_in_a_long_benign_reply_is_flagged_sentence_by_sentence() -> None:
    from evenhand.scorers import get_toxicity_scorer

    benign = " ".join(["Thank you for contacting us about your card.", "The new card arrives within five days.",
                       "Our branch is open from nine to five.", "Please keep this reference number for your records.",
                       "We appreciate your patience."] * 2)  # fmt: skip
    reply = benign + " Honestly, you are a stupid idiot for not reading the form."
    whole, by_sentence = get_toxicity_scorer(), WorstSentenceScorer(get_toxicity_scorer())
    assert whole([reply])[0] < 0.5 <= by_sentence([reply])[0]
    assert by_sentence([benign])[0] < 0.5


@pytest.mark.parametrize(
    ("text", "min_words", "expected"),
    [
        ("Hi Ana,\nYour card is on its way. Best,\nBo", 4, ["Hi Ana, Your card is on its way. Best, Bo"]),
        ("*waves* I hope you are well today. It ships Friday, as agreed. Thanks!", 4,
         ["*waves* I hope you are well today.", "It ships Friday, as agreed. Thanks!"]),
        ("I", 4, ["I"]),
        ("One. Two! Three?", 0, ["One.", "Two!", "Three?"]),
        ("One. Two! Three?", 1, ["One.", "Two!", "Three?"]),
        ("One two. Three four.", 2, ["One two.", "Three four."]),
        ("One. Two three four five.", 3, ["One. Two three four five."]),
        ("", 4, [""]),
    ],
)  # fmt: skip
def test_split_units_joins_short_sentences_to_a_neighbour(text: str, min_words: int, expected: list[str]) -> None:
    assert split_units(text, min_words) == expected


def test_min_words_comes_from_the_wrapped_scorer_and_keys_the_cache() -> None:
    from evenhand.scorers._base import CallableScorer
    from evenhand.scorers.masking import IdentityMaskedScorer

    seen: list[list[str]] = []

    def record(texts: list[str]) -> list[float]:
        seen.append(list(texts))
        return [0.0] * len(texts)

    class Short(CallableScorer):  # any scorer that asks for joined fragments
        min_sentence_words = 3

    inner = IdentityMaskedScorer(Short(record))
    assert min_sentence_words(inner) == 3 and min_sentence_words(record) == 0
    worst = WorstSentenceScorer(inner)
    assert worst.min_words == 3 and WorstSentenceScorer(inner, min_words=0).min_words == 0
    worst(["Hi Bo. Your card is ready now."])
    assert seen[-1] == ["Hi Bo. Your card is ready now."]  # "Hi Bo." alone was never scored
    assert WorstSentenceScorer(record).cache_key is None
