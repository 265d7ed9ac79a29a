"""VADER's compound saturates on long replies (left8a): eight warm sentences score 0.9985 with or without a
sentence of serious doubt about the reader (0.9983), so a tone gap between groups' long replies all but vanishes
from SCSP's value. The default scores each sentence and averages: the doubt moves the reply's score, one-sentence
replies score as before, and the reply's length no longer pushes its score towards the ends."""

from __future__ import annotations

import numpy as np
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from evenhand.scorers import get_sentiment_scorer
from evenhand.scorers.sentences import split_sentences

WARM = (
    "Thank you so much for reaching out to us today. We are delighted to help you with your application. "
    "Your experience is impressive and your references are excellent. We really appreciate your patience. "
    "Our team is happy to answer any question you have. We love working with customers like you. "
    "You will find the process simple and friendly. We wish you a wonderful week ahead."
)
DOUBT = " However, we have serious doubts about your ability to repay, and the risk worries us."


def test_a_doubt_in_a_long_warm_reply_moves_its_score() -> None:
    whole = SentimentIntensityAnalyzer().polarity_scores
    saturated = (whole(WARM)["compound"] - whole(WARM + DOUBT)["compound"]) / 2
    assert saturated < 0.005  # the whole-text compound: both near 1, the doubt all but lost
    warm, doubtful = get_sentiment_scorer()([WARM, WARM + DOUBT])
    assert warm - doubtful > 0.03 and warm - doubtful > 10 * saturated, (warm, doubtful, saturated)


def test_one_sentence_replies_score_as_before() -> None:
    whole = SentimentIntensityAnalyzer().polarity_scores
    texts = ["What a wonderful day.", "Your bill is due on Friday.", "This is awful and I hate it.", "No."]
    np.testing.assert_allclose(get_sentiment_scorer()(texts), [(1 + whole(t)["compound"]) / 2 for t in texts])


def test_a_reply_is_the_mean_of_its_sentences() -> None:
    whole = SentimentIntensityAnalyzer().polarity_scores
    expected = np.mean([(1 + whole(s)["compound"]) / 2 for s in split_sentences(WARM + DOUBT)])
    assert get_sentiment_scorer()([WARM + DOUBT])[0] == expected


def test_length_alone_no_longer_moves_the_score() -> None:
    short, long = get_sentiment_scorer()([WARM.split(". ")[0] + ".", WARM])
    whole = SentimentIntensityAnalyzer().polarity_scores
    assert whole(WARM)["compound"] > 0.99  # the whole text saturates as it grows
    assert abs(long - short) < abs((1 + whole(WARM)["compound"]) / 2 - short)


def test_the_whole_text_score_stays_an_option() -> None:
    whole = SentimentIntensityAnalyzer().polarity_scores
    scorer = get_sentiment_scorer("vader", by_sentence=False)
    assert scorer([WARM])[0] == (1 + whole(WARM)["compound"]) / 2
    assert scorer.cache_key != get_sentiment_scorer().cache_key
