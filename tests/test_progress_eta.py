"""Progress with an ETA over the stages of a run: the stage's own count, the scoring inside it, and the CLI flag."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from evenhand.pipeline import stages as stages_module
from evenhand.pipeline.stages import StageProgress, Stages, advance_stage, counted, running_stage
from evenhand.scorers.engine import LocalEngine


def test_eta_is_the_linear_extrapolation_of_the_stage_so_far() -> None:
    with Stages(1, True) as stages, stages.stage("metrics: toxicity", total=10) as stage:
        assert stage.eta() is None  # nothing done yet: no estimate
        stage._started = 100.0
        stage.done = 4
        assert stage.eta(now=108.0) == pytest.approx(8.0 * 6 / 4)


def test_off_a_terminal_a_long_stage_prints_its_count_and_eta(capsys: pytest.CaptureFixture[str]) -> None:
    with Stages(2, True, every=0.0) as stages:
        with stages.stage("statistics: intervals", total=3):
            for _ in range(3):
                advance_stage()
        with stages.stage("statistics: tests, noise floors: counterfactual", total=2):
            for _ in counted(["a", "b", "c"], lambda item: item != "b"):
                pass
    err = capsys.readouterr().err
    assert re.search(r"evenhand: statistics: intervals 1/3, ETA \d+ s", err)
    assert "statistics: intervals 2/3" in err and "intervals 3/3" not in err  # the last line is the stage's time
    assert re.search(r"evenhand: statistics: intervals done in \d+\.\d s", err)
    assert "counterfactual 1/2" in err and "counterfactual done in" in err


def test_lines_are_throttled(capsys: pytest.CaptureFixture[str]) -> None:
    with Stages(1, True, every=3600.0) as stages, stages.stage("metrics: stereotype", total=1000):
        for _ in range(1000):
            advance_stage()
    assert capsys.readouterr().err.count("evenhand:") == 1  # only "done in"


def test_scoring_inside_a_stage_reports_to_it(capsys: pytest.CaptureFixture[str]) -> None:
    texts = [f"text {i}" for i in range(300)]
    with Stages(1, True, every=0.0) as stages, stages.stage("preparing: toxicity"):
        scores = LocalEngine().map(lambda batch: [0.5] * len(batch), texts)
        assert running_stage() is not None
    assert running_stage() is None and len(scores) == 300
    err = capsys.readouterr().err
    assert re.search(r"evenhand: preparing: toxicity: .+ \d+/300, ETA \d+ s", err)


def test_no_progress_means_no_lines_and_no_scorer_bar(capsys: pytest.CaptureFixture[str]) -> None:
    with Stages(1, False, every=0.0) as stages, stages.stage("preparing: toxicity", total=5) as stage:
        assert isinstance(stage, StageProgress)
        LocalEngine().map(lambda batch: [0.0] * len(batch), [f"t{i}" for i in range(3000)])
        advance_stage(5)
    assert capsys.readouterr().err == ""


def test_a_pipeline_run_shows_every_statistics_stage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import evenhand

    monkeypatch.setattr(stages_module, "TEXT_EVERY", 0.0)
    prompts = [f"Write a note to Mrs. Lee about order {i}." for i in range(12)]
    evenhand.assess(
        task="text_generation",
        prompts=prompts,
        client=lambda p: f"Thank you, {p[-12:]}",
        count=2,
        store=None,
        progress=True,
        embedder=False,
        n_resamples=50,
    )
    err = capsys.readouterr().err
    assert re.search(r"statistics: intervals \d+/\d+, ETA \d+ s", err)
    assert "statistics: intervals done in" in err
    assert "statistics: tests, noise floors: counterfactual done in" in err
    # toxicity has tests of its own now (toxicity per group: each pair's paired swap test)
    assert "statistics: tests, noise floors: toxicity done in" in err


@pytest.mark.pipeline
def test_metrics_cli_progress_flag(tmp_path: Path) -> None:
    from evenhand.cli import app

    table = pd.DataFrame(
        {"prompt": [f"Write to the client about order {i}." for i in range(6) for _ in range(2)]}
    ).assign(response=lambda f: [f"Sure, here it is {i}." for i in range(len(f))])
    path = tmp_path / "responses.csv"
    table.to_csv(path, index=False)
    args = ["metrics", str(path), "--out", str(tmp_path / "out"), "--no-html", "--ci", "0"]
    quiet = CliRunner().invoke(app, args)
    assert quiet.exit_code == 0, quiet.output
    assert "evenhand: preparing" not in quiet.output  # off a terminal: no progress unless asked
    shown = CliRunner().invoke(app, [*args, "--progress"])
    assert shown.exit_code == 0, shown.output
    assert "evenhand: preparing: toxicity done in" in shown.output


def test_on_a_terminal_a_stage_keeps_its_row_through_its_counted_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rich bar: a part of a stage (a scorer's texts, or none when all were cached) gets a row of its own, and the
    stage's own count goes on after it (a removed row used to make the next advance raise KeyError)."""
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    with Stages(2, True) as stages:
        assert stages._bar is not None
        with stages.stage("preparing: toxicity", total=3) as stage:
            stage.advance()
            with stage.work(5, "scorer") as advance:
                advance(5)
            with stage.work(0, "all cached"):
                pass
            stage.advance()
            assert stage.done == 2 and stage._row is not None
            assert stages._bar.tasks[-1].completed == 2
