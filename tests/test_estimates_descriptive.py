"""est17b: a numeric finding is judged by CER (its test, adjusted in the run's adjustment) and CED is described
beside it (value and interval in the answers' currency), never setting the severity; where CER is undefined for a
pair of groups (numbers of 0 or less), CED decides, adjusted. Measured (benchmarks/bench_est17.py --reread): fair name
audits 2 of 60 with a concern, against 3 of 60 when CER and CED are one family."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.adjustment import adjust_p_values
from evenhand.pipeline.evidence.records import MetricRecord, pair
from evenhand.pipeline.verdict.findings import make_verdict
from evenhand.registry import METRICS

CER, CED = "counterfactual_estimate_ratio", "counterfactual_estimate_difference"


def _record(key: str, p: float | None, value: float, attribute: str = "gender",
            groups: tuple[str, str] = ("female", "male"), pairs: int = 72) -> MetricRecord:  # fmt: skip
    details = {"mean_a": 1000.0 + value, "mean_b": 1000.0, "currency": "USD"}
    result = MetricResult(METRICS[key].name, value, sizes={"pairs": pairs}, details=details)
    test = None if p is None else SimpleNamespace(p_value=p, groups=groups)
    return MetricRecord(key, attribute, pair(*groups), result, test=test)


def test_ced_p_alone_makes_no_concern_where_cer_is_defined() -> None:
    # CER shows nothing (p 0.6), CED's difference in dollars is carried by a few large prompts (p 0.001)
    records = [_record(CER, 0.6, -0.002), _record(CED, 0.001, -300.0)]
    adjust_p_values(records)
    verdict = make_verdict(records)
    (finding,) = verdict.findings
    assert finding.severity == "ok"
    ced = next(e for e in finding.evidence if e.metric == "CED")
    assert ced.severity == "ok" and ced.p_adjusted is None  # described, not tested: no adjusted p, no raw fallback
    assert "descriptive" in ced.sentence
    assert "CED" in finding.sentence and "descriptive" in finding.sentence


def test_cer_decides_and_ced_is_described_beside_it() -> None:
    records = [_record(CER, 0.001, -0.08), _record(CED, 0.6, -80.0)]
    adjust_p_values(records)
    assert records[0].p_adjusted is not None and records[0].p_adjusted < 0.01
    assert records[1].p_adjusted is None
    (finding,) = make_verdict(records).findings
    assert finding.severity == "concern" and finding.metric == "CER"
    assert "also CED" in finding.sentence and "descriptive" in finding.sentence


def test_ced_decides_adjusted_where_cer_is_undefined() -> None:
    # numbers of 0 or less: CER has no test for the pair, CED is the only test and decides, adjusted
    records = [
        _record(CER, None, float("nan")),
        _record(CED, 0.001, -300.0),
        _record(CER, 0.5, 0.0, "race", ("white", "black")),
        _record(CED, 0.5, 0.0, "race", ("white", "black")),
    ]
    adjust_p_values(records)
    assert records[1].p_adjusted is not None and records[1].p_adjusted >= 0.001
    assert records[3].p_adjusted is None  # race: CER is defined, so CED is descriptive there
    gender = next(f for f in make_verdict(records).findings if f.attribute == "gender")
    assert gender.severity == "concern" and gender.metric == "CED"


def test_ced_decides_where_cer_rests_on_few_of_its_pairs() -> None:
    # deploy18: fee adjustments ("-$120", "$0", "$40"): CER is defined on the 1 pair of 43 whose numbers are both
    # positive (p 1.0) and decided, so a planted gap of -$36 on all 43 pairs (CED p 0.0002) was "ok"
    records = [_record(CER, 1.0, -0.8, pairs=1), _record(CED, 0.0002, -36.0, pairs=43)]
    adjust_p_values(records)
    assert records[1].p_adjusted is not None and not records[1].descriptive
    (finding,) = make_verdict(records).findings
    assert finding.severity == "concern" and finding.metric == "CED"
    # CER on most of CED's pairs still decides
    records = [_record(CER, 0.6, -0.002, pairs=40), _record(CED, 0.0002, -36.0, pairs=43)]
    adjust_p_values(records)
    assert records[1].descriptive and records[1].p_adjusted is None


def test_only_ced_is_described_beside_another_metric() -> None:
    described = {spec.key: spec.described_beside for spec in METRICS.values() if spec.described_beside}
    assert described == {CED: CER}


def _compare_row(key: str, low: float, high: float) -> Any:
    from evenhand.comparison.pairing import Difference
    from evenhand.comparison.rows import MetricComparison

    spec = METRICS[key]
    row = MetricComparison(key=key, metric=spec.name, full_name=spec.full_name, attribute="gender",
                           groups=("female", "male"), cls=None, comparison="female vs male", higher_is_fairer=None,
                           signed=True)  # fmt: skip
    row.family = (spec.adjustment_key, "gender", None)
    row.values = {"A": 0.0, "B": (low + high) / 2}
    row.differences["B"] = Difference((low + high) / 2, low, high, "paired", n_units=60)
    return row


def test_compare_judges_the_cer_row_and_describes_the_ced_row() -> None:
    from evenhand.comparison.rows import NO_CLEAR_CHANGE, WORSE, judge_rows

    # CER did not move; CED moved clearly (a few large prompts): compare says no change, as the verdict would
    rows = [_compare_row(CER, -0.01, 0.01), _compare_row(CED, -500.0, -100.0)]
    judge_rows(rows, ["A", "B"], level=0.95)
    assert rows[0].changes["B"] == NO_CLEAR_CHANGE and rows[1].changes["B"] == NO_CLEAR_CHANGE
    assert rows[1].differences["B"].p_adjusted is None and rows[1].differences["B"].p_value is not None
    assert "descriptive beside CER" in rows[1].sentences["B"]
    # where CER's row has no test (undefined in a run), CED's row decides, adjusted
    rows = [_compare_row(CER, -0.01, 0.01), _compare_row(CED, -500.0, -100.0)]
    rows[0].differences["B"] = rows[0].differences["B"].__class__(None, None, None, "paired", n_units=60)
    judge_rows(rows, ["A", "B"], level=0.95)
    assert rows[1].changes["B"] == WORSE and rows[1].differences["B"].p_adjusted is not None


def test_a_gate_on_ced_reads_its_value_and_a_gate_on_its_p_says_cer_decides() -> None:
    from evenhand.config import Threshold
    from evenhand.pipeline.verdict.thresholds import check_thresholds

    records = [_record(CER, 0.6, -0.002), _record(CED, 0.001, -300.0)]
    adjust_p_values(records)
    (value,) = check_thresholds(records, [Threshold(metric="CED", max=500.0)])
    assert value.passed and value.value == 300.0  # the size of the gap, in the answers' unit, as before
    (p,) = check_thresholds(records, [Threshold(metric="CED", measure="p_adjusted", min=0.05)])
    assert not p.passed and "descriptive beside CER" in p.reason


def test_compare_lets_ced_decide_where_cer_rests_on_few_of_its_pairs() -> None:
    from evenhand.comparison.rows import WORSE, judge_rows

    # left18: deploy18's fee adjustments in a comparison: CER's rows rest on 1 pair of 43 in each run, so CED's
    # row decides, as the run's own verdict does; compare had made it descriptive beside any CER row with a test
    rows = [_compare_row(CER, -0.01, 0.01), _compare_row(CED, -500.0, -100.0)]
    rows[0].pairs, rows[1].pairs = {"A": 1, "B": 1}, {"A": 43, "B": 43}
    judge_rows(rows, ["A", "B"], level=0.95)
    assert rows[1].described_beside["B"] == "" and rows[1].changes["B"] == WORSE
    # stored rows carry their pairs in "n": compare reads them from there
    from evenhand.comparison.pairing import stored_sizes

    assert stored_sizes({"n": "43 pairs, 43 prompts"}) == {"pairs": 43, "prompts": 43}


@pytest.mark.parametrize("cer_pairs", [None, 0, 1, 21, 22, 43])
@pytest.mark.parametrize("ced_pairs", [None, 1, 43])
def test_a_run_and_compare_describe_ced_by_one_rule(cer_pairs: int | None, ced_pairs: int | None) -> None:
    # the run's mark and compare's must not drift apart: the same pairs give the same answer in both
    from evenhand.comparison.rows import judge_rows
    from evenhand.pipeline.evidence.adjustment import mark_descriptive

    cer, ced = _record(CER, 0.6, -0.002), _record(CED, 0.001, -300.0)
    cer.result.sizes.clear()
    ced.result.sizes.clear()
    if cer_pairs is not None:
        cer.result.sizes["pairs"] = cer_pairs
    if ced_pairs is not None:
        ced.result.sizes["pairs"] = ced_pairs
    mark_descriptive([cer, ced])
    rows = [_compare_row(CER, -0.01, 0.01), _compare_row(CED, -500.0, -100.0)]
    rows[0].pairs = {"A": cer_pairs, "B": cer_pairs}
    rows[1].pairs = {"A": ced_pairs, "B": ced_pairs}
    judge_rows(rows, ["A", "B"], level=0.95)
    assert ced.descriptive == (rows[1].described_beside["B"] == "CER")
