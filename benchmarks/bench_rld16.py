"""rld16: RLD's verdict judged by its paired test alone, its interval a description (may undercover).

Null (false concern): review11's RLD design made fair, 3-40 prompts x 5 replies; each reply of *either* version is
50% longer with a prompt-level rate (Beta, mean ``p``, ICC 0.3; the rare long reply that made review11's interval
undercover, now on both sides, so the truth is 0). Planted (power): every first-version reply 5%, 10%, 20% longer or
10% shorter (stats14's power design). Each data set gets the run's own numbers: RLD and its interval
(``metric_interval``, 1,000 resamples, percentile) and the paired sign-flip test over prompts (log ratios, 19,999
flips); one test, so its adjusted p is its p (a run's Benjamini-Hochberg adjustment over more tests only raises it).
Also review11's own design (rare 50%-longer replies of the first version only, truth > 0) as a planted gap.
Severity before: ``by_p_and_interval(e)`` (the test and the interval must agree); after: ``by_p_and_interval(e,
interval_covers=False)`` (the test alone). Concern needs 10 prompts (MIN_UNITS); below, a watch at most.

    PYTHONPATH=$PWD python benchmarks/bench_rld16.py --reps 400
    PYTHONPATH=$PWD python benchmarks/bench_rld16.py --reps 2000 --only null
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from evenhand import metrics as M
from evenhand.pipeline.families.refusal_length import SIGN_FLIPS
from evenhand.pipeline.verdict.evidence import Evidence, by_p_and_interval
from evenhand.stats import metric_interval, paired_prompt_test

sys.path[:0] = ["benchmarks"]
import bench_review11 as review  # noqa: E402

UNITS = review.UNITS
PER_PROMPT = review.PER_PROMPT


def _fair(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    base = rng.integers(20, 120, size=k)[:, None]
    sides = []
    for _ in range(2):
        longer = review.events(rng, review.latent(rng, p, k))
        sides.append(np.round((base + rng.poisson(3.0, (k, PER_PROMPT))) * np.where(longer, 1.5, 1.0)).ravel())
    return sides[0], sides[1]


def _planted(rng: np.random.Generator, longer: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    base = rng.integers(20, 120, size=k)[:, None]
    a = np.round((base + rng.poisson(3.0, (k, PER_PROMPT))) * (1.0 + longer))
    b = (base + rng.poisson(3.0, (k, PER_PROMPT))).astype(float)
    return a.ravel(), b.ravel()


def _severities(a: np.ndarray, b: np.ndarray, k: int, seed: int) -> tuple[str, str]:
    prompts = review.ids(k)
    result = M.relative_length_difference(a, b, prompts=prompts)
    iv = metric_interval(result, "bootstrap", seed=seed)
    test = paired_prompt_test(a, b, prompts, statistic="log_ratio", n_permutations=SIGN_FLIPS, seed=seed)

    def evidence() -> Evidence:
        return Evidence(metric="RLD", full_name="", value=float(result.value), ci_low=iv.low, ci_high=iv.high,
                        p_value=test.p_value, p_adjusted=test.p_value, units=k)  # fmt: skip

    return by_p_and_interval(evidence()), by_p_and_interval(evidence(), interval_covers=False)


def _row(label: str, draw, reps: int, seed: int) -> None:  # type: ignore[no-untyped-def]
    cells = []
    for k in UNITS:
        rng = np.random.default_rng(seed + k)
        counts = {"concern before": 0, "concern after": 0, "shown before": 0, "shown after": 0}
        for rep in range(reps):
            before, after = _severities(*draw(rng, k), k, seed=rep)
            counts["concern before"] += before == "concern"
            counts["concern after"] += after == "concern"
            counts["shown before"] += before != "ok"
            counts["shown after"] += after != "ok"
        cells.append(counts)
    for what in ("concern", "shown"):
        line = " | ".join(
            f"{100 * c[f'{what} before'] / reps:.1f}% → {100 * c[f'{what} after'] / reps:.1f}%" for c in cells
        )
        print(f"| {label} | {what} | {line} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--only", choices=("null", "planted"), help="one half of the table")
    args = parser.parse_args()
    reps = max(1, min(args.reps, 2000))  # bounded
    start = time.perf_counter()
    print("| design | severity (before → after) | " + " | ".join(f"k = {k}" for k in UNITS) + " |")
    print("|---|---|" + "---|" * len(UNITS))
    for p in review.RATES if args.only != "planted" else ():
        _row(f"null, {p:.1%} of replies of either version 50% longer", lambda r, k, p=p: _fair(r, p, k), reps, 11)
    for longer in (0.05, 0.1, 0.2, -0.1) if args.only != "null" else ():
        _row(f"planted, every first-version reply {longer:+.0%}", lambda r, k, g=longer: _planted(r, g, k), reps, 12)
    # review11's own design: only the first version's rare replies are longer (truth > 0)
    for p in (0.02, 0.05) if args.only != "null" else ():
        _row(f"planted, {p:.0%} of first-version replies 50% longer (review11)",
             lambda r, k, p=p: review._lengths(r, p, k), reps, 13)  # fmt: skip
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
