"""The end-to-end assessment: ``assess()`` runs a plan and returns an :class:`Assessment`.

Loaded lazily so that ``import evenhand.pipeline.io`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY: dict[str, str] = {
    "assess": "evenhand.pipeline.run",
    "Assessment": "evenhand.pipeline.assessment",
    "SCHEMA_VERSION": "evenhand.pipeline.assessment",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    module_name = _LAZY.get(name)
    if module_name is None:
        raise AttributeError(f"module 'evenhand.pipeline' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
