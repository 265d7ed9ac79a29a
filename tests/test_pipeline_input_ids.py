"""Id columns are read as the text the file writes, in every format: a CSV's "007" was read as the integer 7, so
"007" and "7" were called one id (a prompts file failed as "sharing" it, a responses table merged two prompts into one
unit) and the prompt_key lost its zeros."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from evenhand.config import AssessConfig
from evenhand.pipeline.from_config import load_prompts, response_source
from evenhand.pipeline.responses.tables import read_table

FORMATS = [".csv", ".tsv", ".jsonl", ".json", ".parquet"]


def _write(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` in the file's format; a CSV writes "007" as 007, which is how a spreadsheet or a user writes it."""
    frame = pd.DataFrame(rows)
    if path.suffix in (".csv", ".tsv"):
        frame.to_csv(path, index=False, sep="\t" if path.suffix == ".tsv" else ",")
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows), encoding="utf-8")
    else:
        frame.to_parquet(path)


@pytest.mark.parametrize("suffix", FORMATS)
def test_an_id_column_is_read_as_its_text(suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"t{suffix}"
    _write(path, [{"id": "007", "n": "1"}, {"id": "7", "n": "2"}, {"id": "0042", "n": "3"}])
    assert read_table(path, text_columns=["id"])["id"].tolist() == ["007", "7", "0042"]
    assert read_table(path, text_columns=["not there"]).shape == (3, 2)  # a column the file lacks: nothing to do


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".parquet"])
def test_numeric_ids_are_read_as_they_are_written(suffix: str, tmp_path: Path) -> None:
    """A JSON number or a Parquet integer is its digits (an integer column with a gap was read as 7.0); a missing id
    stays missing (the check for it names the row)."""
    path = tmp_path / f"t{suffix}"
    _write(path, [{"id": 7, "n": 1}, {"id": None, "n": 2}, {"id": 12, "n": 3}])
    ids = read_table(path, text_columns=["id"])["id"].tolist()
    assert ids[0] == "7" and ids[2] == "12" and ids[1] is None
    assert read_table(path)["n"].tolist() == [1, 2, 3]  # other columns as before


def test_other_columns_are_read_as_before(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("id,n,x\n007,1,2.5\n", encoding="utf-8")
    table = read_table(path, text_columns=["id"])
    assert table["id"].tolist() == ["007"] and table["n"].tolist() == [1] and table["x"].tolist() == [2.5]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_prompt_ids_007_and_7_are_two_prompts(suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"p{suffix}"
    _write(path, [{"prompt": "Greet Mrs. Lee.", "id": "007"}, {"prompt": "Thank Mr. Lee.", "id": "7"}])
    config = AssessConfig.model_validate(
        {"use_case": {"task": "text_generation"}, "prompts": {"path": str(path), "id_column": "id"}}
    )
    prompts, per_prompt = load_prompts(config, None)  # was: "rows 1 and 2 share the id '7'"
    assert len(prompts) == 2 and per_prompt["prompt_key"] == ["007", "7"]


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_response_rows_of_ids_007_and_7_are_two_units(suffix: str, tmp_path: Path) -> None:
    path = tmp_path / f"r{suffix}"
    rows = [
        {"prompt_id": pid, "attribute": "gender", "group": group, "prompt": f"{title} Lee, case {pid}", "response": r}
        for pid in ("007", "7")
        for group, title, r in (("female", "Mrs.", "Fine."), ("male", "Mr.", "Good."))
    ]
    _write(path, rows)
    config = AssessConfig.model_validate(
        {"use_case": {"task": "text_generation", "attributes": ["gender"]}, "responses": {"path": str(path)}}
    )
    _, prompts, _ = response_source(config)
    assert len(prompts) == 2  # was 1: the two prompts' versions merged into one prompt's, as two samples
