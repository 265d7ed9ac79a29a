"""A log whose id column numbers requests, not prompts: every sample of one applicant got an id of its own, while the
sample column numbers them 0-4. Since every id became a prompt of its own (review9), those 5 samples were 5
independent units: a fair log gave a false concern in 15% of runs (bench_review10 'request ids'; 3% before). Such a
table is refused with one line naming the column and the fix; ids per person (with their samples) and a template
log's one row per person are read as before."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

runner = CliRunner()
SETTINGS = {"task": "classification", "attributes": ["gender"], "person_level": True, "embedder": None,
            "group_columns": {"gender": "applicant_gender"}, "label_parser": {"1": ["yes"], "0": ["no"]},
            "n_resamples": 50, "progress": False}  # fmt: skip


def _log(ids: str, persons: int = 20, samples: int = 3) -> pd.DataFrame:
    """``persons`` applicants, ``samples`` answers each; ``ids``: "request" (one per row), "person" or "none"."""
    rng = random.Random(0)
    rows = []
    for i in range(persons):
        for s in range(samples):
            row = {
                "prompt": f"Applicant {i} earns {30 + i}k. Approve the loan? Answer yes or no.",
                "sample": s,
                "response": rng.choice(["yes", "no"]),
                "applicant_gender": "female" if i % 2 else "male",
            }
            if ids != "none":
                row["prompt_id"] = f"req-{i * samples + s}" if ids == "request" else f"A{i}"
            rows.append(row)
    return pd.DataFrame(rows)


REFUSED = r"prompt_id.*sample.*an id of its own"


def test_ids_of_requests_beside_a_sample_column_are_refused_not_taken_for_prompts(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=REFUSED):
        evenhand.assess(responses=_log("request"), **SETTINGS)
    _log("request").to_csv(tmp_path / "log.csv", index=False)
    config = {"use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
              "responses": {"path": "log.csv"}, "classification": {"labels": {"1": ["yes"], "0": ["no"]},
                                                                   "group_columns": {"gender": "applicant_gender"}},
              "scoring": {"embedder": False}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = runner.invoke(app, ["assess", str(tmp_path / "c.yaml"), "--no-progress"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("evenhand: ")]
    assert len(lines) == 1 and "'prompt_id'" in lines[0] and "'sample'" in lines[0], lines


@pytest.mark.parametrize("ids", ["person", "none"])
def test_ids_of_persons_or_none_are_read_with_their_samples(ids: str) -> None:
    a = evenhand.assess(responses=_log(ids), **SETTINGS)
    assert a.responses["prompt_id"].nunique() == 20
    assert a.metrics.set_index("metric").loc["DP", "value"] == a.metrics.set_index("metric").loc["DP", "value"]


def test_a_person_whose_first_sample_was_not_logged_is_still_read() -> None:
    table = _log("person").iloc[1:]  # applicant 0's sample 0 failed and was not kept
    assert evenhand.assess(responses=table, **SETTINGS).responses["prompt_id"].nunique() == 20


def test_one_row_per_person_with_an_id_each_is_read() -> None:
    # a template log (review9): every row its own person and id, one sample each; one applicant's first try failed
    # and only the retry, sample 1, was logged
    table = _log("request", samples=1)
    table.loc[3, "sample"] = 1
    a = evenhand.assess(responses=table, **SETTINGS)
    assert a.responses["prompt_id"].nunique() == 20
