"""``compare`` on counterfactual decisions (DFR, CPRD): rebuilt from the parsed decisions each run stored, paired by
prompt and sample across the runs and resampled by prompt as the run itself does, instead of a normal approximation
from the two stored intervals. Results written before the labels were kept fall back to that approximation, with a
note saying why."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_pipeline_decisions import FAST, LABELS, loan_table

import evenhand
from evenhand.metrics.decisions import counterfactual_positive_rate_difference
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.results.outputs import write_outputs


def _assess(table: pd.DataFrame) -> Assessment:
    return evenhand.assess(task="classification", responses=table, attributes=["gender"], prevalence_parity=True,
                           **LABELS, **FAST)  # fmt: skip


@functools.cache
def _run(seed: int, biased: bool, unparsed: int = 0) -> Assessment:
    table = loan_table(seed, biased=biased)
    table.loc[table.index[:unparsed], "response"] = "I cannot say."  # parses into no label: the pair is left out
    return _assess(table)


def _row(comparison: Any, metric: str) -> tuple[dict[str, Any], dict[str, Any]]:
    row = next(r for r in comparison.to_dict()["metrics"] if r["metric"] == metric)
    return row, row["differences"][0]


@pytest.mark.pipeline
def test_a_cprd_that_moved_is_compared_paired_on_the_stored_decisions() -> None:
    biased, null = _run(0, True), _run(3, False)
    comparison = evenhand.compare(biased, null)
    row, diff = _row(comparison, "CPRD")
    before, after = biased.result("CPRD").value, null.result("CPRD").value
    assert diff["method"] == "paired" and "paired by prompt and sample on 32 prompts" in diff["note"]
    assert diff["difference"] == pytest.approx(after - before)
    assert diff["ci_low"] > 0  # the female version's deficit (-0.21) clearly shrank towards 0 ...
    assert diff["size_change"][1] < 0 and diff["change"] == "improved"  # ... so its size clearly shrank
    assert row["signed"]["groups"] == ["female", "male"]
    _, flips = _row(comparison, "DFR")
    assert flips["method"] == "paired"
    assert flips["difference"] == pytest.approx(null.result("DFR").value - biased.result("DFR").value)


def test_a_cprd_that_did_not_move_is_no_clear_change() -> None:
    a, b = _run(3, False), _run(4, False)
    _, diff = _row(evenhand.compare(a, b), "CPRD")
    assert diff["method"] == "paired"
    assert diff["ci_low"] < 0 < diff["ci_high"] and diff["change"] == "no clear change"
    _, same = _row(evenhand.compare(a, a), "CPRD")
    assert same["difference"] == 0 and same["change"] == "no clear change"


@pytest.mark.pipeline
def test_the_paired_interval_is_the_prompt_bootstrap_of_the_metric_and_tighter_than_the_stored_intervals() -> None:
    """Two runs that share most decisions: the paired difference cancels what they share."""
    table = loan_table(3, biased=False)
    moved = table.copy()
    no_female = moved.index[(moved["group"] == "female") & (moved["response"] == "yes")][:12]
    moved.loc[no_female, "response"] = "no"  # 12 female approvals turned into denials, nothing else changed
    a, b = _assess(table), _assess(moved)
    _, paired = _row(evenhand.compare(a, b), "CPRD")
    _, independent = _row(evenhand.compare(a, b, pairing="independent"), "CPRD")
    assert paired["difference"] == pytest.approx(-12 / 160)
    decisions = moved[moved["group"] == "female"]["response"].eq("yes").astype(int).to_numpy()
    others = moved[moved["group"] == "male"]["response"].eq("yes").astype(int).to_numpy()
    assert b.result("CPRD").value == pytest.approx(counterfactual_positive_rate_difference(decisions, others).value)
    assert paired["ci_high"] < 0  # a change made only of female denials: every prompt draw sees it
    assert independent["ci_low"] < 0 < independent["ci_high"]  # two runs resampled apart cannot tell
    assert paired["ci_high"] - paired["ci_low"] < 0.7 * (independent["ci_high"] - independent["ci_low"])


@pytest.mark.pipeline
def test_unparsed_answers_are_left_out_as_the_run_leaves_them_out(tmp_path: Path) -> None:
    a, b = _run(0, True, unparsed=7), _run(3, False)
    (cprd,) = (r for r in a.records if r.name == "CPRD")
    # rows 0-4 are applicant 0's female answers, 5-9 the male ones: 5 female and 2 male answers (samples 0, 1) do not
    # parse, so 5 pairs are left out
    assert (
        "5 pair(s) with an unparsed answer left out: 5 of the female versions' answers and 2 of the male "
        "versions' did not parse into a label (of 160 pairs)" in cprd.notes
    )
    assert (cprd.result.details["unparsed_a"], cprd.result.details["unparsed_b"]) == (5, 2)
    row = a.metrics.set_index("metric").loc["CPRD"]
    assert "5 of the female versions' answers" in str(row["reason"])
    for run, name in ((a, "a"), (b, "b")):  # results.json without rows, responses.csv beside it (blank labels)
        write_outputs(run, tmp_path / name, html=False, include_responses=False)
    _, diff = _row(evenhand.compare(tmp_path / "a" / "results.json", tmp_path / "b" / "results.json"), "CPRD")
    assert diff["method"] == "paired", diff["note"]  # the recomputed value reproduced the stored one


def test_results_without_the_parsed_labels_fall_back_with_a_note(tmp_path: Path) -> None:
    """Results files written before the parsed labels were kept: compared from the stored intervals."""
    a, b = _run(0, True), _run(3, False)
    docs = []
    for run in (a, b):
        doc = json.loads(run.to_json())
        for response in doc["responses"]:
            response.pop("label", None)
        docs.append(doc)
    _, diff = _row(evenhand.compare(*docs), "CPRD")
    assert diff["method"] == "normal approximation"
    assert "responses have no label column (the parsed decisions)" in diff["note"]
