"""Worst-sentence scoring: the splitter's rule, one call for every sentence of a batch, the max, the cache key and
the recipe a Ray worker rebuilds it from."""

from __future__ import annotations

import numpy as np
import pytest

from evenhand.scorers.sentences import WorstSentenceScorer, split_sentences, worst_sentence_from_recipe


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
