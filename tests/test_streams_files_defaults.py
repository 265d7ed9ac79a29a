"""Streams, files and defaults (issue 25): stdout carries results only and progress is one line per stage on
stderr off a terminal; ``--help`` is never cut; outputs follow the umask; ``evenhand.assess`` leaves nothing in
the working directory; the plan step is timed apart from loading the scorers; outputs a run does not write are not
left over from an earlier run; CSV cells cannot run as spreadsheet formulas and still read back; a local model
path is checked when used, relative to the config."""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import typer
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

runner = CliRunner()
STUB_MODEL = "def reply(prompt):\n    return 'Dear customer, thank you for writing to us.'\n"
CONFIG = """use_case: {name: streams, task: text_generation, attributes: [gender]}
prompts: {items: ["Write to Mrs. Lee about her loan.", "Thank Mr. Diaz for his call.", "Remind the client."]}
model: {provider: callable, options: {function: "stub_model:reply"}}
generation: {count: 1, counterfactual_count: 2}
scoring: {embedder: false, toxicity: profanity-check}
statistics: {ci: null}
output: {dir: out}
"""
OWN_FAST = ["--ci", "0", "--embedder", "none", "-a", "gender"]
# The fresh processes of this module check streams and file modes, not toxicity: the lexical scorer (in CONFIG, and
# LEXICAL) spares each of them loading torch and the MiniLM toxicity default (seconds a process on 2 cores).
LEXICAL = ["--toxicity", "profanity-check"]


def _cli(*args: str, cwd: Path, umask: int = 0o022, env: dict[str, str] | None = None) -> Any:
    """``python -m evenhand ARGS`` in a fresh process, stdout and stderr apart, neither a terminal."""
    environment = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(cwd), "EVENHAND_ALLOW_CODE": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "evenhand", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env=environment, umask=umask, stdin=subprocess.DEVNULL)  # fmt: skip


def _use_case(folder: Path) -> Path:
    (folder / "stub_model.py").write_text(STUB_MODEL, encoding="utf-8")
    config = folder / "c.yaml"
    config.write_text(CONFIG, encoding="utf-8")
    return config


def _own_responses(folder: Path, texts: list[str] | None = None, suffix: str = ".csv") -> Path:
    texts = texts or ["Dear Mrs. Lee, thank you.", "Your request is denied."]
    rows = []
    for pid in range(3):
        for sample in range(2):
            for group, name in (("female", "Mrs. Lee"), ("male", "Mr. Lee")):
                response = texts[len(rows) % len(texts)]  # every text, in turn
                rows.append({"prompt_id": pid, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Write to {name} about case {pid}.", "response": response})  # fmt: skip
    path = folder / f"mine{suffix}"
    if suffix == ".jsonl":  # texts exactly as given (a CSV's guarded-looking cell would be read unguarded)
        pd.DataFrame(rows).to_json(path, orient="records", lines=True)
    else:
        pd.DataFrame(rows).to_csv(path, index=False)
    return path


# ---------------------------------------------------------------------------------------------- 1. streams


@pytest.mark.subprocess
def test_stdout_carries_results_only_and_progress_is_one_line_per_stage_on_stderr(tmp_path: Path) -> None:
    _use_case(tmp_path)
    done = _cli("assess", "c.yaml", cwd=tmp_path)
    assert done.returncode == ExitCode.OK, done.stderr[-3000:]
    for progress in ("━", "evenhand: generating", " done in ", "loading scorers", "wrote ", "ETA"):
        assert progress not in done.stdout, (progress, done.stdout[:2000])
    assert "verdict:" in done.stdout and "CROUGE-L" in done.stdout  # the results
    stage_lines = [line for line in done.stderr.splitlines() if line.startswith("evenhand: ")]
    stages = [line.split(" done in ")[0] if " done in " in line else line.split(" 3/")[0].split(" 6/")[0]
              for line in stage_lines]  # fmt: skip
    assert any(line.startswith("evenhand: generating") for line in stage_lines), done.stderr
    assert "evenhand: loading scorers" in stages and any(s.startswith("evenhand: metrics: ") for s in stages)
    assert len(stage_lines) == len(set(stage_lines)), stage_lines  # one line per stage, no bar redrawn as lines
    assert "wrote " in done.stderr and str(Path("out") / "results.json") in done.stderr


def test_the_generation_bar_is_never_drawn_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    from evenhand.generation.progress import RunProgress

    with RunProgress(5, "generating", enabled=True) as bar:  # pytest's stderr is not a terminal
        bar.advance(3, 1)
        bar.advance(2, 0)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.strip().splitlines()[-1].startswith("evenhand: generating 5/5, 1 failed")


# ---------------------------------------------------------------------------------------------- 2. --help


def _option_names(command: Any) -> set[str]:
    names = set()
    for param in command.params:
        names.update(o for o in (*param.opts, *param.secondary_opts) if o.startswith("-"))
    return names


@pytest.mark.subprocess
@pytest.mark.parametrize("command", ["", "assess", "metrics", "plan", "report", "compare", "demo"])
def test_help_is_wrapped_never_cut_at_80_columns_off_a_terminal(command: str, tmp_path: Path) -> None:
    done = _cli(*([command] if command else []), "--help", cwd=tmp_path, env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout, done.stdout
    assert max(len(line) for line in done.stdout.splitlines()) <= 80
    group = typer.main.get_command(app)
    target = group.commands[command] if command else group  # type: ignore[attr-defined]
    words = set(done.stdout.replace(",", " ").split())
    missing = sorted(name for name in _option_names(target) if name not in words)
    assert not missing, (missing, done.stdout)
    if not command:  # each command listed with its whole first sentence, not "..." after a few words
        assert "Run the assessment a config file describes; write results.json," in done.stdout
        assert "..." not in done.stdout.split("Commands:")[1]


# ---------------------------------------------------------------------------------------------- 3. umask

OUTPUTS = ("results.json", "metrics.csv", "responses.csv", "report.html")


@pytest.mark.subprocess
@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_outputs_follow_the_umask(umask: int, mode: int, tmp_path: Path) -> None:
    data = _own_responses(tmp_path)
    done = _cli("metrics", str(data), "-o", "out", *OWN_FAST, *LEXICAL, cwd=tmp_path, umask=umask)
    assert done.returncode == ExitCode.OK, done.stderr[-3000:]
    for name in OUTPUTS:
        assert stat.S_IMODE((tmp_path / "out" / name).stat().st_mode) == mode, name
    assert not [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]  # no temporary left


def test_atomic_writes_and_staged_folders_follow_the_umask_in_process(tmp_path: Path) -> None:
    from evenhand._files import current_umask, staged_folder, write_text

    before = os.umask(0o027)
    try:
        assert current_umask() == 0o027
        path = write_text(tmp_path / "a.txt", "x")
        with staged_folder(tmp_path / "built", lambda p: (p / "done").is_file()) as work:
            (work / "done").write_text("ok")
    finally:
        os.umask(before)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "built").stat().st_mode) == 0o750


# ---------------------------------------------------------------------------------------------- 4. the store


def _assess_quietly(**options: Any) -> Any:
    return evenhand.assess(task="text_generation", prompts=["Write to Mrs. Lee.", "Thank Mr. Diaz."], count=1,
                           counterfactual_count=1, attributes=["gender"], embedder=False, ci=None, progress=False,
                           **options)  # fmt: skip


@pytest.mark.pipeline
def test_assess_from_python_leaves_the_working_directory_clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work, scratch = tmp_path / "work", tmp_path / "tmp"
    work.mkdir()
    scratch.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    a = _assess_quietly(client=lambda p: "Dear customer, thank you.")
    assert len(a.responses) > 0
    assert list(work.iterdir()) == [] and not list(scratch.glob("evenhand-*"))  # the temporary store is gone too
    kept = tmp_path / "kept.sqlite"
    _assess_quietly(client=lambda p: "Thanks.", store=str(kept))  # a named store stays, where it was named
    assert kept.is_file() and list(work.iterdir()) == []


def test_a_failed_run_keeps_its_temporary_store_and_says_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def broken(prompt: str) -> str:
        raise RuntimeError("server down")

    with pytest.raises(Exception) as failure:
        _assess_quietly(client=broken)
    kept = list(tmp_path.glob("evenhand-generations-*/generations.sqlite"))
    assert len(kept) == 1
    assert f"pass store={str(kept[0])!r} to resume" in capsys.readouterr().err
    assert any(str(kept[0]) in note for note in getattr(failure.value, "__notes__", [str(kept[0])]))


# ---------------------------------------------------------------------------------------------- 5. timings


@pytest.mark.server
def test_the_plan_is_timed_apart_from_loading_the_scorers(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from evenhand.pipeline.families.toxicity import Toxicity

    original = Toxicity.build

    def slow_build(self: Any, *args: Any, **kwargs: Any) -> Any:
        time.sleep(2.0)  # stands in for importing torch and loading a model
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Toxicity, "build", slow_build)
    a = evenhand.assess(task="text_generation", prompts=["Write to Mrs. Lee."], responses=["Dear Mrs. Lee."],
                        attributes=["gender"], embedder=False, ci=None, progress=True)  # fmt: skip
    timings = a.meta["timings"]
    assert timings["scorers"] >= 2.0 > timings["plan"]
    assert list(timings)[:2] == ["plan", "scorers"]
    assert "evenhand: loading scorers done in " in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------- 6. stale outputs


@pytest.mark.pipeline
def test_outputs_a_run_does_not_write_are_not_left_from_an_earlier_run(tmp_path: Path) -> None:
    data = _own_responses(tmp_path)
    out = tmp_path / "out"
    first = runner.invoke(app, ["metrics", str(data), "-o", str(out), "--no-progress", *OWN_FAST])
    assert first.exit_code == ExitCode.OK, first.output
    assert (out / "report.html").is_file() and (out / "responses.csv").is_file()
    second = runner.invoke(app, ["metrics", str(data), "-o", str(out), "--no-progress", "--no-html", *OWN_FAST])
    assert second.exit_code == ExitCode.OK, second.output
    assert not (out / "report.html").exists() and (out / "responses.csv").is_file()
    assert f"removed {out / 'report.html'}" in " ".join(second.stderr.split())
    config = tmp_path / "parquet.yaml"
    config.write_text("use_case: {task: text_generation, attributes: [gender]}\nresponses: {path: mine.csv}\n"
                      "scoring: {embedder: false}\nstatistics: {ci: null}\noutput: {responses: parquet}\n")  # fmt: skip
    third = runner.invoke(app, ["metrics", str(data), "--config", str(config), "-o", str(out), "--no-progress"])
    assert third.exit_code == ExitCode.OK, third.output
    assert (out / "responses.parquet").is_file() and not (out / "responses.csv").exists()
    assert (out / "report.html").is_file()  # written again by this run
    assert sorted(p.name for p in out.iterdir()) == ["metrics.csv", "report.html", "responses.parquet", "results.json"]


# ---------------------------------------------------------------------------------------------- 7. CSV formulas

HOSTILE = ['=HYPERLINK("http://x.test","click")', "+1 555 0100 call me", "-0.5", "@SUM(A1:A2)", "- first\n- second",
           "'=already quoted", "\tTabbed", "Plain, with a comma"]  # fmt: skip


@pytest.mark.pipeline
def test_csv_cells_cannot_run_as_formulas_and_read_back_the_same(tmp_path: Path) -> None:
    data = _own_responses(tmp_path, HOSTILE, suffix=".jsonl")
    out, again = tmp_path / "out", tmp_path / "again"
    first = runner.invoke(app, ["metrics", str(data), "-o", str(out), "--no-progress", "--no-html", *OWN_FAST])
    assert first.exit_code == ExitCode.OK, first.output
    for name in ("responses.csv", "metrics.csv"):
        with (out / name).open(encoding="utf-8", newline="") as handle:
            for row in csv.reader(handle):
                for cell in row:
                    if cell[:1] in ("=", "+", "@", "\t", "\r") or (cell[:1] == "-" and cell != "-0.5"):
                        float(cell)  # only a plain number may start so (raises ValueError otherwise)
    raw = (out / "responses.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK" in raw and "'@SUM" in raw and "'- first" in raw and "''=already" in raw
    assert ",-0.5," in raw  # a number stays a number
    second = runner.invoke(app, ["metrics", str(out / "responses.csv"), "-o", str(again), "--no-progress",
                                 "--no-html", *OWN_FAST])  # fmt: skip
    assert second.exit_code == ExitCode.OK, second.output
    from evenhand.pipeline.responses.tables import read_table

    original = read_table(data)

    first_texts = read_table(out / "responses.csv").sort_values(["prompt_id", "group", "sample"])
    second_texts = read_table(again / "responses.csv").sort_values(["prompt_id", "group", "sample"])
    assert sorted(first_texts["response"]) == sorted(original["response"])
    assert second_texts["response"].tolist() == first_texts["response"].tolist()
    assert second_texts["prompt"].tolist() == first_texts["prompt"].tolist()


def test_the_guard_round_trips_any_text() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from evenhand._formula_guard import guard_cell, unguard_cell

    @given(st.text(alphabet=st.sampled_from(list("'=+-@\t\r0123456789.eE ax")), max_size=8))
    def round_trip(text: str) -> None:
        guarded = guard_cell(text)
        assert unguard_cell(guarded) == text
        if guarded is not text:
            assert guarded.startswith("'")
        else:
            assert not text[:1] or text[0] not in "=+-@\t\r" or float(text) == float(text)

    round_trip()


def test_a_users_own_csv_is_read_as_written(tmp_path: Path) -> None:
    """Only a table evenhand wrote is unguarded: a user's prompt "'@alice ..." keeps its quote."""
    from evenhand.pipeline.responses.tables import read_table

    own = tmp_path / "prompts.csv"
    texts = ["'@alice said the loan was denied'", "'--verbose flag' is what I typed", "=SUM(A1)"]
    pd.DataFrame({"prompt": texts}).to_csv(own, index=False)
    assert read_table(own)["prompt"].tolist() == texts
    (tmp_path / "prompts.tsv").write_text("prompt\n'=x\n")
    assert read_table(tmp_path / "prompts.tsv")["prompt"].tolist() == ["'=x"]


# ---------------------------------------------------------------------------------------------- 8. model path


@pytest.mark.subprocess
def test_a_local_model_path_is_checked_when_used_relative_to_the_config(tmp_path: Path) -> None:
    from evenhand.config import load_config

    folder, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    folder.mkdir()
    (elsewhere / "models" / "m").mkdir(parents=True)  # the working directory's ./models/m is not the config's
    config = folder / "c.yaml"
    config.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nprompts: {items: [Write to Mrs. Lee.]}\n"
        "model: {provider: local, model: ./models/m}\n"
    )
    plan = _cli("plan", str(config), cwd=elsewhere)
    assert plan.returncode == ExitCode.OK, plan.stderr  # planning needs no model
    assess = _cli("assess", str(config), "--no-progress", cwd=elsewhere)
    assert assess.returncode == ExitCode.BAD_INPUT, assess.stderr
    lines = assess.stderr.strip().splitlines()
    assert len(lines) == 1 and "model.model" in lines[0] and str(folder / "models" / "m") in lines[0], lines
    (folder / "models" / "m").mkdir(parents=True)
    loaded = load_config(config)
    assert loaded.model.model == str(folder.resolve() / "models" / "m")

    from evenhand.pipeline.from_config import check_local_model

    check_local_model(loaded)  # there now: no error
