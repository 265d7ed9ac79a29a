"""Recomputing a metric row from a run's stored responses, with the registry's metric functions.

:func:`item_table` gathers what the row's metric reads (scores, counterfactual pairs, parsed labels or lists), one
line per item with its pairing key (prompt id, prompt text, sample) and prompt; :func:`recompute` calls the metric
on it with the run's own settings. How each is done is the metric's kind of evidence's
(:meth:`~evenhand.pipeline.verdict.kinds.base.EvidenceKind.stored_items` and ``recompute``): a metric whose inputs
the results do not keep (cosine similarity needs the embedder's vectors) gets a string saying why instead of a
table.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from evenhand.comparison.runs import Run
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.verdict.kinds import kind_of
from evenhand.pipeline.verdict.kinds.rates import prediction_inputs
from evenhand.registry import METRICS

__all__ = ["item_table", "prediction_inputs", "recompute", "reproduces"]

#: A recomputed value must match the stored one this closely, else the stored responses are not what was measured.
_TOLERANCE = 1e-6


def item_table(run: Run, row: dict[str, Any]) -> pd.DataFrame | str:
    """What the metric of ``row`` reads from ``run``'s responses, one line per item (a response or a counterfactual
    pair) with its pairing key ``_key`` and prompt ``prompt_id``; or a string saying why it cannot be rebuilt."""
    key = row.get("key")
    spec = METRICS.get(key) if key else None
    if spec is None:
        return f"{row.get('metric')} is not a metric this evenhand knows"
    if run.responses is None:
        return f"run {run.label} has no responses: {run.responses_note}"
    return kind_of(spec).stored_items(run, row, spec)


def recompute(run: Run, row: dict[str, Any], table: pd.DataFrame) -> MetricResult:
    """The metric of ``row`` on ``table`` (from :func:`item_table`), with the run's own settings (thresholds)."""
    spec = METRICS[str(row["key"])]
    return kind_of(spec).recompute(run, row, spec, table)


def reproduces(result: MetricResult, stored: Any) -> bool:
    """Whether a recomputed value equals the value the run stored (both undefined counts as equal)."""
    value = float(result.value)
    if stored is None:
        return math.isnan(value)
    return not math.isnan(value) and abs(value - float(stored)) <= _TOLERANCE * max(1.0, abs(float(stored)))
