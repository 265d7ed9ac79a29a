"""Issue 27, item 6: beside a distance of two groups (|DP| and the other rate gaps, SCSP, WCSP) the signed difference
behind it, group A minus group B with the direction named, and its own interval (the record's units resampled, joined
with 0 unless the record's test rejects), in the metrics table, results.json, metrics.csv, the report, the findings
and ``compare``; old results files without it still compare."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.metrics import strict_sentiment_parity, weak_sentiment_parity
from evenhand.metrics.rate_gap import signed_rate_gap
from evenhand.pipeline.evidence.records import MetricRecord, pair
from evenhand.pipeline.evidence.signed_differences import (
    SignedDifference,
    rate_signed,
    sentiment_signed,
    signed_interval,
    signed_words,
)
from evenhand.pipeline.results.outputs import write_outputs
from evenhand.pipeline.verdict.intervals_agree_with_tests import make_intervals_test_consistent
from evenhand.stats import PermutationTest, confidence_interval

sys.path.insert(0, str(Path(__file__).parent))
from _bias_fixtures import response_set

FAST = {"embedder": False, "store": None, "progress": False, "n_resamples": 300}
SIGNED = ["signed_difference", "signed_low", "signed_high", "signed_direction", "signed_measure"]
STATS = SimpleNamespace(ci=0.95, n_resamples=2000, seed=0, method="percentile")


# ------------------------------------------------------------------------------------------------ by hand
def test_sentiment_signed_differences_by_hand() -> None:
    a, b = [0.9, 0.2, 0.6, 0.4], [0.5, 0.5, 0.5, 0.1]
    prompts = [0, 0, 1, 1]
    scsp = sentiment_signed(strict_sentiment_parity(a, b, prompts=prompts), a, b, prompts, ("female", "male"))
    assert scsp is not None
    # (0.4 - 0.3 + 0.1 + 0.3) / 4: the mean score of the female versions minus the male ones
    assert scsp.value == pytest.approx(0.125)
    assert (scsp.direction, scsp.measure) == ("female minus male", "mean sentiment score")
    wcsp_result = weak_sentiment_parity(a, b, prompts=prompts)
    wcsp = sentiment_signed(wcsp_result, a, b, prompts, ("female", "male"))
    assert wcsp is not None
    # shares above 0.5 (strict): 2/4 for female, 0/4 for male; LangFair's signed WCSP, whose size is the metric
    assert wcsp.value == pytest.approx(0.5) == wcsp_result.details["signed"] == float(wcsp_result.value)
    assert wcsp.measure == "share of sentiment above 0.5"
    # the unit is the prompt with all its pairs: per-prompt means 0.05 and 0.20. Two prompts are few units (stats5):
    # Student's t with 1 degree of freedom on the jackknife standard error |0.20 - 0.05| / 2 = 0.075, clipped to the
    # range [-1, 1] (a bootstrap of two prompts gave [0.05, 0.20], the two values seen)
    rec = MetricRecord("strict_sentiment_parity", "gender", pair("female", "male"), scsp.result, signed=scsp)
    signed_interval(rec, STATS)
    assert scsp.interval.unit == "prompt"
    t_1 = 12.706204736174707
    assert (scsp.interval.low, scsp.interval.high) == (pytest.approx(0.125 - t_1 * 0.075), 1.0)
    assert signed_words(scsp) == "female minus male, mean sentiment score: +0.125 [-0.828, +1]"


def test_rate_signed_difference_by_hand_and_its_interval_ordering() -> None:
    pred = [1, 1, 0, 0, 1, 0, 0, 0] * 10
    groups = ["female"] * 4 + ["male"] * 4
    groups = groups * 10
    dp = evenhand.metrics.demographic_parity_difference(pred, groups)
    signed = rate_signed("demographic_parity_difference", (pred, groups), groups, 1, None)
    assert signed is not None and (signed.first, signed.second) == ("female", "male")  # the rate tests' order
    assert signed.value == pytest.approx(0.5 - 0.25) == float(dp.value)  # |signed| is the metric
    assert signed.measure == "predicted prevalence rate"
    rec = MetricRecord("demographic_parity_difference", "gender", pair("female", "male"), dp, signed=signed)
    signed_interval(rec, STATS)
    iv = signed.interval
    assert iv.low <= signed.value <= iv.high and iv.low < iv.high
    # three groups: the metric is the widest of several gaps, chosen after the fact; no signed difference
    three = groups + ["nonbinary"] * 4
    assert rate_signed("demographic_parity_difference", (pred + [1] * 4, three), three, 1, None) is None


def test_the_signed_interval_follows_the_records_test() -> None:
    # 40 prompts (review11: on 10, the interval's join with "none of 10 prompts off the value" already holds 0)
    a = np.array([0.9, 0.8, 0.7, 0.6, 0.9, 0.8] * 20)
    b = a - np.repeat(np.linspace(0.15, 0.25, 40), 3)  # each prompt's pairs differ by its own amount, 0.2 on average
    prompts = np.repeat(np.arange(40), 3)
    result = strict_sentiment_parity(a, b, prompts=prompts)

    def rec_with(p: float) -> MetricRecord:
        signed = sentiment_signed(result, a, b, prompts, ("female", "male"))
        rec = MetricRecord("strict_sentiment_parity", "gender", pair("female", "male"), result, signed=signed)
        signed_interval(rec, STATS)
        rec.test = PermutationTest(0.2, p, "two-sided", "exact", None, ("female", "male"))
        return rec

    rejected, kept = rec_with(0.001), rec_with(0.4)
    make_intervals_test_consistent([rejected, kept])
    own = kept.signed.bootstrap  # the metric's own interval, kept beside the shown one
    assert 0 < own.low < 0.2 < own.high
    # the test rejects: shown without the unseen-units join (interval18), the joined one kept beside it
    assert (rejected.signed.unseen.low, rejected.signed.unseen.high) == (own.low, own.high)
    sampled = rejected.signed.sampled
    assert (rejected.signed.interval.low, rejected.signed.interval.high) == (sampled.low, sampled.high)
    assert own.low <= sampled.low < 0.2 < sampled.high <= own.high
    assert kept.signed.interval.low == 0 and kept.signed.interval.high == pytest.approx(own.high)  # joined with 0


# ------------------------------------------------------------------------------------------------ properties
_scores = st.lists(st.floats(0.0, 1.0, allow_nan=False), min_size=4, max_size=30)


@settings(max_examples=40, deadline=None)
@given(_scores, st.integers(0, 2**16), st.booleans())
@pytest.mark.slow
def test_swapping_the_groups_flips_the_sign_and_the_interval(scores: list[float], seed: int, weak: bool) -> None:
    rng = np.random.default_rng(seed)
    a = np.asarray(scores)
    b = rng.random(a.size)
    prompts = np.arange(a.size) // 2
    metric = weak_sentiment_parity if weak else strict_sentiment_parity
    forward = sentiment_signed(metric(a, b, prompts=prompts), a, b, prompts, ("female", "male"))
    backward = sentiment_signed(metric(b, a, prompts=prompts), b, a, prompts, ("male", "female"))
    assert forward is not None and backward is not None
    assert backward.value == pytest.approx(-forward.value, abs=1e-12)
    assert backward.direction == "male minus female"
    iv_f = confidence_interval(forward.result, n_resamples=300, seed=seed)
    iv_b = confidence_interval(backward.result, n_resamples=300, seed=seed)
    assert (iv_b.low, iv_b.high) == (pytest.approx(-iv_f.high, abs=1e-9), pytest.approx(-iv_f.low, abs=1e-9))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([0, 1]), min_size=12, max_size=40), st.integers(0, 2**16))
def test_swapping_the_groups_flips_a_rate_gap_and_its_interval(pred: list[int], seed: int) -> None:
    groups = ["female" if i % 2 else "male" for i in range(len(pred))]
    flags = np.asarray(pred, dtype=bool)  # booleans: no positive label that might be absent
    forward = signed_rate_gap("DP", flags, groups, first="female", second="male")
    backward = signed_rate_gap("DP", flags, groups, first="male", second="female")
    assert float(backward.value) == pytest.approx(-float(forward.value))
    iv_f = confidence_interval(forward, n_resamples=300, seed=seed)
    iv_b = confidence_interval(backward, n_resamples=300, seed=seed)  # same strata, same draws
    assert (iv_b.low, iv_b.high) == (pytest.approx(-iv_f.high), pytest.approx(-iv_f.low))


# ------------------------------------------------------------------------------------------------ end to end
@pytest.fixture(scope="module")
def tone_run() -> evenhand.Assessment:
    return evenhand.assess(**response_set("tone", n_prompts=30, samples=3, seed=1).assess_kwargs(), **FAST)


@pytest.mark.pipeline
def test_results_json_and_csv_carry_the_signed_columns(tone_run: evenhand.Assessment, tmp_path: Path) -> None:
    write_outputs(tone_run, tmp_path)
    doc = json.loads((tmp_path / "results.json").read_text())
    rows = {row["metric"]: row for row in doc["metrics"]}
    for name in ("SCSP", "WCSP"):
        row = rows[name]
        assert row["signed_direction"] == "female minus male"
        assert row["signed_low"] <= row["signed_difference"] <= row["signed_high"]
        assert row["signed_high"] < 0  # the female versions were planted colder: female minus male is negative
        assert abs(row["signed_difference"]) <= row["value"] + 1e-12  # SCSP >= |mean difference|; WCSP = |signed|
    assert rows["WCSP"]["signed_difference"] == pytest.approx(-rows["WCSP"]["value"])
    assert rows["SCSP"]["signed_measure"] == "mean sentiment score"
    assert all(rows["CROUGE-L"][k] is None for k in SIGNED)  # a similarity has no signed difference
    frame = pd.read_csv(tmp_path / "metrics.csv")
    assert set(SIGNED) <= set(frame.columns) and set(SIGNED) <= set(tone_run.metrics.columns)
    scsp = frame[frame["metric"] == "SCSP"].iloc[0]
    assert scsp["signed_direction"] == "female minus male" and scsp["signed_difference"] < 0
    html = (tmp_path / "report.html").read_text()
    assert "signed (A − B)" in html and "female minus male, mean sentiment score" in html


def test_the_finding_names_the_direction_and_the_signed_interval(tone_run: evenhand.Assessment) -> None:
    finding = next(f for f in tone_run.verdict.findings if f.risk == "counterfactual" and f.severity == "concern")
    assert "score higher on sentiment" in finding.sentence
    assert "female minus male, " in finding.sentence and ": -0." in finding.sentence


def _loan(rates: tuple[float, ...], groups: tuple[str, ...], n: int = 60, seed: int = 0) -> evenhand.Assessment:
    prompts = [f"Applicant {i}: approve the loan?" for i in range(len(groups) * n)]
    person_groups = [groups[i // n] for i in range(len(prompts))]
    rng = np.random.default_rng(seed)
    answers = {p: "yes" if rng.random() < rates[i // n] else "no" for i, p in enumerate(prompts)}
    return evenhand.assess(
        task="classification", prompts=prompts, groups=person_groups, person_level=True, prevalence_parity=True,
        attributes=["gender"], count=1, client=lambda p: answers[p], **FAST,
    )  # fmt: skip


def test_a_classification_gap_of_two_groups_is_signed_and_its_finding_says_so() -> None:
    run = _loan((0.2, 0.7), ("female", "male"))
    row = run.metrics.set_index("metric").loc["DP"]
    assert row["signed_direction"] == "female minus male" and row["signed_measure"] == "predicted prevalence rate"
    assert row["signed_difference"] == pytest.approx(-row["value"])
    assert row["signed_low"] <= row["signed_difference"] <= row["signed_high"] < 0
    finding = next(f for f in run.verdict.findings if f.risk == "allocational")
    assert finding.severity == "concern" and "DP female minus male -0." in finding.sentence
    three = _loan((0.2, 0.7, 0.5), ("female", "male", "nonbinary"))  # the widest of three gaps: no one signed
    assert three.metrics.set_index("metric").loc["DP", "signed_direction"] is None


# ------------------------------------------------------------------------------------------------ compare
def _without_signed(doc: dict[str, Any]) -> dict[str, Any]:
    old = json.loads(json.dumps(doc))
    for row in old["metrics"]:
        for key in SIGNED:
            row.pop(key, None)
    return old


@pytest.mark.pipeline
def test_compare_reads_the_stored_signed_columns_and_old_files_without_them(tone_run: evenhand.Assessment) -> None:
    new = tone_run.to_dict()
    both = evenhand.compare(new, new).to_dict()
    scsp = next(r for r in both["metrics"] if r["metric"] == "SCSP")
    assert scsp["signed_stored"]["direction"] == "female minus male"
    value, low, high = scsp["signed_stored"]["values"]["A"]
    assert low <= value <= high < 0 and scsp["signed_stored"]["values"]["B"] == [value, low, high]
    assert next(r for r in both["metrics"] if r["metric"] == "CROUGE-L")["signed_stored"] is None
    old = _without_signed(new)
    mixed = evenhand.compare(old, new)  # an old results file as the baseline: it has no signed columns
    row = next(r for r in mixed.to_dict()["metrics"] if r["metric"] == "SCSP")
    assert list(row["signed_stored"]["values"]) == ["B"]
    assert "female minus male" in mixed.to_html()
    olds = evenhand.compare(old, old).to_dict()
    assert all(r["signed_stored"] is None for r in olds["metrics"])


def test_signed_difference_is_a_plain_record() -> None:
    result = evenhand.metrics.demographic_parity_difference([1, 0, 1, 1], ["a", "a", "b", "b"])
    signed = SignedDifference("a", "b", "predicted prevalence rate", result)
    assert signed.direction == "a minus b" and signed_words(signed).startswith("a minus b, predicted prevalence rate")


# ------------------------------------------------------------------------------------------------ interval18
def _small_shift(k: int = 20, shift: float = -0.03, seed: int = 3) -> tuple[Any, Any, Any]:
    """``k`` prompts of 3 pairs whose female versions score ``shift`` lower, with a little noise: the t interval of
    the mean difference excludes 0, and its join with "none of 20 prompts off the value" (review11) holds it."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.4, 0.8, 3 * k)
    a = b + shift + np.repeat(rng.normal(0.0, 0.01, k), 3)
    return a, b, np.repeat(np.arange(k), 3)


def test_a_rejecting_test_is_never_quoted_beside_a_signed_interval_holding_0_unexplained() -> None:
    a, b, prompts = _small_shift()
    result = strict_sentiment_parity(a, b, prompts=prompts)
    signed = sentiment_signed(result, a, b, prompts, ("female", "male"))
    rec = MetricRecord("strict_sentiment_parity", "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, STATS)
    joined = signed.interval
    assert joined.low < 0 < joined.high  # the unseen-units join holds 0 (fair18: "-0.0287 [-0.192, +0.145]")
    rec.test = PermutationTest(float(result.value), 0.011, "two-sided", "exact", None, ("female", "male"))
    make_intervals_test_consistent([rec])
    shown = signed.interval
    assert shown.high < 0  # the interval quoted beside "p = 0.011" agrees with it
    assert (signed.unseen.low, signed.unseen.high) == (joined.low, joined.high)  # review11's interval, kept
    words = signed_words(signed)
    assert f"[{shown.low:+.3g}, {shown.high:+.3g}]" in words
    up_to = f", up to [{joined.low:+.3g}, {joined.high:+.3g}] allowing for replies none of the 20 prompts showed"
    assert up_to in words
    assert any("unseen-units" in n for n in rec.notes)
    make_intervals_test_consistent([rec])  # a second pass changes nothing
    assert signed_words(signed) == words


def test_a_signed_interval_that_still_holds_0_beside_a_rejecting_test_says_why() -> None:
    a, b, prompts = _small_shift(shift=0.0)  # no mean difference: only SCSP's whole-distribution test could reject
    result = strict_sentiment_parity(a, b, prompts=prompts)
    signed = sentiment_signed(result, a, b, prompts, ("female", "male"))
    rec = MetricRecord("strict_sentiment_parity", "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, STATS)
    rec.test = PermutationTest(float(result.value), 0.001, "two-sided", "exact", None, ("female", "male"))
    make_intervals_test_consistent([rec])
    assert signed.interval.low < 0 < signed.interval.high
    assert "holds 0 although SCSP's test rejects" in signed_words(signed)


def test_a_test_that_does_not_reject_keeps_the_joined_signed_interval_with_0() -> None:
    a, b, prompts = _small_shift()
    result = strict_sentiment_parity(a, b, prompts=prompts)
    signed = sentiment_signed(result, a, b, prompts, ("female", "male"))
    rec = MetricRecord("strict_sentiment_parity", "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, STATS)
    joined = signed.interval
    rec.test = PermutationTest(float(result.value), 0.3, "two-sided", "exact", None, ("female", "male"))
    make_intervals_test_consistent([rec])
    assert (signed.interval.low, signed.interval.high) == (joined.low, joined.high)
    assert signed.unseen is None and signed.remark == "" and "up to" not in signed_words(signed)


def test_a_rate_gaps_sentence_explains_an_interval_holding_0_beside_a_rejecting_test() -> None:
    from evenhand.pipeline.verdict.kinds.rates import _signed_value

    pred = [1, 0, 0, 0, 1, 0, 0, 0] * 5  # the same approval rate in both groups: the interval holds 0
    groups = (["female"] * 4 + ["male"] * 4) * 5
    dp = evenhand.metrics.demographic_parity_difference(pred, groups)
    signed = rate_signed("demographic_parity_difference", (pred, groups), groups, 1, None)
    rec = MetricRecord("demographic_parity_difference", "gender", pair("female", "male"), dp, signed=signed)
    signed_interval(rec, STATS)
    rec.test = PermutationTest(0.0, 0.001, "two-sided", "exact", None, ("female", "male"))  # a test that rejects
    make_intervals_test_consistent([rec])
    words = _signed_value(rec, "female", "male", signed.value)
    assert signed.interval.low <= 0 <= signed.interval.high and "holds 0 although DP's test rejects" in words
