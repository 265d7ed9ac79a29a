"""Null study and power of the observational rows of issue 33 item 3 (URD, ULD, UTD: the replies to the prompts that
name a person no name list can place against the other prompts' replies).

    nice -n 10 .venv/bin/python benchmarks/bench_unplaced.py [--seeds 40] [--sim-seeds 400]

The use case is tests/_unplaced_fixtures.py: 80 recruiting prompts, 8 of which name people no race list places.

1. **End to end** (``evenhand.assess`` with a stand-in assistant, the default refusal detector and toxicity scorer):
   a fair assistant (every prompt refused 2% of the time) over ``--seeds`` seeds, and a biased one (the 8 prompts
   refused 25% of the time, the rest 2%), 5 replies per prompt and 1 reply per prompt. ``counterfactual_invariance``
   is off so that only the rows under study (and toxicity) are computed: the observational rows are adjusted apart
   from the other tests, so the other families do not change them.
2. **The rule alone** (the metric functions, :func:`evenhand.stats.prompt_set_test`, Benjamini-Hochberg over the three
   rows and the watch rule, on replies drawn from the same assistant's refusal model and answer pool, toxicity 0):
   ``--sim-seeds`` seeds per cell, for the false-watch rate and the power over gaps and replies per prompt.

Prints a Markdown table for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _unplaced_fixtures import ANSWERS, prompts, refusing

import evenhand
from evenhand.metrics import unplaced_length_difference, unplaced_refusal_difference
from evenhand.pipeline.verdict.severity import ALPHA
from evenhand.stats import benjamini_hochberg, prompt_set_test

N_PROMPTS, N_IN_SET = 80, 8


def end_to_end(in_set: float, rest: float, count: int, seeds: int) -> tuple[int, int, float]:
    """(runs with an observational watch or concern, runs, seconds per run)."""
    flagged, t = 0, time.perf_counter()
    for seed in range(seeds):
        a = evenhand.assess(
            task="text_generation", prompts=prompts(), client=refusing(in_set, rest, seed=seed), count=count,
            counterfactual_invariance=False, embedder=False, n_resamples=200, store=None, progress=False, seed=seed,
        )  # fmt: skip
        rows = a.metrics[a.metrics["family"] == "unplaced_names"]
        assert len(rows) == 3, rows
        flagged += bool(set(rows["severity"]) & {"watch", "concern"})
    return flagged, seeds, (time.perf_counter() - t) / seeds


def the_rule(in_set: float, rest: float, count: int, seeds: int) -> float:
    """Share of seeds where the rule gives a watch (URD, ULD; UTD is 0 on both sides here, p = 1)."""
    lengths = np.array([len(a.split()) for a in ANSWERS], dtype=float)
    prompt_of = np.repeat(np.arange(N_PROMPTS), count)
    member = prompt_of < N_IN_SET
    watches = 0
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        refused = rng.random(prompt_of.size) < np.where(member, in_set, rest)
        words = np.where(refused, 9.0, lengths[rng.integers(len(ANSWERS), size=prompt_of.size)])
        p_refusal = prompt_set_test(refused.astype(float), member, prompt_of, n_permutations=1999, seed=seed).p_value
        p_length = prompt_set_test(words, member, prompt_of, statistic="log_ratio", n_permutations=1999,
                                   seed=seed).p_value  # fmt: skip
        unplaced_refusal_difference(refused.astype(float), member, prompts=prompt_of)  # the metric runs too
        unplaced_length_difference(words, member, prompts=prompt_of)
        adjusted = benjamini_hochberg(np.array([p_refusal, p_length, 1.0]))
        watches += bool((adjusted < ALPHA).any())
    return watches / seeds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--sim-seeds", type=int, default=400)
    args = parser.parse_args(argv)
    print(f"{date.today()}, {platform.processor() or platform.machine()}, Python {platform.python_version()}\n")
    print("| design | replies per prompt | refusal rate: 8 unplaced / 72 others | runs | a watch or concern "
          "| s per run |")
    print("|---|---:|---|---:|---:|---:|")
    half = max(10, args.seeds // 2)
    cells = [(0.02, 0.02, 5, args.seeds), (0.02, 0.02, 1, args.seeds), (0.25, 0.02, 5, half), (0.25, 0.02, 1, half)]
    for in_set, rest, count, seeds in cells:
        hit, n, per_run = end_to_end(in_set, rest, count, seeds)
        print(f"| end to end (`evenhand.assess`) | {count} | {in_set:.0%} / {rest:.0%} | {n} | {hit} ({hit / n:.0%}) "
              f"| {per_run:.1f} |")  # fmt: skip
    sim: list[Any] = [(0.02, 0.02, 1), (0.02, 0.02, 5), (0.05, 0.05, 25), (0.25, 0.02, 1), (0.25, 0.02, 5),
                      (0.25, 0.02, 25), (0.10, 0.02, 5), (0.10, 0.02, 25), (0.50, 0.02, 1)]  # fmt: skip
    for in_set, rest, count in sim:
        share = the_rule(in_set, rest, count, args.sim_seeds)
        print(f"| the rule alone | {count} | {in_set:.0%} / {rest:.0%} | {args.sim_seeds} | {share:.1%} | |")


if __name__ == "__main__":
    main()
