"""Toxicity scorers ``T: text -> [0, 1]`` (paper 3.1.1).

Backends:

* ``None`` / ``"profanity-check"`` (the offline default): the linear TF-IDF model shipped in
  ``alt-profanity-check``. Fast (> 100k short texts/s) but lexical: it over-scores benign statements that mention
  identities and charged domain words ("fraud", "kill the process"), and misses insults without a swear word
  (``docs/scorers.md``); the pipeline masks identity terms and scores the worst sentence for it;
* ``"evenhand-minilm-toxicity"`` (offline, opt-in, the ``models`` extra): the bundled MiniLM embedding and a lexical
  model trained by evenhand (:mod:`evenhand.scorers.toxicity_minilm`, ``docs/toxicity-scorer.md``). It reads
  insults without swear words, but on real LLM replies it flags short benign sentences ("*sigh*", "Hi Marcus,"),
  so it is not the default (``docs/toxicity-scorer.md``, "On real model replies");
* ``"detoxify"`` / ``"detoxify-original"``, ``"detoxify-unbiased"``, ``"detoxify-multilingual"``:
  Detoxify models; score = max over the model's labels. Checkpoints are unpickled with ``weights_only=True``
  (``trust_checkpoint=True`` to load one that needs more, only if you trust it as code).
* any Hugging Face text-classification model id or local path (``"hf:<id>"`` or a path), with a
  configurable toxic label;
* a list of specs: the per-text maximum across classifiers; any callable ``f(list[str]) -> floats``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._optional import require
from evenhand.errors import InputError
from evenhand.scorers._base import (
    CallableScorer,
    MaxScorer,
    ModelUnavailableError,
    Scorer,
    build_scorer,
    resolve_device,
)
from evenhand.scorers._hf import HFLabelScorer, weights_fingerprint
from evenhand.scorers._onnx import (
    QuantizedClassifier,
    check_int8_device,
    check_quantize,
    int8_note,
    load_quantized,
    softmax_or_sigmoid,
)
from evenhand.scorers.profanity import ProfanityCheckToxicity
from evenhand.scorers.toxicity_minilm import SPEC as MINILM_SPEC
from evenhand.scorers.toxicity_minilm import minilm_toxicity_scorer

DETOXIFY_MODELS = ("original", "unbiased", "multilingual", "original-small", "unbiased-small")
#: Labels tried, in order, when a Hugging Face toxicity model's toxic label is not given.
DEFAULT_TOXIC_LABELS = ("toxic", "toxicity", "hate", "offensive", "label_1", "1")


class DetoxifyToxicity(Scorer):
    """A Detoxify model; the score is the maximum over its labels (toxicity, insult, threat, ...).

    ``checkpoint`` (a local ``.ckpt``) and ``huggingface_config_path`` (a local folder with the base model's config
    and tokenizer) make loading fully offline; without them the checkpoint is downloaded once into the torch hub
    cache.

    A checkpoint is a pickle, and unpickling can run code. Detoxify itself loads with ``weights_only=False``; here
    the checkpoint (downloaded or local) is loaded with ``torch.load(weights_only=True)``, which accepts only
    tensors and plain containers (Detoxify's own checkpoints are exactly that), and the model is built from it with
    Detoxify's architecture code. A file holding anything else is refused with a ``ValueError``;
    ``trust_checkpoint=True`` loads it unrestricted (only for a file you trust as you trust code).

    ``quantize="int8"`` runs the model with ONNX Runtime dynamic int8 quantization on the CPU (``docs/int8.md``).
    """

    description = "Toxicity"

    def __init__(
        self,
        model_type: str = "original",
        *,
        checkpoint: str | os.PathLike[str] | None = None,
        huggingface_config_path: str | os.PathLike[str] | None = None,
        device: str = "auto",
        batch_size: int = 32,
        trust_checkpoint: bool = False,
        quantize: str | None = None,
        **options: Any,
    ) -> None:
        self.quantize = check_quantize(quantize)
        if self.quantize is not None:
            check_int8_device(device)
        if checkpoint is None and model_type not in DETOXIFY_MODELS:
            raise InputError(f"unknown Detoxify model {model_type!r}; choose one of {DETOXIFY_MODELS}")
        super().__init__(batch_size=batch_size, **options)
        detoxify = require("detoxify.detoxify", feature="Detoxify toxicity scoring")
        self.model_type = model_type
        self.checkpoint = None if checkpoint is None else str(checkpoint)
        self.device = "cpu" if self.quantize is not None else resolve_device(device)
        try:
            loaded = _load_detoxify_checkpoint(
                detoxify.MODEL_URLS.get(model_type) if self.checkpoint is None else None,
                self.checkpoint,
                self.device,
                trust=trust_checkpoint,
            )
            self._net, self._tokenizer = detoxify.get_model_and_tokenizer(
                **loaded["config"]["arch"]["args"],
                state_dict=loaded["state_dict"],
                huggingface_config_path=None if huggingface_config_path is None else str(huggingface_config_path),
            )
        except OSError as exc:  # URLError, HF offline errors, missing files
            raise ModelUnavailableError(
                f"could not load the Detoxify {model_type!r} model ({exc}). Offline, download the checkpoint on a "
                "connected machine (see detoxify.detoxify.MODEL_URLS) and pass "
                "get_toxicity_scorer('detoxify', checkpoint='/path/model.ckpt', "
                "huggingface_config_path='/path/to/base-model-folder')"
            ) from exc
        self._net.to(self.device)
        self._net.eval()
        self._int8: QuantizedClassifier | None = None
        #: ``None`` at full precision; with ``quantize="int8"``, that and its agreement with fp32 (run settings).
        self.quantization_note: str | None = None
        if self.quantize is not None:
            self._int8 = self._quantized(detoxify.MODEL_URLS.get(model_type), huggingface_config_path)
            self.quantization_note = int8_note(
                self._int8.probe_agreement(lambda logits: softmax_or_sigmoid(logits, True).max(axis=1))
            )

    def _quantized(self, url: str | None, config_path: str | os.PathLike[str] | None) -> QuantizedClassifier:
        weights = f"{self.checkpoint}#{weights_fingerprint(self.checkpoint)}" if self.checkpoint else str(url)
        net, tokenizer = self._net, self._tokenizer
        return load_quantized(
            f"detoxify/{weights}/{config_path or ''}",
            lambda texts: tokenizer(texts, return_tensors="pt", truncation=True, padding=True),
            lambda: net,
            forward=lambda model, inputs: model(**inputs)[0],
        )

    @property
    def cache_key(self) -> str:
        precision = "" if self._int8 is None else f"/int8:{self._int8.digest}"
        return f"toxicity/detoxify/{self.checkpoint or self.model_type}{precision}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        # Detoxify.predict, without its one-text squeeze: sigmoid per label, then the maximum over labels
        if self._int8 is not None:
            inputs = self._tokenizer(texts, return_tensors="np", truncation=True, padding=True)
            return softmax_or_sigmoid(self._int8.logits(inputs), True).max(axis=1)
        torch = require("torch")
        inputs = self._tokenizer(texts, return_tensors="pt", truncation=True, padding=True).to(self._net.device)
        with torch.inference_mode():
            logits = self._net(**inputs)[0]
        return np.asarray(torch.sigmoid(logits.float()).max(dim=1).values.cpu().numpy(), dtype=np.float64)


def _load_detoxify_checkpoint(url: str | None, path: str | None, device: str, *, trust: bool) -> dict[str, Any]:
    """A Detoxify checkpoint (``{"config": ..., "state_dict": ...}``) from ``path`` or downloaded from ``url``,
    unpickled with ``weights_only=True`` unless ``trust``."""
    import pickle

    torch = require("torch", feature="Detoxify toxicity scoring")
    where = path or url
    try:
        if path is not None:
            loaded = torch.load(path, map_location=device, weights_only=not trust)
        else:
            loaded = torch.hub.load_state_dict_from_url(url, map_location=device, weights_only=not trust)
    except pickle.UnpicklingError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        # torch names what it refused ("Trying to load unsupported GLOBAL posix.mkdir ..."): say that, not its preamble
        reason = next((line for line in lines if "global" in line.lower()), lines[0] if lines else type(exc).__name__)
        raise InputError(
            f"refusing to load the Detoxify checkpoint {where}: it holds more than tensors and plain containers, "
            f"and unpickling it could run code ({reason}). If you trust this file as you trust code, pass "
            "get_toxicity_scorer('detoxify', checkpoint=..., trust_checkpoint=True)"
        ) from None
    if not isinstance(loaded, dict) or "config" not in loaded or "state_dict" not in loaded:
        raise InputError(f"{where} is not a Detoxify checkpoint: it needs 'config' (as trained) and 'state_dict'")
    return loaded


class HFToxicity(HFLabelScorer):
    """Any Hugging Face sequence-classification model; score = probability of the toxic label(s).

    ``toxic_label`` may be one label or several (softmax models: their probabilities add up; multi-label models:
    the maximum). When omitted, the first of :data:`DEFAULT_TOXIC_LABELS` found among the model's labels is used.
    """

    description = "Toxicity"
    kind = "toxicity"
    role = "toxic"
    default_labels = DEFAULT_TOXIC_LABELS
    example = "get_toxicity_scorer('/path/to/model', toxic_label='toxic')"

    def __init__(
        self, model: str | os.PathLike[str], *, toxic_label: str | Sequence[str] | None = None, **options: Any
    ) -> None:
        super().__init__(model, label=toxic_label, **options)


def default_toxicity_scorer(**options: Any) -> Scorer:
    """The offline default: the lexical ``alt-profanity-check`` (no torch). ``evenhand-minilm-toxicity`` reads meaning
    better on held-out sentences but raises false alarms on short sentences of real LLM replies (a fair demo model
    got a toxicity concern), so it is opt-in (``docs/toxicity-scorer.md``, "On real model replies")."""
    return ProfanityCheckToxicity(**options)


def _detoxify_type(name: str) -> str | None:
    low = name.lower().replace("_", "-")
    if low == "detoxify":
        return "original"
    if low.startswith("detoxify-") and low[len("detoxify-") :] in DETOXIFY_MODELS:
        return low[len("detoxify-") :]
    return None


def get_toxicity_scorer(spec: Any = None, **options: Any) -> Scorer:
    """Return a toxicity scorer ``T(texts) -> float64 array in [0, 1]``.

    Parameters
    ----------
    spec
        ``None`` or ``"profanity-check"`` (the offline default, :func:`default_toxicity_scorer`: lexical, no
        torch); ``"evenhand-minilm-toxicity"`` (opt-in, the ``models`` extra: reads meaning with the bundled MiniLM,
        ``docs/toxicity-scorer.md``); ``"detoxify"``
        (= ``"detoxify-original"``), ``"detoxify-unbiased"``, ``"detoxify-multilingual"``; ``"hf:<model id>"``,
        a local model folder or any ``"owner/name"`` Hugging Face id; a list of these (per-text maximum across them);
        a callable
        ``f(list[str]) -> floats`` or an object with ``.predict``; or a :class:`Scorer` (returned as is).
    **options
        ``batch_size``, ``cache``, ``progress``; ``device`` for model backends; ``toxic_label`` for Hugging Face
        models; ``checkpoint`` and ``huggingface_config_path`` for Detoxify (checkpoints are loaded with
        ``torch.load(weights_only=True)``; ``trust_checkpoint=True`` lifts that for a file you trust as code);
        ``quantize="int8"`` for Hugging Face and Detoxify models (ONNX Runtime dynamic quantization on the CPU,
        opt-in: ``docs/int8.md``); ``name`` for callables (enables caching).

    Examples
    --------
    >>> from evenhand.scorers import get_toxicity_scorer
    >>> T = get_toxicity_scorer()
    >>> T(["Have a lovely day.", "You are a worthless idiot."]).round(2).tolist()  # doctest: +SKIP
    [0.04, 0.99]
    """
    if isinstance(spec, (list, tuple)):
        shared = {k: v for k, v in options.items() if k in ("cache", "progress")}
        return MaxScorer([get_toxicity_scorer(s, **options) for s in spec], **shared)
    return build_scorer(
        spec,
        options,
        what="toxicity scorer",
        default=default_toxicity_scorer,
        by_name=_toxicity_by_name,
        hugging_face=HFToxicity,
        from_callable=CallableScorer,
        unknown=f"use None/'profanity-check', {MINILM_SPEC!r}, 'detoxify[-original|-unbiased|-multilingual]', "
        "'hf:<model id>', a local model path, a list of these, or a callable",
    )


def _toxicity_by_name(name: str, options: dict[str, Any]) -> Scorer | None:
    """The lexical model, the MiniLM head or a Detoxify variant by name; None for any other name."""
    if name.lower() in ("profanity-check", "profanity_check", "default"):
        return ProfanityCheckToxicity(**options)
    if name.lower() == MINILM_SPEC:
        return minilm_toxicity_scorer(**options)
    kind = _detoxify_type(name)
    return DetoxifyToxicity(kind, **options) if kind is not None else None


__all__ = [
    "DetoxifyToxicity",
    "HFToxicity",
    "ModelUnavailableError",
    "ProfanityCheckToxicity",
    "default_toxicity_scorer",
    "get_toxicity_scorer",
]
