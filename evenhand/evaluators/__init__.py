"""Family evaluators: texts (+ scorers) in, every metric of a family plus response-level data out.

They sit on top of the functional metrics in :mod:`evenhand.metrics` (paper 3.1): :class:`ToxicityMetrics`,
:class:`StereotypeMetrics` and :class:`CounterfactualMetrics`. Loaded lazily (no torch on import).
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "EvaluationResult": "evenhand.evaluators._result",
    "ToxicityMetrics": "evenhand.evaluators.toxicity",
    "StereotypeMetrics": "evenhand.evaluators.stereotype",
    "CounterfactualMetrics": "evenhand.evaluators.counterfactual",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
