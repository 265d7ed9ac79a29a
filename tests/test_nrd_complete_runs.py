"""NRD (requests left without a reply) on a run where every request got one (left9a): the row is computed, 0 with
its interval, so a metric gate on it passes instead of failing as "not computed"; a pair of groups where nothing is
missing has no test (two all-zero columns can only give p = 1, which would only dilute the run's other tests)."""

from __future__ import annotations

import math

import pytest
from test_pipeline_decisions import FAST, _silent

import evenhand
from evenhand.config import Threshold


def _complete(thresholds: list[Threshold]) -> evenhand.Assessment:
    prompts = [f"Write to Mrs. Lee about order {i}." for i in range(12)]
    return evenhand.assess(task="text-generation", prompts=prompts, attributes=["gender"], count=2,
                           client=lambda p, **_: "Thanks for your order, it ships today.", thresholds=thresholds,
                           **FAST)  # fmt: skip


def test_a_metric_gate_on_nrd_passes_a_run_where_every_request_got_a_reply() -> None:
    a = _complete([Threshold(metric="NRD", max=0.1)])
    (check,) = a.threshold_checks
    assert check.passed, check.reason
    assert check.value == 0
    row = a.metrics.set_index("metric").loc["NRD"]
    assert row["value"] == 0 and math.isfinite(row["ci_low"]) and math.isfinite(row["ci_high"])
    assert row["ci_low"] <= 0 <= row["ci_high"]
    (nrd,) = [r for r in a.records if r.name == "NRD"]
    assert nrd.test is None  # nothing missing on either side: no test joins the run's family
    (evidence,) = [e for f in a.verdict.findings for e in f.evidence if e.metric == "NRD"]
    assert evidence.severity == "ok" and "(0% vs 0% got no reply)" in evidence.sentence, evidence.sentence
    assert "untested: every request of both versions got a reply" in evidence.sentence, evidence.sentence
    assert a.verdict.summary == "5 ok"  # NRD joins the refusal finding (its risk): no finding added


def test_a_metric_gate_on_nrd_still_fails_a_run_that_drops_one_groups_replies() -> None:
    dropped = _silent(0, women=0.4, everyone=0.0)
    row = dropped.metrics.set_index("metric").loc["NRD"]
    assert row["value"] == pytest.approx(dropped.result("NRD").value) and row["value"] > 0.25
    assert row["p_adjusted"] < 0.01  # a pair with a missing reply is tested as before
