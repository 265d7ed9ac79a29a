"""results.json is written with its responses streamed from the frame in blocks: the same document as
``to_dict()`` (NaN -> null, NumPy -> Python, tuples -> lists), written atomically."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand.pipeline.results import document as document_module
from evenhand.pipeline.results.assessment import Assessment, load_results


@pytest.fixture(scope="module")
def small() -> Assessment:
    table = pd.DataFrame(
        {
            "prompt": [f"Applicant {i}: approve? Answer yes or no." for i in range(6)],
            "response": ["Yes.", "No.", "Yes.", "Yes.", "No.", "No."],
            "person": ["f", "f", "f", "m", "m", "m"],
        }
    )
    return evenhand.assess(
        task="classification", responses=table, groups=table["person"].tolist(), attributes=["gender"],
        person_level=True, prevalence_parity=True, n_resamples=20, progress=False,
    )  # fmt: skip


def _odd_values(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a column of every kind of value a response frame can carry."""
    frame = frame.copy()
    n = len(frame)

    def cycle(values: list[Any]) -> pd.Series:
        return pd.Series([values[i % len(values)] for i in range(n)], index=frame.index, dtype=object)

    frame["score"] = np.resize(np.array([0.25, np.nan, np.inf, -np.inf, 1e-300, 0.1 + 0.2]), n)
    frame["score32"] = np.resize(np.array([0.1, np.nan], dtype=np.float32), n)
    frame["count"] = np.resize(np.array([1, 2**40], dtype=np.int64), n)
    frame["flag"] = np.resize(np.array([True, False]), n)
    frame["nullable"] = pd.array(np.resize(np.array([3, 4], dtype=object), n).tolist(), dtype="Int64")
    if n:
        frame.loc[frame.index[0], "nullable"] = pd.NA
    frame["mixed"] = cycle([None, np.int64(7), np.float64("nan"), np.float32(0.5), 'Müller 😀 \u2028 "q" \\', True])
    frame["items"] = cycle([["a", ("b", 2)], np.array([1.5, np.nan]), (), {"k": np.int32(3), 4: [None]}, Path("x")])
    frame["when"] = pd.Timestamp("2026-11-25T12:00:00Z")
    frame["times"] = cycle([pd.NA, np.datetime64("2026-11-25T12:00"), np.timedelta64(3, "s"), pd.NaT, 1 + 2j])
    frame["category"] = pd.Categorical(cycle(["a", "b", None]))
    frame["text"] = pd.array(cycle(["x", None, "ü"]).tolist(), dtype="string")
    frame["_internal"] = 1  # underscore columns are not written
    return frame


def _expected(a: Assessment) -> Any:
    return json.loads(json.dumps(a.to_dict()))


def _with(a: Assessment, responses: pd.DataFrame) -> Assessment:
    return replace(a, responses=responses)


@pytest.mark.parametrize("block", [2, 5_000])
def test_streamed_file_equals_to_dict(small: Assessment, tmp_path: Path, block: int, monkeypatch: Any) -> None:
    monkeypatch.setattr(document_module, "RESPONSE_BLOCK", block)
    a = _with(small, _odd_values(small.responses))
    written = a.write_json(tmp_path / "results.json")
    assert written == tmp_path / "results.json"
    text = written.read_text(encoding="utf-8")
    assert "NaN" not in text and "Infinity" not in text and "_internal" not in text
    doc = json.loads(text)
    assert doc == _expected(a)
    assert list(doc) == list(a.to_dict())  # same keys in the same order, responses last
    assert list(doc["responses"][0]) == [c for c in a.responses.columns if not c.startswith("_")]
    assert doc["responses"][1]["score"] is None and doc["responses"][0]["mixed"] is None
    assert doc["responses"][4]["mixed"] == 'Müller 😀 \u2028 "q" \\'
    assert json.loads(a.to_json()) == doc  # the text form is the same document
    assert a.to_json(tmp_path / "again.json") == (tmp_path / "again.json").read_text(encoding="utf-8") == text
    assert load_results(written)["schema"] == "evenhand/assessment"


def test_empty_responses_and_no_responses(small: Assessment, tmp_path: Path) -> None:
    a = _with(small, _odd_values(small.responses).iloc[0:0])
    doc = json.loads(a.write_json(tmp_path / "results.json").read_text(encoding="utf-8"))
    assert doc["responses"] == [] and doc == _expected(a)
    without = json.loads(small.to_json(include_responses=False))
    assert "responses" not in without and without == json.loads(json.dumps(small.to_dict(include_responses=False)))


def test_a_failed_write_keeps_the_previous_file(small: Assessment, tmp_path: Path, monkeypatch: Any) -> None:
    path = tmp_path / "results.json"
    path.write_text("previous", encoding="utf-8")

    def broken(frame: pd.DataFrame, columns: Any) -> Any:
        yield ['{"a": 1}']
        raise RuntimeError("disk full")

    monkeypatch.setattr(document_module, "_response_lines", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        small.write_json(path)
    assert path.read_text(encoding="utf-8") == "previous"
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]  # no temporary file left
