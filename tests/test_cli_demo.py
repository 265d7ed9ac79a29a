"""The real offline demo on a tiny subset: bundled SmolLM2, real scorers, report written (slow)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.subprocess
@pytest.mark.model
def test_demo_runs_offline_on_two_prompts(tmp_path: Path) -> None:
    cli = Path(sys.executable).with_name("evenhand")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [str(cli), "demo", "--limit", "2", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=540,
        env=env,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    doc = json.loads((tmp_path / "results.json").read_text())
    assert doc["summary"]["n_ok"] == doc["summary"]["n_responses"] > 0
    metrics = {(m["metric"], m["attribute"]) for m in doc["metrics"]}
    assert {("TF", None), ("CROUGE-L", "gender"), ("SCSP", "gender")} <= metrics
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert "CROUGE-L" in done.stdout
    # its replies are cut at max_tokens 32: the answer-length rows are undefined, and the run says it is the demo's
    # choice (console, results.json and so the report), not something the newcomer did wrong
    rld = [m for m in doc["metrics"] if m["metric"] == "RLD"]
    assert rld and all(m["value"] is None and "token limit" in m["reason"] for m in rld)
    assert any(c.startswith("The demo cuts replies at 32 tokens") for c in doc["caveats"])
    assert "The demo cuts replies at 32 tokens" in " ".join(done.stdout.split())


def test_the_demo_says_why_its_replies_are_cut_only_when_they_were() -> None:
    from evenhand.cli.commands.demo import cut_replies_caveat
    from evenhand.pipeline.families.refusal_length import CUT_CAVEAT

    (said,) = cut_replies_caveat(["other", CUT_CAVEAT], max_tokens=32)
    assert "32 tokens" in said and "RLD" in said and "raise model.max_tokens" in said and "default 96" in said
    assert cut_replies_caveat(["other"], max_tokens=32) == []
