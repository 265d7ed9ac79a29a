"""Response sources: generated, own lists and own tables give one response frame; own files bring their prompts."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.config import RunSettings
from evenhand.framework import UseCase
from evenhand.pipeline.families import Needs
from evenhand.pipeline.responses.sources import Generated, OwnLists, OwnTable
from evenhand.pipeline.run import run

runner = CliRunner()
PROMPTS = ["Write to Mrs. Lee about her order.", "Thank the customer."]


def _counterfactual_only_file(tmp_path: Path) -> Path:
    """A recommendation file with counterfactual rows only: attribute, group and a prompt id link the versions."""
    rows = []
    for pid, topic in enumerate(["films", "songs", "books"]):
        for group, noun in (("female", "woman"), ("male", "man")):
            items = ["Alien", "Heat", "Up"] if group == "female" or pid else ["Alien", "Up", "Jaws"]
            rows.append(
                {
                    "prompt_id": f"p{pid}",
                    "attribute": "gender",
                    "group": group,
                    "prompt": f"Recommend 3 {topic} for a {noun}.",
                    "response": "\n".join(f"{i + 1}. {item}" for i, item in enumerate(items)),
                }
            )
    path = tmp_path / "recs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_counterfactual_only_recommendation_file_needs_no_prompts(tmp_path: Path) -> None:
    data = _counterfactual_only_file(tmp_path)
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"use_case: {{task: recommendation, attributes: [gender]}}\nresponses: {{path: {data.name}}}\n"
        "recommendation: {k: 3}\nstatistics: {n_resamples: 50}\n",
        encoding="utf-8",
    )
    out = tmp_path / "out"
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(out)])
    assert result.exit_code == ExitCode.OK, result.output
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["plan"]["use_case"]["n_prompts"] == 3  # one per prompt id: its first version
    jaccard = next(r for r in doc["metrics"] if r["metric"] == "Jaccard-K")
    assert jaccard["groups"] == ["female", "male"] and jaccard["value"] == (1.0 + 1.0 + 0.5) / 3
    plan = runner.invoke(app, ["plan", str(cfg)])  # the plan of such a config reads the same prompts
    assert plan.exit_code == 0 and "Jaccard-K" in plan.output, plan.output


def test_metrics_command_takes_a_counterfactual_only_file(tmp_path: Path) -> None:
    data = _counterfactual_only_file(tmp_path)
    out = tmp_path / "out"
    result = runner.invoke(app, ["metrics", str(data), "--task", "recommendation", "-a", "gender", "-o", str(out)])
    assert result.exit_code == ExitCode.OK, result.output
    assert "(from the responses file)" not in (out / "results.json").read_text(encoding="utf-8")


def test_every_source_gives_the_same_frame() -> None:
    uc = UseCase(task="text_generation", prompts=PROMPTS, attributes=["gender"])
    needs = Needs(originals=True, counterfactual=("gender",))
    texts = {p: f"reply to {p}" for p in [*PROMPTS, "Write to Mr. Lee about his order."]}
    generated = Generated(lambda p, **_: texts[p]).frame(uc, needs, RunSettings.model_validate(
        {"generation": {"count": 1, "store": None, "progress": False}}
    ))  # fmt: skip
    cf = {"gender": {"female": [texts[PROMPTS[0]]], "male": [texts["Write to Mr. Lee about his order."]]}}
    lists = OwnLists([texts[p] for p in PROMPTS], cf).frame(uc, needs, RunSettings())
    table = OwnTable(generated[["prompt_id", "attribute", "group", "sample", "prompt", "response"]])
    assert table.prompts(uc.attribute_specs) == PROMPTS
    from_table = table.frame(uc, needs, RunSettings())
    columns = ["prompt_id", "attribute", "group", "sample", "prompt", "response", "status"]

    def canonical(frame: pd.DataFrame) -> list[tuple[object, ...]]:
        return sorted(tuple(str(v) for v in row) for row in frame[columns].itertuples(index=False))

    assert canonical(generated) == canonical(lists) == canonical(from_table)


@pytest.mark.pipeline
def test_run_takes_a_source_and_settings() -> None:
    settings = RunSettings.model_validate({"statistics": {"ci": None}, "scoring": {"embedder": False}})
    uc = UseCase(task="text_generation", prompts=PROMPTS, attributes=["gender"])
    a = run(uc, OwnLists(["Thanks!", "Thanks!"], {"gender": {"female": ["Thanks!"], "male": ["Thanks!"]}}), settings)
    assert float(a.result("CROUGE-L", "gender")) == 1.0
    assert a.meta["model"] == {"provider": "user responses"}
    b = evenhand.assess(uc, responses=["Thanks!", "Thanks!"], settings=settings)  # the facade, same settings
    assert b.metrics["value"].equals(run(uc, OwnLists(["Thanks!", "Thanks!"]), settings).metrics["value"])
