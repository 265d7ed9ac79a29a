"""Where ``evenhand-minilm-toxicity``'s time goes on the paper-scale table, step by step, and how far its screen
could go (issue 34, sixth pass).

    PYTHONPATH=$PWD python benchmarks/bench_toxicity_profile.py TABLE.parquet [--sample N] [--headroom]

Profile: the table's replies (all, or ``N`` drawn with seed 0) through the steps the pipeline's scorer takes
(worst unit, identity-masked): distinct replies, units (``split_units``, 4 words), distinct units, distinct masked
units, units through the screen (and which cheap model let each through), tokens through the encoder (real and as
padded), and wall and CPU seconds (user + system of this process, all threads) of each step, then of the whole
scorer chain, with the load average before and after.

``--headroom``: every unit of the labelled sets (``toxicity_sets``: each split's benign sentences, insults and polite
replies) and of the table (sample) scored without the screen, and for each cheap score (the screen's max of the
lexical model and profanity-check, either alone) and threshold: how many units the full model flags that the screen
would drop, per set, and the share of table units that would reach the encoder. A figure, not a choice: the screen's
rule (``evenhand_training.toxicity_eval``) is what sets the shipped threshold.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd

THRESHOLDS = (0.0238, 0.03, 0.04, 0.05, 0.0635, 0.08, 0.1, 0.15, 0.2)


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@contextmanager
def timed(into: dict[str, Any], name: str) -> Iterator[None]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    yield
    into[name] = {"wall": round(time.perf_counter() - wall, 2), "cpu": round(cpu_seconds() - cpu, 2)}


def replies(table: str, sample: int | None) -> list[str]:
    texts = pd.read_parquet(table)["response"].astype(str).tolist()
    if sample:
        texts = [texts[i] for i in sorted(np.random.default_rng(0).permutation(len(texts))[:sample])]
    return texts


def profile(texts: list[str]) -> dict[str, Any]:
    from evenhand.scorers.masking import IdentityMaskedScorer, mask_identity
    from evenhand.scorers.sentences import WorstSentenceScorer, split_units
    from evenhand.scorers.toxicity_encoder import MAX_TOKENS
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity, _sigmoid, char_features

    scorer = MiniLMToxicity()
    encoder = scorer.encoder()  # loaded (and exported, once a machine) before any clock
    scorer.screen_logits(["warm up"])
    chars, words = scorer._screen_model
    steps: dict[str, Any] = {}
    out: dict[str, Any] = {"load_before": os.getloadavg(), "replies": len(texts)}
    distinct = list(dict.fromkeys(texts))
    with timed(steps, "split_units"):
        units = [u for t in distinct for u in split_units(t, scorer.min_sentence_words)]
    unique = list(dict.fromkeys(units))
    with timed(steps, "mask_identity"):
        masked = list(dict.fromkeys(mask_identity(unique)))
    with timed(steps, "screen: character n-grams"):
        char_x = char_features(chars, masked)
    with timed(steps, "screen: word n-grams"):
        word_x = words.transform(masked)
    with timed(steps, "screen: profanity-check"):
        profane = np.asarray(scorer._profanity(masked), dtype=np.float64)
    weights = np.asarray(scorer.head["screen_weights"], dtype=np.float64)
    lexical = _sigmoid(char_x @ weights[0] + word_x @ weights[1] + float(scorer.head["screen_intercept"]))
    threshold = float(scorer.head["screen_threshold"])
    passed = [masked[i] for i in np.flatnonzero(np.maximum(lexical, profane) >= threshold)]
    with timed(steps, "tokenise (all passed units, once)"):
        encoded = encoder.encode(passed)
    lengths = encoded["attention_mask"].sum(axis=1)
    with timed(steps, "ONNX Runtime forward (encoder.pooled, tokenising included)"):
        encoder.pooled(passed)
    chain = WorstSentenceScorer(IdentityMaskedScorer(MiniLMToxicity()))
    with timed(steps, "whole scorer chain (as the pipeline builds it)"):
        scores = np.asarray(chain(texts))
    out |= {
        "distinct_replies": len(distinct), "units": len(units), "distinct_units": len(unique),
        "distinct_masked_units": len(masked), "screen_threshold": threshold, "through_screen": len(passed),
        "let_through_by_lexical": int((lexical >= threshold).sum()),
        "let_through_by_profanity_check": int((profane >= threshold).sum()),
        "tokens": int(lengths.sum()), "tokens_mean_max": [round(float(lengths.mean()), 1), int(lengths.max())],
        "at_token_cap": int((lengths >= MAX_TOKENS).sum()),
        "flagged_share": round(float((scores >= 0.5).mean()), 4), "steps": steps, "load_after": os.getloadavg(),
    }  # fmt: skip
    return out


def headroom(texts: list[str]) -> dict[str, Any]:
    from evenhand.scorers import toxicity_sets as ts
    from evenhand.scorers.masking import mask_identity
    from evenhand.scorers.sentences import split_units
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity, _sigmoid

    def units(items: list[str]) -> list[str]:
        return list(dict.fromkeys(mask_identity(list(dict.fromkeys(u for t in items for u in split_units(t, 4))))))

    sets = {"table": units(texts)}
    for split in ts.SPLITS:
        sets[f"{split} benign"] = units(ts.benign_sentences(split)["text"].tolist())
        sets[f"{split} insults"] = units(ts.insults(split)["text"].tolist())
        sets[f"{split} polite replies"] = units(ts.polite_replies(split)["reply"].tolist())
    every = list(dict.fromkeys(u for v in sets.values() for u in v))
    scorer = MiniLMToxicity(screen=False)
    lexical = _sigmoid(scorer.screen_logits(every))
    profane = np.asarray(scorer._profanity(every), dtype=np.float64)
    flagged = np.asarray(scorer(every)) >= 0.5
    where = {u: i for i, u in enumerate(every)}
    out: dict[str, Any] = {}
    for name, cheap in {"max": np.maximum(lexical, profane), "lexical": lexical, "profanity-check": profane}.items():
        for threshold in THRESHOLDS:
            lost = {}
            for set_name, members in sets.items():
                rows = np.array([where[u] for u in members])
                lost[set_name] = int((flagged[rows] & (cheap[rows] < threshold)).sum())
            rows = np.array([where[u] for u in sets["table"]])
            out[f"{name} >= {threshold}"] = {
                "table_units_through": round(float((cheap[rows] >= threshold).mean()), 3),
                "flags_dropped": {k: v for k, v in lost.items() if v},
            }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("table")
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--headroom", action="store_true")
    args = parser.parse_args()
    texts = replies(args.table, args.sample)
    print(json.dumps(headroom(texts) if args.headroom else profile(texts), indent=1))


if __name__ == "__main__":
    main()
