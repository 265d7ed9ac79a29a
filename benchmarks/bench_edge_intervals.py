"""Coverage of the rate intervals at the edges (issue 37): true rates 0%, 1%, 5% and 30%; 10, 40 and 200 prompts;
1 and 5 replies (or pairs, or answers per person) per prompt, with within-prompt correlation.

Run: PYTHONPATH=. nice -n 10 python benchmarks/bench_edge_intervals.py [--reps 1000] [--icc 0.3] [--bootstrap 500]

Each repetition draws a data set with a known truth, computes the metric with the real metric function (with
``prompts=``) and its interval by the method the registry declares (``MetricSpec.interval``, through
``evenhand.stats.metric_interval``), and checks whether the interval holds the truth. Beside it, the percentile
bootstrap of the same result (what every rate had before issue 37). Designs:

* ``TF``: prompt ``i`` has its own toxic rate ``u_i ~ Beta`` with mean ``p`` and intra-prompt correlation ``icc``;
  its ``m`` replies are toxic with probability ``u_i``; the truth is ``p``;
* ``RRD``: ``m`` counterfactual pairs per prompt, both versions refused with probability ``u_i`` (the same prompt
  effect on both sides: a paired design); the truth is 0;
* ``RRD one side 0%``: as RRD, the second version never refused; the truth is ``p``;
* ``DP``: two groups of ``k`` persons each, every person answered ``m`` times with the person's own rate ``u_i``;
  DP is ``|rate_a - rate_b|``, the truth 0;
* ``DP 3 groups``: three such groups, two at ``p`` and one at ``p + 0.05``; DP is ``max - min``, the truth 0.05.

Prints one markdown table (coverage of nominal 95% intervals, new / bootstrap, and the new interval's mean width).
With ``--reps 1000`` each coverage figure is within about 1.4 points (two standard errors at 95%).

``--corrected`` runs the scorer-error correction instead (:func:`evenhand.stats.corrected_rate`): replies to two
groups' versions of each prompt are truly toxic with the prompt's own rate (both groups at ``p``, or the second at
0), and a scorer flags a toxic reply with probability 0.75 and a benign one with 4% (group A) or 1% (group B); its
audit measures that on 80 insults and 100 benign statements per group (binomial draws). Coverage of the *true* gap
by the corrected interval, against the raw Newcombe interval of the flagged gap.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS
from evenhand.stats import confidence_interval, metric_interval

RATES = (0.0, 0.01, 0.05, 0.30)
PROMPTS = (10, 40, 200)
PER_PROMPT = (1, 5)


def latent(rng: np.random.Generator, p: float, k: int, icc: float) -> np.ndarray:
    """Each prompt's (or person's) own rate: Beta with mean ``p`` and intra-class correlation ``icc``."""
    if p <= 0.0:
        return np.zeros(k)
    scale = (1.0 - icc) / icc
    return rng.beta(p * scale, (1.0 - p) * scale, size=k)


Design = Callable[[np.random.Generator, float, int, int, float], tuple[MetricResult, float]]


def tf(rng: np.random.Generator, p: float, k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    u = latent(rng, p, k, icc)
    scores = (rng.random((k, m)) < u[:, None]).astype(float).ravel()
    return M.toxic_fraction(scores, 0.5, np.repeat(np.arange(k), m)), p


def _rrd(rng: np.random.Generator, p: float, k: int, m: int, icc: float, second: float) -> tuple[MetricResult, float]:
    u = latent(rng, p, k, icc)
    a = (rng.random((k, m)) < u[:, None]).astype(float).ravel()
    b = (rng.random((k, m)) < (u[:, None] * second)).astype(float).ravel()
    return M.refusal_rate_difference(a, b, prompts=np.repeat(np.arange(k), m)), p * (1.0 - second)


def rrd(rng: np.random.Generator, p: float, k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    return _rrd(rng, p, k, m, icc, 1.0)


def rrd_one_side(rng: np.random.Generator, p: float, k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    return _rrd(rng, p, k, m, icc, 0.0)


def _dp(rng: np.random.Generator, rates: list[float], k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    preds, groups, persons = [], [], []
    for g, p in enumerate(rates):
        u = latent(rng, p, k, icc)
        preds.append((rng.random((k, m)) < u[:, None]).astype(int).ravel())
        groups.append(np.full(k * m, f"g{g}"))
        persons.append(np.repeat(np.arange(k) + g * k, m))
    result = M.demographic_parity_difference(np.concatenate(preds), np.concatenate(groups),
                                             prompts=np.concatenate(persons))  # fmt: skip
    return result, max(rates) - min(rates)


def dp(rng: np.random.Generator, p: float, k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    return _dp(rng, [p, p], k, m, icc)


def dp_three(rng: np.random.Generator, p: float, k: int, m: int, icc: float) -> tuple[MetricResult, float]:
    return _dp(rng, [p, p, p + 0.05], k, m, icc)


DESIGNS: dict[str, tuple[Design, str]] = {
    "TF": (tf, "toxic_fraction"),
    "RRD": (rrd, "refusal_rate_difference"),
    "RRD one side 0%": (rrd_one_side, "refusal_rate_difference"),
    "DP": (dp, "demographic_parity_difference"),
    "DP 3 groups": (dp_three, "demographic_parity_difference"),
}


SENSITIVITY, FPR_A, FPR_B, AUDIT_INSULTS, AUDIT_BENIGN = 0.75, 0.04, 0.01, 80, 100


def corrected_cell(p: float, second: float, k: int, m: int, args: argparse.Namespace) -> tuple[float, float, float]:
    """Coverage of the true gap by the corrected interval and by the raw one, and the corrected one's mean width."""
    from evenhand.stats import ScorerError, corrected_rate, rate_interval

    rng = np.random.default_rng([int(p * 1000), k, m, int(second)])
    hit = raw_hit = 0
    width = 0.0
    truth = p * (1.0 - second)
    for rep in range(args.reps):
        u = latent(rng, p, k, args.icc)
        toxic_a = rng.random((k, m)) < u[:, None]
        toxic_b = rng.random((k, m)) < (u[:, None] * second)
        flag_a = np.where(toxic_a, rng.random((k, m)) < SENSITIVITY, rng.random((k, m)) < FPR_A).astype(float)
        flag_b = np.where(toxic_b, rng.random((k, m)) < SENSITIVITY, rng.random((k, m)) < FPR_B).astype(float)
        tsd = M.toxic_share_difference(flag_a.ravel(), flag_b.ravel(), 0.5, prompts=np.repeat(np.arange(k), m))
        errors = [ScorerError(g, int(rng.binomial(AUDIT_INSULTS, SENSITIVITY)), AUDIT_INSULTS,
                              int(rng.binomial(AUDIT_BENIGN, fpr)), AUDIT_BENIGN)
                  for g, fpr in (("a", FPR_A), ("b", FPR_B))]  # fmt: skip
        c = corrected_rate(tsd.rate_counts, errors, n_draws=2000, seed=rep)
        raw = rate_interval(tsd.rate_counts)
        hit += c.is_defined and c.low - 1e-12 <= truth <= c.high + 1e-12
        raw_hit += raw.low - 1e-12 <= truth <= raw.high + 1e-12
        width += c.high - c.low
    return hit / args.reps, raw_hit / args.reps, width / args.reps


def corrected_table(args: argparse.Namespace) -> None:
    print(f"reps {args.reps}, icc {args.icc}; Se {SENSITIVITY}, FPR {FPR_A:.0%} (A) and {FPR_B:.0%} (B), audit "
          f"{AUDIT_INSULTS} insults and {AUDIT_BENIGN} benign statements per group\n")  # fmt: skip
    print("| true toxic share A / B | prompts | pairs per prompt | corrected interval covers the true gap | raw "
          "interval covers it | corrected width |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for p, second in ((0.0, 1.0), (0.05, 1.0), (0.05, 0.0), (0.30, 1.0), (0.30, 0.0)):
        for k in (40, 200):
            for m in PER_PROMPT:
                covered, raw, width = corrected_cell(p, second, k, m, args)
                print(f"| {p:.0%} / {p * second:.0%} | {k} | {m} | {covered:.1%} | {raw:.1%} | {width:.3f} |",
                      flush=True)  # fmt: skip


def cell(design: Design, key: str, p: float, k: int, m: int, args: argparse.Namespace) -> tuple[float, float, float]:
    """Coverage of the declared interval, of the percentile bootstrap, and the declared interval's mean width."""
    rng = np.random.default_rng([int(p * 1000), k, m, len(key)])
    hit = boot = 0
    width = 0.0
    for rep in range(args.reps):
        result, truth = design(rng, p, k, m, args.icc)
        iv = metric_interval(result, METRICS[key].interval)
        hit += iv.low - 1e-12 <= truth <= iv.high + 1e-12
        width += iv.high - iv.low
        if args.bootstrap:
            b = confidence_interval(result, n_resamples=args.bootstrap, seed=rep)
            boot += b.is_defined and b.low - 1e-12 <= truth <= b.high + 1e-12
    return hit / args.reps, boot / args.reps if args.bootstrap else float("nan"), width / args.reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--icc", type=float, default=0.3, help="intra-prompt correlation of the replies")
    parser.add_argument("--bootstrap", type=int, default=500, help="bootstrap resamples (0: no bootstrap column)")
    parser.add_argument("--designs", default=",".join(DESIGNS), help="comma-separated designs to run")
    parser.add_argument("--corrected", action="store_true", help="coverage of the scorer-error correction instead")
    args = parser.parse_args()
    if args.corrected:
        corrected_table(args)
        return
    chosen = [d.strip() for d in args.designs.split(",")]
    started = time.perf_counter()
    print(f"reps {args.reps}, icc {args.icc}, bootstrap resamples {args.bootstrap}; cells: coverage of the declared "
          "interval / of the percentile bootstrap (mean width of the declared interval)\n")  # fmt: skip
    print("| true rate | prompts | per prompt | " + " | ".join(chosen) + " |")
    print("|---|---|---|" + "---|" * len(chosen))
    worst = {d: 1.0 for d in chosen}
    for p in RATES:
        for k in PROMPTS:
            for m in PER_PROMPT:
                cells = []
                for name in chosen:
                    design, key = DESIGNS[name]
                    covered, boot, width = cell(design, key, p, k, m, args)
                    worst[name] = min(worst[name], covered)
                    cells.append(f"{covered:.1%} / {boot:.1%} ({width:.3f})")
                print(f"| {p:.0%} | {k} | {m} | " + " | ".join(cells) + " |", flush=True)
    print("\nlowest coverage of the declared interval: " + ", ".join(f"{d} {c:.1%}" for d, c in worst.items()))
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
