"""Rates corrected for the scorer's own error (issue 37): Rogan-Gladen by hand, the audit's counts, and the interval
that carries the audit's uncertainty."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics as M
from evenhand.errors import InputError
from evenhand.scorers.audit import audit_scorer, error_counts
from evenhand.stats import ScorerError, corrected_rate, rate_interval, rogan_gladen

PERFECT = ScorerError("any", 10**7, 10**7, 0, 10**7)  # a scorer known to be right, on a huge audit


# -------------------------------------------------------------------------------------------- by hand
def test_rogan_gladen_by_hand() -> None:
    # flagged share p = Se pi + (1 - Sp)(1 - pi): pi = 0.1, Se = 0.8, Sp = 0.95 gives p = 0.08 + 0.045 = 0.125
    assert rogan_gladen(0.125, 0.8, 0.95)[0] == pytest.approx(0.1)
    assert rogan_gladen(0.03, 0.8, 0.95)[0] == 0.0  # fewer flagged than the false positives alone: clipped to 0
    assert rogan_gladen(0.99, 0.9, 0.99)[0] == 1.0  # more than the sensitivity allows: clipped to 1
    assert math.isnan(rogan_gladen(0.2, 0.5, 0.5)[0])  # Se + Sp = 1: the scorer tells nothing
    assert rogan_gladen([0.2, 0.4], 1.0, 1.0).tolist() == [0.2, 0.4]  # a perfect scorer changes nothing


def test_scorer_error_reads_the_counts() -> None:
    e = ScorerError("gay", 15, 20, 2, 40)
    assert (e.sensitivity, e.specificity, e.false_positive_rate) == (0.75, 0.95, 0.05)
    assert e.to_dict()["benign"] == 40
    with pytest.raises(InputError, match="flagged"):
        ScorerError("x", 21, 20, 0, 10)
    with pytest.raises(InputError):
        ScorerError("x", 0, 0, 0, 10)


def _pairs(flagged_a: int, flagged_b: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.zeros(n), np.zeros(n)
    a[:flagged_a], b[n - flagged_b :] = 1.0, 1.0
    return a, b


def test_a_gap_the_false_positives_explain_is_corrected_to_zero() -> None:
    """The issue's case: a 3-point toxic-share gap between groups whose benign statements the scorer flags at 4%
    and 1% is no evidence about the model: corrected, both shares are 0 and the interval holds 0."""
    a, b = _pairs(12, 3, 300)
    tsd = M.toxic_share_difference(a, b, 0.5, prompts=np.repeat(np.arange(100), 3))
    assert tsd.value == pytest.approx(0.03)
    c = corrected_rate(tsd.rate_counts, [ScorerError("a", 60, 80, 4, 100), ScorerError("b", 60, 80, 1, 100)])
    assert c.raw == pytest.approx(0.03) and c.corrected == 0.0
    assert c.rates["first"] == {"raw": 0.04, "corrected": 0.0, "sensitivity": 0.75, "specificity": 0.96}
    assert c.holds_zero and c.low < 0.0 < c.high
    assert c.kind == "difference" and c.to_dict()["rates"]["second"]["specificity"] == 0.99


def test_corrected_gap_by_hand_and_a_real_gap_survives() -> None:
    # group A: 20% flagged, Se 0.8, Sp 0.95 -> (0.2 - 0.05) / 0.75 = 0.2; group B: 5% flagged -> 0
    a, b = _pairs(80, 20, 400)
    tsd = M.toxic_share_difference(a, b, 0.5)
    c = corrected_rate(tsd.rate_counts, [ScorerError("a", 160, 200, 10, 200), ScorerError("b", 160, 200, 10, 200)])
    assert c.corrected == pytest.approx(0.2)
    assert c.low > 0.0 and not c.holds_zero  # the scorer's error cannot explain a gap of this size
    assert c.low <= c.corrected <= c.high


def test_with_a_perfect_scorer_the_interval_is_the_rates_own() -> None:
    rng = np.random.default_rng(3)
    prompts = np.repeat(np.arange(60), 4)
    for share in (0.0, 0.03, 0.4):
        tf = M.toxic_fraction((rng.random(240) < share).astype(float), 0.5, prompts)
        own = rate_interval(tf.rate_counts)
        c = corrected_rate(tf.rate_counts, PERFECT, n_draws=40_000, seed=1)
        assert c.corrected == pytest.approx(tf.value, abs=1e-6)
        assert (c.low, c.high) == pytest.approx((own.low, own.high), abs=4e-3)


def test_the_audits_uncertainty_widens_the_interval() -> None:
    tf = M.toxic_fraction(np.r_[np.ones(30), np.zeros(270)], 0.5, np.repeat(np.arange(100), 3))
    small = corrected_rate(tf.rate_counts, ScorerError("g", 16, 20, 1, 20), seed=2)
    large = corrected_rate(tf.rate_counts, ScorerError("g", 1600, 2000, 100, 2000), seed=2)
    assert small.corrected == pytest.approx(large.corrected)
    assert small.high - small.low > large.high - large.low


def test_undefined_when_the_scorer_tells_nothing_and_bad_input() -> None:
    tf = M.toxic_fraction([0.9, 0.1, 0.2], 0.5)
    c = corrected_rate(tf.rate_counts, ScorerError("g", 5, 10, 5, 10))
    assert math.isnan(c.low) and "no better than chance" in (c.reason or "") and not c.holds_zero
    assert c.to_dict()["low"] is None
    with pytest.raises(InputError, match="one per group"):
        corrected_rate(tf.rate_counts, [PERFECT, PERFECT])
    dp = M.demographic_parity_difference([1, 0, 1, 0, 1, 1], ["a", "a", "b", "b", "c", "c"])
    with pytest.raises(InputError, match="spread"):
        corrected_rate(dp.rate_counts, [PERFECT] * 3)


@given(st.integers(0, 40), st.integers(0, 40), st.integers(1, 20), st.integers(0, 5))
def test_corrected_interval_holds_its_estimate_and_is_seeded(fa: int, fb: int, se: int, fp: int) -> None:
    a, b = _pairs(fa, fb, 40)
    tsd = M.toxic_share_difference(a, b, 0.5)
    errors = [ScorerError("a", se, 20, fp, 20), ScorerError("b", se, 20, fp, 20)]
    one = corrected_rate(tsd.rate_counts, errors, n_draws=500, seed=7)
    if not one.is_defined:
        assert se / 20 + 1 - fp / 20 <= 1.0 or one.reason
        return
    assert -1.0 <= one.low <= one.corrected <= one.high <= 1.0
    assert one == corrected_rate(tsd.rate_counts, errors, n_draws=500, seed=7)


# ------------------------------------------------------------------------------------------- the audit
def test_the_audit_keeps_the_counts_behind_its_rates() -> None:
    audit = audit_scorer(lambda texts: [0.9 if "gay" in t.lower() else 0.1 for t in texts], ["sexual_orientation"])
    gay = audit.group("sexual_orientation", "gay")
    assert gay is not None
    # the statements with the word "gay" (one of the group's terms) are flagged, benign or not
    assert 0 < gay.benign_flagged == round(gay.fpr * gay.n_benign) < gay.n_benign
    assert gay.insults_flagged == round(gay.tpr * gay.n_insult)
    counts = error_counts(audit.to_dict(), "sexual_orientation", "gay")
    assert counts == {"insults_flagged": gay.insults_flagged, "insults": gay.n_insult,
                      "benign_flagged": gay.benign_flagged, "benign": gay.n_benign}  # fmt: skip
    assert ScorerError("gay", **counts).specificity == pytest.approx(1 - gay.fpr)
    assert error_counts(audit.to_dict(), "sexual_orientation", "nobody") is None
    older = audit.to_dict()  # a results.json written before the counts were kept: read from the rates
    for unit in older["groups"]:
        del unit["benign_flagged"], unit["insults_flagged"]
    assert error_counts(older, "sexual_orientation", "gay") == counts


def test_the_example_in_docs_scorers_runs(capsys: pytest.CaptureFixture[str]) -> None:
    import re
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "scorers.md").read_text(encoding="utf-8")
    section = doc[doc.index("### Rates corrected for the scorer's own error") :]
    code = re.search(r"```python\n(.*?)```", section, flags=re.DOTALL)
    assert code is not None
    exec(compile(code.group(1), "docs/scorers.md", "exec"), {"__name__": "__doc_example__"})
    assert "corrected 0.000" in capsys.readouterr().out


def test_no_correction_where_the_replies_contradict_the_audit() -> None:
    """The audit flags 45% of benign statements about the group; only 25% of its replies are flagged (fewer than the
    false positives alone would make): the audit does not describe these replies, so no correction (and no claim
    that the scorer's error explains the gap)."""
    a, b = _pairs(50, 2, 200)
    tsd = M.toxic_share_difference(a, b, 0.5)
    errors = [ScorerError("gay", 55, 60, 27, 60), ScorerError("straight", 50, 60, 1, 60)]
    c = corrected_rate(tsd.rate_counts, errors)
    assert math.isnan(c.low) and not c.holds_zero
    assert "flags 45% of benign statements about gay, more than the 25% of its replies flagged" in (c.reason or "")
    consistent = [ScorerError("gay", 55, 60, 12, 60), ScorerError("straight", 50, 60, 1, 60)]  # 20%: consistent
    assert corrected_rate(tsd.rate_counts, consistent).is_defined
