"""Coverage on few units of the two intervals left6 moved onto the house's small-sample rule (Student's t on the
jackknife below 30 units, the none-off bound when every unit agrees; evenhand/stats/_small_sample.py):

* the **noise floor's gap** (counterfactual similarity, list similarity, decision flips): before, its own expanded
  percentile bootstrap (:func:`evenhand.stats._noise_floor.expanded_level`); after, ``noise_floor_from_scores``;
* the **red-team probes' differences** (a condition minus the reference over templates; a largest gap is the same
  mean over templates of the chosen pair): before, their own percentile bootstrap; after,
  :func:`evenhand.redteaming.probe_stats.paired_difference`.

Run: PYTHONPATH=. nice -n 10 python benchmarks/bench_left6_coverage.py [--reps 1000] [--resamples 999]

Designs (k prompts or templates; each cell ``--reps`` simulated data sets, nominal 95%):

* ``rouge pooled``: per prompt a level mu ~ U(0.3, 0.8); 4 same-prompt (floor) scores clip(mu + N(0, 0.1)) and 3
  counterfactual scores clip(mu - delta + N(0, 0.1)); the floor pooled over both groups (no sides);
* ``rouge larger floor``: the same, the floor's 4 scores split 2 per group, the baseline the larger group floor (the
  pipeline's rule); the truth is the population gap, so the estimator's upward bias from the max counts against it;
* ``agreement 0/1``: decisions (DFR's floor): each floor pair agrees with probability 0.95, each counterfactual pair
  with 0.95 - delta; most prompts give a gap of exactly 0 (alike units);
* ``probe sentiment``: per template a condition-minus-reference difference N(delta, 0.2) (a mean of 5 paired
  samples per template of a sentiment in [-1, 1]);
* ``probe refusal``: per template 5 paired samples, refusal 1[U < 0.3 + delta] under the condition, 1[U < 0.3]
  under the reference (independent draws).

Coverage is at delta = 0.1 (a real gap); the null check is the share of data sets at delta = 0 whose interval lies
above 0 (for the floor, a false concern needs that and the swap test, so this bounds it); the planted check is the
same share at delta = 0.15 (power). Prints markdown for benchmarks/RESULTS.md ("Left items (left6)").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from evenhand.metrics._result import Resampler, _safe_divide
from evenhand.redteaming.probe_stats import paired_difference
from evenhand.stats import confidence_interval
from evenhand.stats._noise_floor import expanded_level, noise_floor_from_scores

KS = (2, 3, 5, 10, 20)
LEVEL = 0.95
Bounds = tuple[float, float]


def _floor_data(rng: np.random.Generator, k: int, delta: float, design: str) -> dict[str, np.ndarray]:
    if design == "agreement 0/1":
        base = (rng.random((k, 4)) < 0.95).astype(float)
        cf = (rng.random((k, 3)) < 0.95 - delta).astype(float)
    else:
        mu = rng.uniform(0.3, 0.8, size=(k, 1))
        base = np.clip(mu + rng.normal(0, 0.1, (k, 4)), 0, 1)
        cf = np.clip(mu - delta + rng.normal(0, 0.1, (k, 3)), 0, 1)
    return {"base": base, "cf": cf}


def _floor_truth(delta: float, design: str) -> float:
    if design == "agreement 0/1":
        return delta
    rng = np.random.default_rng(12345)
    mu = rng.uniform(0.3, 0.8, 2_000_000)
    noise = rng.normal(0, 0.1, (2, mu.size))
    return float(np.clip(mu + noise[0], 0, 1).mean() - np.clip(mu - delta + noise[1], 0, 1).mean())


def _floor_intervals(data: dict[str, np.ndarray], design: str, resamples: int, seed: int) -> tuple[Bounds, Bounds]:
    """(before, after) gap intervals of one data set."""
    base, cf = data["base"], data["cf"]
    k = base.shape[0]
    sides = None if design == "rouge pooled" else np.tile([0, 0, 1, 1], k)
    ids = np.arange(k)
    after = noise_floor_from_scores(cf.ravel(), np.repeat(ids, 3), base.ravel(), np.repeat(ids, 4),
                                    baseline_sides=sides, name="CROUGE-L", n_resamples=resamples, seed=seed)
    cf_sum, cf_n = cf.sum(axis=1), np.full(k, 3.0)
    if sides is None:
        floor_parts = [(base.sum(axis=1), np.full(k, 4.0))]
    else:
        floor_parts = [(base[:, :2].sum(axis=1), np.full(k, 2.0)), (base[:, 2:].sum(axis=1), np.full(k, 2.0))]

    def gap(w: np.ndarray) -> np.ndarray:
        floors = [_safe_divide(w @ t, w @ c) for t, c in floor_parts]
        floor = floors[0] if len(floors) == 1 else np.fmax(*floors)
        return floor - _safe_divide(w @ cf_sum, w @ cf_n)

    before = confidence_interval(Resampler("prompt", k, gap), ci=expanded_level(LEVEL, k), n_resamples=resamples,
                                 seed=np.random.default_rng(seed), estimate=after.gap)  # fmt: skip
    return (before.low, before.high), (after.gap_interval.low, after.gap_interval.high)


def _probe_data(rng: np.random.Generator, k: int, delta: float, design: str) -> pd.DataFrame:
    rows = pd.DataFrame({"template_id": np.repeat(np.arange(k), 5), "prompt": np.repeat(np.arange(k), 5),
                         "sample": np.tile(np.arange(5), k)})  # fmt: skip
    if design == "probe sentiment":
        shift = np.repeat(rng.normal(delta, 0.2, k), 5)
        ref = np.clip(rng.normal(0.3, 0.3, 5 * k), -1, 1)
        return rows.assign(condition=np.clip(ref + shift, -1, 1), reference=ref)
    return rows.assign(condition=(rng.random(5 * k) < 0.3 + delta).astype(float),
                       reference=(rng.random(5 * k) < 0.3).astype(float))  # fmt: skip


def _probe_truth(delta: float, design: str) -> float:
    if design == "probe refusal":
        return delta
    rng = np.random.default_rng(12345)
    ref = np.clip(rng.normal(0.3, 0.3, 2_000_000), -1, 1)
    return float((np.clip(ref + rng.normal(delta, 0.2, ref.size), -1, 1) - ref).mean())


def _probe_intervals(data: pd.DataFrame, design: str, resamples: int, seed: int) -> tuple[Bounds, Bounds]:
    column = "sentiment" if design == "probe sentiment" else "refused"
    condition = data.assign(**{column: data["condition"]})
    reference = data.assign(**{column: data["reference"]})
    found = paired_difference(condition, reference, column, "template_id", unit_name="template", level=LEVEL,
                              n_resamples=resamples, seed=seed)  # fmt: skip
    assert found is not None
    after = found["interval"].get("unjoined", found["interval"])
    # before (the probes' own, as on main): the percentile bootstrap of templates, with the same sums and counts
    units = data["template_id"].to_numpy()
    diff = (data["condition"] - data["reference"]).to_numpy()
    sums, counts = np.bincount(units, weights=diff), np.bincount(units).astype(float)
    picks = np.random.default_rng(seed).integers(0, units.max() + 1, size=(resamples, units.max() + 1))
    draws = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    low, high = np.quantile(draws, [(1 - LEVEL) / 2, 1 - (1 - LEVEL) / 2])
    return (float(low), float(high)), (after["low"], after["high"])


DESIGNS: dict[str, tuple[Callable[..., Any], Callable[..., float], Callable[..., Any]]] = {
    "rouge pooled": (_floor_data, _floor_truth, _floor_intervals),
    "rouge larger floor": (_floor_data, _floor_truth, _floor_intervals),
    "agreement 0/1": (_floor_data, _floor_truth, _floor_intervals),
    "probe sentiment": (_probe_data, _probe_truth, _probe_intervals),
    "probe refusal": (_probe_data, _probe_truth, _probe_intervals),
}


def _cell(design: str, k: int, delta: float, reps: int, resamples: int) -> dict[str, float]:
    make, truth_of, intervals = DESIGNS[design]
    truth = truth_of(delta, design)
    covered, above, widths = np.zeros(2), np.zeros(2), np.zeros(2)
    for rep in range(reps):
        rng = np.random.default_rng([k, rep, int(delta * 1000)])
        found = intervals(make(rng, k, delta, design), design, resamples, rep)
        for i, (low, high) in enumerate(found):
            covered[i] += low <= truth <= high
            above[i] += low > 0
            widths[i] += high - low
    return {"cover": covered / reps, "above": above / reps, "width": widths / reps}  # type: ignore[dict-item]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--resamples", type=int, default=999)
    args = parser.parse_args()
    start = time.perf_counter()
    tables: dict[str, list[str]] = {"cover": [], "null": [], "planted": []}
    for design in DESIGNS:
        cells = {k: _cell(design, k, 0.1, args.reps, args.resamples) for k in KS}
        nulls = {k: _cell(design, k, 0.0, args.reps, args.resamples) for k in KS}
        planted = {k: _cell(design, k, 0.15, args.reps, args.resamples) for k in KS}

        def row(found: dict[int, dict[str, Any]], key: str) -> str:
            return " | ".join(f"{found[k][key][0]:.0%}→{found[k][key][1]:.0%}" for k in KS)

        widths = " | ".join(f"{cells[k]['width'][0]:.2f}→{cells[k]['width'][1]:.2f}" for k in KS)
        tables["cover"].append(f"| {design} | {row(cells, 'cover')} |")
        tables["cover"].append(f"| {design}: mean width | {widths} |")
        tables["null"].append(f"| {design} | {row(nulls, 'above')} |")
        tables["planted"].append(f"| {design} | {row(planted, 'above')} |")
        print(f"# {design} done at {time.perf_counter() - start:.0f} s:", *(t[-1] for t in tables.values()), sep="\n",
              flush=True)  # fmt: skip
    head = "| design | " + " | ".join(f"k={k}" for k in KS) + " |\n|---|" + "---|" * len(KS)
    print(f"\nCoverage of the truth at delta = 0.1 (before → after), {args.reps} data sets per cell:\n{head}")
    print("\n".join(tables["cover"]))
    print(f"\nNull (delta = 0): share of intervals above 0 (before → after):\n{head}")
    print("\n".join(tables["null"]))
    print(f"\nPlanted (delta = 0.15): share of intervals above 0 (before → after):\n{head}")
    print("\n".join(tables["planted"]))
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
