"""A table of stored decisions with each person's group (deploy17): the groups given make the rows persons, from
every entry point alike, and decisions that no label word reads are never judged "ok" by the gate.

Before: ``evenhand metrics --group-column`` made the rows persons, but ``assess(groups=...)`` and a config's
``responses.person_group_column`` / ``prompts.group_column`` did not, so the plan said "not declared person-level ...
not applicable": from Python a planted gap of 0.3 in approvals was ``verdict: OK`` with no finding, and the same
table through ``evenhand assess`` failed its ``{verdict: concern, max: 0}`` gate on a fair model ("nothing was
judged"). And a table whose every decision the label words could not read ("approve" against the default yes/no)
passed that gate on its refusal row alone ("0% vs 0% refusals").
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
WORDS = {"1": ["approve"], "0": ["deny"]}
GATE = [{"verdict": "concern", "max": 0}]

pytestmark = pytest.mark.pipeline  # whole assessments


def _decisions(seed: int, gap: float) -> pd.DataFrame:
    """200 stored decisions, one per person, half women: approval 0.75 / 0.35 by the true outcome, ``gap`` lower for
    women."""
    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 == 0 else "male"
        truth = int(rng.random() < 0.6)
        p = (0.75 if truth else 0.35) - (gap if gender == "female" else 0.0)
        rows.append({"id": i, "prompt": f"Applicant {i}: approve the loan?", "truth": truth, "gender": gender,
                     "response": "approve" if rng.random() < p else "deny"})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(table: pd.DataFrame, **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(task="classification", responses=table.drop(columns=["truth", "gender"]),
                           attributes=["gender"], labels=table["truth"].tolist(), groups=table["gender"].tolist(),
                           label_parser=WORDS, **FAST, **kwargs)  # fmt: skip


def test_groups_given_in_python_make_the_rows_persons_and_a_planted_gap_a_concern_naming_women() -> None:
    a = _assess(_decisions(0, gap=0.3))
    assert "DP" in set(a.metrics["metric"]), a.plan
    concerns = [f for f in a.verdict.findings if f.severity == "concern" and f.risk == "allocational"]
    assert concerns and "female" in concerns[0].groups and "female" in concerns[0].sentence


def test_groups_given_in_python_leave_a_fair_table_without_a_concern() -> None:
    a = _assess(_decisions(1, gap=0.0))
    assert "DP" in set(a.metrics["metric"]) and a.verdict.count("concern") == 0


def test_a_declared_false_person_level_is_kept() -> None:
    a = _assess(_decisions(0, gap=0.3), person_level=False)
    assert "DP" not in set(a.metrics["metric"])


def _config(tmp_path: Path, table: pd.DataFrame, **sections: Any) -> Path:
    table.to_csv(tmp_path / "decisions.csv", index=False)
    config = {"use_case": {"task": "classification", "attributes": ["gender"]},
              "responses": {"path": "decisions.csv", "label_column": "truth", "person_group_column": "gender"},
              "statistics": {"n_resamples": 200}, "thresholds": GATE, "output": {"dir": "out", "html": False},
              **sections}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    return tmp_path / "c.yaml"


def test_a_config_with_a_person_group_column_passes_its_gate_on_a_fair_table(tmp_path: Path) -> None:
    path = _config(tmp_path, _decisions(1, gap=0.0), classification={"labels": WORDS})
    result = CliRunner().invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.OK, result.output


def test_a_config_with_a_person_group_column_fails_its_gate_on_a_planted_gap_naming_women(tmp_path: Path) -> None:
    path = _config(tmp_path, _decisions(0, gap=0.3), classification={"labels": WORDS})
    result = CliRunner().invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.THRESHOLD_FAILED, result.output
    assert "female" in result.output


def test_decisions_no_label_word_reads_fail_the_gate_instead_of_passing_on_the_refusal_row(tmp_path: Path) -> None:
    path = _config(tmp_path, _decisions(0, gap=0.3))  # the default labels (yes / no) read no "approve"
    result = CliRunner().invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.THRESHOLD_FAILED, result.output
    assert "could not be judged" in result.output and "DP" in result.output
