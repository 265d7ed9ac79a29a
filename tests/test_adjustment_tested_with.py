"""est17: CER and CED test one comparison (a ratio and a difference of the same numbers), so the adjustment reads
them as one family per attribute. Read apart, two correlated tests of one pair of groups helped each other through
Benjamini-Hochberg across families, and a finding that takes the stronger of the two was a false concern in about 6%
of fair name audits (benchmarks/bench_est17.py)."""

from __future__ import annotations

from types import SimpleNamespace

from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.adjustment import adjust_p_values
from evenhand.pipeline.evidence.adjustment import test_family as family_of
from evenhand.pipeline.evidence.records import MetricRecord, pair
from evenhand.registry import METRICS

CER, CED = "counterfactual_estimate_ratio", "counterfactual_estimate_difference"


def _record(key: str, attribute: str, groups: tuple[str, str], p: float) -> MetricRecord:
    result = MetricResult(METRICS[key].name, 0.01, sizes={"pairs": 72})
    return MetricRecord(key, attribute, pair(*groups), result, test=SimpleNamespace(p_value=p, groups=groups))


def _audit_records(p_gender: float) -> list[MetricRecord]:
    """A fair-looking audit: gender's one pair at ``p_gender`` on both CER and CED (their p-values move together),
    race's pairs nowhere near."""
    race = [("white", "black"), ("white", "asian"), ("black", "asian")]
    return [
        _record(CER, "gender", ("female", "male"), p_gender),
        _record(CED, "gender", ("female", "male"), p_gender),
        *[_record(key, "race", g, 0.5) for key in (CER, CED) for g in race],
    ]


def test_where_cer_is_defined_ced_is_described_and_cer_alone_is_adjusted() -> None:
    records = _audit_records(0.02)
    adjust_p_values(records)
    # est17 read both as one family (2 x 0.02, BH over two families: 0.08); est17b judges by CER alone, CED is
    # described beside it (no adjusted p): CER's family is its one test, BH over two families gives 0.04
    assert records[1].p_adjusted is None and records[1].descriptive
    assert records[0].p_adjusted is not None and abs(records[0].p_adjusted - 0.04) < 1e-9


def test_a_clear_gap_on_both_tests_stays_a_concern() -> None:
    records = _audit_records(0.001)
    adjust_p_values(records)
    assert records[0].p_adjusted is not None and records[0].p_adjusted < 0.01


def test_cer_and_ced_share_a_family_per_attribute_and_other_metrics_keep_their_own() -> None:
    cer, ced = (_record(k, "gender", ("female", "male"), 0.5) for k in (CER, CED))
    assert family_of(cer) == family_of(ced)
    assert family_of(cer) != family_of(_record(CER, "race", ("white", "black"), 0.5))
    rrd = MetricRecord("refusal_rate_difference", "gender", pair("female", "male"), MetricResult("RRD", 0.0))
    assert family_of(rrd)[0] == "refusal_rate_difference"  # every other metric: its own family, as before
    assert all(spec.tested_with is None for spec in METRICS.values() if spec.key not in (CER, CED))
