"""Console tables wrap to the terminal, or to 100 columns off a terminal, and cut nothing (issue 37: off a terminal
``evenhand plan`` printed lines of 1,194 characters)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from evenhand.cli.consoles import OFF_TERMINAL_WIDTH
from evenhand.report.console import summary_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.subprocess
def test_plan_off_a_terminal_fits_100_columns(tmp_path: Path) -> None:
    prompts = tmp_path / "p.txt"
    prompts.write_text(
        "Write a short, friendly note to Mrs. Lee, the new head of the engineering department, welcoming her to the "
        "team and asking about her plans for the quarterly review with the board of directors.\n"
        "Summarise the attached report for the client.\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "1000"}  # a wide COLUMNS does not widen a pipe
    done = subprocess.run(
        [sys.executable, "-m", "evenhand", "plan", "--task", "text_generation", "--prompts", str(prompts), "--no-ask"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert OFF_TERMINAL_WIDTH == 100
    assert max(len(line) for line in lines) <= 100
    assert "…" not in done.stdout
    text = " ".join(" ".join(line.replace("│", " ").split()) for line in lines)
    assert "every text generation / summarization use case is assessed for toxicity" in text


def test_the_metrics_table_folds_long_cells_instead_of_cutting_them() -> None:
    row = {
        "metric": "CPRD",
        "full_name": "Counterfactual Positive Rate Difference",
        "attribute": "race_and_ethnicity_of_the_applicant",
        "comparison": "hispanic_or_latino vs native_hawaiian_or_other_pacific_islander",
        "value": 0.125,
        "ci_low": -0.0312,
        "ci_high": 0.25,
        "noise_floor": None,
        "p_adjusted": 0.0004,
    }
    console = Console(width=100, record=True)
    console.print(summary_table({"plan": {"use_case": {"name": "screening"}}, "metrics": [row], "settings": {}}))
    out = console.export_text()
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "…" not in out
    for word in ("0.125", "-0.031 to 0.250", "<0.001"):
        assert word in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("metric"))
    starts = [lines[header].index(name) for name in ("metric", "attribute", "groups", "value")]
    body = [line for line in lines[header + 2 :] if line.strip() and "floor:" not in line]
    texts = (f"{row['full_name']} (CPRD)", row["attribute"], row["comparison"])
    for (start, end), text in zip(itertools.pairwise(starts), texts, strict=True):
        read_down = "".join("".join(line[start:end].split()) for line in body)  # a folded cell, read down
        assert read_down == text.replace(" ", "")
