"""interval18: how often a finding's sentence quoted a signed interval holding 0 beside a test that rejects, before and
after the signed interval of a rejecting test is shown without the unseen-units join (review11), the join quoted
beside it.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_interval18.py [--runs 200] [--resamples 1000]

The pipeline's building blocks on synthetic counterfactual pairs (as bench_signed_null.py): ``k`` prompts x 3 pairs,
each prompt with its own mean sentiment (uniform in [0.2, 0.8]), each reply that mean plus N(0, 0.15) noise, clipped
to [0, 1]; the unit is the prompt, the test the pipeline's paired swap test (W1 for SCSP, the signed share above 0.5
for WCSP), the signed difference and its interval :mod:`evenhand.pipeline.evidence.signed_differences`, and the rule
after the tests :func:`evenhand.pipeline.verdict.intervals_agree_with_tests.make_intervals_test_consistent`. Designs:

* **fair**: both versions alike (the null);
* **planted shift**: the first group's replies score ``--shift`` lower (a mean difference, the fair18 case);
* **planted spread**: the first group's replies are twice as spread around the prompt's mean, the same mean (a
  difference of distributions that SCSP's test can find and a difference of means cannot).

And DP of two groups (person level, 2 ``k`` persons per group x 3 answers, each person's approval probability from
Beta(2, 2), the first group's raised by ``--dp-shift`` when planted; the pair rate test, as bench_signed_null.py): its
signed interval is a rate interval with no unseen-units join, so only the remark can change there.

Per design and ``k``: the share of data sets where the test rejects at 0.05 (the verdict's severity rests on it and is
not changed, so null and power are the same before and after), and among the data sets, those whose sentence shows
a signed interval holding 0 beside a rejecting test: before (the joined interval, joined with 0 unless the test
rejects), after (the interval shown now), and after without an explanation beside it (must be 0).
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from evenhand.metrics import demographic_parity_difference, strict_sentiment_parity, weak_sentiment_parity
from evenhand.pipeline.evidence.records import MetricRecord, pair
from evenhand.pipeline.evidence.signed_differences import (
    rate_signed,
    sentiment_signed,
    signed_caveat,
    signed_interval,
    signed_words,
)
from evenhand.pipeline.verdict.intervals_agree_with_tests import make_intervals_test_consistent
from evenhand.stats import (
    PermutationTest,
    counterfactual_sentiment_test,
    joined_with_zero_unless_rejected,
    pairwise_rate_tests,
)

ANSWERS = 3


def _holds_zero(iv: Any) -> bool:
    return bool(iv is not None and iv.low <= 0.0 <= iv.high)


def once(rng: np.random.Generator, k: int, design: str, shift: float, st: Any, weak: bool) -> tuple[bool, ...]:
    """(test rejects, before: holds 0 beside rejection, after: holds 0 beside it, after: and unexplained)."""
    ids = np.repeat(np.arange(k), ANSWERS)
    mean = rng.uniform(0.2, 0.8, size=k)[ids]
    spread = 0.30 if design == "planted spread" else 0.15
    offset = -shift if design == "planted shift" else 0.0
    a = np.clip(mean + offset + rng.normal(0, spread, ids.size), 0, 1)
    b = np.clip(mean + rng.normal(0, 0.15, ids.size), 0, 1)
    metric, key = (weak_sentiment_parity, "weak_sentiment_parity") if weak else (
        strict_sentiment_parity, "strict_sentiment_parity")  # fmt: skip
    result = metric(a, b, prompts=ids)
    signed = sentiment_signed(result, a, b, ids, ("female", "male"))
    assert signed is not None
    rec = MetricRecord(key, "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, st)
    rec.test = counterfactual_sentiment_test(a, b, statistic="wcsp" if weak else "scsp", prompts=ids,
                                             n_permutations=999, seed=int(rng.integers(2**31)))  # fmt: skip
    p = float(rec.test.p_value)
    rejects = p < 0.05
    before = joined_with_zero_unless_rejected(signed.bootstrap, p)  # the rule before interval18
    make_intervals_test_consistent([rec])
    words = signed_words(signed)
    after = rejects and _holds_zero(signed.interval)
    unexplained = after and "although" not in words
    return rejects, rejects and _holds_zero(before), after, unexplained


def dp_once(rng: np.random.Generator, k: int, design: str, shift: float, st: Any) -> tuple[bool, ...]:
    """As :func:`once`, for DP of two groups of ``2 k`` persons."""
    persons = 2 * k
    person = np.repeat(np.arange(2 * persons), ANSWERS)
    group = np.where(person < persons, "female", "male")
    p_person = rng.beta(2, 2, size=2 * persons)
    if design == "planted shift":
        p_person[:persons] = np.clip(p_person[:persons] + shift, 0, 1)
    pred = (rng.random(person.size) < p_person[person]).astype(int)
    result = demographic_parity_difference(pred, group, pos_label=1, prompts=person)
    signed = rate_signed("demographic_parity_difference", (pred, group), group, 1, person)
    assert signed is not None
    rec = MetricRecord("demographic_parity_difference", "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, st)
    table = pairwise_rate_tests(pred, group, metrics="demographic_parity_difference", prompts=person,
                                seed=int(rng.integers(2**31)))  # fmt: skip
    p = float(table["p_value"].iloc[0])
    rec.test = PermutationTest(float(result.value), p, "two-sided", "permutation", None, ("female", "male"))
    rejects = p < 0.05
    before = joined_with_zero_unless_rejected(signed.bootstrap, p)
    make_intervals_test_consistent([rec])
    after = rejects and _holds_zero(signed.interval)
    return rejects, rejects and _holds_zero(before), after, after and "although" not in signed_caveat(signed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--shift", type=float, default=0.05)
    parser.add_argument("--dp-shift", type=float, default=0.1)
    parser.add_argument("--units", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--seed", type=int, default=2018)
    args = parser.parse_args()
    runs = max(1, min(args.runs, 1000))  # bounded
    st = SimpleNamespace(ci=0.95, n_resamples=args.resamples, seed=0, method="percentile")
    print(f"{runs} data sets per cell, {args.resamples} resamples, 95% intervals, 999 permutations, shift "
          f"{args.shift}\n")  # fmt: skip
    print("| metric | design | prompts | test rejects | before: interval holds 0 beside a rejection | after | "
          "after, unexplained |")
    print("|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for weak in (False, True):
        for design in ("fair", "planted shift", "planted spread"):
            for k in args.units:
                rng = np.random.default_rng(args.seed + k)
                counts = np.sum([once(rng, k, design, args.shift, st, weak) for _ in range(runs)], axis=0)
                cells = " | ".join(f"{int(c)} ({c / runs:.1%})" for c in counts)
                print(f"| {'WCSP' if weak else 'SCSP'} | {design} | {k} | {cells} |", flush=True)
    for design in ("fair", "planted shift"):
        for k in args.units:
            rng = np.random.default_rng(args.seed + k)
            counts = np.sum([dp_once(rng, k, design, args.dp_shift, st) for _ in range(runs)], axis=0)
            cells = " | ".join(f"{int(c)} ({c / runs:.1%})" for c in counts)
            print(f"| DP | {design} | {2 * k} persons per group | {cells} |", flush=True)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
