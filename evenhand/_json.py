"""Numbers and values as a JSON document holds them: the readers every layer shares.

:func:`finite_or_none` and :func:`float_or_none` read a value as a float or None (the results document, the verdict's
evidence, the report's readers); :func:`json_safe` makes a JSON-safe copy of a document (results.json, the red
team's, compare's). They live in the base layer so that the pipeline's rooms, the red team, the report and compare
share one definition without importing each other.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["finite_or_none", "float_or_none", "json_safe"]


def float_or_none(x: Any) -> float | None:
    """``x`` as a float, or None when it is missing, not a number or NaN (an infinity stays one)."""
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def finite_or_none(x: Any) -> float | None:
    """``x`` as a finite float, or None when it is missing, not a number, NaN or infinite (JSON has neither)."""
    f = float_or_none(x)
    return None if f is None or math.isinf(f) else f


def json_safe(obj: Any) -> Any:
    """JSON-safe copy: NaN/inf -> None, NumPy scalars/arrays -> Python, tuples -> lists, Paths -> str."""
    if isinstance(obj, Mapping):
        return {str(k): json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [json_safe(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [json_safe(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return finite_or_none(obj)
    if isinstance(obj, Path):
        return str(obj)
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)
