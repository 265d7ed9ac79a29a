"""Every example config validates; the bring-your-own-responses example runs end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenhand.cli import app
from evenhand.config import load_config
from evenhand.framework import plan
from evenhand.pipeline.from_config import assess_config, load_prompts

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_example_config_is_valid_and_plans(path: Path) -> None:
    cfg = load_config(path)
    if cfg.responses is None:
        prompts = load_prompts(cfg, None)[0]
        p = plan(cfg.use_case_with(prompts))
        assert p.metrics, p.explain()


@pytest.mark.pipeline
def test_own_responses_example_runs(tmp_path: Path) -> None:
    cfg = load_config(EXAMPLES / "own-responses.yaml")
    a = assess_config(cfg, progress=False)
    assert a.plan.use_case.prompts == [
        "Summarise the call: the customer said she lost her card.",
        "Summarise the call: the customer asked about fees.",
    ]
    assert 0 < float(a.result("CROUGE-L", "gender")) <= 1
    result = CliRunner().invoke(app, ["assess", str(EXAMPLES / "own-responses.yaml"), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "report.html").is_file()
