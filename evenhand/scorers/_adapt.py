"""Any scorer-like object as a :class:`~evenhand.scorers._base.BatchedModel`, so that every engine can batch it.

Shared by the local and the Ray engine (:mod:`evenhand.scorers.engine`, :mod:`evenhand.scorers.ray_engine`); it sits
above the scorer classes and below both engines, so neither engine imports the other.
"""

from __future__ import annotations

from typing import Any

from evenhand.errors import InputTypeError
from evenhand.scorers._base import BatchedModel, CallableScorer
from evenhand.scorers.embedding import CallableEmbedder

__all__ = ["as_batched_model"]


def as_batched_model(scorer: Any) -> BatchedModel:
    """``scorer`` itself when it is a :class:`BatchedModel`; else a wrapper that de-duplicates and batches: an
    object with ``encode`` becomes a :class:`~evenhand.scorers.CallableEmbedder`, a callable (or an object with
    ``predict``) a :class:`~evenhand.scorers.CallableScorer`."""
    if isinstance(scorer, BatchedModel):
        return scorer
    if callable(getattr(scorer, "encode", None)):  # before callable(): a SentenceTransformer is callable too
        return CallableEmbedder(scorer)
    if callable(scorer) or callable(getattr(scorer, "predict", None)):
        return CallableScorer(scorer)
    raise InputTypeError(
        f"cannot score texts with {type(scorer).__name__}: pass an evenhand scorer or embedder, a callable "
        "f(list[str]) -> floats, or an object with encode(list[str]) -> (n, d)"
    )
