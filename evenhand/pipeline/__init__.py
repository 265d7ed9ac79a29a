"""The end-to-end assessment: ``assess()`` runs a plan and returns an :class:`Assessment`.

Loaded lazily so that ``import evenhand.pipeline.io`` stays light.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "assess": "evenhand.pipeline.run",
    "Assessment": "evenhand.pipeline.assessment",
    "SCHEMA_VERSION": "evenhand.pipeline.assessment",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
