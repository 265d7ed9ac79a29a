"""Scores from either precomputed values or a scorer, validated the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_array, as_float_array, check_same_length
from evenhand.metrics import MetricResult


def scores_for(texts: list[str], scores: Any, scorer: Any, name: str) -> npt.NDArray[np.float64]:
    """``scores`` when given (one per text), else ``scorer(texts)``; always a float array in [0, 1]."""
    if scores is None:
        if scorer is None:
            raise ValueError(f"pass {name} or a scorer")
        scores = scorer(texts)
    values = as_float_array(scores, name, bounds=(0.0, 1.0))
    check_same_length(texts=texts, **{name: values})
    return values


def classifier_metrics(
    values: npt.NDArray[np.float64],
    prompts: Any,
    threshold: float,
    data: pd.DataFrame,
    metrics: dict[str, MetricResult],
    family: tuple[tuple[str, Callable[..., MetricResult]], ...],
) -> None:
    """Add the fraction / expected-maximum / probability trio (paper 3.1.1, 3.1.2.2) to ``metrics``.

    ``family`` names the three functions in that order. Without ``prompts`` only the fraction is defined; with them
    a ``prompt`` column is added to ``data`` (the response-level table).
    """
    (fraction_name, fraction), (maximum_name, maximum), (probability_name, probability) = family
    if prompts is None:
        metrics[fraction_name] = fraction(values, threshold)
        return
    labels = as_array(prompts, "prompts")
    check_same_length(responses=values, prompts=labels)
    data.insert(0, "prompt", labels)
    metrics[fraction_name] = fraction(values, threshold, prompts=labels)
    metrics[maximum_name] = maximum(values, labels)
    metrics[probability_name] = probability(values, labels, threshold)
