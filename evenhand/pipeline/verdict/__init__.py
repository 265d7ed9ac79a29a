"""Findings: what the records show, judged per kind of evidence (``kinds``), worded once with their qualifiers, with
the pair of replies that shows each best (``examples``) and the config's pass/fail rules (``thresholds``).

Loaded lazily, so that importing one room of the verdict does not import the others.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "Finding": "evenhand.pipeline.verdict.findings",
    "Verdict": "evenhand.pipeline.verdict.findings",
    "RULES": "evenhand.pipeline.verdict.findings",
    "SEVERITIES": "evenhand.pipeline.verdict.findings",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
