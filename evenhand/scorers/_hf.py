"""Hugging Face sequence classifiers (any model id or local path), shared by toxicity, sentiment and stereotype.

Loads with ``AutoTokenizer`` / ``AutoModelForSequenceClassification`` and returns the full label-probability
matrix, so callers choose which labels make up their score. Softmax for single-label models, sigmoid for
multi-label ones (``config.problem_type == "multi_label_classification"``), as the HF pipeline does.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._optional import require
from evenhand.errors import InputError
from evenhand.scorers._base import ModelUnavailableError, Scorer, resolve_device
from evenhand.scorers._onnx import (
    QuantizedClassifier,
    check_int8_device,
    check_quantize,
    int8_note,
    load_quantized,
    softmax_or_sigmoid,
)

_MAX_LENGTH = 512


def offline_hint(model: str, what: str, example: str) -> str:
    """The message shown when a hub model cannot be loaded (typically: no internet, not in the local cache)."""
    if model.startswith((".", "/", "~", "\\")) or (len(model) > 1 and model[1] == ":"):
        return f"could not load {what} model from the folder {model!r} (missing or incomplete); e.g. {example}"
    return (
        f"could not load {what} model {model!r}. If this machine is offline, download it on a connected machine "
        f"(`hf download {model} --local-dir ./{model.rsplit('/', 1)[-1]}`), copy the folder here and "
        f"pass its path, e.g. {example}"
    )


def weights_fingerprint(model: str) -> str:
    """For a local model file or folder, a short hash of its files' names, sizes and modification times ("" for a
    hub id), so that replaced weights at the same path get a new model cache entry and new score-cache keys."""
    path = os.path.expanduser(model)
    if os.path.isfile(path):
        entries = [path]
    elif os.path.isdir(path):
        entries = sorted(os.path.join(root, f) for root, _, files in os.walk(path) for f in files)
    else:
        return ""
    digest = hashlib.sha256()
    for entry in entries:
        st = os.stat(entry)
        digest.update(f"{os.path.relpath(entry, path)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def model_key(model: str, revision: str | None = None) -> str:
    """The model's identity in score-cache keys: the reference, plus the revision or the local weights' fingerprint."""
    fingerprint = weights_fingerprint(model)
    return model + (f"@{revision}" if revision else "") + (f"#{fingerprint}" if fingerprint else "")


def _load(model: str, device: str, revision: str | None) -> tuple[Any, Any]:
    return _load_cached(model, device, revision, weights_fingerprint(model))


@functools.lru_cache(maxsize=8)
def _load_cached(model: str, device: str, revision: str | None, fingerprint: str) -> tuple[Any, Any]:
    del fingerprint  # part of the cache key only: a replaced local model loads again
    transformers = require("transformers", feature="Hugging Face classifiers")
    require("torch", feature="Hugging Face classifiers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(model, revision=revision)
    net = transformers.AutoModelForSequenceClassification.from_pretrained(model, revision=revision)
    net.eval()
    net.to(device)
    return tokenizer, net


def _load_tokenizer_and_config(model: str, revision: str | None) -> tuple[Any, Any]:
    """What an int8 classifier needs on every run: no PyTorch weights (those are read only to export once)."""
    transformers = require("transformers", feature="Hugging Face classifiers")
    tokenizer = transformers.AutoTokenizer.from_pretrained(model, revision=revision)
    return tokenizer, transformers.AutoConfig.from_pretrained(model, revision=revision)


def _load_net_for_export(model: str, revision: str | None, pad_token_id: int | None) -> Any:
    transformers = require("transformers", feature="Hugging Face classifiers")
    require("torch", feature="Hugging Face classifiers")
    net = transformers.AutoModelForSequenceClassification.from_pretrained(model, revision=revision).eval()
    net.config.pad_token_id = pad_token_id  # GPT-style classifiers find the last token through it
    return net


class HFClassifier:
    """A loaded sequence classifier: ``predict_proba(texts) -> (n, n_labels)`` and ``labels`` (lower-cased)."""

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        device: str = "auto",
        revision: str | None = None,
        what: str = "classifier",
        example: str = "model='/path/to/model'",
        quantize: str | None = None,
    ) -> None:
        self.model_ref = str(model)
        self.model_key = model_key(self.model_ref, revision)
        self.quantize = check_quantize(quantize)
        if self.quantize is not None:
            check_int8_device(device)
        self.device = "cpu" if self.quantize is not None else resolve_device(device)
        self.model: Any = None
        try:
            if self.quantize is None:
                self.tokenizer, self.model = _load(self.model_ref, self.device, revision)
                config = self.model.config
            else:
                self.tokenizer, config = _load_tokenizer_and_config(self.model_ref, revision)
        except OSError as exc:
            raise ModelUnavailableError(f"{offline_hint(self.model_ref, what, example)} ({exc})") from exc
        self.labels: list[str] = [str(config.id2label[i]) for i in range(config.num_labels)]
        self.multi_label = getattr(config, "problem_type", None) == "multi_label_classification"
        # Tokenizers often report a huge model_max_length; the position table is the real limit.
        limits = [getattr(self.tokenizer, "model_max_length", None), getattr(config, "max_position_embeddings", None)]
        self.max_length = int(min([_MAX_LENGTH, *(x for x in limits if isinstance(x, int) and x > 0)]))
        if self.tokenizer.pad_token is None and self.tokenizer.eos_token is not None:  # GPT-style classifiers
            self.tokenizer.pad_token = self.tokenizer.eos_token
            config.pad_token_id = self.tokenizer.eos_token_id
        self.int8: QuantizedClassifier | None = None
        if self.quantize is not None:
            # a hub model's commit keeps a cached int8 file from outliving an update of the model
            commit = getattr(config, "_commit_hash", None) if not weights_fingerprint(self.model_ref) else None
            self.int8 = load_quantized(
                self.model_key + (f"^{commit}" if commit else ""),
                lambda texts: self._encode(texts, "pt"),
                lambda: _load_net_for_export(self.model_ref, revision, config.pad_token_id),
            )

    def _encode(self, texts: list[str], tensors: str) -> Any:
        return self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors=tensors)

    @property
    def precision_key(self) -> str:
        """What score-cache keys add for the precision: nothing at fp32, the int8 file's digest otherwise."""
        return "" if self.int8 is None else f"/int8:{self.int8.digest}"

    def quantization_note(self, idx: list[int]) -> str | None:
        """The settings' line of an int8 classifier scored on the labels ``idx`` (None at full precision)."""
        if self.int8 is None:
            return None
        multi_label = self.multi_label
        return int8_note(
            self.int8.probe_agreement(lambda logits: self.combine(softmax_or_sigmoid(logits, multi_label), idx))
        )

    def predict_proba(self, texts: list[str]) -> npt.NDArray[np.float64]:
        if self.int8 is not None:
            return softmax_or_sigmoid(self.int8.logits(self._encode(texts, "np")), self.multi_label)
        torch = require("torch")
        enc = self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt")
        enc = {k: v.to(self.model.device) for k, v in enc.items()}
        with torch.inference_mode():
            logits = self.model(**enc).logits.float()
        probs = torch.sigmoid(logits) if self.multi_label else torch.softmax(logits, dim=-1)
        return np.asarray(probs.cpu().numpy(), dtype=np.float64)

    def label_indices(self, wanted: str | Sequence[str] | None, defaults: Sequence[str], role: str) -> list[int]:
        """Positions of the ``wanted`` labels (case-insensitive); ``None`` tries ``defaults`` in order."""
        lower = [lab.lower() for lab in self.labels]
        if wanted is None:
            for cand in defaults:
                if cand.lower() in lower:
                    return [lower.index(cand.lower())]
            raise InputError(
                f"cannot tell which label of {self.model_ref!r} is the {role} one (labels: {self.labels}); "
                f"pass the label name(s) explicitly"
            )
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        if not names:
            raise InputError(f"no {role} label given")
        missing = [n for n in names if n.lower() not in lower]
        if missing:
            raise InputError(f"{role} label(s) {missing} not among the labels of {self.model_ref!r}: {self.labels}")
        return [lower.index(n.lower()) for n in names]

    def combine(self, probs: npt.NDArray[np.float64], idx: list[int]) -> npt.NDArray[np.float64]:
        """Probability of "any of these labels": the sum for softmax models (disjoint classes), max for multi-label."""
        sub = probs[:, idx]
        return np.asarray(sub.max(axis=1) if self.multi_label else np.minimum(sub.sum(axis=1), 1.0))


class HFLabelScorer(Scorer):
    """A Hugging Face sequence classifier scored as the probability of one or more of its labels.

    Subclasses set ``kind`` (cache-key prefix and wording of errors), ``role`` (what the label means) and
    ``default_labels`` (tried in order when no label is given). Several labels: softmax models add their
    probabilities, multi-label models take the maximum.
    """

    kind = "classifier"
    role = "target"
    default_labels: Sequence[str] = ()
    example = "model='/path/to/model'"

    def __init__(
        self,
        model: str | os.PathLike[str],
        *,
        label: str | Sequence[str] | None = None,
        device: str = "auto",
        batch_size: int = 32,
        revision: str | None = None,
        quantize: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(batch_size=batch_size, **options)
        self._clf = HFClassifier(
            model, device=device, revision=revision, what=self.kind, example=self.example, quantize=quantize
        )
        self._idx = self._clf.label_indices(label, self.default_labels, self.role)
        #: ``None`` at full precision; with ``quantize="int8"``, that and its agreement with fp32 (run settings).
        self.quantization_note = self._clf.quantization_note(self._idx)

    @property
    def labels(self) -> list[str]:
        return self._clf.labels

    @property
    def cache_key(self) -> str:
        picked = ",".join(self._clf.labels[i] for i in self._idx)
        return f"{self.kind}/hf/{self._clf.model_key}/{picked}{self._clf.precision_key}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        return self._clf.combine(self._clf.predict_proba(texts), self._idx)
