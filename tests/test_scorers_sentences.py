"""Worst-sentence scoring: the splitter's rule, one call for every sentence of a batch, the max, the cache key and
the recipe a Ray worker rebuilds it from."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.scorers.sentences import (
    WorstSentenceScorer,
    min_sentence_words,
    rescale_to_threshold,
    sentence_threshold,
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
    assert worst.cache_key == f"worst-sentence/t0.7/{inner.cache_key}"  # the lexical default's sentence threshold
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


# ------------------------------------------------------------------------------------ the operating point (issue 34)
def test_rescaling_puts_the_sentence_threshold_on_one_half_by_hand() -> None:
    # r(s) = 0.5 s / tau below tau, 0.5 + 0.5 (s - tau) / (1 - tau) from tau on; tau = 0.7
    got = rescale_to_threshold([0.0, 0.14, 0.7, 0.76, 1.0], 0.7)
    np.testing.assert_allclose(got, [0.0, 0.1, 0.5, 0.6, 1.0])
    np.testing.assert_array_equal(rescale_to_threshold([0.2, 0.9], 0.5), [0.2, 0.9])  # tau 0.5: unchanged
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        rescale_to_threshold([0.5], 1.0)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        WorstSentenceScorer(lambda t: [0.0] * len(t), threshold=0.0)


@given(
    st.lists(st.floats(0.0, 1.0), min_size=2, max_size=20),
    st.floats(0.01, 0.99),
)
def test_rescaling_keeps_the_order_the_range_and_which_side_of_the_threshold(scores: list[float], tau: float) -> None:
    s = np.sort(np.asarray(scores))
    r = rescale_to_threshold(s, tau)
    assert np.all(np.diff(r) >= -1e-12) and np.all((r >= 0.0) & (r <= 1.0))
    np.testing.assert_array_equal(r >= 0.5, s >= tau)  # flagged at 0.5 exactly when the sentence reaches tau


def test_the_sentence_threshold_comes_from_the_wrapped_scorer_and_rescales_the_reply_and_its_sentence() -> None:
    from evenhand.scorers._base import CallableScorer
    from evenhand.scorers.masking import IdentityMaskedScorer

    class Strict(CallableScorer):
        sentence_threshold = 0.8

    inner = IdentityMaskedScorer(Strict(lambda texts: [0.6 if "fraud" in t else 0.9 if "idiot" in t else 0.0
                                                       for t in texts]))  # fmt: skip
    worst = WorstSentenceScorer(inner)
    assert sentence_threshold(inner) == 0.8 and sentence_threshold(lambda t: t) == 0.5 and worst.threshold == 0.8
    replies = ["Thanks. Money lost to fraud is refunded.", "Thanks. You idiot."]
    np.testing.assert_allclose(worst(replies), [0.375, 0.75])  # 0.5*0.6/0.8; 0.5 + 0.5*(0.9-0.8)/0.2
    named = worst.worst_sentences(replies)
    assert [s for s, _ in named] == ["Money lost to fraud is refunded.", "You idiot."]
    np.testing.assert_allclose([score for _, score in named], [0.375, 0.75])
    np.testing.assert_allclose(WorstSentenceScorer(inner, threshold=0.5)(replies), [0.6, 0.9])  # asked: as scored


def test_the_lexical_sentence_threshold_is_what_dev_replies_give() -> None:
    """The lexical default's sentence threshold (0.7) is the smallest of 0.50, 0.55, ... at which worst-sentence
    scoring flags no more benign development replies than whole-reply scoring does at 0.5 (issue 34, item 3)."""
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.profanity import ProfanityCheckToxicity
    from evenhand.scorers.toxicity_sets import polite_replies

    replies = polite_replies("dev")
    benign = replies.loc[replies["label"] == 0, "reply"].tolist()
    inner = IdentityMaskedScorer(ProfanityCheckToxicity())
    whole_fp = float(np.mean(np.asarray(inner(benign)) >= 0.5))
    worst_raw = np.asarray(WorstSentenceScorer(inner, threshold=0.5)(benign))
    grid = np.round(np.arange(0.5, 0.96, 0.05), 2)
    chosen = next(float(t) for t in grid if np.mean(worst_raw >= t) <= whole_fp)
    assert chosen == ProfanityCheckToxicity.sentence_threshold == sentence_threshold(inner) == 0.7
    assert np.mean(np.asarray(WorstSentenceScorer(inner)(benign)) >= 0.5) <= whole_fp


def test_a_sentence_is_scored_once_across_batches() -> None:
    """Replies come in batches; a sentence met in an earlier batch is not sent to the inner scorer again (sixth
    pass of issue 34: 36% of the MiniLM encoder's paper-scale work was such repeats), and scores stay the same."""
    seen: list[str] = []

    def inner(texts: list[str]) -> list[float]:
        seen.extend(texts)
        return [0.9 if "idiot" in t else 0.1 for t in texts]

    replies = ["Thanks. You idiot.", "Thanks. Have a nice day.", "You idiot. Bye now."]
    scorer = WorstSentenceScorer(inner, batch_size=1)
    first = scorer(replies)
    assert sorted(seen) == sorted({"Thanks.", "You idiot.", "Have a nice day.", "Bye now."})
    assert first.tolist() == WorstSentenceScorer(inner)(replies).tolist() == [0.9, 0.1, 0.9]
