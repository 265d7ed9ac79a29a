"""Scoring engines: how a scorer or embedder receives its texts.

A :class:`ScoringEngine` has one method, ``map(scorer, texts)``, that returns the scorer's outputs for ``texts``
in input order: scores ``(n,)`` or embeddings ``(n, d)``. :class:`LocalEngine` (the default) runs in this process,
exactly as every scorer's ``__call__`` and every embedder's ``encode`` do:

1. de-duplicates the input (LLM responses repeat a lot: 25 identical responses cost one inference);
2. looks the distinct texts up in the scorer's optional :class:`~evenhand.scorers.ScoreCache`;
3. sorts the remaining texts longest first (less padding for transformer backends, out-of-memory shows early) and
   cuts them into batches of the scorer's ``batch_size``, with a ``rich`` progress bar on long runs;
4. runs each batch through the scorer's pure per-batch function, stores the outputs in the cache, counts them in
   ``scorer.n_computed``, and scatters the results back to the input order.

The steps live in :mod:`evenhand.scorers.batching`, one function each (:func:`deduplicate`, :func:`cached_outputs`,
:func:`length_sorted_batches`, :func:`run_batch`, :func:`store_batch`, :func:`finish`; re-exported here), so that
another engine (e.g. one that sends the batches to remote workers, :class:`~evenhand.scorers.ray_engine.RayEngine`)
reuses them and replaces only the loop over batches. What a batch needs is the scorer itself:
``run_batch(scorer, batch)`` calls ``scorer._run(batch)`` and validates the output with ``scorer._check_output``,
nothing else.

>>> from evenhand.scorers import get_engine
>>> engine = get_engine()  # the local engine
>>> engine.map(lambda texts: [len(t) / 10 for t in texts], ["ab", "abcd", "ab"]).tolist()
[0.2, 0.4, 0.2]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from evenhand._validation import FloatArray
from evenhand.errors import InputError
from evenhand.scorers._adapt import as_batched_model
from evenhand.scorers._base import BatchedModel
from evenhand.scorers.batching import (
    allocate,
    batched_outputs,
    cached_outputs,
    deduplicate,
    finish,
    length_sorted_batches,
    progress_bar,
    run_batch,
    store_batch,
)

__all__ = [
    "DEFAULT_ENGINE",
    "LocalEngine",
    "ScoringEngine",
    "TextEmbedder",
    "TextScorer",
    "allocate",
    "as_batched_model",
    "cached_outputs",
    "deduplicate",
    "finish",
    "get_engine",
    "length_sorted_batches",
    "progress_bar",
    "run_batch",
    "store_batch",
]


# ---------------------------------------------------------------------------------------------------- protocols
@runtime_checkable
class TextScorer(Protocol):
    """Anything that scores texts: ``scorer(texts) -> float64 array (n,)``, one value per text in input order
    (every evenhand scorer; the factories in :mod:`evenhand.scorers` return one)."""

    def __call__(self, texts: list[str], /) -> npt.NDArray[np.float64]: ...


@runtime_checkable
class TextEmbedder(Protocol):
    """Anything that embeds texts: ``embedder.encode(texts) -> float64 array (n, d)``, one row per text."""

    def encode(self, texts: list[str], /) -> npt.NDArray[np.float64]: ...


@runtime_checkable
class ScoringEngine(Protocol):
    """How scorers receive texts: ``map(scorer, texts)`` returns the scorer's outputs for ``texts`` in input order,
    scores ``(n,)`` or embeddings ``(n, d)``, exactly as calling the scorer (or ``encode``) would.

    ``scorer`` is an evenhand scorer or embedder (a :class:`~evenhand.scorers._base.BatchedModel`), a plain callable
    ``f(list[str]) -> floats``, or an object with ``encode(list[str]) -> (n, d)``. An engine may also have a
    ``start()`` method (the Ray engine joins its cluster there), which the pipeline calls before generating.
    """

    def map(self, scorer: Any, texts: Sequence[str]) -> FloatArray: ...


# ---------------------------------------------------------------------------------------------------- engines
class LocalEngine:
    """Runs scorers in this process, one batch after the other (see the module docstring for the steps)."""

    def map(self, scorer: Any, texts: Sequence[str]) -> FloatArray:
        """``scorer``'s outputs for ``texts`` in input order: scores ``(n,)`` or embeddings ``(n, d)``."""
        model = as_batched_model(scorer)
        return finish(model, self.outputs(model, texts))

    def outputs(self, model: BatchedModel, texts: Any) -> FloatArray:
        """The backend's per-text outputs (``model._run``'s rows) for ``texts`` in input order, before
        :func:`finish`; e.g. a stereotype scorer's table of category scores."""
        return batched_outputs(model, texts)

    def __repr__(self) -> str:
        return "LocalEngine()"


#: The local engine: what ``get_engine()`` returns; every scorer's ``__call__`` and embedder's ``encode`` score
#: the same way (:func:`~evenhand.scorers.batching.batched_outputs`).
DEFAULT_ENGINE = LocalEngine()

_ACCEPTED = (
    "None or 'local' (this process), 'ray' or {'engine': 'ray', 'address': ..., <RayEngine options>} (a Ray "
    "cluster), or an engine object with a map(scorer, texts) method"
)


def get_engine(spec: str | Mapping[str, Any] | ScoringEngine | None = None) -> ScoringEngine:
    """Return a scoring engine.

    ``None`` or ``"local"``: the :class:`LocalEngine`. ``"ray"``: a :class:`~evenhand.scorers.ray_engine.RayEngine`
    on a Ray instance started on this machine; ``{"engine": "ray", "address": "auto" | "ray://host:port", ...}``:
    one with those options (``num_actors``, ``num_gpus_per_actor``, ...; ``{"engine": "local"}`` is the local
    engine). An object with a ``map`` method is returned as is. Anything else raises a ValueError naming the
    accepted values; ``"ray"`` without Ray installed raises :class:`~evenhand._optional.MissingDependencyError`.
    """
    if isinstance(spec, Mapping):
        options = dict(spec)
        name = options.pop("engine", "local")
        if not isinstance(name, str) or name.strip().lower() not in ("local", "ray"):
            raise InputError(f"unknown scoring engine {name!r}; use {_ACCEPTED}")
        if name.strip().lower() == "local":
            if any(v is not None for v in options.values()):
                raise InputError(f"{sorted(options)} apply to engine 'ray', not to the local engine")
            return DEFAULT_ENGINE
        from evenhand.scorers.ray_engine import RayEngine

        try:
            return RayEngine(**{k: v for k, v in options.items() if v is not None})
        except TypeError as exc:
            raise InputError(f"bad option for the Ray engine: {exc}") from None
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "local"):
        return DEFAULT_ENGINE
    if isinstance(spec, str) and spec.strip().lower() == "ray":
        from evenhand.scorers.ray_engine import RayEngine

        return RayEngine()
    if not isinstance(spec, str) and callable(getattr(spec, "map", None)):
        return spec
    raise InputError(f"unknown scoring engine {spec!r}; use {_ACCEPTED}")
