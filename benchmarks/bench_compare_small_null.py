"""Null study and planted effect for `evenhand compare` on few prompts (lead, 2026-11-28): how often two runs of
one fair model are judged "worse"/"improved" (the difference's interval excludes 0, at least MIN_UNITS prompts)
with the percentile bootstrap of the differences (before) and with the small-sample rule (after:
evenhand.stats.difference_bounds), and how often a planted change is found. By hand, not in CI:

    PYTHONPATH=. python benchmarks/bench_compare_small_null.py [--reps 400]
"""

from __future__ import annotations

import argparse

import numpy as np

from evenhand.comparison.pairing import independent_draws, paired_draws, percentile_interval
from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.stats import difference_bounds


def _result(values: np.ndarray) -> MetricResult:
    return MetricResult("m", float(values.mean()), resampler=mean_resampler(values, "prompt"), value_range=(0, 1))


def _runs(design: str, k: int, shift: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    if design == "score":  # a per-prompt mean score (EMT-like): prompt effect + reply noise, both runs one model
        base = rng.beta(2, 5, size=k)
        a = np.clip(base + rng.normal(0, 0.05, k), 0, 1)
        b = np.clip(base + shift + rng.normal(0, 0.05, k), 0, 1)
    else:  # a per-prompt share of 5 replies (TF-like), rare events, skewed
        p = rng.beta(0.5, 8, size=k)
        a = rng.binomial(5, p) / 5
        b = rng.binomial(5, np.clip(p + shift, 0, 1)) / 5
    return a, b


def _excludes(bounds: tuple[float, float] | None) -> bool:
    return bounds is not None and (bounds[0] > 0 or bounds[1] < 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    print("design  paired  k   shift  before  after")
    for design in ("score", "share"):
        for paired in (True, False):
            for k in (10, 15, 20, 29):
                for shift in (0.0, 0.15):
                    before = after = 0
                    for _ in range(args.reps):
                        a, b = _runs(design, k, shift, rng)
                        ra, rb = _result(a), _result(b)
                        draws = (paired_draws if paired else independent_draws)(ra, rb, 1000, rng)
                        before += _excludes(percentile_interval(draws[1] - draws[0], 0.95))
                        small = difference_bounds(ra, rb, paired=paired)
                        after += _excludes(None if small is None else small[:2])
                    print(f"{design:6}  {paired!s:6}  {k:2}  {shift:5.2f}  {before / args.reps:6.1%}  "
                          f"{after / args.reps:6.1%}")  # fmt: skip


if __name__ == "__main__":
    main()
