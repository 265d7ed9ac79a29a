"""Scores from either precomputed values or a scorer, validated the same way."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._validation import as_float_array, check_same_length


def scores_for(texts: list[str], scores: Any, scorer: Any, name: str) -> npt.NDArray[np.float64]:
    """``scores`` when given (one per text), else ``scorer(texts)``; always a float array in [0, 1]."""
    if scores is None:
        if scorer is None:
            raise ValueError(f"pass {name} or a scorer")
        scores = scorer(texts)
    values = as_float_array(scores, name, bounds=(0.0, 1.0))
    check_same_length(texts=texts, **{name: values})
    return values
