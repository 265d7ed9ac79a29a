"""Fine-tuning of the bundled all-MiniLM-L6-v2 as a toxicity sentence classifier (issue 34, fourth build).

The encoder is cut to its first ``layers`` transformer layers (:func:`evenhand.scorers.toxicity_encoder.base_model`),
its weights are frozen, and every linear map of those layers gets a trainable low-rank update (LoRA, Hu et al. 2021:
:math:`W x + \\frac{\\alpha}{r} B A x`, :math:`B` starting at zero so training starts from the pretrained model); the
LayerNorms and a logistic head on the attention-masked mean of the last layer's token states are trained with it.
Loss: binary cross-entropy weighted as :meth:`evenhand_training.toxicity.TrainingSet.weights` weighs the texts
(class-balanced, benign texts heavier). Batches hold texts of similar length (less padding), in shuffled order.

:func:`fine_tune` returns only what the runtime needs (:func:`export`): the LoRA pairs with the scale folded into
``B`` and the LayerNorm values, as float32 (:func:`stored`: how the head file keeps them), and the head. The runtime
merges them into the pip-installed weights (:mod:`evenhand.scorers.toxicity_encoder`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

logger = logging.getLogger(__name__)

RANK = 8
ALPHA = 16.0
EPOCHS = 2
LEARNING_RATE = 1e-3
BATCH = 32
#: Training inputs are cut at this many tokens (a training text is a sentence or a short prompt; the runtime reads
#: up to :data:`evenhand.scorers.toxicity_encoder.MAX_TOKENS`).
TRAIN_TOKENS = 64
THREADS = 2


@dataclass
class FineTuned:
    """A fine-tuned encoder's deltas (``lora/...``, ``norm/...`` arrays), its layer count and the head."""

    layers: int
    arrays: dict[str, npt.NDArray[np.float32]]
    coef: npt.NDArray[np.float64]
    intercept: float
    seconds: float


def _lora_linear(torch: Any, base: Any, rank: int, alpha: float, generator: Any) -> Any:
    class LoRALinear(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.base = base
            self.scale = alpha / rank
            start = torch.randn(rank, base.in_features, generator=generator) / base.in_features**0.5
            self.a = torch.nn.Parameter(start)
            self.b = torch.nn.Parameter(torch.zeros(base.out_features, rank))

        def forward(self, x: Any) -> Any:
            return self.base(x) + (x @ self.a.T @ self.b.T) * self.scale

    return LoRALinear()


def _adapt(torch: Any, model: Any, rank: int, alpha: float, seed: int) -> dict[str, Any]:
    """Replace every ``nn.Linear`` inside the encoder layers by a LoRA wrapper; ``{weight name: wrapper}``."""
    generator = torch.Generator().manual_seed(seed)
    wrapped: dict[str, Any] = {}
    for name, module in list(model.named_modules()):
        if not name.startswith("encoder.layer."):
            continue
        for child_name, child in list(module.named_children()):
            if isinstance(child, torch.nn.Linear):
                wrapper = _lora_linear(torch, child, rank, alpha, generator)
                setattr(module, child_name, wrapper)
                wrapped[f"{name}.{child_name}.weight"] = wrapper
    return wrapped


def _batches(lengths: npt.NDArray[np.int_], batch: int, rng: np.random.Generator) -> list[npt.NDArray[np.int_]]:
    """Indices in batches of similar length (sorted with random ties), the batches in random order."""
    order = np.lexsort((rng.random(len(lengths)), lengths))
    chunks = [order[i : i + batch] for i in range(0, len(order), batch)]
    return [chunks[i] for i in rng.permutation(len(chunks))]


def fine_tune(
    texts: Sequence[str],
    labels: npt.NDArray[np.int_],
    weights: npt.NDArray[np.float64],
    *,
    layers: int,
    seed: int = 0,
    epochs: int = EPOCHS,
    rank: int = RANK,
    learning_rate: float = LEARNING_RATE,
) -> FineTuned:
    """Fine-tune (module docstring) on ``texts`` (already identity-masked) and return the deltas and head."""
    import torch

    from evenhand.scorers.toxicity_encoder import base_model, mean_pool

    torch.set_num_threads(THREADS)
    torch.manual_seed(seed)
    started = time.perf_counter()
    tokenizer, model = base_model(layers)
    for p in model.parameters():
        p.requires_grad_(False)
    wrapped = _adapt(torch, model, rank, ALPHA, seed)
    norms = {n: p for n, p in model.named_parameters() if "LayerNorm" in n}
    for p in norms.values():
        p.requires_grad_(True)
    head = torch.nn.Linear(int(model.config.hidden_size), 1)
    trainable = [p for p in model.parameters() if p.requires_grad] + list(head.parameters())
    optimiser = torch.optim.AdamW(trainable, lr=learning_rate, weight_decay=0.01)
    encoded = tokenizer(list(texts), truncation=True, max_length=TRAIN_TOKENS)
    ids = encoded["input_ids"]
    lengths = np.asarray([len(i) for i in ids])
    y = torch.tensor(np.asarray(labels), dtype=torch.float32)
    w = torch.tensor(np.asarray(weights) / np.mean(weights), dtype=torch.float32)
    rng = np.random.default_rng(seed)
    plan = [b for _ in range(epochs) for b in _batches(lengths, BATCH, rng)]
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=learning_rate, total_steps=len(plan),
                                                    pct_start=0.1)  # fmt: skip
    model.train()
    for step, rows in enumerate(plan):
        batch = tokenizer.pad({"input_ids": [ids[i] for i in rows]}, return_tensors="pt")
        hidden = model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])[0]
        logits = head(mean_pool(hidden, batch["attention_mask"])).squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, y[rows], weight=w[rows])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        scheduler.step()
        if step % 100 == 0:
            logger.info("layers %d step %d/%d loss %.4f (%.0f s)", layers, step, len(plan), loss.item(),
                        time.perf_counter() - started)  # fmt: skip
    arrays = export(wrapped, norms)
    coef = head.weight.detach().double().numpy().reshape(-1)
    return FineTuned(layers, arrays, coef, float(head.bias.detach()), time.perf_counter() - started)


def export(wrapped: dict[str, Any], norms: dict[str, Any]) -> dict[str, npt.NDArray[np.float32]]:
    """The ``lora/<weight>/A``, ``lora/<weight>/B`` (scale folded in) and ``norm/<name>`` arrays."""
    out: dict[str, npt.NDArray[np.float32]] = {}
    for name, wrapper in wrapped.items():
        out[f"lora/{name}/A"] = wrapper.a.detach().float().numpy().copy()
        out[f"lora/{name}/B"] = (wrapper.b.detach() * wrapper.scale).float().numpy().copy()
    for name, param in norms.items():
        out[f"norm/{name}"] = param.detach().float().numpy().copy()
    return out


def stored(arrays: dict[str, npt.NDArray[np.float32]]) -> dict[str, npt.NDArray[Any]]:
    """The arrays as the head file keeps them: LoRA pairs in float16 (their product is a small correction), the
    LayerNorms in float32 (float16 would round away their changes, which are near 1e-3)."""
    return {k: v.astype(np.float16 if k.startswith("lora/") else np.float32) for k, v in arrays.items()}


def head_logits(tuned: FineTuned, texts: Sequence[str], *, int8: bool = False) -> npt.NDArray[np.float64]:
    """The head's logits on ``texts`` (already masked) through the merged runtime encoder, as the scorer runs it
    (float16 storage included)."""
    from evenhand.scorers.toxicity_encoder import ToxicityEncoder

    encoder = ToxicityEncoder(tuned.layers, stored(tuned.arrays), int8=int8)
    return encoder.pooled(list(texts)) @ tuned.coef + tuned.intercept


__all__ = ["ALPHA", "EPOCHS", "LEARNING_RATE", "RANK", "FineTuned", "export", "fine_tune", "head_logits", "stored"]
