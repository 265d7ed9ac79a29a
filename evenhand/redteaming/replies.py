"""The replies a red team compares: each condition's response frame, with the scores the shifts read.

An assessment scores refusals only when a family needs them (the refusal parity metrics, which need counterfactual
pairs), and toxicity only for text tasks. A red team reads the toxic share and the refusal rate of every condition,
so a text use case without group words in its prompts would have no refusal scores and no RSS: here the replies of
every condition are scored for a missing column with the scorer the family builds (``settings.scoring``), over every
reply, the benign condition's included. A condition whose requests all failed gets the columns empty (NaN). A
classification use case's replies get their parsed ``label`` the same way where no family parsed them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.pipeline.responses.frame import ok_rows

#: The columns every condition's replies need for the shifts (the sentiment one only where a family scored it)
SCORED = ("toxicity", "refusal")
#: Tasks whose replies are free text: the only ones a toxicity or refusal score means anything for
TEXT_TASKS = ("text_generation", "summarization")


def scored_replies(
    frames: Mapping[str, pd.DataFrame], settings: RunSettings, task: str, engine: Any = None
) -> dict[str, pd.DataFrame]:
    """Each condition's frame (a copy where a column is added): for a text task, toxicity and refusal scores where
    an assessment left them out; every frame with the scored columns any frame has (NaN where not scored)."""
    out = {name: frame for name, frame in frames.items()}
    if task in TEXT_TASKS:
        missing = [c for c in SCORED if not all(c in f for f in out.values() if not ok_rows(f).empty)]
        if missing:
            out = _score_missing(out, missing, settings, engine)
    if task == "classification" and any("label" not in f for f in out.values() if not ok_rows(f).empty):
        out = _parse_missing_labels(out, settings)
    present = {c for f in out.values() for c in (*SCORED, "sentiment") if c in f}
    for name, frame in out.items():
        absent = [c for c in present if c not in frame]
        if absent:  # a condition with no reply: its columns exist, empty, so that the join keeps them
            out[name] = frame.assign(**{c: np.nan for c in absent})
    return out


def task_note(task: str) -> str | None:
    """Which adversarial rows a use case that is not free text cannot have, and why (None for a text task)."""
    if task in TEXT_TASKS:
        return None
    if task == "classification":
        return (
            "a classification use case's replies are labels: the toxicity and sentiment shifts (TSS, TGS, SGS) are "
            "for free text and stay undefined; its parsed decisions are compared by the positive rate shifts (PRS, "
            "and PGS per pair of groups of the counterfactual versions), its refusals (a refused version has no "
            "decision) by the refusal shifts (RSS, RGS) and its requests by the non-completion shifts (NCS, NGS); "
            "person-level group rates (DP, the error rates) are in each condition's own assessment under conditions/"
        )
    what = {"recommendation": "lists of items"}.get(task, "not free text")
    return (
        f"a {task} use case's replies are {what}: the toxicity and sentiment shifts are for text use cases, so its "
        "adversarial rows are the refusal shifts (RSS, RGS: a refused version has no answer to compare) and the "
        "non-completion shifts (NCS, NGS); how its answers changed is in each condition's own assessment under "
        "conditions/"
    )


def explain_unscored(records: list[Any], task: str) -> list[Any]:
    """``records`` with the score-based rows of a non-text use case undefined for the task's reason, not for a
    family that "did not run"."""
    from evenhand.metrics._result import undefined
    from evenhand.pipeline.evidence.records import MetricRecord
    from evenhand.registry import METRICS

    note = task_note(task)
    if note is None:
        return records
    out = []
    for rec in records:
        if not rec.result.is_defined and "scores (its family did not run" in (rec.result.reason or ""):
            rec = MetricRecord(rec.key, rec.attribute, rec.comparison, undefined(METRICS[rec.key].name, note))
        out.append(rec)
    return out


def _parse_missing_labels(frames: dict[str, pd.DataFrame], settings: RunSettings) -> dict[str, pd.DataFrame]:
    """Labels for a condition's replies where no family parsed them, with the parser the families build from the
    config (``classification.labels`` or ``pattern``), so that the decision shifts read every condition alike."""
    from evenhand.pipeline.responses.parsers import KeywordLabelParser, label_text

    cs = settings.classification
    parser = KeywordLabelParser(cs.labels, cs.pattern)
    out = dict(frames)
    for name, frame in frames.items():
        if "label" not in frame and not ok_rows(frame).empty:
            labels = [label_text(parser(r)) if isinstance(r, str) else None for r in frame["response"]]
            out[name] = frame.assign(label=pd.Series(labels, index=frame.index, dtype=object))
    return out


def _score_missing(
    frames: dict[str, pd.DataFrame], missing: list[str], settings: RunSettings, engine: Any
) -> dict[str, pd.DataFrame]:
    from evenhand.scorers import get_engine

    scorers = _scorers(missing, settings)
    scoring = get_engine(engine if engine is not None else settings.scoring.engine_spec())
    out: dict[str, pd.DataFrame] = {}
    try:
        start = getattr(scoring, "start", None)
        if callable(start):  # an engine that needs a cluster joins it first, as an assessment's does
            start()
        for name, frame in frames.items():
            added = {c: _scores(frame, scorers[c], scoring) for c in missing if c not in frame}
            out[name] = frame.assign(**added) if added else frame
    finally:
        if engine is None and callable(getattr(scoring, "close", None)):  # one this function started, e.g. Ray
            scoring.close()
    return out


def _scores(frame: pd.DataFrame, scorer: Any, engine: Any) -> np.ndarray[Any, Any]:
    rows = ok_rows(frame)
    values = np.full(len(frame), np.nan)
    if len(rows):
        found = np.asarray(engine.map(scorer, rows["response"].astype(str).tolist()), dtype=float)
        values[frame.index.get_indexer(rows.index)] = found
    return values


def _scorers(columns: list[str], settings: RunSettings) -> dict[str, Any]:
    """The scorers as the toxicity and refusal families build them (one recipe: the same cache, device, model)."""
    from evenhand.pipeline.families.base import run_scorer
    from evenhand.pipeline.families.toxicity import build_toxicity_scorer

    out: dict[str, Any] = {}
    if "toxicity" in columns:
        out["toxicity"] = build_toxicity_scorer(settings)[0]
    if "refusal" in columns:
        out["refusal"] = run_scorer("refusal", settings)
    return out


__all__ = ["SCORED", "TEXT_TASKS", "explain_unscored", "scored_replies", "task_note"]
