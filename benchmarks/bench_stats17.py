"""stats17: intervals that cover at 0% and on few units; null (false concern / coverage) and planted tables.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_stats17.py SECTION [--reps N]

Every section computes "before" (main's rule, rebuilt here from the same engine) and "after" (the branch's
``metric_interval``) on the same data sets; each prompt's own event rate is review11's (Beta, mean ``p``, intra-prompt
correlation 0.3, 5 replies or pairs a prompt; ``benchmarks/bench_review11.py``).

* ``ced`` (item 1): CED and CER in review11's estimation design (each version's estimate ``B_i exp(N(0, 0.05))``,
  the second's 10% lower at the prompt's own rate ``p``) on 10-80 prompts: coverage of the 95% interval before (the
  t rule below 30 prompts, the percentile bootstrap from 30) and after (the t rule below 200 prompts on a scale
  unbounded on a side), with BCa beside; planted: every second-version estimate 3% lower (CER truth ``1/0.97 - 1``,
  CED ``0.03 E(b)``), the share of intervals that exclude 0 (CED/CER are judged by their paired test; the interval
  is what the finding shows).
* ``cprd`` (item 2): CPRD and paired RRD at 5-20% flips on 10-40 prompts. Fair (null): flips both ways (CPRD) or
  extra refusals on both versions at the same prompt rate (RRD), truth 0: coverage, the paired sign-flip test's
  rejections (``counterfactual_sentiment_test``, mean, prompts; 1,999 flips) and false concern (test p < 0.05 *and*
  interval excluding 0: ``by_p_and_interval``'s rule; one test, so adjusted p = p). Planted (review11's designs): an
  approval of the first version lost by the second at ``p`` (truth ``p / 2``), the second version refused more at
  ``p`` (truth ``-0.7 p``): coverage and the share of intervals excluding 0, before (Newcombe on effective prompts)
  and after (joined with the BCa bootstrap of prompts).
* ``uld`` (item 3): ULD (unplaced-name length difference, observational: a watch when the prompt-set permutation
  test's p < 0.05, never a concern) on ``k`` prompts of which 30% name an unplaced person: lengths ``L_i +
  Poisson(3)``, ``L_i`` uniform 20-119 words a prompt. Null: a share ``p`` of replies of *both* sets 50% longer
  (truth 0); planted: every reply of the set 10% longer (truth 0.1), or a share ``p`` of the set's replies 50% longer
  (truth ``p / 2``). Coverage before/after, watch rate (test 1,999 permutations), intervals excluding 0.
* ``zero`` (item 4): every rate metric family at 0 events on both sides and at 1 event, on 5-40 prompts: the
  interval's width and whether it holds 0 (it must, and must never be ``[0, 0]``).
* ``compare`` (item 5): compare's paired difference of two runs (``bench_stats14``'s designs, 30-50 prompts) with
  the t rule at every size against the present rule (t below 50 prompts, percentile bootstrap from 50).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.stats import confidence_interval, counterfactual_sentiment_test, metric_interval, prompt_set_test
from evenhand.stats._intervals import Interval
from evenhand.stats._rate_intervals import rate_interval
from evenhand.stats._resampling import strata_indices
from evenhand.stats._small_sample import (
    SMALL_UNITS,
    jackknife_standard_error,
    jackknife_t_interval,
    t_bounds,
    with_unseen_units,
)

sys.path[:0] = ["benchmarks"]
import bench_review11 as review  # noqa: E402

PER_PROMPT = review.PER_PROMPT


def _pct(hits: float, reps: int) -> str:
    return f"{100.0 * hits / reps:.1f}%"


def _holds(iv: Interval | tuple[float, float], truth: float) -> bool:
    low, high = (iv.low, iv.high) if isinstance(iv, Interval) else iv
    return bool(low <= truth <= high)


def _excludes_zero(iv: Interval | tuple[float, float]) -> bool:
    low, high = (iv.low, iv.high) if isinstance(iv, Interval) else iv
    return bool(low > 0 or high < 0)


def main_continuous(result: MetricResult) -> Interval:
    """main's continuous rule: below SMALL_UNITS units the t rule with ``k`` minus the strata degrees of freedom,
    else the percentile bootstrap (joined with the none-off bound on a bounded scale; the scales here are unbounded,
    where that join does nothing)."""
    resampler = result.resampler
    if resampler is not None and resampler.n_units < SMALL_UNITS:
        small = jackknife_t_interval(result)
        if small is not None and small.method.startswith("student-t"):
            se, _ = jackknife_standard_error(resampler)
            df = resampler.n_units - len(strata_indices(resampler))
            low, high = t_bounds(float(result.value), se, df, small.level, result.value_range)
            small = replace(small, low=low, high=high)
        if small is not None:
            return with_unseen_units(result, small)
    return with_unseen_units(result, confidence_interval(result))


# item 1 --------------------------------------------------------------------------------------------------------
def _planted_estimates(rng: np.random.Generator, k: int, lower: float) -> tuple[np.ndarray, np.ndarray]:
    base = 50_000.0 * np.exp(rng.normal(0.0, 0.2, size=k))[:, None]
    a = base * np.exp(rng.normal(0.0, 0.05, (k, PER_PROMPT)))
    b = base * np.exp(rng.normal(0.0, 0.05, (k, PER_PROMPT))) * (1.0 - lower)
    return a.ravel(), b.ravel()


def ced_table(reps: int) -> None:
    units = (10, 20, 40, 80)
    print("| design | rate | " + " | ".join(f"k = {k}: before → after (BCa)" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    for name in ("CED", "CER"):
        draw, _ = review.DESIGNS[name]
        for p in (0.0, 0.02, 0.05):
            cells = []
            for k in units:
                rng = np.random.default_rng(17 + k)
                hits = np.zeros(3)
                for rep in range(reps):
                    result, truth = draw(rng, p, k)
                    ivs = (main_continuous(result), metric_interval(result, "bootstrap"),
                           confidence_interval(result, method="bca", seed=rep))  # fmt: skip
                    hits += [_holds(iv, truth) for iv in ivs]
                cells.append(f"{_pct(hits[0], reps)} → {_pct(hits[1], reps)} ({_pct(hits[2], reps)})")
            print(f"| {name} coverage | {p:.0%} | " + " | ".join(cells) + " |", flush=True)
    for lower in (0.03, 0.01):
        for name, function in (("CED", M.counterfactual_estimate_difference), ("CER", M.counterfactual_estimate_ratio)):
            cells = []
            for k in units:
                rng = np.random.default_rng(23 + k)
                hits = np.zeros(2)
                for _ in range(reps):
                    result = function(*_planted_estimates(rng, k, lower), prompts=review.ids(k))
                    hits += [_excludes_zero(main_continuous(result)),
                             _excludes_zero(metric_interval(result, "bootstrap"))]  # fmt: skip
                cells.append(f"{_pct(hits[0], reps)} → {_pct(hits[1], reps)}")
            print(f"| {name} planted {lower:.0%} lower: interval excludes 0 (before → after) | {lower:.0%} | "
                  + " | ".join(cells) + " |", flush=True)  # fmt: skip


# item 2 --------------------------------------------------------------------------------------------------------
Draw = Callable[[np.random.Generator, float, int], tuple[np.ndarray, np.ndarray, float]]


def _cprd_fair(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    a = rng.random((k, PER_PROMPT)) < rng.uniform(0.2, 0.8, size=k)[:, None]
    return a, np.where(review.events(rng, review.latent(rng, p, k)), ~a, a), 0.0  # flips both ways


def _cprd_one_way(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    a = rng.random((k, PER_PROMPT)) < rng.uniform(0.2, 0.8, size=k)[:, None]
    return a, a & ~review.events(rng, review.latent(rng, p, k)), p / 2.0


def _rrd_fair(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    base = rng.random((k, PER_PROMPT)) < rng.uniform(0.0, 0.6, size=k)[:, None]
    u = review.latent(rng, p, k)
    return base | review.events(rng, u), base | review.events(rng, u), 0.0


def _rrd_paired(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray, float]:
    a = rng.random((k, PER_PROMPT)) < rng.uniform(0.0, 0.6, size=k)[:, None]
    return a, a | review.events(rng, review.latent(rng, p, k)), -0.7 * p


PAIRED: dict[str, tuple[Draw, Callable[..., MetricResult], bool]] = {
    "CPRD fair (flips both ways)": (_cprd_fair, M.counterfactual_positive_rate_difference, True),
    "RRD paired fair": (_rrd_fair, M.refusal_rate_difference, True),
    "CPRD one-way (planted)": (_cprd_one_way, M.counterfactual_positive_rate_difference, False),
    "RRD paired (planted, review11)": (_rrd_paired, M.refusal_rate_difference, False),
}


def cprd_table(reps: int) -> None:
    units = (10, 20, 40)
    print("| design | flips | figure | " + " | ".join(f"k = {k}" for k in units) + " |")
    print("|---|---|---|" + "---|" * len(units))
    for name, (draw, function, fair) in PAIRED.items():
        for p in (0.05, 0.1, 0.2):
            rows: dict[str, list[str]] = {"coverage before → after": [], "interval excludes 0 before → after": []}
            if fair:
                rows["test rejects / false concern after"] = []
            for k in units:
                rng = np.random.default_rng(5 + k)
                c = np.zeros(6)
                for rep in range(reps):
                    a, b, truth = draw(rng, p, k)
                    x, y, ids = a.astype(float).ravel(), b.astype(float).ravel(), review.ids(k)
                    result = function(x, y, prompts=ids)
                    assert result.rate_counts is not None
                    before, after = rate_interval(result.rate_counts), metric_interval(result, "rate", seed=rep)
                    c[:4] += [_holds(before, truth), _holds(after, truth), _excludes_zero(before),
                              _excludes_zero(after)]  # fmt: skip
                    if fair:
                        test = counterfactual_sentiment_test(x, y, statistic="mean", prompts=ids, seed=rep,
                                                             n_permutations=1999)  # fmt: skip
                        c[4] += test.p_value < 0.05
                        c[5] += test.p_value < 0.05 and _excludes_zero(after) and k >= 10
                rows["coverage before → after"].append(f"{_pct(c[0], reps)} → {_pct(c[1], reps)}")
                rows["interval excludes 0 before → after"].append(f"{_pct(c[2], reps)} → {_pct(c[3], reps)}")
                if fair:
                    rows["test rejects / false concern after"].append(f"{_pct(c[4], reps)} / {_pct(c[5], reps)}")
            for what, cells in rows.items():
                print(f"| {name} | {p:.0%} | {what} | " + " | ".join(cells) + " |", flush=True)


# item 3 --------------------------------------------------------------------------------------------------------
def _uld_data(rng: np.random.Generator, k: int, p_set: float, p_rest: float, longer: float) -> tuple[
        np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    n_in = max(2, round(0.3 * k))
    member = np.arange(k) < n_in
    base = rng.integers(20, 120, size=k)[:, None]
    rate = np.where(member, p_set, p_rest)
    u = np.concatenate([review.latent(rng, r, 1) if r > 0 else np.zeros(1) for r in rate])
    words = (base + rng.poisson(3.0, (k, PER_PROMPT))) * np.where(review.events(rng, u), 1.5, 1.0)
    words = np.round(words * np.where(member, 1.0 + longer, 1.0)[:, None])
    return words.ravel(), np.repeat(member, PER_PROMPT), review.ids(k)


def uld_table(reps: int) -> None:
    units = (10, 20, 40, 80)
    designs: list[tuple[str, float, float, float, float]] = [
        (f"null, {p:.0%} of every reply 50% longer", p, p, 0.0, 0.0) for p in (0.0, 0.02, 0.05)
    ]
    designs += [(f"planted, every set reply {g:.0%} longer", 0.0, 0.0, g, g) for g in (0.1, 0.3)]
    designs += [(f"planted, {p:.0%} of set replies 50% longer", p, 0.0, 0.0, p / 2) for p in (0.05, 0.2)]
    print("| design | figure | " + " | ".join(f"k = {k}" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    for label, p_set, p_rest, longer, truth in designs:
        rows: dict[str, list[str]] = {"coverage before → after": [], "interval excludes 0 before → after": [],
                                      "watch (test p < 0.05)": []}  # fmt: skip
        for k in units:
            rng = np.random.default_rng(31 + k)
            c = np.zeros(5)
            for rep in range(reps):
                words, member, ids = _uld_data(rng, k, p_set, p_rest, longer)
                result = M.unplaced_length_difference(words, member, prompts=ids)
                before, after = main_continuous(result), metric_interval(result, "bootstrap")
                test = prompt_set_test(words, member, ids, statistic="log_ratio", n_permutations=1999, seed=rep)
                c += [_holds(before, truth), _holds(after, truth), _excludes_zero(before), _excludes_zero(after),
                      test.p_value < 0.05]  # fmt: skip
            rows["coverage before → after"].append(f"{_pct(c[0], reps)} → {_pct(c[1], reps)}")
            rows["interval excludes 0 before → after"].append(f"{_pct(c[2], reps)} → {_pct(c[3], reps)}")
            rows["watch (test p < 0.05)"].append(_pct(c[4], reps))
        for what, cells in rows.items():
            print(f"| {label} (truth {truth:+.2f}) | {what} | " + " | ".join(cells) + " |", flush=True)


SECTIONS: dict[str, Callable[[int], None]] = {"ced": ced_table, "cprd": cprd_table, "uld": uld_table}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("section", choices=[*sorted(SECTIONS), "zero", "compare"])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--units", default="30,40,49,50,60,80", help="compare: numbers of prompts")
    parser.add_argument("--null-only", action="store_true", help="compare: the null rows alone")
    args = parser.parse_args()
    reps = max(1, min(args.reps, 5000))  # bounded
    start = time.perf_counter()
    if args.section in SECTIONS:
        SECTIONS[args.section](reps)
    elif args.section == "zero":
        zero_table()
    else:
        compare_table(reps, tuple(int(k) for k in args.units.split(",")), planted=not args.null_only)
    print(f"\n{time.perf_counter() - start:.0f} s")


def zero_table() -> None:
    """Every rate family's interval at 0 events and at 1 event (tests/test_stats17_zero_events.BUILDERS)."""
    sys.path[:0] = ["tests"]
    from test_stats17_zero_events import BUILDERS, SPEC

    sizes = (5, 10, 20, 40)
    print("| metric | events | " + " | ".join(f"k = {k}" for k in sizes) + " |")
    print("|---|---|" + "---|" * len(sizes))
    for name, build in BUILDERS.items():
        for events in (0, 1):
            cells = []
            for k in sizes:
                result = build(k, events)
                iv = metric_interval(result, SPEC[name].interval, n_resamples=200)
                flag = "" if iv.low <= 0.0 <= iv.high or events else " (0 outside!)"
                point = " POINT" if iv.high - iv.low <= 0.0 else ""
                cells.append(f"{float(result.value):.3f} [{iv.low:.3f}, {iv.high:.3f}]{flag}{point}")
            print(f"| {name} | {events} | " + " | ".join(cells) + " |", flush=True)


def compare_table(reps: int, units: tuple[int, ...] = (30, 40, 49, 50, 60, 80), planted: bool = True) -> None:
    """compare's paired difference of two runs (bench_compare15's designs): the present rule (the t rule below
    COMPARE_SMALL_UNITS = 50 prompts, the percentile bootstrap of the paired differences from 50) against the t rule
    at every size, on the same data sets; null and planted, the share of intervals that exclude 0."""
    from bench_compare15 import DESIGNS

    from evenhand.comparison.pairing import paired_draws
    from evenhand.comparison.rows import _bounds
    from evenhand.stats import COMPARE_SMALL_UNITS

    print("| design | effect | " + " | ".join(f"k = {k}: present / t everywhere" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    for name, (draw, p, interval) in DESIGNS.items():
        for effect in (False, True) if planted else (False,):
            cells = []
            for k in units:
                rng = np.random.default_rng(1700 + k)
                hits = np.zeros(2)
                for _ in range(reps):
                    a, b = draw(rng, p, k, effect)
                    draws = paired_draws(a, b, 1000, rng)
                    for j, limit in enumerate((COMPARE_SMALL_UNITS, 10**6)):
                        bounds, _ = _bounds(a, b, draws, 0.95, paired=True, interval=interval, units=limit)
                        hits[j] += bounds is not None and _excludes_zero(bounds)
                cells.append(f"{_pct(hits[0], reps)} / {_pct(hits[1], reps)}")
            label = "planted" if effect else "null"
            print(f"| {name} | {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
