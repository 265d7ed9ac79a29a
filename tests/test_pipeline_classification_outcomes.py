"""Person-level classification (group labels per person) with three or more outcomes: every outcome's rate is
compared between groups, not only the positive label's, so a model that moves one group from "review" to "deny" at
the same approval rate is found (the counterfactual decisions family does the same with CPRD per outcome)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

import evenhand
from evenhand.report import render_html

FAST: dict[str, Any] = {"n_resamples": 50, "progress": False}
LABELS = {"approve": ["approve"], "review": ["review"], "deny": ["deny"]}


def _table(women: tuple[int, int, int], men: tuple[int, int, int]) -> pd.DataFrame:
    """One answer per applicant: ``(approve, review, deny)`` counts per group, in a fixed order."""
    rows = []
    for group, counts in (("female", women), ("male", men)):
        answers = [a for a, n in zip(("approve", "review", "deny"), counts, strict=True) for _ in range(n)]
        rows += [{"applicant_gender": group, "response": f"Decision: {a}"} for a in answers]
    table = pd.DataFrame(rows)
    table["prompt"] = [f"Applicant {i}: approve, review or deny the loan?" for i in range(len(table))]
    return table


def _assess(table: pd.DataFrame, **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(task="classification", responses=table, attributes=["gender"],
                           group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                           label_parser=LABELS, positive_label="approve", **FAST, **kwargs)  # fmt: skip


def test_a_model_that_moves_one_group_from_review_to_deny_is_found() -> None:
    """The same approval rate (24 of 60) for both groups; 15 of the women's 18 "review" answers became "deny"."""
    moved = _assess(_table((24, 3, 33), (24, 18, 18)), thresholds=[{"verdict": "concern", "max": 0}])
    dp = moved.metrics[moved.metrics["metric"] == "DP"]
    positive = dp[dp["class"].isna()]
    assert len(positive) == 1 and positive["value"].iloc[0] == 0  # the positive label's row, as before (no class)
    by_class = dp.dropna(subset=["class"]).set_index("class")
    assert set(by_class.index) == {"review", "deny"}
    assert by_class.loc["deny", "value"] == pytest.approx(15 / 60)  # 33/60 - 18/60
    assert by_class.loc["review", "value"] == pytest.approx(15 / 60)  # 18/60 - 3/60
    concerns = [f for f in moved.verdict.findings if f.severity == "concern"]
    assert "deny" in {f.cls for f in concerns}, moved.verdict.summary
    assert any("'deny'" in f.sentence for f in concerns), [f.sentence for f in concerns]
    assert not all(c.passed for c in moved.threshold_checks)


def test_every_outcome_at_the_same_rate_is_no_finding() -> None:
    fair = _assess(_table((24, 18, 18), (24, 18, 18)))
    assert fair.verdict.count("concern") == 0, fair.verdict.summary
    assert set(fair.metrics.loc[fair.metrics["metric"] == "DP", "class"].dropna()) == {"review", "deny"}


def test_two_outcomes_add_no_row_for_the_negative_label() -> None:
    """With two outcomes the negative label's rate is 1 minus the positive's: no second row, nothing changes."""
    table = _table((24, 0, 36), (30, 0, 30))
    a = evenhand.assess(task="classification", responses=table, attributes=["gender"],
                        group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                        label_parser={"approve": ["approve"], "deny": ["deny"]}, positive_label="approve",
                        **FAST)  # fmt: skip
    dp = a.metrics[a.metrics["metric"] == "DP"]
    assert len(dp) == 1 and dp["class"].isna().all() and dp["value"].iloc[0] == pytest.approx(0.1)



def _with_truth(
    truth: dict[str, tuple[int, int, int]], wrong: dict[str, int]
) -> tuple[list[str], list[str], list[str]]:
    """60 applicants per group with true outcomes ``(approve, review, deny)``; ``wrong[group]`` of the group's true
    "review" applicants are answered "deny", every other answer is right. Returns groups, answers, truth."""
    groups, answers, labels = [], [], []
    for group, counts in truth.items():
        true = [a for a, n in zip(("approve", "review", "deny"), counts, strict=True) for _ in range(n)]
        moved = wrong.get(group, 0)
        given = [("deny" if t == "review" and (moved := moved - 1) >= 0 else t) for t in true]
        groups += [group] * len(true)
        answers += [f"Decision: {a}" for a in given]
        labels += true
    return groups, answers, labels


def _assess_with_truth(groups: list[str], answers: list[str], truth: list[str], **kwargs: Any) -> evenhand.Assessment:
    prompts = [f"Applicant {i}: approve, review or deny the loan?" for i in range(len(groups))]
    by_prompt = dict(zip(prompts, answers, strict=True))
    return evenhand.assess(task="classification", prompts=prompts, client=lambda p: by_prompt[p], groups=groups,
                           labels=truth, person_level=True, attributes=["gender"], count=1,  # DP and error rates
                           label_parser=LABELS, positive_label="approve", store=None, **FAST, **kwargs)  # fmt: skip


def test_error_rates_are_compared_for_every_outcome() -> None:
    """left9b: with 3+ outcomes FNRD, FPRD, FDRD and FORD were computed for the positive label only. Here every
    group gets each outcome at the same rate (DP 0 for every outcome) and every approval is right, but 12 of the 30
    women who should be reviewed are denied (men: all right): only the error rates of "review" and "deny" show it."""
    groups, answers, truth = _with_truth({"female": (24, 30, 6), "male": (24, 18, 18)}, {"female": 12})
    a = _assess_with_truth(groups, answers, truth, thresholds=[{"verdict": "concern", "max": 0}])
    metrics = a.metrics
    assert (metrics.loc[metrics["metric"] == "DP", "value"] == 0).all()
    error_rows = metrics[metrics["metric"].isin(["FNRD", "FPRD", "FDRD", "FORD"])]
    planned = set(error_rows.loc[error_rows["class"].isna(), "metric"])
    assert planned, metrics[["metric", "class"]]
    for metric in planned:  # one row per other outcome, beside the positive label's row (no class)
        assert set(error_rows.loc[error_rows["metric"] == metric, "class"].dropna()) == {"review", "deny"}, metric
    by = error_rows.set_index(["metric", "class"])["value"]
    if "FNRD" in planned:
        assert by[("FNRD", "review")] == pytest.approx(12 / 30)  # 12 of 30 women's "review" missed, no man's
    if "FPRD" in planned:
        assert by[("FPRD", "deny")] == pytest.approx(12 / 54)  # 12 of 54 women who should not be denied are
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    assert {f.cls for f in concerns} & {"review", "deny"}, a.verdict.summary
    assert all(f.cls is not None for f in concerns)  # the positive label's rows: no difference
    assert not all(c.passed for c in a.threshold_checks)
    rows = json.loads(a.to_json())["metrics"]
    assert {r["class"] for r in rows if r["metric"] == "FDRD"} == {None, "review", "deny"}
    html = render_html(json.loads(a.to_json()))
    assert "FDRD" in html and "the false discovery rate of &#39;deny&#39;" in html


def test_error_rates_of_every_outcome_alike_are_no_finding() -> None:
    groups, answers, truth = _with_truth({"female": (24, 18, 18), "male": (24, 18, 18)}, {"female": 6, "male": 6})
    fair = _assess_with_truth(groups, answers, truth)
    assert fair.verdict.count("concern") == 0, fair.verdict.summary
    error_rows = fair.metrics[fair.metrics["metric"].isin(["FNRD", "FPRD", "FDRD", "FORD"])]
    assert set(error_rows["class"].dropna()) == {"review", "deny"}
