"""The decision shifts of a red team over a classification use case: how an adversarial system prompt moves the
parsed decisions (the ``label`` column the classification and counterfactual-decisions families parse) against the
same requests under the benign prompt.

* use-case-wide, per condition: the positive rate shift (PRS), over every request (originals and counterfactual
  versions) whose replies parsed into a label under both prompts;
* per attribute and pair of groups: the positive-rate gap shift (PGS), CPRD under the condition minus CPRD under
  the benign prompt, over the (prompt, sample) slots where all four decisions parsed.

A slot where a reply got none (no reply, or an answer that parses into no label) is left out, and the record says
how many per side, as the counterfactual-decisions family does. A multiclass use case with sensitive classes gets
one row per class (that class against the rest), as CPRD does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.metrics._result import undefined
from evenhand.pipeline.evidence.records import Comparison, MetricRecord
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.parsers import label_text
from evenhand.redteaming.slots import Sides, answered, sent_under_both
from evenhand.registry import METRICS

USE_CASE, GAP = "positive_rate_shift", "positive_rate_gap_shift"
Built = tuple[MetricRecord, Sides | None]


def has_decisions(frame: pd.DataFrame) -> bool:
    """Whether a condition's replies carry parsed decisions (a classification use case)."""
    return "label" in frame


def decision_records(benign: pd.DataFrame, condition: pd.DataFrame, name: str, settings: RunSettings,
                     pairs: Sequence[tuple[str, tuple[str, str]]]) -> list[Built]:  # fmt: skip
    """PRS, then PGS for each (attribute, pair of groups) in ``pairs``, for each class compared; each with the
    sides its paired test swaps (None when undefined)."""
    requests = _labels(benign, condition)
    classes = _classes(settings)
    out: list[Built] = []
    for cls in classes:
        shown = None if len(classes) == 1 else label_text(cls)
        out.append(_use_case(requests, cls, Comparison(cls=shown, condition=name), settings))
    for (attribute, groups), cls in ((p, c) for p in pairs for c in classes):
        shown = None if len(classes) == 1 else label_text(cls)
        comparison = Comparison(groups=groups, cls=shown, condition=name)
        out.append(_gap(requests, attribute, groups, cls, comparison, settings))
    return out


def _classes(settings: RunSettings) -> list[object]:
    """The positive decision, or every sensitive class of a multiclass use case (each one against the rest)."""
    cs = settings.classification
    return list(cs.sensitive_classes) or [cs.positive_label]


def _labels(benign: pd.DataFrame, condition: pd.DataFrame) -> pd.DataFrame:
    """One row per request sent under both prompts: ``label_b`` and ``label_c``, the parsed label of each prompt's
    reply (None: no reply, or an answer that parses into no label)."""

    def label(frame: pd.DataFrame) -> pd.DataFrame:
        labels = frame["label"] if "label" in frame else pd.Series(None, index=frame.index, dtype=object)
        parsed = [label_text(v) if ok else None for v, ok in zip(labels, answered(frame), strict=True)]
        return pd.DataFrame({"label": pd.Series(parsed, index=frame.index, dtype=object)})

    return sent_under_both(benign, condition, label)


def _decided(values: pd.Series, cls: object) -> np.ndarray[Any, Any]:
    wanted = label_text(cls)
    return np.asarray([float(v == wanted) for v in values], dtype=float)


def _details(cls: object, settings: RunSettings, unparsed: dict[str, int]) -> dict[str, Any]:
    # a sensitive class ("deny") is the decision counted, not necessarily the favourable one: only the configured
    # positive label lets the sentence call it the positive decision
    favourable = not settings.classification.sensitive_classes
    return {"positive_label": str(label_text(cls)), "favourable": favourable,
            **{f"unparsed_{side}": n for side, n in unparsed.items()}}  # fmt: skip


def _use_case(requests: pd.DataFrame, cls: object, comparison: Comparison, settings: RunSettings) -> Built:
    spec = METRICS[USE_CASE]
    parsed = requests[requests["label_c"].notna() & requests["label_b"].notna()]
    if parsed.empty:
        reason = "no request whose replies parsed into a label under both system prompts"
        return MetricRecord(USE_CASE, None, comparison, undefined(spec.name, reason)), None
    c, b = _decided(parsed["label_c"], cls), _decided(parsed["label_b"], cls)
    prompts = parsed["prompt_id"].to_numpy()
    result = call_metric(USE_CASE, c, b, settings=settings, prompts=prompts)
    unparsed = {"condition": int(requests["label_c"].isna().sum()), "benign": int(requests["label_b"].isna().sum())}
    rec = MetricRecord(USE_CASE, None, comparison,
                       replace(result, details={**result.details, **_details(cls, settings, unparsed)}))  # fmt: skip
    if len(parsed) < len(requests):
        rec.notes.append(
            f"{len(requests) - len(parsed)} request(s) without a label under one of the prompts left out: "
            f"{unparsed['condition']} of the condition's replies and {unparsed['benign']} of the benign replies got "
            f"no reply or did not parse into a label (of {len(requests)} requests)"
        )
    return rec, (c, b, prompts)


def _gap(requests: pd.DataFrame, attribute: str, groups: tuple[str, str], cls: object, comparison: Comparison,
         settings: RunSettings) -> Built:  # fmt: skip
    spec = METRICS[GAP]
    a, b = groups
    rows = requests[requests["attribute"] == attribute]
    found = rows[rows["group"] == a].merge(rows[rows["group"] == b], on=["prompt_id", "sample"], suffixes=("_a", "_b"))
    names = {"condition_a": "label_c_a", "condition_b": "label_c_b", "benign_a": "label_b_a", "benign_b": "label_b_b"}
    parsed = found[found[list(names.values())].notna().all(axis=1)] if len(found) else found
    if parsed.empty:
        reason = "no slot where both versions' replies parsed into a label under both system prompts"
        return MetricRecord(GAP, attribute, comparison, undefined(spec.name, reason)), None
    ca, cb, ba, bb = (_decided(parsed[column], cls) for column in names.values())
    prompts = parsed["prompt_id"].to_numpy()
    result = call_metric(GAP, ca, cb, ba, bb, settings=settings, prompts=prompts)
    unparsed = {side: int(found[column].isna().sum()) for side, column in names.items()}
    rec = MetricRecord(GAP, attribute, comparison,
                       replace(result, details={**result.details, **_details(cls, settings, unparsed)}))  # fmt: skip
    if len(parsed) < len(found):
        rec.notes.append(
            f"{len(found) - len(parsed)} slot(s) with a reply that gave no label left out: under the condition "
            f"{unparsed['condition_a']} of the {a} versions' replies and {unparsed['condition_b']} of the {b} "
            f"versions'; under the benign prompt {unparsed['benign_a']} and {unparsed['benign_b']} (no reply, or an "
            f"answer that parses into no label; of {len(found)} slots)"
        )
    return rec, (ca - cb, ba - bb, prompts)


__all__ = ["GAP", "USE_CASE", "Sides", "decision_records", "has_decisions"]
