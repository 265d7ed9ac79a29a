"""``--refusal SPEC`` and ``--refusal-threshold``: the refusal detector on the command line, declared with the other
scoring flags (so every command that has ``--toxicity`` has them), reaching the run as ``scoring.refusal`` would,
and a bad value stopping the command with exit code 2 and one line naming the flag."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_cli_scorer_flags import _metrics
from typer.testing import CliRunner

from evenhand.cli import app
from evenhand.cli.options import SCORING_OPTIONS


def _settings(out: Path) -> dict[str, Any]:
    settings: dict[str, Any] = json.loads((out / "results.json").read_text(encoding="utf-8"))["settings"]
    return settings


def _rrd(out: Path) -> pd.DataFrame:
    table = pd.read_csv(out / "metrics.csv")
    return table[table["metric"] == "RRD"]


@pytest.mark.parametrize("spec", ["patterns", "default", "PATTERNS"])
@pytest.mark.slow
def test_the_offline_patterns_by_name(tmp_path: Path, spec: str) -> None:
    result, out = _metrics(tmp_path, "--embedder", "none", "--refusal", spec)
    assert result.exit_code == 0, result.output
    assert len(_rrd(out)) == 1
    named = _settings(out)["refusal_detector"]
    assert named == ("wording patterns (offline default)" if spec == "default" else spec)


@pytest.mark.slow
def test_the_threshold_by_its_flag_and_by_scorer_option(tmp_path: Path) -> None:
    for flags in (["--refusal-threshold", "0.9"], ["--scorer-option", "refusal.threshold=0.9"]):
        result, out = _metrics(tmp_path, "--embedder", "none", *flags)
        assert result.exit_code == 0, result.output
        assert _settings(out)["refusal_threshold"] == 0.9


@pytest.mark.slow
def test_a_classifier_folder_scores_the_refusals(tmp_path: Path) -> None:
    pytest.importorskip("transformers")
    from test_scorers_hf import build_tiny_bert

    from evenhand.scorers.refusal import HFRefusal, get_refusal_scorer

    folder = build_tiny_bert(tmp_path / "refusal-model", ["answer", "refusal"])
    result, out = _metrics(tmp_path, "--embedder", "none", "--refusal", str(folder), "--refusal-threshold", "0.3")
    assert result.exit_code == 0, result.output
    assert _settings(out)["refusal_detector"] == str(folder)
    responses = pd.read_csv(out / "responses.csv")
    scored = responses["refusal"].dropna()
    detector = get_refusal_scorer(str(folder))
    assert isinstance(detector, HFRefusal)
    assert scored.tolist() == pytest.approx(detector(responses.loc[scored.index, "response"].tolist()).tolist())
    assert ((scored > 0) & (scored < 1)).all()  # probabilities of the refusal label, not the patterns' 0 and 1
    # a label by name, through --scorer-option; a model with no refusal label and none named is a bad input
    named, _ = _metrics(tmp_path, "--embedder", "none", "--refusal", f"hf:{folder}",
                        "--scorer-option", "refusal.refusal_label=refusal")  # fmt: skip
    assert named.exit_code == 0, named.output
    other = build_tiny_bert(tmp_path / "other-model", ["good", "bad"])
    bad, out = _metrics(tmp_path, "--embedder", "none", "--refusal", str(other))
    lines = [line for line in bad.output.splitlines() if "error" in line]  # transformers' progress bars aside
    assert bad.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: --refusal:"), bad.output
    assert "refusal one" in lines[0] and not out.exists()


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--refusal", "keywords"], "--refusal: unknown refusal detector 'keywords'"),
        (["--refusal", "off"], "--refusal off: the refusal scorer cannot be turned off"),
        (["--scorer-option", "refusal.batch_size=0"], "--scorer-option refusal.batch_size=0"),
        (["--scorer-option", "refusal.threshold=2"], "--scorer-option refusal.threshold=2"),
    ],
)
def test_bad_values_name_their_flag(tmp_path: Path, flags: list[str], named: str) -> None:
    result, out = _metrics(tmp_path, "--embedder", "none", *flags)
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {named}"), result.output
    assert not out.exists()  # stopped before scoring anything


def test_every_command_with_the_scoring_flags_has_refusal() -> None:
    assert {"refusal", "refusal_threshold"} <= set(SCORING_OPTIONS)
    runner = CliRunner()
    with_flags = []
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        text = runner.invoke(app, [name, "--help"], terminal_width=200).output
        if "--toxicity" in text:
            with_flags.append(name)
            assert "--refusal " in text and "--refusal-threshold" in text, name
    assert {"assess", "metrics"} <= set(with_flags), with_flags
