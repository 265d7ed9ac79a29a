"""The runs a comparison reads: a results file, a loaded results document or an :class:`Assessment`, each with its
response-level rows when they were kept (inside results.json, or a ``responses.csv`` / ``.parquet`` beside it)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from evenhand.errors import InputError, InputTypeError

#: Columns the paired recomputation needs in a responses table.
RESPONSE_COLUMNS = ("prompt_id", "attribute", "group", "sample", "prompt", "response", "status")
_SIBLINGS = ("responses.parquet", "responses.csv")


@dataclass
class Run:
    """One assessment in a comparison.

    Attributes:
        label: what the comparison calls it ("A", "B", or the user's label).
        source: where it came from (a path, or "a results dict" / "an Assessment").
        doc: its results document (schema ``evenhand/assessment``), without the response rows.
        responses: one row per response with every score, or None when the run kept no responses.
        responses_note: why ``responses`` is None (said wherever a paired difference is not possible).
    """

    label: str
    source: str
    doc: dict[str, Any]
    responses: pd.DataFrame | None
    responses_note: str = ""

    @property
    def task(self) -> str:
        return str(self.doc["plan"]["use_case"]["task"])

    @property
    def metric_rows(self) -> list[dict[str, Any]]:
        """The metric rows, each with its registry ``key`` and ``groups`` (schema 1.x files name the metric and the
        two groups only)."""
        return [_completed(row) for row in self.doc.get("metrics") or []]

    @property
    def findings(self) -> list[dict[str, Any]]:
        verdict = self.doc.get("verdict") or {}
        return list(verdict.get("findings") or [])

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.doc.get("settings") or {})

    def describe(self) -> dict[str, Any]:
        """What the comparison's header and JSON say about the run (its model description without secrets)."""
        from evenhand._redact import redact_mapping

        use_case = self.doc["plan"]["use_case"]
        return {
            "label": self.label,
            "source": self.source,
            "name": use_case.get("name"),
            "task": self.task,
            "model": redact_mapping(self.doc.get("model") or {}),  # a hand-made results dict may hold a key
            "created": self.doc.get("created"),
            "n_prompts": (self.doc.get("summary") or {}).get("n_prompts", use_case.get("n_prompts")),
            "n_responses": None if self.responses is None else len(self.responses),
            "responses_note": self.responses_note,
            "status": (self.doc.get("verdict") or {}).get("status"),
        }


def _completed(row: dict[str, Any]) -> dict[str, Any]:
    from evenhand.registry import metric

    out = dict(row)
    if not out.get("key"):
        try:
            out["key"] = metric(str(out["metric"])).key
        except KeyError:  # a metric of another version: compared on its stored values alone
            out["key"] = None
    if not out.get("groups") and out.get("group_a") is not None and out.get("group_b") is not None:
        out["groups"] = [out["group_a"], out["group_b"]]
    return out


def load_run(item: Any, label: str) -> Run:
    """A :class:`Run` from a path, a results dict or an :class:`~evenhand.pipeline.results.assessment.Assessment`.

    Raises FileNotFoundError / ValueError naming the file (or the label) when it is not a readable results file.
    """
    from evenhand.pipeline.results.assessment import Assessment
    from evenhand.pipeline.results.document import load_results
    from evenhand.pipeline.results.schema import check_results

    if isinstance(item, Assessment):
        frame = item.responses[[c for c in item.responses.columns if not str(c).startswith("_")]]
        return _run(label, "an Assessment", item.to_dict(include_responses=False), frame.copy())
    if isinstance(item, Mapping):
        doc = dict(item)
        if doc.get("schema") != "evenhand/assessment":
            raise InputError(f"run {label}: not an evenhand results document (schema 'evenhand/assessment' expected)")
        check_results(doc, f"run {label}")
        return _run(label, "a results dict", doc, _frame(doc.pop("responses", None)))
    if isinstance(item, (str, os.PathLike)):
        path = Path(item)
        doc = load_results(path)
        frame = _frame(doc.pop("responses", None))
        note = ""
        if frame is None:
            frame, note = _sibling_responses(path)
        return _run(label, str(path), doc, frame, note)
    raise InputTypeError(
        f"run {label}: expected a results path, a results dict or an Assessment, got {type(item).__name__}"
    )


def _run(label: str, source: str, doc: dict[str, Any], frame: pd.DataFrame | None, note: str = "") -> Run:
    if frame is not None:
        missing = [c for c in RESPONSE_COLUMNS if c not in frame.columns]
        if missing:
            frame, note = None, f"its responses lack the column(s) {', '.join(missing)}"
        else:
            frame = _normalised(frame)
    elif not note:
        note = "it kept no responses (output.include_responses was off)"
    return Run(label, source, doc, frame, note)


def _frame(rows: Any) -> pd.DataFrame | None:
    if isinstance(rows, pd.DataFrame):
        return rows
    if isinstance(rows, list) and rows:
        return pd.DataFrame(rows)
    return None


def _sibling_responses(path: Path) -> tuple[pd.DataFrame | None, str]:
    """The ``responses.csv`` / ``.parquet`` that ``evenhand assess`` writes beside results.json (output.responses)."""
    from evenhand.pipeline.responses.tables import read_table

    for name in _SIBLINGS:
        candidate = path.with_name(name)
        if candidate.is_file():
            try:
                return read_table(candidate), ""
            except ValueError as exc:
                return None, f"its responses file could not be read ({exc})"
    return None, "it kept no responses (none in the results file, no responses.csv beside it)"


def _normalised(frame: pd.DataFrame) -> pd.DataFrame:
    """Empty cells of a CSV (read as "") mean "no group" / "no attribute", as None does in JSON; prompt ids become
    text so that ids read from CSV (numbers) and from JSON compare equal."""
    out = frame.copy()
    for column in ("attribute", "group"):
        out[column] = [None if v is None or v == "" or (isinstance(v, float) and v != v) else v for v in out[column]]
    out["prompt_id"] = out["prompt_id"].astype(str)
    out["sample"] = pd.to_numeric(out["sample"], errors="coerce").fillna(0).astype(int)
    return out.reset_index(drop=True)


def check_compatible(runs: list[Run]) -> None:
    """Runs of different tasks measure different things: refuse them, naming the run that differs."""
    base = runs[0]
    for run in runs[1:]:
        if run.task != base.task:
            raise InputError(
                f"{run.source} assesses a {run.task.replace('_', ' ')} use case but {base.source} a "
                f"{base.task.replace('_', ' ')} one; only runs of the same task can be compared"
            )


def default_labels(n: int) -> list[str]:
    """A, B, C, ... (then run27, run28, ...)."""
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    return [letters[i] if i < len(letters) else f"run{i + 1}" for i in range(n)]
