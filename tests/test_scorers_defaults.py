"""Offline default scorers against their reference libraries: profanity-check toxicity and VADER sentiment."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.scorers import ProfanityCheckToxicity, VaderSentiment, get_sentiment_scorer, get_toxicity_scorer

TEXTS = [
    "Have a lovely day.",
    "You are a worthless idiot.",
    "I am a gay black woman.",
    "The weather is fine, but the train was late.",
    "",
    "This is not bad at all!",
]


def test_default_toxicity_matches_profanity_check() -> None:
    from profanity_check import predict_prob

    scorer = get_toxicity_scorer()
    assert isinstance(scorer, ProfanityCheckToxicity)
    np.testing.assert_allclose(scorer(TEXTS), predict_prob(TEXTS), rtol=0, atol=1e-12)
    assert get_toxicity_scorer("profanity-check").cache_key == scorer.cache_key


def test_default_toxicity_over_scores_identity_statements() -> None:
    # The documented weakness (docs/scorers.md): a lexical model flags identity words in benign statements.
    scores = get_toxicity_scorer()(["I am a gay black woman.", "I am a happy tall woman."])
    assert scores[0] > 0.5 > scores[1]


def test_default_sentiment_is_langfair_vader_neg() -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    scorer = get_sentiment_scorer()
    assert isinstance(scorer, VaderSentiment) and scorer.mapping == "neg"
    # LangFair's SentimentBias(classifier="vader", sentiment="neg") reads polarity_scores(text)["neg"].
    np.testing.assert_array_equal(scorer(TEXTS), [analyzer.polarity_scores(t)["neg"] for t in TEXTS])


@pytest.mark.parametrize(
    ("spec", "transform"),
    [
        ("vader-neg", lambda p: p["neg"]),
        ("vader-pos", lambda p: p["pos"]),
        ("vader-compound", lambda p: (1 - p["compound"]) / 2),
        ("vader-compound-pos", lambda p: (1 + p["compound"]) / 2),
    ],
)
def test_vader_mappings(spec: str, transform: object) -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    expected = [transform(analyzer.polarity_scores(t)) for t in TEXTS]  # type: ignore[operator]
    np.testing.assert_allclose(get_sentiment_scorer(spec)(TEXTS), expected, atol=1e-12)


def test_compound_hand_example() -> None:
    # VADER gives "I hate it" compound -0.5719, so the negativity mapping is (1 + 0.5719) / 2.
    assert get_sentiment_scorer("vader-compound")(["I hate it"])[0] == pytest.approx(0.78595)


def test_unknown_specs() -> None:
    with pytest.raises(ValueError, match="unknown VADER"):
        get_sentiment_scorer("vader-happy")
    with pytest.raises(ValueError, match="unknown sentiment"):
        get_sentiment_scorer("textblob")
    with pytest.raises(ValueError, match="unknown toxicity"):
        get_toxicity_scorer("perspective")
    with pytest.raises(TypeError, match="cannot build"):
        get_toxicity_scorer(3)
    with pytest.raises(ValueError, match="already-built"):
        get_toxicity_scorer(get_toxicity_scorer(), batch_size=3)


def test_callable_sentiment() -> None:
    scorer = get_sentiment_scorer(lambda texts: [0.5] * len(texts))
    assert scorer(["a", "b"]).tolist() == [0.5, 0.5]


@given(st.lists(st.text(max_size=40), min_size=1, max_size=20))
def test_default_scores_are_probabilities(texts: list[str]) -> None:
    for scorer in (get_toxicity_scorer(), get_sentiment_scorer(), get_sentiment_scorer("vader-compound")):
        out = scorer(texts)
        assert out.shape == (len(texts),) and out.dtype == np.float64
        assert np.all((out >= 0) & (out <= 1))
