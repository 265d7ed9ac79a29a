"""A verdict never says OK about what it could not read (unread17).

Before: stored decisions that no label word reads (the default yes/no labels against "approve" / "deny") left DP, FNRD
and the other group rates undefined and ``unread``; a gate failed on them (deploy17), but a run without a gate led its
console, results.json and report with ``verdict: OK (1 ok)``, on the refusal row alone. Now the headline says what
could not be judged: the status is ``not judged`` when the unread metrics are at least as many as the judged ones and
nothing was found, and the summary names them; a run whose decisions are read keeps its verdict.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from test_pipeline_person_groups_given import FAST, WORDS, _decisions
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

pytestmark = pytest.mark.pipeline  # whole assessments


def _assess(seed: int, gap: float, **kwargs: object) -> evenhand.Assessment:
    table = _decisions(seed, gap)
    return evenhand.assess(task="classification", responses=table.drop(columns=["truth", "gender"]),
                           attributes=["gender"], labels=table["truth"].tolist(), groups=table["gender"].tolist(),
                           **FAST, **kwargs)  # type: ignore[arg-type]  # fmt: skip


def test_unread_decisions_make_the_headline_not_judged_naming_the_metrics() -> None:
    v = _assess(0, gap=0.3).verdict  # default yes/no labels: no "approve" / "deny" is read
    assert v.status == "not judged", v.summary
    assert "not judged: DP" in v.summary and "FNRD" in v.summary and "gender" in v.summary
    assert v.to_dict()["status"] == "not judged" and v.to_dict()["not_judged"][0]["metric"] == "DP"


def test_read_decisions_keep_their_verdict() -> None:
    v = _assess(1, gap=0.0, label_parser=WORDS).verdict
    assert v.status in ("ok", "watch") and "not judged" not in v.summary and not v.to_dict()["not_judged"]


def test_the_cli_without_a_gate_exits_0_and_every_output_says_not_judged(tmp_path: Path) -> None:
    _decisions(0, gap=0.3).to_csv(tmp_path / "decisions.csv", index=False)
    config = {"use_case": {"task": "classification", "attributes": ["gender"]},
              "responses": {"path": "decisions.csv", "label_column": "truth", "person_group_column": "gender"},
              "statistics": {"n_resamples": 200}, "output": {"dir": "out", "html": True}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config))
    junit = tmp_path / "junit.xml"
    result = CliRunner().invoke(app, ["assess", str(tmp_path / "c.yaml"), "--junit", str(junit)])
    assert result.exit_code == ExitCode.OK, result.output
    assert "verdict: NOT JUDGED" in result.output and "verdict: OK" not in result.output
    out = tmp_path / "out"
    doc = json.loads((out / "results.json").read_text())
    assert doc["verdict"]["status"] == "not judged" and "not judged: DP" in doc["verdict"]["summary"]
    assert "not judged: DP" in (out / "report.html").read_text()
    assert 'value="not judged"' in junit.read_text()
