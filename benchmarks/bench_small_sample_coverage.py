"""Coverage and width of continuous metrics' intervals on few prompts (stats5), before and after.

Run: PYTHONPATH=. nice -n 10 python benchmarks/bench_small_sample_coverage.py [--reps 1000] [--ks 2,3,5,10,20,40]

Each repetition draws ``k`` prompts from a population with a known truth, computes the metric with the real metric
function (``prompts=``) where one takes numbers, and its nominal 95% interval three ways: the percentile bootstrap
(what every continuous metric had before stats5), BCa, and :func:`evenhand.stats.metric_interval` with the metric's
declared ``"bootstrap"`` interval (after stats5: Student's t on the jackknife standard error below ``SMALL_UNITS``
units, the "none off the value" bound when every unit agrees). The truth is the metric on 200,000 prompts of the
same population. Designs (one per family the rule serves, with degenerate ones):

* ``EMT skewed``: 5 replies per prompt, toxicity scores Beta(0.5, 10): a per-prompt mean of maxima, skewed;
* ``EMT at floor``: 85% of prompts benign with every reply scored exactly 0.02 (alike replies at the scorer's
  floor), 15% with replies scored Beta(2, 3): most units identical;
* ``MTD``: one counterfactual pair per prompt, a shared prompt effect Beta(1, 9) plus noise N(0, 0.05) on each
  reply (clipped to [0, 1]) and 0.02 more on side A: a paired difference, truth about 0.02;
* ``MTD mostly 0``: 80% of prompts give both versions the same score (difference exactly 0), 20% as MTD with 0.1
  more on side A;
* ``SCSP``: sentiment scores Beta(5, 2) on side B and Beta(4, 2) on side A: a Wasserstein distance, truth > 0;
* ``CROUGE-L-like``: one pair per prompt, similarity Beta(6, 3) (the mean resampler CROUGE-L, CCS and Jaccard-K
  use; range [0, 1]);
* ``CROUGE-L at 1``: 60% of pairs identical (similarity exactly 1), 40% Beta(4, 3);
* ``Jaccard at 0``: 70% of pairs of lists disjoint (exactly 0), 30% Beta(2, 5);
* ``cosine at 1``: range [-1, 1], 70% exactly 1, 30% Beta(8, 2).

Prints one markdown table: coverage (share of intervals holding the truth), mean width, and the share of
zero-width intervals; the last column is the small-sample rule applied at every k (how ``SMALL_UNITS`` was
chosen). With ``--reps 1000`` each coverage figure is within about 1.4 points (two standard errors).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.stats import confidence_interval, metric_interval
from evenhand.stats._small_sample import jackknife_t_interval

Design = Callable[[np.random.Generator, int], MetricResult]


def _ids(k: int, per: int) -> np.ndarray:
    return np.repeat(np.arange(k), per)


def emt_skewed(rng: np.random.Generator, k: int) -> MetricResult:
    return M.expected_maximum_toxicity(rng.beta(0.5, 10.0, size=5 * k), _ids(k, 5))


def emt_floor(rng: np.random.Generator, k: int) -> MetricResult:
    prone = np.repeat(rng.random(k) < 0.15, 5)
    scores = np.where(prone, rng.beta(2.0, 3.0, size=5 * k), 0.02)
    return M.expected_maximum_toxicity(scores, _ids(k, 5))


def _mtd(rng: np.random.Generator, k: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    base = rng.beta(1.0, 9.0, size=k)
    a = np.clip(base + shift + rng.normal(0.0, 0.05, size=k), 0.0, 1.0)
    b = np.clip(base + rng.normal(0.0, 0.05, size=k), 0.0, 1.0)
    return a, b


def mtd(rng: np.random.Generator, k: int) -> MetricResult:
    a, b = _mtd(rng, k, 0.02)
    return M.mean_toxicity_difference(a, b, prompts=np.arange(k))


def mtd_mostly_zero(rng: np.random.Generator, k: int) -> MetricResult:
    a, b = _mtd(rng, k, 0.1)
    alike = rng.random(k) < 0.8
    a = np.where(alike, b, a)
    return M.mean_toxicity_difference(a, b, prompts=np.arange(k))


def scsp(rng: np.random.Generator, k: int) -> MetricResult:
    return M.strict_sentiment_parity(rng.beta(4.0, 2.0, size=k), rng.beta(5.0, 2.0, size=k), prompts=np.arange(k))


def _similarity(values: np.ndarray, value_range: tuple[float, float]) -> MetricResult:
    return MetricResult("similarity", float(values.mean()), resampler=mean_resampler(values, "prompt"),
                        value_range=value_range)  # fmt: skip


def rouge(rng: np.random.Generator, k: int) -> MetricResult:
    return _similarity(rng.beta(6.0, 3.0, size=k), (0.0, 1.0))


def rouge_at_one(rng: np.random.Generator, k: int) -> MetricResult:
    return _similarity(np.where(rng.random(k) < 0.6, 1.0, rng.beta(4.0, 3.0, size=k)), (0.0, 1.0))


def jaccard_at_zero(rng: np.random.Generator, k: int) -> MetricResult:
    return _similarity(np.where(rng.random(k) < 0.7, 0.0, rng.beta(2.0, 5.0, size=k)), (0.0, 1.0))


def cosine_at_one(rng: np.random.Generator, k: int) -> MetricResult:
    return _similarity(np.where(rng.random(k) < 0.7, 1.0, rng.beta(8.0, 2.0, size=k)), (-1.0, 1.0))


DESIGNS: dict[str, Design] = {
    "EMT skewed": emt_skewed, "EMT at floor": emt_floor, "MTD": mtd, "MTD mostly 0": mtd_mostly_zero,
    "SCSP": scsp, "CROUGE-L-like": rouge, "CROUGE-L at 1": rouge_at_one, "Jaccard at 0": jaccard_at_zero,
    "cosine at 1": cosine_at_one,
}  # fmt: skip
METHODS = ("percentile", "bca", "t", "stats5")


def interval(result: MetricResult, method: str, seed: int) -> tuple[float, float]:
    if method == "stats5":
        iv = metric_interval(result, "bootstrap", n_resamples=1000, seed=seed)
    elif method == "t":  # the small-sample rule at any k, for choosing where it ends
        t_iv = jackknife_t_interval(result)
        return (t_iv.low, t_iv.high) if t_iv is not None else (np.nan, np.nan)
    else:
        iv = confidence_interval(result, n_resamples=1000, seed=seed, method=method)
    return iv.low, iv.high


def run(design: Design, k: int, reps: int, truth: float, seed: int) -> dict[str, tuple[float, float, float]]:
    rng = np.random.default_rng(seed)
    hits = {m: 0 for m in METHODS}
    widths: dict[str, list[float]] = {m: [] for m in METHODS}
    zero = {m: 0 for m in METHODS}
    for rep in range(reps):
        result = design(rng, k)
        for m in METHODS:
            low, high = interval(result, m, rep)
            if np.isnan(low):
                continue
            hits[m] += low <= truth <= high
            widths[m].append(high - low)
            zero[m] += high - low <= 0
    return {m: (hits[m] / reps, float(np.mean(widths[m])) if widths[m] else np.nan, zero[m] / reps) for m in METHODS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--ks", default="2,3,5,10,20,40")
    parser.add_argument("--designs", default=",".join(DESIGNS))
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    print("| design | k | truth | percentile: cover / width / zero-width | BCa: cover / width | stats5: cover / width"
          " / zero-width | t at any k: cover / width |")
    print("|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    for d, name in enumerate(args.designs.split(",")):
        design = DESIGNS[name]
        truth = float(design(np.random.default_rng(10_000 + d), 200_000).value)
        for k in ks:
            out = run(design, k, args.reps, truth, seed=100 * d + k)
            p, b, t, s = (out[m] for m in METHODS)
            print(f"| {name} | {k} | {truth:.4f} | {p[0]:.3f} / {p[1]:.3f} / {p[2]:.2f} | {b[0]:.3f} / {b[1]:.3f} | "
                  f"{s[0]:.3f} / {s[1]:.3f} / {s[2]:.2f} | {t[0]:.3f} / {t[1]:.3f} |", flush=True)
    print(f"\n{args.reps} repetitions per row, nominal 95%; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
