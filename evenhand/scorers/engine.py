"""Scoring engines: how a scorer or embedder receives its texts.

A :class:`ScoringEngine` has one method, ``map(scorer, texts)``, that returns the scorer's outputs for ``texts``
in input order: scores ``(n,)`` or embeddings ``(n, d)``. :class:`LocalEngine` (the default, used by every
scorer's ``__call__`` and every embedder's ``encode``) runs in this process:

1. de-duplicates the input (LLM responses repeat a lot: 25 identical responses cost one inference);
2. looks the distinct texts up in the scorer's optional :class:`~evenhand.scorers.ScoreCache`;
3. sorts the remaining texts longest first (less padding for transformer backends, out-of-memory shows early) and
   cuts them into batches of the scorer's ``batch_size``, with a ``rich`` progress bar on long runs;
4. runs each batch through the scorer's pure per-batch function, stores the outputs in the cache, counts them in
   ``scorer.n_computed``, and scatters the results back to the input order.

Each step is a module-level function (:func:`deduplicate`, :func:`cached_outputs`, :func:`length_sorted_batches`,
:func:`run_batch`, :func:`store_batch`, :func:`finish`) so that another engine (e.g. one that sends the batches to
remote workers, :class:`~evenhand.scorers.ray_engine.RayEngine`) reuses them and replaces only the loop over batches.
What a batch needs is the scorer itself:
``run_batch(scorer, batch)`` calls ``scorer._run(batch)`` and validates the output with ``scorer._check_output``,
nothing else.

>>> from evenhand.scorers import get_engine
>>> engine = get_engine()  # the local engine
>>> engine.map(lambda texts: [len(t) / 10 for t in texts], ["ab", "abcd", "ab"]).tolist()
[0.2, 0.4, 0.2]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from evenhand._validation import FloatArray, as_text_list
from evenhand.scorers._base import PROGRESS_MIN_TEXTS, BatchedModel, CallableScorer

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


# ---------------------------------------------------------------------------------------------------- the steps
def as_batched_model(scorer: Any) -> BatchedModel:
    """``scorer`` itself when it is a :class:`BatchedModel`; else a wrapper that de-duplicates and batches: an
    object with ``encode`` becomes a :class:`~evenhand.scorers.CallableEmbedder`, a callable (or an object with
    ``predict``) a :class:`~evenhand.scorers.CallableScorer`."""
    if isinstance(scorer, BatchedModel):
        return scorer
    if callable(getattr(scorer, "encode", None)):  # before callable(): a SentenceTransformer is callable too
        from evenhand.scorers.embedding import CallableEmbedder

        return CallableEmbedder(scorer)
    if callable(scorer) or callable(getattr(scorer, "predict", None)):
        return CallableScorer(scorer)
    raise TypeError(
        f"cannot score texts with {type(scorer).__name__}: pass an evenhand scorer or embedder, a callable "
        "f(list[str]) -> floats, or an object with encode(list[str]) -> (n, d)"
    )


def deduplicate(items: list[str]) -> tuple[npt.NDArray[np.intp], list[str]]:
    """``(codes, distinct)``: the distinct texts in order of first appearance and, per item, its index among them
    (``[distinct[c] for c in codes] == items``)."""
    # A dict, not pd.factorize: pandas < 3 hashes strings up to the first NUL, merging "" and "\x00".
    first_seen: dict[str, int] = {}
    codes = np.fromiter((first_seen.setdefault(t, len(first_seen)) for t in items), dtype=np.intp, count=len(items))
    return codes, list(first_seen)


def allocate(model: BatchedModel, n: int, example: npt.NDArray[Any] | float) -> FloatArray:
    """An empty output table for ``n`` texts, shaped like ``example`` (one text's output)."""
    if model.scalar_output:
        return np.empty(n, dtype=np.float64)
    return np.empty((n, int(np.size(example))), dtype=np.float64)


def cached_outputs(model: BatchedModel, distinct: list[str]) -> tuple[FloatArray | None, list[int]]:
    """``(values, todo)``: the output table with the cache hits filled in (None when nothing was found), and the
    indices of the distinct texts still to compute. No cache (or no ``cache_key``): everything is to compute."""
    todo = list(range(len(distinct)))
    key = model.cache_key if model.cache is not None else None
    if key is None or model.cache is None:
        return None, todo
    hits = model.cache.get_many(key, distinct)
    if not hits:
        return None, todo
    values = allocate(model, len(distinct), next(iter(hits.values())))
    for i, v in hits.items():
        values[i] = v[0] if model.scalar_output else v
    return values, [i for i in todo if i not in hits]


def length_sorted_batches(distinct: list[str], todo: list[int], batch_size: int) -> list[list[int]]:
    """``todo`` (indices into ``distinct``) sorted longest text first and cut into batches of ``batch_size``:
    transformer batches of similar length waste less padding, and running out of memory shows up early."""
    order = sorted(todo, key=lambda i: -len(distinct[i]))
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def run_batch(model: BatchedModel, batch: list[str]) -> FloatArray:
    """The pure per-batch function: ``model``'s outputs for ``batch`` (distinct texts), validated."""
    return model._check_output(model._run(batch), len(batch))


def store_batch(model: BatchedModel, batch: list[str], out: FloatArray) -> None:
    """Book-keeping after a batch: count it in ``model.n_computed`` and store it in ``model``'s cache."""
    model.n_computed += len(batch)
    key = model.cache_key if model.cache is not None else None
    if key is not None and model.cache is not None:
        model.cache.put_many(key, batch, out)


def finish(model: BatchedModel, values: FloatArray) -> FloatArray:
    """Turn the per-text backend outputs (in input order) into what the scorer returns (``model._finish``)."""
    return model._finish(values)


@contextmanager
def progress_bar(model: BatchedModel, total: int) -> Iterator[Callable[[int], None]]:
    """A ``rich`` progress bar for ``total`` texts, shown as ``model.progress`` says (None: on a terminal, from
    :data:`~evenhand.scorers._base.PROGRESS_MIN_TEXTS` texts); yields ``advance(n)``. Inside a pipeline stage the
    stage shows the progress (one display, with its ETA, and none when the run's progress is off)."""
    # looked up, not imported: the scorer layer does not depend on the pipeline, and no stage runs unless it is loaded
    stages = sys.modules.get("evenhand.pipeline.stages")
    stage = stages.running_stage() if stages is not None else None
    if stage is not None and model.progress is not False:
        with stage.work(total, f"{model.description} ({type(model).__name__})") as advance:
            yield advance
        return
    show = model.progress
    if show is None:
        show = total >= PROGRESS_MIN_TEXTS and sys.stderr.isatty()
    if not show or total == 0:
        yield lambda _n: None
        return
    from evenhand.generation.progress import TextProgress, in_notebook

    if in_notebook():  # a rich bar in Jupyter needs ipywidgets: plain lines on stderr instead
        text = TextProgress(total, f"{model.description} ({type(model).__name__})")
        try:
            yield lambda n: text.update(n, 0)
        finally:
            text.close()
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(f"{model.description} ({type(model).__name__})", total=total)
        yield lambda n: bar.advance(task, n)


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
        items = as_text_list(texts, allow_empty=True)
        if not items:
            return model._empty()
        codes, distinct = deduplicate(items)
        values, todo = cached_outputs(model, distinct)
        with progress_bar(model, len(todo)) as advance:
            for idx in length_sorted_batches(distinct, todo, model.batch_size):
                batch = [distinct[i] for i in idx]
                out = run_batch(model, batch)
                if values is None:
                    values = allocate(model, len(distinct), out[0])
                values[idx] = out
                store_batch(model, batch, out)
                advance(len(batch))
        assert values is not None
        return values[codes]

    def __repr__(self) -> str:
        return "LocalEngine()"


#: The engine behind every scorer's ``__call__`` and every embedder's ``encode``.
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
            raise ValueError(f"unknown scoring engine {name!r}; use {_ACCEPTED}")
        if name.strip().lower() == "local":
            if any(v is not None for v in options.values()):
                raise ValueError(f"{sorted(options)} apply to engine 'ray', not to the local engine")
            return DEFAULT_ENGINE
        from evenhand.scorers.ray_engine import RayEngine

        try:
            return RayEngine(**{k: v for k, v in options.items() if v is not None})
        except TypeError as exc:
            raise ValueError(f"bad option for the Ray engine: {exc}") from None
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "local"):
        return DEFAULT_ENGINE
    if isinstance(spec, str) and spec.strip().lower() == "ray":
        from evenhand.scorers.ray_engine import RayEngine

        return RayEngine()
    if not isinstance(spec, str) and callable(getattr(spec, "map", None)):
        return spec
    raise ValueError(f"unknown scoring engine {spec!r}; use {_ACCEPTED}")
