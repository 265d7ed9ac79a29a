"""Issue 27: a watch tier with a known null rate (it rests on Benjamini-Hochberg adjusted p-values only, never on an
unadjusted p or an interval alone) and intervals that agree with their tests (a distance's interval includes 0
unless its test rejects)."""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import evenhand
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import ALL, MetricRecord
from evenhand.pipeline.verdict.findings import make_verdict as judge
from evenhand.pipeline.verdict.intervals_agree_with_tests import make_intervals_test_consistent, record_p_value
from evenhand.stats import Interval, PermutationTest
from evenhand.stats import joined_with_zero_unless_rejected as join

sys.path.insert(0, str(Path(__file__).parent))
from _bias_fixtures import planted_table

NEUTRAL = {"harsh": 1 / 3, "plain": 1 / 3, "warm": 1 / 3}


def _interval(low: float, high: float, level: float = 0.95) -> Interval:
    return Interval((low + high) / 2, low, high, level, "percentile", 200, 200, "prompt")


def _test(p: float) -> PermutationTest:
    return PermutationTest(0.1, p, "greater", "shuffle", 99, ("female", "male"))


# ------------------------------------------------------------------------------------------------ the interval rule
def test_a_distance_interval_is_joined_with_0_unless_its_test_rejects() -> None:
    iv = _interval(0.02, 0.10)
    assert join(iv, 0.30).low == 0 and join(iv, 0.30).high == 0.10
    assert join(iv, 0.01) is iv  # the test rejects at 95%: the bootstrap interval stands
    assert join(iv, 0.05).low == 0  # p must be below 1 - level
    assert join(_interval(-0.3, -0.1), 0.5).high == 0  # a signed difference: 0 from either side
    assert join(iv, math.nan) is iv  # no test: nothing to agree with
    at_90 = _interval(0.02, 0.10, level=0.90)
    assert join(at_90, 0.07) is at_90 and join(at_90, 0.12).low == 0


def test_the_rule_only_ever_widens_and_keeps_the_value() -> None:
    rng = np.random.default_rng(0)
    for _ in range(200):
        low, width, p = rng.normal(0, 0.1), rng.random() * 0.2, rng.random()
        iv = _interval(low, low + width)
        shown = join(iv, p)
        assert shown.low <= iv.low and shown.high >= iv.high and shown.estimate == iv.estimate
        assert (p < 0.05) or shown.contains(0.0)


def _cobs(p_value: float, p_adjusted: float | None) -> MetricRecord:
    rec = MetricRecord("cooccurrence_bias", "gender", ALL, MetricResult("COBS", 0.4, sizes={"responses": 200}))
    rec.interval, rec.test, rec.p_adjusted = _interval(0.2, 0.6), _test(p_value), p_adjusted
    return rec


def test_records_whose_test_does_not_reject_show_0_in_their_interval() -> None:
    kept, widened = _cobs(0.001, 0.01), _cobs(0.2, 0.4)
    make_intervals_test_consistent([kept, widened])
    assert kept.interval.low == 0.2 and not kept.notes
    assert widened.interval.low == 0 and widened.result.value == 0.4  # the value (and value thresholds) unchanged
    assert "joined with 0" in widened.notes[0]
    assert record_p_value(widened) == 0.2


# ------------------------------------------------------------------------------------------------ watch tier
def test_co_occurrence_watch_rests_on_the_adjusted_p() -> None:
    """An unadjusted shuffle p of 0.01 was a watch; now only an adjusted p below 0.10 is."""
    severity = {p_adj: judge([_cobs(0.01, p_adj)]).findings[0].severity for p_adj in (0.3, 0.08)}
    assert severity == {0.3: "ok", 0.08: "watch"}
    assert "shuffle test adjusted p = 0.08" in judge([_cobs(0.01, 0.08)]).findings[0].sentence


@pytest.fixture(scope="module")
def null_run() -> evenhand.Assessment:
    table = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=40, samples=4, seed=3)
    return evenhand.assess(task="text_generation", responses=table, attributes=["gender"], embedder=False,
                           n_resamples=100, store=None, progress=False)  # fmt: skip


def _similarity(a: evenhand.Assessment) -> MetricRecord:
    return next(r for r in a.records if r.name == "CROUGE-L")


@pytest.mark.pipeline
def test_similarity_watch_and_concern_rest_on_the_adjusted_swap_test(null_run: evenhand.Assessment) -> None:
    rec = _similarity(null_run)
    above = replace(rec.noise, gap_interval=replace(rec.noise.gap_interval, low=0.01, high=0.05), gap=0.03)

    def severity(noise: object, p_adjusted: float) -> str:
        copy = MetricRecord(rec.key, rec.attribute, rec.comparison, rec.result, rec.interval, noise, None, p_adjusted)
        return judge([copy]).findings[0].severity

    assert severity(above, 0.01) == "concern"
    assert severity(above, 0.07) == "watch"  # the interval alone no longer makes a watch: the adjusted test does
    assert severity(above, 0.30) == "ok"
    wide_gap = replace(rec.noise, gap=0.08, gap_interval=replace(rec.noise.gap_interval, low=-0.01, high=0.2))
    assert severity(wide_gap, 0.30) == "ok"  # a large gap whose interval holds 0: no watch without the test
    assert severity(wide_gap, 0.04) == "watch"


def test_the_noise_floor_is_each_groups_own(null_run: evenhand.Assessment) -> None:
    nf = _similarity(null_run).noise
    assert nf.baseline == pytest.approx(max(nf.floor_a, nf.floor_b)) and nf.gap == nf.baseline - nf.counterfactual


def test_sentiment_intervals_agree_with_their_tests_on_a_null_run(null_run: evenhand.Assessment) -> None:
    for rec in null_run.records:
        if rec.name in ("SCSP", "WCSP") and rec.test is not None and rec.test.p_value >= 0.05:
            assert rec.interval.low == 0 and any("joined with 0" in n for n in rec.notes), rec.name
    table = null_run.metrics.set_index("metric")
    scsp = next(r for r in null_run.records if r.name == "SCSP")
    assert table.loc["SCSP", "value"] == scsp.result.value  # the point value is the metric's, unchanged


# ------------------------------------------------------------------------------------------------ many groups
def test_omnibus_then_pairs_by_hand() -> None:
    from evenhand.stats import omnibus_then_pairs

    # families a: [0.01, 0.04] (omnibus 2 * 0.01 = 0.02), b: [0.03], c: [0.5]; BH over (0.02, 0.03, 0.5) gives
    # (0.045, 0.045, 0.5); within a, Holm gives (0.02, 0.04): each pair takes the larger
    out = omnibus_then_pairs([0.01, 0.04, 0.03, 0.5, math.nan], ["a", "a", "b", "c", "c"])
    np.testing.assert_allclose(out[:4], [0.045, 0.045, 0.045, 0.5])
    assert math.isnan(out[4])
    # one family: its omnibus gate, then Holm: (3 * 0.001, 2 * 0.01, 0.02) -> (0.003, 0.02, 0.02)
    np.testing.assert_allclose(omnibus_then_pairs([0.001, 0.01, 0.02], ["x"] * 3), [0.003, 0.02, 0.02])
    from evenhand.stats import benjamini_hochberg  # families of one test: exactly Benjamini-Hochberg

    p = np.random.default_rng(0).random(12)
    np.testing.assert_allclose(omnibus_then_pairs(p, list(range(12))), benjamini_hochberg(p))
    with pytest.raises(ValueError, match="one per p-value"):
        omnibus_then_pairs([0.1, 0.2], ["a"])


@pytest.mark.slow
def test_omnibus_then_pairs_keeps_the_null_rate_and_spares_untouched_pairs() -> None:
    """15 pairs of 6 groups: under no difference any rejection at 0.05 stays near 5%; with one group different (5
    of its pairs), the untouched pairs (10) are rarely flagged, as Holm within the family holds them."""
    from evenhand.stats import omnibus_then_pairs

    rng = np.random.default_rng(1)
    pairs = [(i, j) for i in range(6) for j in range(i + 1, 6)]
    null_any = false_pairs = true_found = 0
    for _ in range(2000):
        z = rng.normal(size=6)  # the groups' estimates; pairs share groups, so their tests are dependent
        stats = np.array([(z[i] - z[j]) / np.sqrt(2) for i, j in pairs])
        null_any += (omnibus_then_pairs(2 * _sf(np.abs(stats)), ["m"] * 15) < 0.05).any()
        shifted = z + np.array([5.0, 0, 0, 0, 0, 0])  # group 0 differs
        stats = np.array([(shifted[i] - shifted[j]) / np.sqrt(2) for i, j in pairs])
        adj = omnibus_then_pairs(2 * _sf(np.abs(stats)), ["m"] * 15)
        untouched = np.array([0 not in pair for pair in pairs])
        false_pairs += (adj[untouched] < 0.05).any()
        true_found += (adj[~untouched] < 0.05).sum()
    assert null_any / 2000 <= 0.06 and false_pairs / 2000 <= 0.06
    assert true_found / (2000 * 5) > 0.5


def _sf(x: np.ndarray) -> np.ndarray:
    from scipy.stats import norm

    return np.asarray(norm.sf(x))
