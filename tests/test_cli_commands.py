"""The evenhand CLI: --help everywhere, plan, assess, metrics, report, and documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

runner = CliRunner()
ALLOW_CODE = {"EVENHAND_ALLOW_CODE": "1"}  # the configs below name Python functions (model.options.function)


def fake_llm(prompt: str) -> str:
    """Used by configs below as model {provider: callable, options: {function: test_cli_commands:fake_llm}}."""
    return "yes" if "even" in prompt else "no"


@pytest.mark.parametrize("command", [[], ["plan"], ["assess"], ["metrics"], ["report"], ["demo"]])
def test_help_everywhere(command: list[str]) -> None:
    result = runner.invoke(app, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and "evenhand" in result.output


def test_plan_from_options_and_json() -> None:
    result = runner.invoke(
        app,
        [
            "plan",
            "--task",
            "classification",
            "--no-mentions-groups",
            "--person-level",
            "--intervention",
            "punitive",
            "--no-prevalence-parity",
            "-a",
            "gender",
            "--no-ask",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert [m["name"] for m in doc["metrics"]] == ["FPRD", "FDRD"]


def test_plan_asks_questions() -> None:
    answers = "recommendation\ny\ny\n"  # task, mentions groups, invariance
    result = runner.invoke(app, ["plan", "--ask"], input=answers)
    assert result.exit_code == 0, result.output
    assert "Jaccard-K" in result.output


def test_plan_from_prompts_file(tmp_path: Path) -> None:
    (tmp_path / "p.txt").write_text("Write to Mrs. Lee.\nWrite to the client.\n")
    result = runner.invoke(app, ["plan", "--task", "text_generation", "--prompts", str(tmp_path / "p.txt"), "--no-ask"])
    assert result.exit_code == 0, result.output
    assert "1 of 2 prompts" in result.output


def test_plan_bad_input_exit_2() -> None:
    result = runner.invoke(app, ["plan", "--task", "poetry", "--mentions-groups", "--no-ask"])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "task" in result.output
    assert runner.invoke(app, ["plan", "--no-ask"]).exit_code == ExitCode.BAD_INPUT
    # neither prompts nor the answer: the line names the flags to give, not plan()'s Python keyword
    result = runner.invoke(app, ["plan", "--task", "classification", "--no-ask"])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "--prompts FILE" in result.output and "--mentions-groups/--no-mentions-groups" in result.output


def _classification_config(tmp_path: Path, threshold: float, bound: str = "max") -> Path:
    prompts = pd.DataFrame(
        {
            "prompt": [f"Is number {i} {'even' if i % 2 == 0 else 'odd'}? yes/no" for i in range(20)],
            "truth": ["1" if i % 2 == 0 else "0" for i in range(20)],
            "person": ["a" if i % 4 < 2 else "b" for i in range(20)],
        }
    )
    prompts.to_csv(tmp_path / "prompts.csv", index=False)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "use_case: {task: classification, attributes: [gender], person_level: true, prevalence_parity: false}\n"
        "prompts: {path: prompts.csv, label_column: truth, group_column: person}\n"
        "model: {provider: callable, options: {function: 'test_cli_commands:fake_llm'}}\n"
        "generation: {count: 1, progress: false}\n"
        "statistics: {n_resamples: 100}\n"
        f"thresholds: [{{metric: FNRD, {bound}: {threshold}}}]\n"
        "output: {dir: out}\n"
    )
    return cfg


def test_assess_writes_outputs_and_passes(tmp_path: Path) -> None:
    cfg = _classification_config(tmp_path, threshold=0.5)
    result = runner.invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.OK, result.output
    for name in ("results.json", "metrics.csv", "report.html"):
        assert (tmp_path / "out" / name).is_file()
    assert "FNRD" in result.output


@pytest.mark.pipeline
def test_assess_threshold_failure_exit_1(tmp_path: Path) -> None:
    # a bound the value can meet but does not (max: -1 can never be met, a config error: exit 2)
    cfg = _classification_config(tmp_path, threshold=1.0, bound="min")
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.THRESHOLD_FAILED, result.output
    assert (tmp_path / "out" / "results.json").is_file()  # results are written even when a gate fails


def test_assess_bad_config_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("use_case: {task: poetry}\nprompts: {items: [a]}\n")
    result = runner.invoke(app, ["assess", str(bad)])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "use_case.task" in result.output
    assert runner.invoke(app, ["assess", str(tmp_path / "missing.yaml")]).exit_code == ExitCode.BAD_INPUT
    missing_column = tmp_path / "c.yaml"
    (tmp_path / "p.csv").write_text("text\nhello\n")
    missing_column.write_text("use_case: {task: classification}\nprompts: {path: p.csv}\n")
    result = runner.invoke(app, ["assess", str(missing_column)])
    assert result.exit_code == ExitCode.BAD_INPUT and "no column 'prompt'" in result.output


@pytest.mark.pipeline
def test_metrics_from_own_responses_then_report(tmp_path: Path) -> None:
    rows = pd.DataFrame(
        {
            "prompt": [f"Applicant {i}" for i in range(12)],
            "response": ["yes" if i % 3 else "no" for i in range(12)],
            "truth": ["1" if i % 2 else "0" for i in range(12)],
            "gender": ["f" if i < 6 else "m" for i in range(12)],
        }
    )
    for suffix in ("csv", "jsonl", "parquet"):
        path = tmp_path / f"responses.{suffix}"
        if suffix == "csv":
            rows.to_csv(path, index=False)
        elif suffix == "jsonl":
            rows.to_json(path, orient="records", lines=True)
        else:
            rows.to_parquet(path)
        out = tmp_path / suffix
        result = runner.invoke(
            app,
            [
                "metrics",
                str(path),
                "--task",
                "classification",
                "-a",
                "gender",
                "--label-column",
                "truth",
                "--group-column",
                "gender",
                "--out",
                str(out),
                "--no-html",
            ],
        )
        assert result.exit_code == ExitCode.OK, result.output
        doc = json.loads((out / "results.json").read_text())
        assert {m["metric"] for m in doc["metrics"]} >= {"FNRD", "FPRD"}
        assert not (out / "report.html").exists()
    result = runner.invoke(app, ["report", str(tmp_path / "csv" / "results.json")])
    assert result.exit_code == ExitCode.OK, result.output
    assert (tmp_path / "csv" / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_report_bad_input_exit_2(tmp_path: Path) -> None:
    p = tmp_path / "x.json"
    p.write_text("not json")
    assert runner.invoke(app, ["report", str(p)]).exit_code == ExitCode.BAD_INPUT
    assert runner.invoke(app, ["report", str(tmp_path / "missing.json")]).exit_code == ExitCode.BAD_INPUT


def test_demo_ftu_only() -> None:
    result = runner.invoke(app, ["demo", "--ftu-only"])
    assert result.exit_code == 0, result.output
    # race: 7 prompts with race words and 3 more that name a person ("Mrs. Alvarez", "Mr. Chen", "Mr. Okafor": names
    # are read, Okafor from the surname table since issue 33's full-name evidence)
    assert "14 of 40" in result.output and "10 of 40" in result.output


@pytest.mark.parametrize(("flags", "shown"), [([], None), (["--no-progress"], False)])
def test_demo_no_progress_hides_progress_as_other_commands(
    monkeypatch: pytest.MonkeyPatch, flags: list[str], shown: bool | None
) -> None:
    """docs/cli.md: long steps show progress on a terminal and ``--no-progress`` hides it, on every command that
    has such steps; the demo generates and scores too, so it takes the flag and passes it to the run."""
    from evenhand.cli import running

    seen: list[bool | None] = []

    def run_config(*args: object, **kwargs: object) -> ExitCode:
        seen.append(kwargs["progress"] if "progress" in kwargs else args[3])  # type: ignore[arg-type]
        return ExitCode.OK

    monkeypatch.setattr(running, "run_config", run_config)
    result = runner.invoke(app, ["demo", "--limit", "1", *flags])
    assert result.exit_code == 0, result.output
    assert seen == [shown]


def failing_llm(prompt: str) -> str:
    raise ValueError("model crashed")


def test_assess_runtime_failure_exit_3(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nprompts: {items: [Write to the client.]}\n"
        "model: {provider: callable, options: {function: 'test_cli_commands:failing_llm'}}\n"
        "generation: {count: 1, progress: false}\n"
    )
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert "none of the 1 requests produced a response" in result.output


@pytest.mark.pipeline
def test_demo_config_against_an_openai_compatible_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README promise: set a base URL and model, get the same assessment of your own model."""
    from openai_stub import StubServer

    from evenhand.pipeline.responses.tables import demo_dir

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-stored")
    with StubServer() as server:
        result = runner.invoke(
            app,
            [
                "assess",
                str(demo_dir() / "demo.yaml"),
                "--base-url",
                server.base_url,
                "--model",
                "stub-model",
                "--limit",
                "4",
                "--out",
                str(tmp_path),
                "--no-progress",
            ],
        )
        assert result.exit_code == ExitCode.OK, result.output
        assert server.state.total > 0
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["model"]["provider"] == "openai" and doc["model"]["model"] == "stub-model"
    assert doc["summary"]["n_ok"] == doc["summary"]["n_responses"]
    assert {"TF", "CROUGE-L"} <= {m["metric"] for m in doc["metrics"]}
    print(doc["timings"])
    stored = (tmp_path / "results.json").read_text() + (tmp_path / "report.html").read_text()
    assert "sk-test-not-stored" not in stored


def test_plan_from_config() -> None:
    from evenhand.pipeline.responses.tables import demo_dir

    result = runner.invoke(app, ["plan", str(demo_dir() / "demo.yaml"), "--no-ask"])
    assert result.exit_code == 0, result.output
    assert "14 of 40" in result.output and "CROUGE-L" in result.output


@pytest.mark.parametrize("flags", [["--task", "classification"], ["-a", "race"], ["--no-invariance"]])
def test_plan_flags_beside_a_config_are_refused_not_ignored(flags: list[str]) -> None:
    from evenhand.pipeline.responses.tables import demo_dir

    result = runner.invoke(app, ["plan", str(demo_dir() / "demo.yaml"), *flags, "--json"])
    assert result.exit_code == ExitCode.BAD_INPUT
    flag = {"-a": "--attribute", "--no-invariance": "--invariance"}.get(flags[0], flags[0])
    assert result.stderr.strip().startswith(f"error: {flag}: the use case comes from ")
    assert result.stdout == ""


def test_end_of_input_at_a_question_is_bad_input_not_a_failed_threshold() -> None:
    result = runner.invoke(app, ["plan", "--ask"], input="")
    assert result.exit_code == ExitCode.BAD_INPUT
    assert result.stderr.strip().endswith("error: no answer (end of input); answer on a terminal or give flags")


@pytest.mark.parametrize(("value", "on"), [("1", True), ("yes", True), ("0", False), ("false", False), ("", False)])
def test_evenhand_debug_zero_means_off(value: str, on: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.cli.application import debug_from_env as _debug_from_env

    monkeypatch.setenv("EVENHAND_DEBUG", value)
    assert _debug_from_env() is on


def test_ctrl_c_at_a_question_is_interrupted_not_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evenhand.cli import main

    def interrupt(*_: object, **__: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("typer._click.termui.visible_prompt_func", interrupt)  # what reads the answer
    with pytest.raises(SystemExit) as caught:
        main(["plan", "--ask"])
    assert caught.value.code == ExitCode.INTERRUPTED
    assert capsys.readouterr().err.strip().endswith("interrupted")
