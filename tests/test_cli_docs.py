"""The shell examples of docs/cli.md that need no server and no file of your own run as written (newcomer17): the
non-interactive `plan` calls and the `metrics` call marked "runs as is", from the repository root."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
LINES = [
    line.split("#", 1)
    for block in re.findall(r"```bash\n(.*?)```", DOC, flags=re.S)
    for line in block.replace("\\\n", " ").splitlines()
]
PLANS = [
    shlex.split(command)[1:] for command, *_ in LINES if command.startswith("evenhand plan") and "--no-ask" in command
]
AS_IS = [shlex.split(command)[1:] for command, *comment in LINES if comment and "runs as is" in comment[0]]


def test_the_doc_keeps_its_runnable_examples() -> None:
    assert len(PLANS) == 2 and len(AS_IS) == 1


@pytest.mark.parametrize("args", PLANS, ids=["text_generation", "classification"])
def test_the_plan_examples_run(args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, args)
    assert result.exit_code == ExitCode.OK, result.output
    if "--json" in args:  # punitive, prevalence parity not wanted, person-level: FPRD and FDRD (docs/assessment.md)
        keys = [m["key"] for m in json.loads(result.stdout)["metrics"]]
        assert keys == ["false_positive_rate_difference", "false_discovery_rate_difference"]
    else:
        assert "FTU fails for gender: 14 of 40 prompts" in result.stdout


@pytest.mark.model
def test_the_metrics_example_that_runs_as_is_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    args = [str(tmp_path / "out") if word == "out/" else word for word in AS_IS[0]]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == ExitCode.OK, result.output
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {"results.json", "metrics.csv", "report.html"}
