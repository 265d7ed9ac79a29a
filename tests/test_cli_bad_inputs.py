"""Bad input is exit 2 with one line that names the file, key or value; nothing written is damaged; outputs never
overwrite inputs or follow symlinks; config paths follow one rule (relative to the config file, ``~`` expanded)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import evenhand
from evenhand import cli
from evenhand.cli import ExitCode, app, running
from evenhand.cli import application as cli_app

runner = CliRunner()
OWN = "prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee thanks.\nThank the client.,Thank you.\n"


def _own(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nresponses: {path: own.csv}\n"
        f"scoring: {{embedder: false}}\nstatistics: {{ci: null}}\n{extra}",
        encoding="utf-8",
    )
    return cfg


def _one_line_error(result: Any, *needles: str) -> None:
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in result.output, result.output


@pytest.mark.pipeline
def test_tampered_results_file_is_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert runner.invoke(app, ["assess", str(_own(tmp_path)), "-o", str(out)]).exit_code == 0
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    doc["metrics"][0]["value"] = "abc"
    (tmp_path / "bad.json").write_text(json.dumps(doc), encoding="utf-8")
    _one_line_error(runner.invoke(app, ["report", str(tmp_path / "bad.json")]), "metrics[0].value")
    doc.pop("plan")
    (tmp_path / "noplan.json").write_text(json.dumps(doc), encoding="utf-8")
    _one_line_error(runner.invoke(app, ["report", str(tmp_path / "noplan.json")]), "plan")
    (tmp_path / "bin.json").write_bytes(b"\xff\xfe\x00\x81binary")
    _one_line_error(runner.invoke(app, ["report", str(tmp_path / "bin.json")]), "bin.json")


@pytest.mark.pipeline
def test_report_never_overwrites_its_input(tmp_path: Path) -> None:
    out = tmp_path / "out"
    runner.invoke(app, ["assess", str(_own(tmp_path)), "-o", str(out)])
    before = (out / "results.json").read_bytes()
    result = runner.invoke(app, ["report", str(out / "results.json"), "--out", str(out / "results.json")])
    _one_line_error(result, "is an input of this run")
    assert (out / "results.json").read_bytes() == before


def test_out_naming_a_file_fails_before_any_work(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("keep me", encoding="utf-8")
    _one_line_error(runner.invoke(app, ["assess", str(_own(tmp_path)), "-o", str(taken)]), "is a file")
    assert taken.read_text(encoding="utf-8") == "keep me"


def test_output_into_an_input_is_refused(tmp_path: Path) -> None:
    cfg = _own(tmp_path)
    (tmp_path / "own.csv").rename(tmp_path / "metrics.csv")
    cfg.write_text(cfg.read_text(encoding="utf-8").replace("own.csv", "metrics.csv"), encoding="utf-8")
    _one_line_error(runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path)]), "is an input of this run")
    assert (tmp_path / "metrics.csv").read_text(encoding="utf-8") == OWN


def test_binary_config_and_unknown_threshold_metric(tmp_path: Path) -> None:
    binary = tmp_path / "c.yaml"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff")
    _one_line_error(runner.invoke(app, ["assess", str(binary)]), "not a text file")
    typo = _own(tmp_path, "thresholds: [{metric: CROUGE_L, max: 1}]\n")
    _one_line_error(runner.invoke(app, ["assess", str(typo)]), "thresholds.0.metric", "unknown metric 'CROUGE_L'")
    markup = _own(tmp_path, "thresholds: [{metric: '[/]', max: 1}]\n")
    _one_line_error(runner.invoke(app, ["assess", str(markup)]), "'[/]'")  # printed literally, not as markup
    wrong_group = _own(tmp_path, "thresholds: [{metric: SCSP, groups: [femal, male], max: 1}]\n")
    _one_line_error(runner.invoke(app, ["assess", str(wrong_group)]), "thresholds.0.groups", "femal")


def test_a_missing_input_file_names_its_config_key(tmp_path: Path) -> None:
    """A copied config whose relative path no longer points anywhere (README: ``cp demo.yaml my-use-case.yaml``):
    the line names the key as well as the file, and says where relative paths are read from."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text("use_case: {task: text_generation}\nprompts: {path: prompts.jsonl}\n", encoding="utf-8")
    for command in ("plan", "assess"):
        result = runner.invoke(app, [command, str(cfg)])
        _one_line_error(result, "prompts.path", "prompts.jsonl", "config file's folder")
    own = _own(tmp_path)
    (tmp_path / "own.csv").unlink()
    _one_line_error(runner.invoke(app, ["assess", str(own)]), "responses.path", "own.csv")


def test_sizes_are_bounded_up_front(tmp_path: Path) -> None:
    cfg = tmp_path / "g.yaml"
    cfg.write_text("use_case: {task: text_generation}\nprompts: {items: [Hi.]}\n", encoding="utf-8")
    started = time.perf_counter()
    result = runner.invoke(app, ["assess", str(cfg), "--count", "1000000000"])
    assert result.exit_code == ExitCode.BAD_INPUT and "--count" in result.output, result.output
    cfg.write_text(
        "use_case: {task: text_generation}\nprompts: {items: [Hi.]}\ngeneration: {count: 1000000000}\n",
        encoding="utf-8",
    )
    _one_line_error(runner.invoke(app, ["assess", str(cfg)]), "generation.count")
    assert time.perf_counter() - started < 10


@pytest.mark.pipeline
def test_config_paths_are_relative_to_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = _own(tmp_path, "output: {dir: results-here, html: false}\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert runner.invoke(app, ["assess", str(cfg)]).exit_code == 0
    assert (tmp_path / "results-here" / "results.json").is_file()
    assert not (elsewhere / "results-here").exists()
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    tilde = _own(tmp_path, "output: {dir: ~/evenhand-runs, html: false}\n")
    assert runner.invoke(app, ["assess", str(tilde)]).exit_code == 0
    assert (home / "evenhand-runs" / "results.json").is_file() and not (tmp_path / "~").exists()


@pytest.mark.pipeline
def test_outputs_do_not_follow_symlinks(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.html").symlink_to(victim)
    assert runner.invoke(app, ["assess", str(_own(tmp_path)), "-o", str(out)]).exit_code == 0
    assert victim.read_text(encoding="utf-8") == "precious"
    assert not (out / "report.html").is_symlink() and "<html" in (out / "report.html").read_text(encoding="utf-8")


def test_an_unexpected_error_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("scorer crashed")

    monkeypatch.setattr(running, "run_config", boom)
    monkeypatch.setitem(cli_app.DEBUG, "on", False)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["demo", "--limit", "1"])
    assert exit_info.value.code == ExitCode.RUNTIME_FAILURE
    err = capsys.readouterr().err
    assert "unexpected RuntimeError: scorer crashed" in err and "Traceback" not in err and "--debug" in err


@pytest.mark.subprocess
def test_the_console_script_has_no_traceback_for_bad_input(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("evenhand")
    binary = tmp_path / "c.yaml"
    binary.write_bytes(b"\xff\x00")
    done = subprocess.run([str(script), "assess", str(binary)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1"})  # fmt: skip
    assert done.returncode == ExitCode.BAD_INPUT and "Traceback" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1 and "c.yaml" in done.stderr


def test_python_api_rejects_out_of_range_and_paths() -> None:
    from evenhand import metrics as m

    with pytest.raises(ValueError, match=r"scores1 must lie in \[0.0, 1.0\]"):
        m.strict_sentiment_parity([5.0, 3.0], [0.1, 0.2])
    with pytest.raises(ValueError, match="must lie in"):
        m.weak_sentiment_parity([0.2, 0.3], [1.5, 0.2])
    with pytest.raises(TypeError, match="get_embedder"):
        m.counterfactual_cosine(["a"], ["b"], embedder="/nonexistent/model")


def test_empty_responses_are_not_completed_but_nan_text_is_text() -> None:
    a = evenhand.assess(
        task="text_generation", prompts=["Thank the client.", "Write a note."], responses=["", "NaN"],
        attributes=["gender"], ci=None, progress=False,
    )  # fmt: skip
    status = dict(zip(a.responses["response"], a.responses["status"], strict=True))
    assert status == {"": "empty", "NaN": "ok"}
    assert a.responses.loc[a.responses["status"] == "empty", "toxicity"].isna().all()  # never scored
    assert a.to_dict(include_responses=False)["summary"]["n_ok"] == 1
