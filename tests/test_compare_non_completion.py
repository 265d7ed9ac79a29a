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
