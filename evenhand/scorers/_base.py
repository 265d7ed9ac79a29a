"""Base classes of every scorer and embedder, and device handling.

Every backend (toxicity, sentiment, stereotype, embeddings) subclasses :class:`BatchedModel` and implements only
``_run(texts) -> array`` on one batch of *distinct* texts; it also carries its ``batch_size``, its cache
(``cache`` and ``cache_key``), its progress setting and ``n_computed``. How texts reach ``_run`` (de-duplication,
cache lookup, longest-first batches, progress, scatter-back) is :mod:`evenhand.scorers.batching`, shared by every
scoring engine: ``scorer(texts)`` and ``embedder.encode(texts)`` run it in this process, as the default
:class:`~evenhand.scorers.engine.LocalEngine` does.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

# the device helpers live in the base layer (the generation clients use them too); re-exported for the scorers
from evenhand._devices import ACCELERATOR_BATCH_FACTOR as ACCELERATOR_BATCH_FACTOR
from evenhand._devices import check_device as check_device
from evenhand._devices import device_batch_size as device_batch_size
from evenhand._devices import resolve_device as resolve_device
from evenhand._validation import FloatArray
from evenhand.errors import InputError, InputTypeError
from evenhand.scorers import batching
from evenhand.scorers._cache import CacheLike, ScoreCache, open_cache


class ModelUnavailableError(InputError, OSError):
    """A model could not be loaded (typically: not downloaded and no internet). The message says how to fix it."""


def model_device(model: Any) -> str | None:
    """The device a built scorer or embedder runs its model on (None when it has no such setting)."""
    for owner in (model, getattr(model, "_clf", None)):
        device = getattr(owner, "device", None)
        if isinstance(device, str):
            return device
    return None


def adapt_batch_size(model: BatchedModel) -> None:
    """Give a scorer whose batch size the user did not set the batch size of its device (:func:`device_batch_size`);
    a stereotype category's batches are its parent classifier's."""
    target = getattr(model, "parent", model)
    device = model_device(target)
    if device is not None and isinstance(target, BatchedModel):
        target.batch_size = device_batch_size(device, target.batch_size)


def _check_batch_size(batch_size: int) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
        raise InputTypeError(f"batch_size must be a positive integer, got {batch_size!r}")
    if batch_size < 1:
        raise InputError(f"batch_size must be >= 1, got {batch_size}")
    return int(batch_size)


class BatchedModel(abc.ABC):
    """Base class of every scorer and embedder: subclasses implement :meth:`_run` on one batch of distinct texts.

    Parameters
    ----------
    batch_size
        Distinct texts per call to the backend.
    cache
        ``None``/``False`` (no cache), ``True`` (the default cache file, ``$EVENHAND_CACHE_DIR`` or
        ``~/.cache/evenhand/scores.sqlite``), a file path, or a :class:`ScoreCache`. Only backends with a stable
        identity (``cache_key``) use it; plain callables never do unless given a ``name``.
    progress
        ``True``/``False`` to force the ``rich`` progress bar on/off; ``None`` shows it on a terminal when more than
        :data:`~evenhand.scorers.batching.PROGRESS_MIN_TEXTS` texts must be computed.
    """

    #: Short description shown on the progress bar.
    description: str = "Scoring"
    #: True when ``_run`` returns one float per text (scorers); False for vector outputs (embedders, categories).
    scalar_output: bool = True
    #: How to build this scorer again, ``(factory, spec, options)``, when it was built from a config value (set by
    #: :func:`~evenhand.pipeline.families.base.build_scorer`); a GPU worker of the Ray engine rebuilds it from this.
    recipe: tuple[Callable[..., Any], Any, dict[str, Any]] | None = None

    def __init__(self, *, batch_size: int = 64, cache: CacheLike = None, progress: bool | None = None) -> None:
        self.batch_size = _check_batch_size(batch_size)
        self.cache: ScoreCache | None = open_cache(cache)
        if progress is not None and not isinstance(progress, bool):
            raise InputTypeError(f"progress must be True, False or None, got {progress!r}")
        self.progress = progress
        #: Number of distinct texts sent to the backend so far (not counting cache hits); handy in tests/benchmarks.
        self.n_computed = 0

    @property
    def cache_key(self) -> str | None:
        """Identity of the backend and its settings, used as the cache namespace; None disables caching."""
        return None

    @abc.abstractmethod
    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        """Compute outputs for a batch of distinct texts: shape (k,) for scalar outputs, (k, d) otherwise."""

    def _empty(self) -> FloatArray:
        return np.empty(0, dtype=np.float64)

    def _check_output(self, out: npt.NDArray[Any], n: int) -> FloatArray:
        arr = np.asarray(out, dtype=np.float64)
        if self.scalar_output:
            arr = arr.reshape(-1) if arr.ndim == 2 and arr.shape[1] == 1 else arr
            if arr.shape != (n,):
                raise ValueError(f"{self!r} returned shape {arr.shape} for {n} texts; expected ({n},)")
        elif arr.ndim != 2 or arr.shape[0] != n:
            raise ValueError(f"{self!r} returned shape {arr.shape} for {n} texts; expected ({n}, d)")
        if not np.isfinite(arr).all():
            raise ValueError(f"{self!r} returned NaN or infinite values")
        return arr

    def _compute(self, texts: Any) -> FloatArray:
        """The per-text outputs of :meth:`_run` for ``texts`` (any container of str), in input order, computed in
        this process as the local engine does (:func:`~evenhand.scorers.batching.batched_outputs`: de-duplication,
        cache, batches, progress)."""
        return batching.batched_outputs(self, texts)

    def _finish(self, values: FloatArray) -> FloatArray:
        """What the scorer returns, from the per-text outputs of :meth:`_run` in input order (default: those)."""
        return values

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.cache_key or ''})"


class Scorer(BatchedModel):
    """A text scorer: ``scorer(texts) -> np.ndarray`` of float64 in [0, 1], one value per text."""

    def __call__(self, texts: Any) -> FloatArray:
        """Score ``texts`` (list, tuple, NumPy array or pandas Series of str); returns float64 values in [0, 1]."""
        return self._finish(self._compute(texts))

    def _check_output(self, out: npt.NDArray[Any], n: int) -> FloatArray:
        arr = super()._check_output(out, n)
        # Sigmoid/softmax outputs can overshoot by one ulp; anything further out is a backend bug.
        if arr.size and (arr.min() < -1e-6 or arr.max() > 1 + 1e-6):
            raise ValueError(f"{self!r} returned scores outside [0, 1] (min {arr.min():.4g}, max {arr.max():.4g})")
        return np.clip(arr, 0.0, 1.0)


class CallableScorer(Scorer):
    """Wrap any ``f(list[str]) -> sequence of floats in [0, 1]`` (or an object with ``.predict``) as a scorer.

    The wrapper still de-duplicates and batches; it caches only when given a ``name`` (the cache needs a stable
    identity, and a function object has none across runs).
    """

    def __init__(self, fn: Any, *, name: str | None = None, device: str = "cpu", **options: Any) -> None:
        check_device(device)  # accepted for a uniform API; the callable places itself
        if not callable(fn):
            predict = getattr(fn, "predict", None)
            if not callable(predict):
                raise InputTypeError(
                    f"a custom scorer must be callable or have a .predict method, got {type(fn).__name__}"
                )
            fn = predict
        super().__init__(**options)
        self.fn = fn
        self.name = name

    @property
    def cache_key(self) -> str | None:
        return f"callable/{self.name}" if self.name else None

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        out = self.fn(texts)
        if hasattr(out, "to_numpy"):  # pandas
            out = out.to_numpy()
        return np.asarray(out, dtype=np.float64)

    def __repr__(self) -> str:
        return f"CallableScorer({self.name or getattr(self.fn, '__name__', type(self.fn).__name__)})"


class MaxScorer(Scorer):
    """Maximum across several scorers, per text (the paper's toolkit combines toxicity classifiers this way)."""

    def __init__(self, scorers: list[Scorer], **options: Any) -> None:
        if not scorers:
            raise InputError("MaxScorer needs at least one scorer")
        options.setdefault("batch_size", 1024)  # members batch on their own; keep their cost, not ours, visible
        super().__init__(**options)
        self.scorers = list(scorers)

    @property
    def cache_key(self) -> str | None:
        keys = [s.cache_key for s in self.scorers]
        return None if any(k is None for k in keys) else "max[" + ",".join(str(k) for k in keys) + "]"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        return np.max(np.vstack([s(texts) for s in self.scorers]), axis=0)

    def __repr__(self) -> str:
        return f"MaxScorer({self.scorers!r})"


def wrapped_chain(scorer: Any, depth: int = 16) -> Iterator[Any]:
    """``scorer``, the scorer it wraps (``inner``), the one that wraps, ...: how an identity-masked or
    worst-sentence scorer is asked what its model declares. Wrappers nest a few deep; bounded all the same."""
    for _ in range(depth):
        if scorer is None:
            return
        yield scorer
        scorer = getattr(scorer, "inner", None)


def as_path_if_local(spec: str) -> Path | None:
    """Return ``Path(spec)`` when it names an existing local directory or file, else None."""
    path = Path(spec).expanduser()
    return path if path.exists() else None


def build_scorer(
    spec: Any,
    options: dict[str, Any],
    *,
    what: str,
    default: Callable[..., Scorer],
    by_name: Callable[[str, dict[str, Any]], Scorer | None],
    hugging_face: Callable[..., Scorer],
    from_callable: Callable[..., Scorer],
    unknown: str,
) -> Scorer:
    """The one recipe of the ``get_*_scorer`` factories (toxicity, sentiment, refusal): ``None`` is ``default``; a
    built :class:`Scorer` is returned as it is (options cannot reach it); a name goes first to ``by_name`` (the kind's
    own names, ``None`` when it has none of that name), then ``"hf:<id>"``, a local model folder or an
    ``"owner/name"`` id to ``hugging_face``; a callable or an object with ``predict`` to ``from_callable``.
    ``unknown`` says what names the kind takes, after "unknown {what} {name!r}: "."""
    if "device" in options:
        check_device(options["device"])
    if spec is None:
        return default(**options)
    if isinstance(spec, Scorer):
        if options:
            raise InputError("options cannot be applied to an already-built scorer; pass them when building it")
        return spec
    if isinstance(spec, (str, os.PathLike)):
        name = os.fspath(spec)
        named = by_name(name, options)
        if named is not None:
            return named
        if name.startswith("hf:"):
            return hugging_face(name[3:], **options)
        if as_path_if_local(name) is not None or "/" in name:
            return hugging_face(name, **options)
        raise InputError(f"unknown {what} {name!r}: {unknown}")
    if callable(spec) or hasattr(spec, "predict"):
        return from_callable(spec, **options)
    raise InputTypeError(f"cannot build a {what} from {type(spec).__name__}")
