"""Family evaluators: texts (+ scorers) in, every metric of a family plus response-level data out.

They sit on top of the functional metrics in :mod:`evenhand.metrics` (paper 3.1): :class:`ToxicityMetrics`,
:class:`StereotypeMetrics` and :class:`CounterfactualMetrics`. Loaded lazily (no torch on import).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "EvaluationResult": "evenhand.evaluators._result",
    "ToxicityMetrics": "evenhand.evaluators.toxicity",
    "StereotypeMetrics": "evenhand.evaluators.stereotype",
    "CounterfactualMetrics": "evenhand.evaluators.counterfactual",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'evenhand.evaluators' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
