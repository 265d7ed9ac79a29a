"""``scoring.cache``: a persistent score cache for the run's scorers and embedder. A second run (or one after an
interruption) computes nothing it scored before and gives the same numbers; a bad path is one line naming the key."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.config import parse_config
from evenhand.scorers import get_sentiment_scorer, get_toxicity_scorer

PROMPTS = [f"Write to Mrs. Lee about loan number {i}." for i in range(6)]


def llm(prompt: str, **_: Any) -> str:
    return f"Dear customer, thank you for asking about {prompt[-12:]} We value you."


class TinyEmbedder:
    """A deterministic stand-in for a sentence embedder (counts what it is asked to encode)."""

    name = "tiny-test-embedder"

    def __init__(self) -> None:
        self.encoded = 0

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded += len(texts)
        return np.array([[len(t), t.count("e") + 1.0, 1.0] for t in texts])


def _assess(cache: Any) -> evenhand.Assessment:
    return evenhand.assess(task="text_generation", prompts=PROMPTS, client=llm, count=2, attributes=["gender"],
                           embedder=False, store=None, progress=False, n_resamples=200, cache=cache)  # fmt: skip


def _rows(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT namespace, COUNT(*) FROM scores GROUP BY namespace").fetchall())


@pytest.mark.pipeline
def test_a_second_run_scores_nothing_again_and_agrees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scores.sqlite"
    first = _assess(path)
    stored = _rows(path)
    assert any(k.startswith("toxicity/") for k in stored) and any(k.startswith("sentiment/") for k in stored)

    def refuse(self: Any, texts: list[str]) -> Any:
        raise AssertionError(f"{type(self).__name__} scored {len(texts)} texts again")

    for scorer in (get_toxicity_scorer(), get_sentiment_scorer()):  # the default scorers' own computation
        monkeypatch.setattr(type(scorer), "_run", refuse)
    second = _assess(path)
    assert _rows(path) == stored
    columns = ["metric", "attribute", "comparison", "value", "ci_low", "ci_high"]
    assert first.metrics[columns].equals(second.metrics[columns])
    monkeypatch.undo()
    without = _assess(None)
    assert without.metrics[columns].equals(first.metrics[columns])  # cached scores are the scores, bit for bit


def test_the_embedder_and_named_scorers_use_the_persistent_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "scores.sqlite"
    from evenhand.pipeline.families.base import build_scorer, score_cache
    from evenhand.pipeline.families.counterfactual import _assessment_embedder

    cache = score_cache(path)
    assert score_cache(str(path)) is cache  # one connection per file, shared by every scorer
    built: dict[str, Any] = {}
    monkeypatch.setattr(
        "evenhand.scorers.get_embedder", lambda spec, **options: built.update(options, spec=spec) or "embedder"
    )
    assert _assessment_embedder(None, None, cache) == "embedder" and built["cache"] is cache  # the bundled MiniLM
    assert _assessment_embedder("some/model", None, None) == "embedder"
    assert built["cache"] is not cache and built["cache"].path == Path(":memory:")  # no cache set: this run's only
    seen: dict[str, Any] = {}

    def factory(spec: Any, **options: Any) -> str:
        seen.update(options)
        return "built"

    build_scorer(factory, "some/model", key="scoring.embedder", device=None, cache=cache)
    assert seen["cache"] is cache
    seen.clear()
    build_scorer(factory, {"spec": "some/model", "cache": False}, key="k", device=None, cache=cache)
    assert seen["cache"] is False  # the scorer's own setting wins
    seen.clear()
    build_scorer(factory, TinyEmbedder(), key="k", device=None, cache=cache)
    assert "cache" not in seen  # a caller's object keeps its own cache settings


def test_config_paths_resolve_against_the_config_folder_and_bad_ones_are_exit_2(tmp_path: Path) -> None:
    base = {"use_case": {"name": "x", "task": "text_generation"}, "prompts": {"items": ["a"]}}
    config = parse_config({**base, "scoring": {"cache": "cache/scores.db"}}, source="c.yaml", base=tmp_path)
    assert config.scoring.cache == tmp_path / "cache" / "scores.db"
    assert parse_config({**base, "scoring": {"cache": True}}, source="c.yaml").scoring.cache is True

    (tmp_path / "responses.csv").write_text("prompt,response\nWrite to her.,Hello there.\nWrite to him.,Hi.\n")
    (tmp_path / "a_file").write_text("not a folder")
    cfg = tmp_path / "run.yaml"
    cfg.write_text(
        json.dumps(
            {
                "use_case": {"task": "text_generation", "attributes": ["gender"]},
                "responses": {"path": "responses.csv"},
                "scoring": {"cache": "a_file/scores.sqlite", "embedder": False},
            }
        )
    )
    result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out")])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "scoring.cache: cannot open" in lines[0] and "a_file" in lines[0], result.stderr


@pytest.mark.pipeline
def test_the_cli_flag_writes_and_reuses_the_cache(tmp_path: Path) -> None:
    rows = [(f"Write to Mrs. Lee about loan {i}.", f"Thank you, we will call about loan {i}.") for i in range(8)]
    lines = ["prompt,response", *(f'"{p}","{r}"' for p, r in rows)]
    (tmp_path / "responses.csv").write_text("\n".join(lines) + "\n")
    cache = tmp_path / "runs" / "scores.sqlite"
    outputs = []
    for run in ("a", "b"):
        args = ["metrics", str(tmp_path / "responses.csv"), "--embedder", "none", "--score-cache", str(cache)]
        result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / run), "--no-html"])
        assert result.exit_code == ExitCode.OK, result.output
        outputs.append((tmp_path / run / "metrics.csv").read_text())
        if run == "a":
            stored = _rows(cache)
    assert outputs[0] == outputs[1] and _rows(cache) == stored and stored
    off = CliRunner().invoke(
        app, ["metrics", str(tmp_path / "responses.csv"), "--embedder", "none", "--score-cache", "off",
              "--out", str(tmp_path / "c"), "--no-html"],
    )  # fmt: skip
    assert off.exit_code == ExitCode.OK and (tmp_path / "c" / "metrics.csv").read_text() == outputs[0]


@pytest.mark.parametrize(("value", "expected"), [("default", True), ("ON", True), ("off", None), ("none", None)])
def test_cache_words_mean_the_same_in_configs_flags_and_python(value: str, expected: Any) -> None:
    from evenhand.config import ScoringConfig

    assert ScoringConfig(cache=value).cache is expected
    assert ScoringConfig(cache="./default").cache == Path("default")  # a file of that name, given as a path
