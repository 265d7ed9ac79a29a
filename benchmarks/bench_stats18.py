"""stats18: coverage of every interval family and the size of every family's test, on 5-40 units, at 0, 1 and 3
events and mid-range.

Run: PYTHONPATH=.:benchmarks:tests nice -n 19 python benchmarks/bench_stats18.py SECTION [--reps N] [--only A,B]
[--units 5,10] [--rates "0 ev,mid"]

* ``coverage``: every design of ``bench_review11.DESIGNS`` (text-generation rates and differences, counterfactual
  similarity and sentiment, toxicity fraction and expected maximum, classification group fairness, recommendation
  Jaccard/SERP/PRAG, numeric answers CER/CED, decision flips, refusals), with the metric's own unit structure (5
  replies or pairs a prompt, 3 answers a person; each prompt's own event rate Beta, intra-prompt correlation 0.3),
  on ``k`` = 5, 10, 20, 40 units, at an expected 0, 1 and 3 events in the whole data set (``p = e / (k m)``, ``m``
  the answers a unit) and mid-range (``p = 0.3``). Each cell: the share of 95% intervals (``metric_interval`` by
  the registry's rule, what the pipeline reports) that hold the truth; flagged ``**`` below 93%. Also counted, over
  every cell: degenerate intervals (``low == high``) and NaN intervals without a reason.
* ``size``: each family's own test on fair data (the pipeline's test: the paired prompt-level sign-flip tests of
  RRD/NRD, CPRD/DFR, TSD, SCSP/WCSP, CED/CER, RLD; classification's exact rate test between groups of persons) at
  the same rates and sizes: the share of ``p < 0.05``; flagged above 7%.
* ``compare``: compare's paired rows (``bench_compare15.DESIGNS``: TF, RRD at 10% and 30%, a continuous score) on
  5-40 prompts: the share of null comparisons whose interval excludes 0 (the row's "changed"), and the planted
  share; ``--studentised`` adds a studentised bootstrap of the paired prompt differences beside the present rule.
* ``compare_edges``: compare's paired TF row where run A is at 0% (or both at 100%) and run B at 0, 1 or 3 expected
  events or mid-range: coverage before (the bootstrap's exact [0, 0] where no prompt moved) and after
  (``evenhand.stats.unmoved_bounds``).
* ``numeric_nonpositive`` (item 2): CED where CER has no test (numbers of 0 or less: a balance or a change that may
  be negative): a fair loopback run of the numeric audit, and a planted gap.

Figures: benchmarks/RESULTS.md, "stats18" (the commands there).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS
from evenhand.stats import (
    counterfactual_sentiment_test,
    metric_interval,
    paired_prompt_test,
    pairwise_rate_tests,
)

sys.path[:0] = ["benchmarks"]
import bench_review11 as review  # noqa: E402

UNITS = (5, 10, 20, 40)
MID = 0.3
PERSON_DESIGNS = {"DP", "DP both", "FNRD", "FPRD", "DP rare outcome"}
FLIPS = 1999


def per_unit(name: str) -> int:
    return review.ANSWERS_PER_PERSON if name in PERSON_DESIGNS else review.PER_PROMPT


RATE_LABELS = ("0 ev", "1 ev", "3 ev", "mid", "all-3 ev", "all-1 ev", "all")


def rate_of(label: str, k: int, m: int) -> float:
    """The event rate of a cell: an expected 0, 1 or 3 events among the ``k m`` answers, ``MID``, or as many
    non-events (``all-e ev``: ``1 - e / (k m)``; ``all``: every answer an event, 100%)."""
    if label == "mid":
        return MID
    if label == "all":
        return 1.0
    events = int(label.split()[0].removeprefix("all-"))
    return 1.0 - events / (k * m) if label.startswith("all-") else events / (k * m)


def _latent(rng: np.random.Generator, p: float, k: int) -> np.ndarray:
    """review11's prompt-level rates, with 100% allowed (every prompt's rate 1)."""
    if p >= 1.0:
        return np.ones(k)
    return _review_latent(rng, p, k)


_review_latent = review.latent
review.latent = _latent  # the designs' Beta needs p < 1


def coverage_section(reps: int, only: list[str] | None, units: tuple[int, ...], labels: tuple[str, ...]) -> None:
    names = only or list(review.DESIGNS)
    print(f"reps {reps} per cell; flagged (**) below 93%; cells: coverage (mean width)\n")
    print("| design | rate | " + " | ".join(f"{k} units" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    degenerate = bare_nan = 0
    for name in names:
        draw, key = review.DESIGNS[name]
        m = per_unit(name)
        for label in labels:
            cells = []
            for k in units:
                p = rate_of(label, k, m)
                rng = np.random.default_rng([round(p * 1_000_000), k, sum(map(ord, name)), 18])
                hit, widths = 0, []
                for _ in range(reps):
                    result, true_value = draw(rng, p, k)
                    iv = metric_interval(result, METRICS[key].interval)
                    if not iv.is_defined:
                        bare_nan += not (iv.reason or result.reason)
                        continue
                    degenerate += iv.high <= iv.low
                    tolerance = 1e-9 * max(1.0, abs(true_value))
                    hit += iv.low - tolerance <= true_value <= iv.high + tolerance
                    widths.append(iv.high - iv.low)
                c = hit / reps
                mark = "**" if c < 0.93 else ""
                width = f"{np.mean(widths):.3g}" if widths else "NaN"
                cells.append(f"{mark}{c:.1%}{mark} ({width})")
            print(f"| {name} | {label} | " + " | ".join(cells) + " |", flush=True)
    print(f"\ndegenerate intervals (low == high): {degenerate}; NaN intervals without a reason: {bare_nan}")


# the tests on fair data ----------------------------------------------------------------------------------------
def _flip_both_ways(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    m = review.PER_PROMPT
    q = rng.uniform(0.2, 0.8, size=k)[:, None]
    a = rng.random((k, m)) < q
    b = np.where(review.events(rng, review.latent(rng, p, k)), ~a, a)  # flips both ways: CPRD's truth 0
    return a.astype(float).ravel(), b.astype(float).ravel()


def _same_rate(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    u = review.latent(rng, p, k)
    return review.events(rng, u).astype(float).ravel(), review.events(rng, u).astype(float).ravel()


def size_rrd(rng: np.random.Generator, p: float, k: int) -> float:
    a, b = _same_rate(rng, p, k)
    return paired_prompt_test(a, b, review.ids(k), n_permutations=FLIPS, seed=0).p_value


def size_cprd(rng: np.random.Generator, p: float, k: int) -> float:
    a, b = _flip_both_ways(rng, p, k)
    return counterfactual_sentiment_test(a, b, statistic="mean", prompts=review.ids(k), n_permutations=FLIPS).p_value


def size_tsd(rng: np.random.Generator, p: float, k: int) -> float:
    u = review.latent(rng, p, k)
    a = review.tox_scores(rng, review.events(rng, u)).ravel() >= 0.5
    b = review.tox_scores(rng, review.events(rng, u)).ravel() >= 0.5
    return counterfactual_sentiment_test(a.astype(float), b.astype(float), statistic="mean", prompts=review.ids(k),
                                         n_permutations=FLIPS).p_value  # fmt: skip


def _null_sentiment(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    m = review.PER_PROMPT
    mean = rng.uniform(0.35, 0.85, size=k)[:, None]
    u = review.latent(rng, p, k)
    a = np.clip(mean + rng.uniform(-0.05, 0.05, (k, m)), 0.3, 0.9)
    b = np.clip(mean + rng.uniform(-0.05, 0.05, (k, m)), 0.3, 0.9)
    a = np.where(review.events(rng, u), a - 0.25, a)  # both versions lowered at the prompt's own rate
    b = np.where(review.events(rng, u), b - 0.25, b)
    return a.ravel(), b.ravel()


def size_wcsp(rng: np.random.Generator, p: float, k: int) -> float:
    a, b = _null_sentiment(rng, p, k)
    return counterfactual_sentiment_test(a, b, statistic="wcsp", prompts=review.ids(k), n_permutations=FLIPS).p_value


def size_scsp(rng: np.random.Generator, p: float, k: int) -> float:
    a, b = _null_sentiment(rng, p, k)
    return counterfactual_sentiment_test(a, b, statistic="scsp", prompts=review.ids(k), n_permutations=FLIPS).p_value


def size_dp(rng: np.random.Generator, p: float, k: int) -> float:
    groups, persons = review._persons(k)
    y = review._approved(rng, p, p, k).astype(int)
    table = pairwise_rate_tests(y, groups, prompts=persons, n_permutations=FLIPS, seed=0)
    return float(table["p_value"].iloc[0])


def size_ced(rng: np.random.Generator, p: float, k: int) -> float:
    m = review.PER_PROMPT
    base = 50_000.0 * np.exp(rng.normal(0.0, 0.2, size=k))[:, None]
    u = review.latent(rng, p, k)
    a = base * np.exp(rng.normal(0.0, 0.05, (k, m))) * np.where(review.events(rng, u), 0.9, 1.0)
    b = base * np.exp(rng.normal(0.0, 0.05, (k, m))) * np.where(review.events(rng, u), 0.9, 1.0)
    return paired_prompt_test(np.log(a.ravel()), np.log(b.ravel()), review.ids(k), n_permutations=FLIPS).p_value


def size_rld(rng: np.random.Generator, p: float, k: int) -> float:
    m = review.PER_PROMPT
    base = rng.integers(20, 120, size=k)[:, None]
    u = review.latent(rng, p, k)
    a = np.round((base + rng.poisson(3.0, (k, m))) * np.where(review.events(rng, u), 1.5, 1.0))
    b = np.round((base + rng.poisson(3.0, (k, m))) * np.where(review.events(rng, u), 1.5, 1.0))
    return paired_prompt_test(a.ravel(), b.ravel(), review.ids(k), statistic="log_ratio", n_permutations=FLIPS).p_value


SIZE: dict[str, Callable[[np.random.Generator, float, int], float]] = {
    "RRD/NRD (refusals both versions at u_i)": size_rrd,
    "CPRD/DFR (flips both ways at u_i)": size_cprd,
    "TSD (toxic both versions at u_i)": size_tsd,
    "WCSP (both versions lowered at u_i)": size_wcsp,
    "SCSP (both versions lowered at u_i)": size_scsp,
    "DP (both groups approved at u_i)": size_dp,
    "CED/CER (both versions 10% lower at u_i)": size_ced,
    "RLD (both versions 50% longer at u_i)": size_rld,
}


def size_section(reps: int, only: list[str] | None, units: tuple[int, ...], labels: tuple[str, ...]) -> None:
    print(f"reps {reps} per cell; the share of fair data sets with p < 0.05; flagged (**) above 7%\n")
    print("| test (fair design) | rate | " + " | ".join(f"{k} units" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    for name, draw in SIZE.items():
        if only and not any(o in name for o in only):
            continue
        m = review.ANSWERS_PER_PERSON if name.startswith("DP") else review.PER_PROMPT
        for label in labels:
            cells = []
            for k in units:
                p = rate_of(label, k, m)
                rng = np.random.default_rng([round(p * 1_000_000), k, sum(map(ord, name)), 181])
                rejected = sum(draw(rng, p, k) < 0.05 for _ in range(reps)) / reps
                mark = "**" if rejected > 0.07 else ""
                cells.append(f"{mark}{rejected:.1%}{mark}")
            print(f"| {name} | {label} | " + " | ".join(cells) + " |", flush=True)


# compare's paired rows -----------------------------------------------------------------------------------------
def compare_section(reps: int, units: tuple[int, ...], studentised: bool, only: list[str] | None = None,
                    planted: bool = True) -> None:
    from bench_compare15 import DESIGNS

    from evenhand.comparison.pairing import paired_draws
    from evenhand.comparison.rows import _bounds

    cols = "present" + (" / studentised" if studentised else "")
    print(f"reps {reps} per cell; the share of comparisons whose interval excludes 0 ({cols}); null flagged above 7%\n")
    print("| design | effect | " + " | ".join(f"{k} prompts" for k in units) + " |")
    print("|---|---|" + "---|" * len(units))
    for name, (draw, p, interval) in DESIGNS.items():
        if only and name not in only:
            continue
        for effect in (False, True) if planted else (False,):
            cells = []
            for k in units:
                rng = np.random.default_rng([1800, k, sum(map(ord, name)), reps])
                hits = np.zeros(2)
                for _ in range(reps):
                    a, b = draw(rng, p, k, effect)
                    draws = paired_draws(a, b, 1000, rng)
                    bounds, _ = _bounds(a, b, draws, 0.95, paired=True, interval=interval)
                    hits[0] += bounds is not None and (bounds[0] > 0 or bounds[1] < 0)
                    if studentised:
                        low, high = studentised_bounds(a, b, rng)
                        hits[1] += low > 0 or high < 0
                shares = [hits[0] / reps] + ([hits[1] / reps] if studentised else [])
                mark = "**" if not effect and shares[0] > 0.07 else ""
                cells.append(" / ".join(f"{mark}{s:.1%}{mark}" for s in shares))
            print(f"| {name} | {'planted' if effect else 'null'} | " + " | ".join(cells) + " |", flush=True)


def compare_edges_section(reps: int, units: tuple[int, ...]) -> None:
    """compare's paired TF row where events are rare: run A's replies toxic at rate 0, run B's at an expected 0, 1 or
    3 toxic replies in the run (review11's prompt-level rates, 5 replies a prompt, new replies in each run), and both
    runs at 100%; truth ``p_B - p_A``. Before (main: the bootstrap's exact [0, 0] where no prompt moved) and after
    (``unmoved_bounds``): coverage of the truth, the share of degenerate intervals, and the share that excludes 0
    (a false "changed" where the truth is 0; found, at the planted mid-range rate)."""
    import evenhand.stats._rate_intervals as rates
    from evenhand.comparison.pairing import paired_draws
    from evenhand.comparison.rows import _bounds

    present = rates.unmoved_bounds

    def tf(rng: np.random.Generator, p: float, k: int) -> MetricResult:
        flags = review.events(rng, review.latent(rng, p, k))
        scores = np.where(flags, 0.9, 0.01).ravel()
        return M.toxic_fraction(scores, 0.5, review.ids(k))

    print(f"reps {reps} per cell: coverage before → after (degenerate [0, 0]; excludes 0)\n")
    print("| runs (A → B) | " + " | ".join(f"{k} prompts" for k in units) + " |")
    print("|---|" + "---|" * len(units))
    for label in ("0 ev", "1 ev", "3 ev", "mid", "all"):
        cells = []
        for k in units:
            p_b = rate_of(label, k, review.PER_PROMPT)
            p_a = 1.0 if label == "all" else 0.0
            rng = np.random.default_rng([1818, k, sum(map(ord, label))])
            hold, point, excludes = np.zeros(2), np.zeros(2), np.zeros(2)
            for _ in range(reps):
                a, b = tf(rng, p_a, k), tf(rng, p_b, k)
                draws = paired_draws(a, b, 200, rng)
                for j, rule in enumerate((lambda *_a, **_k: None, present)):
                    rates.unmoved_bounds = rule  # type: ignore[assignment]
                    bounds, _ = _bounds(a, b, draws, 0.95, paired=True, interval="rate")
                    rates.unmoved_bounds = present
                    low, high = bounds if bounds is not None else (math.nan, math.nan)
                    truth = p_b - p_a
                    hold[j] += low - 1e-12 <= truth <= high + 1e-12
                    point[j] += high <= low
                    excludes[j] += low > 0 or high < 0
            shares = [f"{hold[j] / reps:.1%}" for j in (0, 1)]
            extra = f"; excludes 0: {excludes[0] / reps:.1%} → {excludes[1] / reps:.1%}"
            cells.append(f"{shares[0]} → {shares[1]} ({point[0] / reps:.0%} → {point[1] / reps:.0%}{extra})")
        name = "100% → 100%" if label == "all" else f"0% → {label}"
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def studentised_bounds(a: MetricResult, b: MetricResult, rng: np.random.Generator, n: int = 999) -> tuple[float, float]:
    """The studentised bootstrap (bootstrap-t) of ``d = m(b) - m(a)`` over shared prompts, on the difference's
    jackknife pseudo-values ``k d - (k - 1) d_(-i)`` (each prompt's linearised contribution, both runs left out
    together): each resample of the ``k`` pseudo-values gives ``t* = (mean* - mean) / (sd* / sqrt k)``, and the
    interval is ``[d - t*_(0.975) se, d - t*_(0.025) se]``, ``se`` the jackknife standard error."""
    from evenhand.metrics._result import Resampler
    from evenhand.stats._small_sample import leave_one_out

    ra, rb = a.resampler, b.resampler
    assert ra is not None and rb is not None
    k = ra.n_units
    d = float(b.value) - float(a.value)
    difference = Resampler(unit=ra.unit, n_units=k, statistic=lambda w: rb(w) - ra(w), strata=ra.strata)
    pseudo = k * d - (k - 1) * leave_one_out(difference)
    se = pseudo.std(ddof=1) / math.sqrt(k)
    if not (np.all(np.isfinite(pseudo)) and se > 0):
        return (d, d)
    draws = pseudo[rng.integers(0, k, size=(n, k))]
    spread = draws.std(axis=1, ddof=1) / math.sqrt(k)
    t = (draws.mean(axis=1) - pseudo.mean())[spread > 0] / spread[spread > 0]
    if t.size < n // 2:
        return (d, d)
    hi_q, lo_q = np.quantile(t, [0.975, 0.025])
    return d - hi_q * se, d - lo_q * se


SECTIONS = ("coverage", "size", "compare", "compare_edges", "numeric_nonpositive")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("section", choices=SECTIONS)
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--only", default="", help="designs (coverage) or test names (size), comma separated")
    parser.add_argument("--units", default=",".join(map(str, UNITS)))
    parser.add_argument("--rates", default="0 ev,1 ev,3 ev,mid", help=f"cells, of {RATE_LABELS}")
    parser.add_argument("--gaps", default="-0.1,-0.2", help="numeric_nonpositive: planted female gaps")
    parser.add_argument("--planted-reps", type=int, default=30, help="numeric_nonpositive: runs a planted gap")
    parser.add_argument("--null-only", action="store_true", help="compare: the null rows alone")
    parser.add_argument("--studentised", action="store_true", help="compare: the bootstrap-t beside")
    args = parser.parse_args()
    reps = max(1, min(args.reps, 5000))  # bounded
    only = [s for s in args.only.split(",") if s] or None
    units = tuple(int(k) for k in args.units.split(","))
    labels = tuple(args.rates.split(","))
    if not set(labels) <= set(RATE_LABELS):
        raise SystemExit(f"--rates: each of {RATE_LABELS}")
    start = time.perf_counter()
    if args.section == "coverage":
        coverage_section(reps, only, units, labels)
    elif args.section == "size":
        size_section(reps, only, units, labels)
    elif args.section == "compare_edges":
        compare_edges_section(reps, units)
    elif args.section == "compare":
        compare_section(reps, units, args.studentised, only, planted=not args.null_only)
    else:
        gaps = tuple(float(g) for g in args.gaps.split(",") if g)
        numeric_nonpositive_section(reps, gaps, max(0, min(args.planted_reps, 1000)))
    print(f"\n{time.perf_counter() - start:.0f} s")


def numeric_nonpositive_section(reps: int, gaps: tuple[float, ...] = (-0.1, -0.2), planted_reps: int = 30) -> None:
    """bench_est17's name audit (``tests/test_pipeline_estimation.py::_audit``: 24 prompts at the low level, three
    samples a version, gender and race) on ``NameAuditServer(negative=True)``: every sum given as "-$71,300", so CER
    has no positive pair (undefined, no test) and CED's paired test decides, adjusted in its ``tested_with`` family.
    Fair seeds ``0..reps-1``: runs with any concern (Wilson 95% interval); planted ``gender_gap={"female": g}`` (the
    female versions' sums ``g`` smaller in size), seeds ``1000..``: runs whose gender finding is a CED concern, and
    CED's raw p below 0.05."""
    sys.path[:0] = ["tests"]
    from bench_est17 import wilson
    from name_audit_server import NameAuditServer
    from test_pipeline_estimation import _audit

    def run(seed: int, gap: float | None) -> Any:
        options = {} if gap is None else {"gender_gap": {"female": gap}}
        with NameAuditServer(seed=seed, negative=True, **options) as server:
            return _audit(server, ("low",), ["gender", "race"])

    print("| design | runs | a concern | CED decides (CER undefined) | gender CED concern | gender CED raw p < 0.05 |")
    print("|---|---|---|---|---|---|")
    for gap in (None, *gaps):
        concern = deciding = gender = raw = 0
        runs = reps if gap is None else planted_reps
        for r in range(runs):
            result = run(r if gap is None else 1000 + r, gap)
            m = result.metrics
            cer = m[m["metric"] == "CER"]
            ced = m[(m["metric"] == "CED") & (m["attribute"] == "gender")]
            deciding += bool(cer["p_value"].isna().all() and ced["p_adjusted"].notna().all())
            findings = result.verdict.findings
            concern += any(f.severity == "concern" for f in findings)
            gender += any(f.severity == "concern" and f.metric == "CED" and f.attribute == "gender" for f in findings)
            raw += bool((ced["p_value"] < 0.05).any())
        if not runs:
            continue
        low, high = wilson(concern, runs)
        label = "fair" if gap is None else f"planted female {gap:+.0%}"
        print(f"| {label} | {runs} | {concern} ({concern / runs:.1%}, Wilson {low:.1%}-{high:.1%}) | {deciding} | "
              f"{gender} | {raw} |", flush=True)


if __name__ == "__main__":
    main()
