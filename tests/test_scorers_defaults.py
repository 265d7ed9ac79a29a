"""Offline default scorers against their reference libraries: profanity-check toxicity and VADER sentiment."""

from __future__ import annotations

import warnings
from typing import Any

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


def test_default_toxicity_is_lexical_without_a_warning_and_minilm_needs_its_extra(monkeypatch: Any) -> None:
    """Issue 34 follow-up: the MiniLM model is opt-in (it misreads short sentences of real replies), so the default
    warns of nothing; asked for by name without the models extra, it is refused at once, saying how to install it."""
    import importlib.util

    from evenhand._optional import MissingDependencyError

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert isinstance(get_toxicity_scorer(), ProfanityCheckToxicity)
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sentence_transformers"
                        else real(name, *a))  # fmt: skip
    with pytest.raises(MissingDependencyError, match=r"evenhand-minilm-toxicity.*evenhand\[models\]"):
        get_toxicity_scorer("evenhand-minilm-toxicity")


def test_default_toxicity_over_scores_identity_statements() -> None:
    # The documented weakness (docs/scorers.md): a lexical model flags identity words in benign statements.
    scores = get_toxicity_scorer()(["I am a gay black woman.", "I am a happy tall woman."])
    assert scores[0] > 0.5 > scores[1]


def test_default_sentiment_is_vader_compound_on_zero_one() -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    scorer = get_sentiment_scorer()
    assert isinstance(scorer, VaderSentiment) and scorer.mapping == "compound_pos"
    assert get_sentiment_scorer("vader").cache_key == scorer.cache_key == "sentiment/vader/compound_pos/sentences"
    # (1 + compound) / 2: 0 = most negative, 0.5 = neutral, 1 = most positive
    expected = [(1 + analyzer.polarity_scores(t)["compound"]) / 2 for t in TEXTS]
    np.testing.assert_allclose(scorer(TEXTS), expected, atol=1e-12)
    assert scorer(["Your bill is due on Friday."])[0] == 0.5
    assert scorer.scale == "VADER compound mapped to [0, 1]: 0 = most negative, 0.5 = neutral, 1 = most positive"


def test_langfair_negative_share_is_an_option() -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    analyzer = SentimentIntensityAnalyzer()
    # LangFair's SentimentBias(classifier="vader", sentiment="neg") reads polarity_scores(text)["neg"].
    for scorer in (get_sentiment_scorer("vader-neg"), get_sentiment_scorer("vader-negative")):
        assert isinstance(scorer, VaderSentiment) and scorer.mapping == "neg"
        np.testing.assert_array_equal(scorer(TEXTS), [analyzer.polarity_scores(t)["neg"] for t in TEXTS])
        assert "negative share" in scorer.scale and "1 = most negative" in scorer.scale
    assert get_sentiment_scorer("vader", mapping="negative").mapping == "neg"


def test_every_sentiment_scorer_states_its_scale() -> None:
    from evenhand.scorers.sentiment import VADER_MAPPINGS, sentiment_scale

    scales = {m: VaderSentiment(m).scale for m in VADER_MAPPINGS}
    assert len(set(scales.values())) == len(VADER_MAPPINGS)
    assert "1 = most negative" in scales["compound"] and "1 = most positive" in scales["pos"]
    mine = get_sentiment_scorer(lambda texts: [0.5] * len(texts), name="constant")
    assert "constant" in mine.scale and sentiment_scale(mine) == mine.scale  # type: ignore[attr-defined]
    assert sentiment_scale(get_sentiment_scorer()) == scales["compound_pos"]


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
    # VADER gives "I hate it" compound -0.5719: the default is (1 - 0.5719) / 2, the negativity mapping
    # "vader-compound" (1 + 0.5719) / 2.
    assert get_sentiment_scorer()(["I hate it"])[0] == pytest.approx(0.21405)
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
@pytest.mark.model
def test_default_scores_are_probabilities(texts: list[str]) -> None:
    sentiment = [get_sentiment_scorer(spec) for spec in (None, "vader-neg", "vader-compound")]
    for scorer in (get_toxicity_scorer(), *sentiment):
        out = scorer(texts)
        assert out.shape == (len(texts),) and out.dtype == np.float64
        assert np.all((out >= 0) & (out <= 1))
