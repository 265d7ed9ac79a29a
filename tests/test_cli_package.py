"""The command line as a package: its entry points, the scoring flags declared once, failures sorted by class,
and the output folder written by a module below the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.cli.exit_codes import exit_code_for, is_bad_input
from evenhand.cli.options import SCORING_OPTIONS
from evenhand.errors import InputError, InputTypeError, RunFailure

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()
OWN = "prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee thanks.\nThank the client.,Thank you.\n"
FAST = ["--no-progress", "--ci", "0", "--embedder", "none"]


def _options(command: str) -> dict[str, Any]:
    group = typer.main.get_command(app)
    return {p.name: p for p in group.commands[command].params}  # type: ignore[attr-defined]


@pytest.mark.subprocess
def test_the_console_script_and_python_m_point_at_the_package() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '[project.scripts]\nevenhand = "evenhand_entry:main"' in pyproject
    done = subprocess.run([sys.executable, "-m", "evenhand", "--version"], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0 and done.stdout.startswith("evenhand "), done.stderr


def test_assess_and_metrics_take_the_same_scoring_flags_declared_once() -> None:
    assess, metrics = _options("assess"), _options("metrics")
    for name in SCORING_OPTIONS:
        assert assess[name].opts == metrics[name].opts and assess[name].help == metrics[name].help, name
    assert "--toxicity-threshold" in assess["toxicity_threshold"].opts
    assert "--score-cache" in metrics["score_cache"].opts
    assert "--refusal" in assess["refusal"].opts and "--refusal-threshold" in metrics["refusal_threshold"].opts
    assert len(SCORING_OPTIONS) == 16


@pytest.mark.pipeline
def test_a_scoring_flag_reaches_the_config(tmp_path: Path) -> None:
    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    result = runner.invoke(app, ["metrics", str(tmp_path / "own.csv"), *FAST, "--toxicity-threshold", "0.25",
                                 "-o", str(tmp_path / "out")])  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.output
    assert '"toxicity_threshold": 0.25' in (tmp_path / "out" / "results.json").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (InputError("bad"), ExitCode.BAD_INPUT),
        (InputTypeError("bad"), ExitCode.BAD_INPUT),
        (RunFailure("down"), ExitCode.RUNTIME_FAILURE),
        (ValueError("a bug"), ExitCode.RUNTIME_FAILURE),
        (TypeError("a bug"), ExitCode.RUNTIME_FAILURE),
        (KeyError("a bug"), ExitCode.RUNTIME_FAILURE),
        (KeyboardInterrupt(), ExitCode.INTERRUPTED),
    ],
)
def test_failures_map_to_exit_codes_by_class(error: BaseException, code: ExitCode) -> None:
    assert exit_code_for(error) == code


def test_config_schema_and_yaml_errors_are_bad_input() -> None:
    import yaml
    from pydantic import BaseModel, ValidationError

    class Strict(BaseModel):
        n: int

    with pytest.raises(ValidationError) as caught:
        Strict(n="x")  # type: ignore[arg-type]
    assert is_bad_input(caught.value) and is_bad_input(yaml.YAMLError("bad"))


def test_an_input_error_no_command_caught_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evenhand.cli import running

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise InputError("prompts.path: no such file")

    monkeypatch.setattr(running, "run_config", refuse)
    result = runner.invoke(app, ["demo", "--limit", "1", "-o", str(tmp_path / "out")])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert result.stderr.strip().splitlines()[-1] == "error: prompts.path: no such file"
    assert "Traceback" not in result.output


@pytest.mark.pipeline
def test_the_output_folder_is_written_below_the_command_line(tmp_path: Path) -> None:
    """pipeline.outputs writes and says what it wrote and removed; it prints nothing."""
    import evenhand
    from evenhand.pipeline.results.outputs import write_outputs

    out = tmp_path / "out"
    out.mkdir()
    (out / "responses.parquet").write_text("from an earlier run", encoding="utf-8")
    frame = pd.DataFrame({"prompt": ["Write to her.", "Write to him."], "response": ["Hi.", "Hello."]})
    assessment = evenhand.assess(task="text_generation", responses=frame, embedder=None, ci=None)
    done = write_outputs(assessment, out, html=False, responses="csv")
    assert [p.name for p in done.written] == ["results.json", "metrics.csv", "responses.csv"]
    assert done.removed == [out / "responses.parquet"] and not (out / "responses.parquet").exists()
    assert not list(out.glob(".staging.*"))


def test_an_output_folder_that_is_a_file_is_an_input_error(tmp_path: Path) -> None:
    from evenhand.config import parse_config
    from evenhand.pipeline.results.outputs import check_output_folder

    (tmp_path / "out").write_text("", encoding="utf-8")
    cfg = parse_config({"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]},
                        "output": {"dir": str(tmp_path / "out")}}, source="test")  # fmt: skip
    with pytest.raises(InputError, match="is a file"):
        check_output_folder(cfg)
