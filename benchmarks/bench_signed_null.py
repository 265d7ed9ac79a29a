"""Null simulation of the signed differences behind the distances (issue 27, item 6): on data with no bias, how often
does the interval of the signed difference (group A minus group B) exclude 0, against how often the record's test
rejects?

Run: PYTHONPATH=. python benchmarks/bench_signed_null.py [--runs 200] [--resamples 1000]

The same building blocks as the pipeline (:mod:`evenhand.pipeline.evidence.signed_differences`, the metrics' resamplers,
:func:`evenhand.stats.confidence_interval`, the tests the families run), on synthetic data with correlated answers,
so that resampling single answers instead of their unit would show up as over-calling:

* DP, person level: 2 groups x ``persons`` persons x 3 answers; each person has their own approval probability
  (Beta(2, 2)), the same distribution in both groups; the unit is the person (``prompts=``), the test the pair rate
  test (:func:`evenhand.stats.pairwise_rate_tests`, group labels permuted among persons);
* SCSP and WCSP, counterfactual pairs: ``prompts`` prompts x 3 pairs; each prompt has its own mean sentiment
  (uniform in [0.2, 0.8]), each reply that mean plus noise, the same for both groups' versions; the unit is the
  prompt, the test the paired swap test of the pipeline (W1 for SCSP, signed share above 0.5 for WCSP).

Prints, per metric: the share of data sets where the signed bootstrap interval excludes 0, where the shown signed
interval (joined with 0 unless the test rejects) excludes 0, where the test rejects at 0.05, and where the bootstrap
interval of the distance itself excludes 0 (for contrast).
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace
from typing import Any

import numpy as np

from evenhand.metrics import demographic_parity_difference, strict_sentiment_parity, weak_sentiment_parity
from evenhand.pipeline.evidence.records import MetricRecord, pair
from evenhand.pipeline.evidence.signed_differences import rate_signed, sentiment_signed, signed_interval
from evenhand.stats import (
    confidence_interval,
    counterfactual_sentiment_test,
    joined_with_zero_unless_rejected,
    pairwise_rate_tests,
)

ANSWERS = 3


def _excludes_zero(iv: Any) -> bool:
    return bool(iv is not None and (iv.low > 0 or iv.high < 0))


def dp_once(rng: np.random.Generator, persons: int, st: Any) -> tuple[bool, bool, bool, bool]:
    n = 2 * persons
    person = np.repeat(np.arange(n), ANSWERS)
    group = np.where(person < persons, "female", "male")
    p_person = rng.beta(2, 2, size=n)
    pred = (rng.random(person.size) < p_person[person]).astype(int)
    result = demographic_parity_difference(pred, group, pos_label=1, prompts=person)
    signed = rate_signed("demographic_parity_difference", (pred, group), group, 1, person)
    assert signed is not None
    rec = MetricRecord("demographic_parity_difference", "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, st)
    table = pairwise_rate_tests(pred, group, metrics="demographic_parity_difference", prompts=person,
                                seed=int(rng.integers(2**31)))  # fmt: skip
    p = float(table["p_value"].iloc[0])
    distance = confidence_interval(result, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed)
    shown = joined_with_zero_unless_rejected(signed.bootstrap, p)
    return _excludes_zero(signed.bootstrap), _excludes_zero(shown), p < 0.05, _excludes_zero(distance)


def sentiment_once(rng: np.random.Generator, prompts: int, st: Any, weak: bool) -> tuple[bool, bool, bool, bool]:
    ids = np.repeat(np.arange(prompts), ANSWERS)
    mean = rng.uniform(0.2, 0.8, size=prompts)[ids]
    a = np.clip(mean + rng.normal(0, 0.15, ids.size), 0, 1)
    b = np.clip(mean + rng.normal(0, 0.15, ids.size), 0, 1)
    metric, key = (weak_sentiment_parity, "weak_sentiment_parity") if weak else (
        strict_sentiment_parity, "strict_sentiment_parity")  # fmt: skip
    result = metric(a, b, prompts=ids)
    signed = sentiment_signed(result, a, b, ids, ("female", "male"))
    assert signed is not None
    rec = MetricRecord(key, "gender", pair("female", "male"), result, signed=signed)
    signed_interval(rec, st)
    test = counterfactual_sentiment_test(a, b, statistic="wcsp" if weak else "scsp", prompts=ids,
                                         seed=int(rng.integers(2**31)))  # fmt: skip
    distance = confidence_interval(result, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed)
    shown = joined_with_zero_unless_rejected(signed.bootstrap, test.p_value)
    return _excludes_zero(signed.bootstrap), _excludes_zero(shown), test.p_value < 0.05, _excludes_zero(distance)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--units", type=int, default=50, help="persons per group (DP), prompts (SCSP, WCSP)")
    parser.add_argument("--seed", type=int, default=2027)
    args = parser.parse_args()
    st = SimpleNamespace(ci=0.95, n_resamples=args.resamples, seed=0, method="percentile")
    cases = {
        f"DP, person level ({args.units} persons per group x {ANSWERS} answers)": lambda r: dp_once(r, args.units, st),
        f"SCSP ({args.units} prompts x {ANSWERS} pairs)": lambda r: sentiment_once(r, args.units, st, weak=False),
        f"WCSP ({args.units} prompts x {ANSWERS} pairs)": lambda r: sentiment_once(r, args.units, st, weak=True),
    }
    print(f"{args.runs} null data sets per metric, {args.resamples} bootstrap resamples, 95% intervals\n")
    columns = ("metric", "signed bootstrap interval excludes 0", "shown signed interval excludes 0",
               "test rejects (p < 0.05)", "distance's bootstrap interval excludes 0")  # fmt: skip
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|")
    for name, once in cases.items():
        rng = np.random.default_rng(args.seed)
        started = time.perf_counter()
        counts = np.sum([once(rng) for _ in range(args.runs)], axis=0)
        cells = " | ".join(f"{int(c)} of {args.runs} ({c / args.runs:.1%})" for c in counts)
        print(f"| {name} | {cells} |  ({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
