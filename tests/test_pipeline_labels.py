"""Ground-truth labels from files (JSONL nulls, CSV blanks, booleans) match the parser's labels."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import evenhand
from evenhand.pipeline.responses.parsers import label_text
from evenhand.pipeline.responses.tables import column, read_table

N = 24
FAST = {"store": None, "progress": False, "ci": None, "count": 1}
PROMPTS = [f"Applicant {i}: approve the loan? Answer yes or no." for i in range(N)]
GROUPS = ["a" if i % 2 else "b" for i in range(N)]
TRUTH = [1 if i % 3 else 0 for i in range(N)]
MISSING = {4, 9}  # prompts whose ground truth is null / blank


def llm(prompt: str) -> str:
    i = int(prompt.split()[1].rstrip(":"))
    return "Yes." if i % 5 else "No."


def expected_fnrd() -> float:
    """|FNR(a) - FNR(b)| by hand, over the prompts that have a ground-truth label."""
    pred = np.array([1 if i % 5 else 0 for i in range(N)])
    truth, grp = np.array(TRUTH), np.array(GROUPS)
    keep = np.array([i not in MISSING for i in range(N)])
    fnr = {g: float(np.mean(pred[keep & (grp == g) & (truth == 1)] == 0)) for g in ("a", "b")}
    return abs(fnr["a"] - fnr["b"])


def run(labels: list[Any], **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(
        task="classification",
        prompts=PROMPTS,
        client=llm,
        labels=labels,
        groups=GROUPS,
        person_level=True,
        attributes=["gender"],
        **FAST,
        **kwargs,
    )


def check(a: evenhand.Assessment) -> None:
    fnrd = a.metrics[a.metrics["metric"] == "FNRD"].iloc[0]
    assert fnrd["value"] == pytest.approx(expected_fnrd())
    assert all(not math.isnan(v) for v in a.metrics["value"])
    assert any(f"{len(MISSING)} of {N} responses have no ground-truth label" in c for c in a.caveats)
    assert set(a.responses["truth"].dropna()) == {"0", "1"}


def test_jsonl_labels_with_nulls(tmp_path: Path) -> None:
    path = tmp_path / "prompts.jsonl"
    rows = [{"prompt": p, "label": None if i in MISSING else TRUTH[i]} for i, p in enumerate(PROMPTS)]
    path.write_text("\n".join(json.dumps(r) for r in rows))
    labels = column(read_table(path), "label", source=str(path), role="labels")
    assert isinstance(labels[0], float)  # pandas reads 0/1 with nulls as floats: 1.0, nan
    check(run(labels))


def test_csv_labels_with_blanks(tmp_path: Path) -> None:
    path = tmp_path / "prompts.csv"
    lines = ["prompt,label"] + [f'"{p}",{"" if i in MISSING else TRUTH[i]}' for i, p in enumerate(PROMPTS)]
    path.write_text("\n".join(lines) + "\n")
    labels = column(read_table(path), "label", source=str(path), role="labels")
    assert "" in labels
    check(run(labels))


def test_bool_labels() -> None:
    labels: list[Any] = [None if i in MISSING else bool(t) for i, t in enumerate(TRUTH)]
    check(run(labels))
    check(run(labels, positive_label=True))  # a boolean positive label reads as "1" too


def test_positive_label_missing_from_truth_is_an_error() -> None:
    # "yes" is a word of the label "1", never a label: refused before anything is generated (check_label_reading)
    with pytest.raises(ValueError, match=r"classification\.positive_label: 'yes' is not a label"):
        run(TRUTH, positive_label="yes")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, None),
        (float("nan"), None),
        ("", None),
        ("  ", None),
        (True, "1"),
        (np.bool_(False), "0"),
        (1.0, "1"),
        (np.int64(0), "0"),
        (0.5, "0.5"),
        (" fraud ", "fraud"),
    ],
)
def test_label_text(value: Any, text: str | None) -> None:
    assert label_text(value) == text


@given(st.integers(-(10**6), 10**6))
def test_label_text_same_for_int_float_and_text(n: int) -> None:
    assert label_text(n) == label_text(float(n)) == label_text(str(n)) == str(n)
