"""Person-level classification (group labels per person) with three or more outcomes: every outcome's rate is
compared between groups, not only the positive label's, so a model that moves one group from "review" to "deny" at
the same approval rate is found (the counterfactual decisions family does the same with CPRD per outcome)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

import evenhand

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

