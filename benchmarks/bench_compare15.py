"""compare15 item 2: compare's interval of a paired difference on 20-50 prompts, the percentile bootstrap from 30
prompts on (before: the t rule stopped at ``SMALL_UNITS`` = 30, as the runs' own intervals) against Student's t on
the jackknife of the paired differences below ``COMPARE_SMALL_UNITS`` (after).

Run: PYTHONPATH=.:benchmarks nice -n 19 python benchmarks/bench_compare15.py [--reps 200]

Designs: bench_stats14's compare designs where events are plentiful (TF, RRD at 10% and 30% of responses, 5
responses a prompt, prompt-level correlation 0.3; the rate rule does not apply there, so compare's continuous rule
does), and a continuous one (a per-prompt score, ``N(mu_i, 0.2)`` clipped to [0, 1], ``mu_i ~ U(0.2, 0.8)``, the run
B replies drawn again: the mean score, as a sentiment or similarity row). Null: run B drawn as run A; planted: +0.15
(rates) or +0.05 (score) in run B. Counted: the share of comparisons whose interval excludes 0 (one row: no
adjustment across rows applies), through compare's own ``evenhand.comparison.rows._bounds``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_stats14 import PER_PROMPT, rrd_runs, tf_runs

from evenhand.comparison.pairing import paired_draws
from evenhand.comparison.rows import _bounds
from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.stats import COMPARE_SMALL_UNITS, SMALL_UNITS

UNITS = (20, 30, 40, 49, 50)


def score_runs(rng: np.random.Generator, p: float, k: int, planted: bool) -> tuple[MetricResult, MetricResult]:
    mu = rng.uniform(0.2, 0.8, k)

    def run(shift: float) -> MetricResult:
        scores = np.clip(np.repeat(mu + shift, PER_PROMPT) + rng.normal(0, 0.2, k * PER_PROMPT), 0, 1)
        return _mean(scores, k)

    return run(0.0), run(0.05 if planted else 0.0)


def _mean(scores: np.ndarray, k: int) -> MetricResult:
    per = scores.reshape(k, PER_PROMPT).mean(axis=1)
    return MetricResult(name="mean score", value=float(per.mean()), resampler=mean_resampler(per, "prompt"),
                        value_range=(0.0, 1.0))  # fmt: skip


DESIGNS = {"TF 10%": (tf_runs, 0.1, "rate"), "TF 30%": (tf_runs, 0.3, "rate"), "RRD 10%": (rrd_runs, 0.1, "rate"),
           "RRD 30%": (rrd_runs, 0.3, "rate"), "score": (score_runs, 0.0, "bootstrap")}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    reps = max(10, min(parser.parse_args().reps, 2000))
    start = time.time()
    print("| design | planted | rule | " + " | ".join(f"k = {k}" for k in UNITS) + " |")
    print("|---|---|---|" + "---|" * len(UNITS))
    for name, (draw, p, interval) in DESIGNS.items():
        for planted in (False, True):
            for rule, units in (("before", SMALL_UNITS), ("after", COMPARE_SMALL_UNITS)):
                cells = []
                for k in UNITS:
                    rng = np.random.default_rng(1500 + k)
                    hits = 0
                    for _ in range(reps):
                        a, b = draw(rng, p, k, planted)
                        bounds, _ = _bounds(a, b, paired_draws(a, b, 1000, rng), 0.95, paired=True,
                                            interval=interval, units=units)  # fmt: skip
                        hits += bounds is not None and (bounds[0] > 0 or bounds[1] < 0)
                    cells.append(f"{100.0 * hits / reps:.1f}%")
                label = "planted" if planted else "null"
                print(f"| {name} | {label} | {rule} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{reps} comparisons a cell, {time.time() - start:.0f} s")


if __name__ == "__main__":
    main()
