"""The fine-tuned MiniLM toxicity encoder on ONNX Runtime (issue 34, fifth pass): the fast path of
``evenhand-minilm-toxicity`` on the CPU.

The merged, truncated encoder of :mod:`evenhand.scorers.toxicity_encoder` with its mean pooling is exported once to
an ONNX file (:func:`evenhand.scorers._onnx.export_checked`: the TorchScript exporter, checked against PyTorch on
:data:`~evenhand.scorers._onnx.PROBE_TEXTS`) and cached beside the int8 classifiers (``$EVENHAND_CACHE_DIR/onnx``,
else ``~/.cache/evenhand/onnx``), in a folder keyed by the head's digest, the depth, the token limit and the
versions of torch and ONNX Runtime. Later runs load the file with ONNX Runtime alone: torch is not imported. Full
precision (float32, as the PyTorch path): the same tokens and the same arithmetic up to the order of float sums, so a
text's vector does not depend on the texts batched with it, and scores equal the PyTorch path's to about 1e-6
(measured on every labelled set: docs/toxicity-scorer.md, "What runs"). Why not int8 here: its "int8" paragraph.

Needs ``onnxruntime`` (and, for the one export, ``onnx`` and torch): the ``int8`` extra. Without it the scorer runs
the PyTorch encoder.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._files import staged_folder
from evenhand.scorers._onnx import artifact_digest, cpu_session, export_checked, input_order, onnx_cache_dir
from evenhand.scorers.toxicity_encoder import (
    MAX_TOKENS,
    FrozenArrays,
    ToxicityEncoder,
    base_tokenizer,
    mean_pool,
    tokenize,
)

#: Bump when the exported graph changes: files of an older recipe are then not reused.
RECIPE_VERSION = 1
#: Largest difference of a pooled vector's coordinates, ONNX against PyTorch, accepted at export (coordinates are of
#: order 0.1-1; float32 rounding gives about 1e-6).
EXPORT_TOLERANCE = 1e-4
OUTPUT = "pooled"
#: Texts per ONNX Runtime call, sorted by token count: on the shared 2 cores (load ~6), 2,000 table units took
#: 3.8-5.0 CPU s in batches of 32 against 5.7-5.8 s in the character-sorted batches of 64 before (benchmarks/RESULTS.md,
#: "Issue 34, sixth pass"); 16 and 64 were within the noise of 32.
BATCH_TOKENS_SORTED = 32


def numpy_tokenizer() -> Callable[[list[str]], dict[str, npt.NDArray[np.int64]]]:
    """``texts -> {input_ids, attention_mask, token_type_ids}`` as int64 arrays, from the bundled model's
    ``tokenizer.json`` with the Hugging Face ``tokenizers`` library alone: the same ids and masks as
    :func:`~evenhand.scorers.toxicity_encoder.tokenize` (padded to the batch's longest, cut at :data:`MAX_TOKENS`;
    tested), without loading transformers, which imports torch."""
    from evenhand._optional import require
    from evenhand.scorers.embedding import default_embedder_path

    tokenizers = require("tokenizers", feature="the MiniLM toxicity encoder")
    tokenizer = tokenizers.Tokenizer.from_file(str(Path(default_embedder_path()) / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    pad = tokenizer.padding or {}  # the file pads to a fixed 128: pad to the batch's longest instead
    tokenizer.enable_padding(pad_id=int(pad.get("pad_id", 0)), pad_token=str(pad.get("pad_token", "[PAD]")))

    def encode(texts: list[str]) -> dict[str, npt.NDArray[np.int64]]:
        rows = tokenizer.encode_batch(texts)
        return {
            "input_ids": np.array([row.ids for row in rows], dtype=np.int64),
            "attention_mask": np.array([row.attention_mask for row in rows], dtype=np.int64),
            "token_type_ids": np.array([row.type_ids for row in rows], dtype=np.int64),
        }

    return encode


def _pooled_forward(net: Any, inputs: Mapping[str, Any]) -> Any:
    return mean_pool(net(**inputs)[0], inputs["attention_mask"])


class OnnxToxicityEncoder:
    """``pooled(texts) -> (n, 384)`` float64 from the exported encoder (module docstring); ``export_difference`` is
    the largest coordinate difference from PyTorch measured at export."""

    def __init__(self, layers: int, arrays: FrozenArrays) -> None:
        from evenhand.scorers._onnx import PROBE_TEXTS

        identity = f"evenhand-minilm-toxicity encoder, head {arrays.digest}, {layers} layers, {MAX_TOKENS} tokens"
        folder = onnx_cache_dir() / f"toxicity-encoder-{artifact_digest(identity, RECIPE_VERSION)}"
        if not (folder / "meta.json").is_file():
            net = ToxicityEncoder(layers, arrays.mapping).model
            encoding = tokenize(base_tokenizer(), list(PROBE_TEXTS))
            names = input_order(net, encoding)
            # atomic: another process exporting the same encoder loses the race harmlessly
            with staged_folder(folder, lambda done: (done / "meta.json").is_file()) as work:
                reference = export_checked(
                    net, {name: encoding[name] for name in names}, _pooled_forward, work / "encoder.onnx",
                    output=OUTPUT, identity=identity, consequence="use runtime='torch'", tolerance=EXPORT_TOLERANCE,
                )  # fmt: skip
                exported = cpu_session(work / "encoder.onnx").run(
                    None, {name: encoding[name].numpy() for name in names}
                )[0]
                meta = {"identity": identity, "inputs": names, "width": int(reference.shape[1]),
                        "export_difference": float(np.abs(exported - reference).max())}  # fmt: skip
                (work / "meta.json").write_text(json.dumps(meta))
        meta = json.loads((folder / "meta.json").read_text())
        self.input_names: list[str] = list(meta["inputs"])
        self.width = int(meta["width"])
        self.export_difference = float(meta["export_difference"])
        self.session = cpu_session(folder / "encoder.onnx", spinning=False)
        self.folder = folder
        self.encode = numpy_tokenizer()

    def pooled(self, texts: list[str], batch_size: int = BATCH_TOKENS_SORTED) -> npt.NDArray[np.float64]:
        """Mean-pooled vectors in the input order. The texts are tokenised once, sorted by their number of tokens
        and run in batches of ``batch_size``, each cut to its own longest text: almost no padding runs through the
        encoder (a padded token costs as much as a real one; sorting by characters, as the PyTorch path does, left
        19% of the tokens padding on the paper-scale table). A text's vector does not depend on its batch (its
        padding is masked out; float sums in another order move it by about 1e-7)."""
        out = np.zeros((len(texts), self.width), dtype=np.float64)
        if not texts:
            return out
        encoded = self.encode(texts)  # padded to the longest text of the call
        lengths = encoded["attention_mask"].sum(axis=1)
        order = np.argsort(-lengths, kind="stable")
        for start in range(0, len(order), batch_size):
            rows = order[start : start + batch_size]
            width = int(lengths[rows].max())
            feed = {name: np.ascontiguousarray(encoded[name][rows, :width]) for name in self.input_names}
            out[rows] = self.session.run(None, feed)[0]
        return out


@functools.lru_cache(maxsize=4)
def cached_onnx_encoder(layers: int, arrays: FrozenArrays) -> OnnxToxicityEncoder:
    """One :class:`OnnxToxicityEncoder` per head (keyed by its digest) in a process."""
    return OnnxToxicityEncoder(layers, arrays)


__all__ = ["EXPORT_TOLERANCE", "RECIPE_VERSION", "OnnxToxicityEncoder", "cached_onnx_encoder", "numpy_tokenizer"]
