"""Hidden-bias fixtures (issue 14): the default sentiment scale sees a harsher tone *and* a warmer one.

Three generated response sets (``tests/_bias_fixtures.py``: 40 prompts x 3 replies per counterfactual version) go
through the real pipeline, ``evenhand.assess`` with the user's own responses. With the default sentiment score
(VADER compound mapped to [0, 1]) the counterfactual sentiment test flags "tone" and "warmth" and not "none".
VADER's negative share (LangFair's default, ``sentiment="vader-neg"``) is 0 for every reply of the "warmth" set, so
it cannot see that bias: SCSP = 0 and p = 1. That is why the default changed.
"""

from __future__ import annotations

import functools

import pandas as pd
import pytest
from _bias_fixtures import HARSH, KINDS, PLAIN, TOPICS, WARM, response_set

import evenhand
from evenhand.pipeline.results.assessment import Assessment

ALPHA = 0.05
PAIR = ("female", "male")


@functools.cache
def run(kind: str, sentiment: str | None = None) -> Assessment:
    rs = response_set(kind)
    return evenhand.assess(
        **rs.assess_kwargs(),  # type: ignore[arg-type]
        sentiment=sentiment,
        embedder=False,
        ci=0.95,
        n_resamples=200,
        progress=False,
    )


def row(a: Assessment, metric: str) -> pd.Series:
    m = a.metrics
    rows = m[(m["metric"] == metric) & (m["attribute"] == "gender") & (m["comparison"] == "female vs male")]
    assert len(rows) == 1
    return rows.iloc[0]


def test_reply_pools_have_the_sentiment_they_claim() -> None:
    from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

    polarity = SentimentIntensityAnalyzer().polarity_scores
    for topic in TOPICS:
        plain = [polarity(t.format(topic=topic)) for t in PLAIN]
        warm = [polarity(t.format(topic=topic)) for t in WARM]
        harsh = [polarity(t.format(topic=topic)) for t in HARSH]
        assert all(p["compound"] == 0 and p["neg"] == 0 for p in plain)
        assert all(p["compound"] > 0.5 and p["neg"] == 0 for p in warm)  # warm, and no negative word at all
        assert all(p["compound"] < -0.5 and p["neg"] > 0 for p in harsh)


def test_fixture_shapes() -> None:
    rs = response_set("warmth")
    assert len(rs.prompts) == 40 and len(rs.responses) == 120
    assert {g: len(v) for g, v in rs.counterfactual_responses["gender"].items()} == {"female": 120, "male": 120}
    assert rs.pools["female"].count("warm") > rs.pools["male"].count("warm")
    assert "harsh" not in rs.pools["female"] + rs.pools["male"]
    assert evenhand.check_ftu(rs.prompts, attribute="gender").n_flagged == 40  # every prompt has a male version


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.pipeline
def test_default_sentiment_flags_tone_and_warmth_not_none(kind: str) -> None:
    scsp = row(run(kind), "SCSP")
    if kind == "none":
        assert scsp["p_adjusted"] >= ALPHA
        assert scsp["value"] < 0.1
    else:
        assert scsp["p_adjusted"] < ALPHA
        assert scsp["value"] > 0.15


@pytest.mark.pipeline
def test_negative_share_misses_warmth() -> None:
    old = row(run("warmth", "vader-neg"), "SCSP")
    assert old["value"] == 0.0 and old["p_value"] == 1.0 and old["p_adjusted"] >= ALPHA
    assert float(run("warmth", "vader-neg").result("WCSP", "gender", PAIR)) == 0.0
    # ... while it does see a harsher tone, and the default sees both
    assert row(run("tone", "vader-neg"), "SCSP")["p_adjusted"] < ALPHA
    assert row(run("none", "vader-neg"), "SCSP")["p_adjusted"] >= ALPHA
    assert row(run("warmth"), "SCSP")["p_adjusted"] < ALPHA


@pytest.mark.pipeline
def test_wcsp_reads_the_share_of_positive_replies() -> None:
    # threshold 0.5 on the default scale: WCSP compares the shares of positive replies (compound > 0)
    for kind, sign in (("warmth", 1), ("tone", -1)):
        a = run(kind)
        rs = response_set(kind)
        details = a.result("WCSP", "gender", PAIR).details
        warm_share = {g: rs.pools[g].count("warm") / len(rs.pools[g]) for g in PAIR}
        assert details["rate1"] == pytest.approx(warm_share["female"])
        assert details["rate2"] == pytest.approx(warm_share["male"])
        assert sign * details["signed"] > 0.25
        assert row(a, "WCSP")["p_adjusted"] < ALPHA
        means = a.result("SCSP", "gender", PAIR).details
        assert sign * (means["mean_score1"] - means["mean_score2"]) > 0.1  # women's replies warmer / harsher
    none = run("none").result("WCSP", "gender", PAIR).details
    assert abs(none["signed"]) < 0.1 and row(run("none"), "WCSP")["p_adjusted"] >= ALPHA


def test_default_scale_is_symmetric_around_neutral() -> None:
    a = run("warmth")
    scores = a.responses.loc[a.responses["group"] == "male", ["response", "sentiment"]]
    plain = scores[scores["response"].str.startswith(("This note", "The ", "We received", "Here is", "Your "))]
    assert not plain.empty and set(plain["sentiment"]) == {0.5}  # neutral replies sit at the middle of the scale
