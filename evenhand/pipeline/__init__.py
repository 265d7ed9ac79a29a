"""The end-to-end assessment: ``assess()`` runs a plan and returns an :class:`Assessment`.

Its rooms, by job: ``responses/`` (where responses come from and how they are read), ``families/`` (what each
metric family computes), ``evidence/`` (records, intervals and tests as evidence), ``verdict/`` (findings per kind of
evidence), ``results/`` (the Assessment and its documents); the run and its stages at the top (``run``,
``from_config``, ``stages``).

Loaded lazily so that ``import evenhand.pipeline.responses.tables`` stays light.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "assess": "evenhand.pipeline.run",
    "Assessment": "evenhand.pipeline.results.assessment",
    "SCHEMA_VERSION": "evenhand.pipeline.results.assessment",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
