"""How texts reach a scorer, step by step: the batching that every scoring engine shares.

:func:`batched_outputs` is the whole path from a list of texts to the scorer's outputs in input order:

1. de-duplicate the input (LLM responses repeat a lot: 25 identical responses cost one inference);
2. look the distinct texts up in the scorer's optional :class:`~evenhand.scorers.ScoreCache`;
3. sort the remaining texts longest first (less padding for transformer backends, out-of-memory shows early) and
   cut them into batches of the scorer's ``batch_size``;
4. run the batches (the only step an engine chooses: :func:`run_here` in this process, with a progress display;
   the Ray engine on an actor pool), store each batch's outputs in the cache, count them in ``scorer.n_computed``,
   and scatter the results back to the input order.

Each step is also a function of its own (:func:`deduplicate`, :func:`cached_outputs`, :func:`length_sorted_batches`,
:func:`run_batch`, :func:`store_batch`, :func:`finish`). What a batch needs is the scorer itself:
``run_batch(scorer, batch)`` calls ``scorer._run(batch)`` and validates the output with ``scorer._check_output``,
nothing else. This module knows scorers only through :class:`Batchable` (what
:class:`~evenhand.scorers._base.BatchedModel` provides), so the scorers' base class can use it without a circle.

Progress: inside a pipeline stage the stage shows it (one display, with its ETA, and none when the run's progress is
off); the stage installs itself as the reporter of :mod:`evenhand._progress`, so this module never looks for the
pipeline.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from evenhand._progress import TextProgress, current_reporter, in_notebook
from evenhand._validation import FloatArray, as_text_list
from evenhand.scorers._cache import ScoreCache

__all__ = [
    "PROGRESS_MIN_TEXTS",
    "Batchable",
    "RunBatches",
    "allocate",
    "batched_outputs",
    "cached_outputs",
    "deduplicate",
    "finish",
    "length_sorted_batches",
    "progress_bar",
    "run_batch",
    "run_here",
    "store_batch",
]

#: Below this many texts to compute, the automatic progress bar stays hidden.
PROGRESS_MIN_TEXTS = 2_000


class Batchable(Protocol):
    """What the batching needs of a scorer or embedder (every :class:`~evenhand.scorers._base.BatchedModel`)."""

    description: str
    scalar_output: bool
    batch_size: int
    cache: ScoreCache | None
    progress: bool | None
    n_computed: int

    @property
    def cache_key(self) -> str | None: ...

    def _run(self, texts: list[str]) -> npt.NDArray[Any]: ...

    def _check_output(self, out: npt.NDArray[Any], n: int) -> FloatArray: ...

    def _empty(self) -> FloatArray: ...

    def _finish(self, values: FloatArray) -> FloatArray: ...


#: How an engine runs the batches: ``run(model, batches)`` yields each batch's outputs, in the order of ``batches``.
RunBatches = Callable[[Batchable, list[list[str]]], Iterable[FloatArray]]


# ---------------------------------------------------------------------------------------------------- the steps
def deduplicate(items: list[str]) -> tuple[npt.NDArray[np.intp], list[str]]:
    """``(codes, distinct)``: the distinct texts in order of first appearance and, per item, its index among them
    (``[distinct[c] for c in codes] == items``)."""
    # A dict, not pd.factorize: pandas < 3 hashes strings up to the first NUL, merging "" and "\x00".
    first_seen: dict[str, int] = {}
    codes = np.fromiter((first_seen.setdefault(t, len(first_seen)) for t in items), dtype=np.intp, count=len(items))
    return codes, list(first_seen)


def allocate(model: Batchable, n: int, example: npt.NDArray[Any] | float) -> FloatArray:
    """An empty output table for ``n`` texts, shaped like ``example`` (one text's output)."""
    if model.scalar_output:
        return np.empty(n, dtype=np.float64)
    return np.empty((n, int(np.size(example))), dtype=np.float64)


def cached_outputs(model: Batchable, distinct: list[str]) -> tuple[FloatArray | None, list[int]]:
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


def run_batch(model: Batchable, batch: list[str]) -> FloatArray:
    """The pure per-batch function: ``model``'s outputs for ``batch`` (distinct texts), validated."""
    return model._check_output(model._run(batch), len(batch))


def store_batch(model: Batchable, batch: list[str], out: FloatArray) -> None:
    """Book-keeping after a batch: count it in ``model.n_computed`` and store it in ``model``'s cache."""
    model.n_computed += len(batch)
    key = model.cache_key if model.cache is not None else None
    if key is not None and model.cache is not None:
        model.cache.put_many(key, batch, out)


def finish(model: Batchable, values: FloatArray) -> FloatArray:
    """Turn the per-text backend outputs (in input order) into what the scorer returns (``model._finish``)."""
    return model._finish(values)


@contextmanager
def progress_bar(model: Batchable, total: int) -> Iterator[Callable[[int], None]]:
    """Progress for ``total`` texts, shown as ``model.progress`` says (None: on a terminal, from
    :data:`PROGRESS_MIN_TEXTS` texts); yields ``advance(n)``. When a reporter is installed
    (:func:`evenhand._progress.reporting_to`, e.g. by a pipeline stage) the texts are counted there instead."""
    label = f"{model.description} ({type(model).__name__})"
    reporter = current_reporter()
    if reporter is not None and model.progress is not False:
        with reporter.work(total, label) as advance:
            yield advance
        return
    show = model.progress
    if show is None:
        show = total >= PROGRESS_MIN_TEXTS and sys.stderr.isatty()
    if not show or total == 0:
        yield lambda _n: None
        return
    if in_notebook():  # a rich bar in Jupyter needs ipywidgets: plain lines on stderr instead
        text = TextProgress(total, label)
        try:
            yield lambda n: text.update(n, 0)
        finally:
            text.close()
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda n: bar.advance(task, n)


# ---------------------------------------------------------------------------------------------------- the whole path
def run_here(model: Batchable, batches: list[list[str]]) -> Iterator[FloatArray]:
    """Run ``batches`` one after the other in this process, counting them on a progress display."""
    with progress_bar(model, sum(len(batch) for batch in batches)) as advance:
        for batch in batches:
            yield run_batch(model, batch)
            advance(len(batch))  # after the caller stored the batch: the display never runs ahead of the cache


def batched_outputs(model: Batchable, texts: Any, run: RunBatches = run_here) -> FloatArray:
    """The backend's per-text outputs (``model._run``'s rows) for ``texts`` in input order, before :func:`finish`:
    de-duplicated, cache hits reused, the rest in longest-first batches run by ``run``, then stored and scattered."""
    items = as_text_list(texts, allow_empty=True)
    if not items:
        return model._empty()
    codes, distinct = deduplicate(items)
    values, todo = cached_outputs(model, distinct)
    batches = length_sorted_batches(distinct, todo, model.batch_size)
    texts_of = [[distinct[i] for i in idx] for idx in batches]
    for idx, batch, out in zip(batches, texts_of, run(model, texts_of), strict=True):
        if values is None:
            values = allocate(model, len(distinct), out[0])
        values[idx] = out
        store_batch(model, batch, out)
    assert values is not None
    return values[codes]
