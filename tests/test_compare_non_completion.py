"""``compare`` on NRD (non-completion rate difference): rebuilt from every stored counterfactual pair of requests,
replied or not, and compared paired by prompt and sample, as the other paired rates are; it was left to a normal
approximation from the stored intervals ("not recomputed from stored responses yet") because the stored pairs keep
only requests with replies, exactly the ones NRD counts."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from test_pipeline_decisions import _silent

import evenhand
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.results.outputs import write_outputs


@functools.cache
def _run(women: float) -> Assessment:
    return _silent(0, women=women, everyone=0.1)


def _nrd(comparison: Any) -> dict[str, Any]:
    row = next(r for r in comparison.to_dict()["metrics"] if r["metric"] == "NRD")
    return dict(row["differences"][0])


def test_nrd_is_compared_paired_on_every_stored_request(tmp_path: Path) -> None:
    dropped, fair = _run(0.4), _run(0.0)
    before, after = dropped.result("NRD").value, fair.result("NRD").value
    diff = _nrd(evenhand.compare(dropped, fair))
    assert diff["method"] == "paired", diff["note"]
    assert diff["difference"] == pytest.approx(after - before)
    for run, name in ((dropped, "a"), (fair, "b")):  # from results.json with responses.csv beside it
        write_outputs(run, tmp_path / name, html=False, include_responses=False)
    diff = _nrd(evenhand.compare(tmp_path / "a" / "results.json", tmp_path / "b" / "results.json"))
    assert diff["method"] == "paired", diff["note"]
    assert diff["difference"] == pytest.approx(after - before)


def test_a_run_compared_with_itself_has_no_change() -> None:
    diff = _nrd(evenhand.compare(_run(0.4), _run(0.4)))
    assert diff["method"] == "paired" and diff["difference"] == 0 and diff["change"] == "no clear change"


# left9a: compare's NRD as the run's own (finish reasons kept), a complete run's NRD 0 compared, findings by metric


@functools.cache
def _complete() -> Assessment:
    return _silent(0, women=0.0, everyone=0.0)  # every request got a reply: NRD 0


def test_a_complete_baseline_has_nrd_0_to_compare_with() -> None:
    """Run A had every reply (NRD 0): compared with B's NRD, not "only in run B"."""
    complete, dropped = _complete(), _run(0.4)
    diff = _nrd(evenhand.compare(complete, dropped))
    assert diff["method"] == "paired", diff["note"]
    assert diff["difference"] == pytest.approx(dropped.result("NRD").value) and diff["change"] == "worse"


def test_the_nrd_finding_is_matched_with_the_baselines_nrd_not_its_refusal_finding() -> None:
    """A's refusal finding leads with RRD (ok), B's with NRD (concern): the change is NRD's, and says so."""
    comparison = evenhand.compare(_complete(), _run(0.4))
    (change,) = [f for f in comparison.findings if f.risk == "refusal"]
    assert change.metric == "NRD" and (change.before, change.after) == ("ok", "concern"), change
    assert "NRD" in change.sentence and "(ok -> concern)" in change.sentence, change.sentence
    assert change.to_dict()["metric"] == "NRD"


def test_a_finding_whose_leading_metric_is_the_same_in_both_runs_reads_as_before() -> None:
    comparison = evenhand.compare(_run(0.4), _run(0.4))
    (change,) = [f for f in comparison.findings if f.risk == "refusal"]
    assert change.metric == "NRD" and change.change == "unchanged"
    assert change.sentence.startswith("refusal, gender, female vs male: concern in B"), change.sentence


@pytest.mark.server
def test_compare_rebuilds_nrd_from_stored_pairs_as_the_run_did(tmp_path: Path) -> None:
    """Replies cut at the token limit before any answer: the run leaves NRD undefined (review8); the stored responses
    keep each reply's finish reason, so compare's NRD from them is undefined for the same reason, not 100%."""
    from test_pipeline_cut_reasoning import _assess

    from evenhand.comparison.runs import load_run
    from evenhand.pipeline.verdict.kinds.refusal_length import NON_COMPLETION
    from evenhand.registry import metric

    cut = _assess(max_tokens=96)
    assert "finish_reason" in cut.responses.columns
    write_outputs(cut, tmp_path / "cut", html=False)
    stored = load_run(tmp_path / "cut" / "results.json", "A")
    assert stored.responses is not None and "finish_reason" in stored.responses.columns
    row = next(r for r in stored.doc["metrics"] if r["metric"] == "NRD")
    items = NON_COMPLETION.stored_items(stored, row, metric("NRD"))
    assert isinstance(items, str) and "cut at the token limit" in items, items
