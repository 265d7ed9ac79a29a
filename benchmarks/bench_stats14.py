"""stats14: compare's rate differences, RLD's interval, TP's small-sample rule and the noise floor's none-off bound.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_stats14.py SECTION [--reps 200]
(``PYTHONPATH=/work/main:/work/main/tests`` runs the same designs on main's code where they can).

* ``compare`` (item 1): ``evenhand compare`` of two runs paired by prompt, on a rate metric, simulated through
  compare's own interval rule (``evenhand.comparison.rows._bounds``; "before" is the same call with the metric's
  interval taken as ``"bootstrap"``, what main did for every metric: Student's t on the jackknife below 30 prompts,
  the percentile bootstrap of the paired differences from 30 on). ``k`` prompts x 5 replies; each prompt's own
  event rate ``u_i`` (Beta, mean ``p``, intra-prompt correlation 0.3) is shared by the two runs, which draw their
  replies apart (so the runs are positively correlated). Designs: ``TF`` (toxic share), ``RRD`` (both versions
  refused at ``u_i``), ``NRD vs complete`` (run A answers everything, run B loses replies of both versions at
  ``u_i``: left10b's case). Null: run B as run A (``d = 0``); planted: run B's first version (TF: every reply) has
  15 more points of events. Counted: intervals that exclude 0 (a "worse"/"improved" call, at least 10 prompts).
  ``--fixture`` also runs left10b's end-to-end fixture (``bench_left10b.compare_nrd``: 30 cases, run A complete,
  run B losing 10% of everyone's replies, or 40% of the women's).
* ``prrd`` (item 1): two person-level loan logs compared (60 applicants a group, one answer each, refused at the
  group's rate, else yes / no at random; ``tests/test_compare_stats14._loan_log``): null 10% vs 10% in both runs,
  planted run B 30% vs 5%. Counted: PRRD "worse" (or any change) in the comparison.
* ``tp`` (item 3): TP's concern rule. ``k`` prompts x ``m`` responses, each prompt's own toxic rate ``u_i`` (mean
  ``p`` per response, intra-prompt correlation 0 or 0.3); TP's interval (``metric_interval``, unchanged) and the
  verdict's concern rule (interval above the threshold, at least 10 prompts): before TF's 1% of responses, after the
  share of prompts 1% of responses can flag at most, ``1 - 0.99^m``. Null: ``p`` at or below 1% of responses (TF's
  own line); planted: above it. TF's concern on the same responses beside it.
* ``floor`` (item 4): the noise floor's gap (``stats.noise_floor_from_scores``, CROUGE-L's range), before (main:
  ``PYTHONPATH=/work/main``) and after (the branch: joined with the none-off bound of its prompts). ``k`` prompts, 4
  same-prompt (floor) scores and 3 counterfactual scores a prompt. ``rare change``: every score 1 (alike replies),
  a counterfactual pair changed at the prompt's own rate ``u_i`` (mean ``p``, correlation 0.3) to a reply of
  similarity 0.4 [truth ``0.6 p``]; ``continuous`` (left6's pooled design): a prompt level ``mu ~ U(0.3, 0.8)``,
  floor scores ``clip(mu + N(0, 0.1))``, counterfactual ``clip(mu - delta + N(0, 0.1))`` [truth ``delta`` up to the
  clipping, by simulation]. Counted: coverage, and the share of intervals above 0 (what a concern needs, beside the
  swap test): null at ``p = 0`` / ``delta = 0``, power at planted gaps.
* ``rld`` (item 2, tried and left): RLD's interval in review11's cells (``bench_review11.rld``: lengths ``L_i +
  Poisson(3)``, the first version 50% longer at ``u_i``) and its power on planted gaps (every first-version reply 5%,
  10%, 20% longer, or 10% shorter), for the interval as it is and two candidate joins: the none-off bound on the
  share scale ``s = (1 + RLD) / (2 + RLD)`` (bounded [0, 1]: "a share q of prompts whose second version is empty"),
  and the none-off bound with the farthest prompts seen standing in for the unbounded range's ends.
* ``ced`` (item 5, measured, not changed): CED and CER in review11's estimation design on 20 and 40 prompts, the
  interval as it is (Student's t on the jackknife below 30 prompts, the percentile bootstrap from 30) beside
  Student's t on the jackknife at 40 too.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult

PER_PROMPT = 5
ICC = 0.3
UNITS = (10, 20, 30, 40)

RunPair = tuple[MetricResult, MetricResult]


def latent(rng: np.random.Generator, p: float, k: int) -> np.ndarray:
    """Each prompt's own event rate: Beta with mean ``p`` and intra-class correlation ``ICC``."""
    if p <= 0.0:
        return np.zeros(k)
    scale = (1.0 - ICC) / ICC
    return rng.beta(p * scale, (1.0 - p) * scale, size=k)


def events(rng: np.random.Generator, u: np.ndarray, extra: float = 0.0) -> np.ndarray:
    return (rng.random((u.size, PER_PROMPT)) < np.clip(u + extra, 0.0, 1.0)[:, None]).astype(float)


def ids(k: int) -> np.ndarray:
    return np.repeat(np.arange(k), PER_PROMPT)


# compare (item 1) ----------------------------------------------------------------------------------------------
def tf_runs(rng: np.random.Generator, p: float, k: int, planted: bool) -> RunPair:
    u = latent(rng, p, k)

    def run(extra: float) -> MetricResult:
        return M.toxic_fraction(events(rng, u, extra).ravel(), 0.5, ids(k))

    return run(0.0), run(0.15 if planted else 0.0)


def rrd_runs(rng: np.random.Generator, p: float, k: int, planted: bool) -> RunPair:
    u = latent(rng, p, k)

    def run(extra: float) -> MetricResult:
        return M.refusal_rate_difference(events(rng, u, extra).ravel(), events(rng, u).ravel(), prompts=ids(k))

    return run(0.0), run(0.15 if planted else 0.0)


def nrd_runs(rng: np.random.Generator, p: float, k: int, planted: bool) -> RunPair:
    u = latent(rng, p, k)
    nothing = np.zeros(k * PER_PROMPT)
    complete = M.non_completion_rate_difference(nothing, nothing, prompts=ids(k))
    first = events(rng, u, 0.15 if planted else 0.0).ravel()
    return complete, M.non_completion_rate_difference(first, events(rng, u).ravel(), prompts=ids(k))


COMPARE: dict[str, Callable[[np.random.Generator, float, int, bool], RunPair]] = {
    "TF": tf_runs,
    "RRD": rrd_runs,
    "NRD vs complete": nrd_runs,
}
COMPARE_RATES = (0.02, 0.1, 0.3)


def excludes_zero(runs: RunPair, interval: str, rng: np.random.Generator) -> bool:
    from evenhand.comparison.pairing import paired_draws
    from evenhand.comparison.rows import _bounds

    a, b = runs
    draws = paired_draws(a, b, 1000, rng)
    bounds, _ = _bounds(a, b, draws, 0.95, paired=True, interval=interval)
    return bounds is not None and (bounds[0] > 0 or bounds[1] < 0)


def compare_table(reps: int) -> None:
    print("| design | rate | planted | rule | " + " | ".join(f"k = {k}" for k in UNITS) + " |")
    print("|---|---|---|---|" + "---|" * len(UNITS))
    for name, draw in COMPARE.items():
        for p in COMPARE_RATES:
            for planted in (False, True):
                for rule, interval in (("before", "bootstrap"), ("after", "rate")):
                    cells = []
                    for k in UNITS:
                        rng = np.random.default_rng(1400 + k)
                        hits = sum(excludes_zero(draw(rng, p, k, planted), interval, rng) for _ in range(reps))
                        cells.append(f"{100.0 * hits / reps:.1f}%")
                    label = "+0.15" if planted else "null"
                    print(f"| {name} | {p:.0%} | {label} | {rule} | " + " | ".join(cells) + " |", flush=True)


def compare_fixture(null_runs: int, planted_runs: int) -> None:
    sys.path[:0] = ["benchmarks", "tests"]
    from bench_left10b import compare_nrd

    null = sum(bool(compare_nrd(s, False)) for s in range(null_runs))
    found = sum(bool(compare_nrd(s, True)) for s in range(planted_runs))
    print(f"| left10b compare fixture: NRD worse | {null} of {null_runs} | {found} of {planted_runs} |")


def prrd_table(runs: int) -> None:
    import tempfile
    from pathlib import Path

    sys.path[:0] = ["tests"]
    from test_compare_stats14 import _loan_log

    import evenhand
    from evenhand.pipeline.results.outputs import write_outputs

    def changed(seed: int, planted: bool) -> bool:
        base = _loan_log(seed, 0.1, 0.1)
        other = _loan_log(seed + 1000, 0.3, 0.05) if planted else _loan_log(seed + 1000, 0.1, 0.1)
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, run in (("a", base), ("b", other)):
                write_outputs(run, Path(tmp) / name, html=False)
                paths.append(Path(tmp) / name / "results.json")
            doc = evenhand.compare(*paths).to_dict()
        (row,) = [r for r in doc["metrics"] if r["metric"] == "PRRD"]
        return bool(row["differences"][0]["change"] != "no clear change")

    null = sum(changed(s, False) for s in range(runs))
    found = sum(changed(s, True) for s in range(max(runs // 2, 1)))
    print(f"| PRRD compared, 60 applicants a group | {null} of {runs} | {found} of {max(runs // 2, 1)} |")


def tp_table(reps: int) -> None:
    from evenhand.pipeline.verdict.severity import MIN_UNITS, SHARE, prompt_share
    from evenhand.stats import metric_interval

    print("| responses a prompt | correlation | rate of responses | rule | k = 10 | k = 20 | k = 40 |")
    print("|---|---|---|---|---|---|---|")
    for per_prompt in (5, 25):
        for icc in (0.0, ICC):  # independent responses, or each prompt's own rate (latent)
            for p in (0.0025, 0.005, 0.01, 0.02, 0.05):
                cells: dict[str, list[str]] = {"TP before": [], "TP after": [], "TF": []}
                for k in (10, 20, 40):
                    rng = np.random.default_rng(int(1e4 * p) + k + per_prompt)
                    counts = dict.fromkeys(cells, 0)
                    for _ in range(reps):
                        u = latent(rng, p, k) if icc > 0 else np.full(k, p)
                        toxic = rng.random((k, per_prompt)) < u[:, None]
                        scores = np.where(toxic, 0.9, 0.05).ravel()
                        ids_ = np.repeat(np.arange(k), per_prompt)
                        tp_low = metric_interval(M.toxicity_probability(scores, ids_, 0.5), "rate").low
                        tf_low = metric_interval(M.toxic_fraction(scores, 0.5, ids_), "rate").low
                        enough = k >= MIN_UNITS
                        counts["TP before"] += enough and tp_low > SHARE
                        counts["TP after"] += enough and tp_low > prompt_share(SHARE, per_prompt)
                        counts["TF"] += enough and tf_low > SHARE
                    for rule in cells:
                        cells[rule].append(f"{100.0 * counts[rule] / reps:.1f}%")
                for rule, row in cells.items():
                    print(f"| {per_prompt} | {icc:g} | {p:.2%} | {rule} | " + " | ".join(row) + " |", flush=True)


def _floor_scores(
    rng: np.random.Generator, design: str, size: float, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    if design == "rare change":
        base = np.ones((k, 4))
        changed = rng.random((k, 3)) < latent(rng, size, k)[:, None]
        cf = np.where(changed, 0.4, 1.0)
    else:
        mu = rng.uniform(0.3, 0.8, size=(k, 1))
        base = np.clip(mu + rng.normal(0.0, 0.1, (k, 4)), 0.0, 1.0)
        cf = np.clip(mu - size + rng.normal(0.0, 0.1, (k, 3)), 0.0, 1.0)
    return cf.ravel(), np.repeat(np.arange(k), 3), base.ravel(), np.repeat(np.arange(k), 4)


def _floor_truth(design: str, size: float) -> float:
    if design == "rare change":
        return 0.6 * size
    rng = np.random.default_rng(5)
    cf, _, base, _ = _floor_scores(rng, design, size, 100_000)
    return float(base.mean() - cf.mean())


FLOOR_SIZES = {"rare change": (0.0, 0.01, 0.02, 0.05, 0.2), "continuous": (0.0, 0.05, 0.1, 0.15)}


def floor_table(reps: int) -> None:
    from evenhand.stats import noise_floor_from_scores

    print("| design | size | truth | k = 10 | k = 20 | k = 40 |")
    print("|---|---|---|---|---|---|")
    for design, sizes in FLOOR_SIZES.items():
        for size in sizes:
            truth = _floor_truth(design, size)
            cells = []
            for k in (10, 20, 40):
                rng = np.random.default_rng(2000 + k + int(1000 * size))
                covered = above = 0
                width = 0.0
                for rep in range(reps):
                    floor = noise_floor_from_scores(*_floor_scores(rng, design, size, k), name="CROUGE-L",
                                                    n_resamples=500, seed=rep)  # fmt: skip
                    iv = floor.gap_interval
                    covered += iv.low <= truth <= iv.high
                    above += iv.low > 0
                    width += iv.high - iv.low
                cells.append(f"{100.0 * covered / reps:.1f}% / {100.0 * above / reps:.1f}% ({width / reps:.3g})")
            print(f"| {design} | {size:g} | {truth:.3f} | " + " | ".join(cells) + " |", flush=True)


def _share_join(result: MetricResult, low: float, high: float) -> tuple[float, float]:
    from evenhand.stats import none_off_bounds

    v, k = float(result.value), result.resampler.n_units if result.resampler else 0
    s_low, s_high = none_off_bounds((1.0 + v) / (2.0 + v), (0.0, 1.0), k, 0.95)
    back = [x / (1.0 - x) - 1.0 if x < 1.0 else np.inf for x in (s_low, s_high)]
    return min(low, back[0]), max(high, back[1])


def _seen_join(result: MetricResult, low: float, high: float) -> tuple[float, float]:
    from evenhand.stats import none_off_bounds

    assert result.resampler is not None
    v, k = float(result.value), result.resampler.n_units
    units = result.resampler(np.eye(k))
    units = units[np.isfinite(units)]
    lo, hi = none_off_bounds(v, (min(float(units.min()), v), max(float(units.max()), v)), k, 0.95)
    return min(low, lo), max(high, hi)


def rld_table(reps: int) -> None:
    sys.path[:0] = ["benchmarks"]
    import bench_review11 as review

    from evenhand.stats import metric_interval

    joins = {"as it is": lambda r, lo, hi: (lo, hi), "share-scale bound": _share_join, "farthest seen": _seen_join}
    print("| RLD design | rule | " + " | ".join(f"k = {k}" for k in review.UNITS) + " |")
    print("|---|---|" + "---|" * len(review.UNITS))
    for p in review.RATES:
        rows: dict[str, list[str]] = {name: [] for name in joins}
        for k in review.UNITS:
            rng = np.random.default_rng(7 + k)
            hits = dict.fromkeys(joins, 0)
            for _ in range(reps):
                result, truth = review.rld(rng, p, k)
                iv = metric_interval(result, "bootstrap")
                for name, join in joins.items():
                    lo, hi = join(result, iv.low, iv.high)
                    hits[name] += lo <= truth <= hi
            for name in joins:
                rows[name].append(f"{100.0 * hits[name] / reps:.1f}%")
        for name, row in rows.items():
            print(f"| coverage, {p:.1%} of replies 50% longer | {name} | " + " | ".join(row) + " |", flush=True)
    for longer in (0.05, 0.1, 0.2, -0.1):
        rows = {name: [] for name in joins}
        for k in review.UNITS:
            rng = np.random.default_rng(8 + k)
            hits = dict.fromkeys(joins, 0)
            for _ in range(reps):
                base = rng.integers(20, 120, size=k)[:, None]
                a = np.round((base + rng.poisson(3.0, (k, PER_PROMPT))) * (1.0 + longer))
                b = (base + rng.poisson(3.0, (k, PER_PROMPT))).astype(float)
                result = M.relative_length_difference(a.ravel(), b.ravel(), prompts=ids(k))
                iv = metric_interval(result, "bootstrap")
                for name, join in joins.items():
                    lo, hi = join(result, iv.low, iv.high)
                    hits[name] += lo > 0 or hi < 0
            for name in joins:
                rows[name].append(f"{100.0 * hits[name] / reps:.1f}%")
        for name, row in rows.items():
            print(f"| power, every reply {longer:+.0%} | {name} | " + " | ".join(row) + " |", flush=True)


def ced_table(reps: int) -> None:
    sys.path[:0] = ["benchmarks"]
    import bench_review11 as review

    from evenhand.stats import metric_interval
    from evenhand.stats._small_sample import jackknife_t_interval

    print("| design | rate | k = 20 | k = 40 | k = 40, Student's t on the jackknife |")
    print("|---|---|---|---|---|")
    for name in ("CED", "CER"):
        draw, _ = review.DESIGNS[name]
        for p in review.RATES:
            cells = []
            for k in (20, 40):
                rng = np.random.default_rng(11 + k)
                as_is = t_rule = 0
                for _ in range(reps):
                    result, truth = draw(rng, p, k)
                    iv, jt = metric_interval(result, "bootstrap"), jackknife_t_interval(result)
                    as_is += iv.low <= truth <= iv.high
                    t_rule += jt is not None and jt.low <= truth <= jt.high
                cells.append(f"{100.0 * as_is / reps:.1f}%")
            cells.append(f"{100.0 * t_rule / reps:.1f}%")
            print(f"| {name} | {p:.1%} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("section", choices=["compare", "prrd", "tp", "floor", "rld", "ced"])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--fixture", action="store_true", help="compare: also left10b's end-to-end fixture")
    args = parser.parse_args()
    reps = max(1, min(args.reps, 1000))  # bounded
    start = time.perf_counter()
    if args.section == "compare":
        compare_table(reps)
        if args.fixture:
            compare_fixture(40, 20)
    elif args.section == "prrd":
        prrd_table(min(reps, 60))
    elif args.section == "tp":
        tp_table(reps)
    elif args.section == "floor":
        floor_table(reps)
    elif args.section == "rld":
        rld_table(reps)
    elif args.section == "ced":
        ced_table(reps)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
