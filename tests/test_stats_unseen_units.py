"""review11: a continuous metric's interval on a bounded scale never claims less than "none of k units off it".

A mean over prompts of a bounded value (EMT, MTD, a similarity) whose units vary a little (benign toxicity scores
near 0) but where a rare event (a toxic reply in 1% of replies) sits at the range's end: on 10 prompts the event is
usually not seen, the jackknife t interval (or the bootstrap) is as narrow as the benign noise, and it missed the
truth in up to half of the data sets (benchmarks/bench_review11.py). The rate intervals already bound the share of
unseen events by Clopper-Pearson's "none of k"; the continuous interval now reaches at least as far.
"""

from __future__ import annotations

import numpy as np
import pytest

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.registry import METRICS
from evenhand.stats import metric_interval, none_off_bounds


def _scores(rng: np.random.Generator, toxic: np.ndarray) -> np.ndarray:
    return np.where(toxic, rng.uniform(0.6, 1.0, toxic.shape), rng.beta(1.0, 30.0, toxic.shape))


def test_emt_on_ten_benign_prompts_reaches_the_none_off_bound() -> None:
    rng = np.random.default_rng(0)
    scores = _scores(rng, np.zeros((10, 5), dtype=bool))
    emt = M.expected_maximum_toxicity(scores.ravel(), np.repeat(np.arange(10), 5))
    iv = metric_interval(emt, METRICS["expected_maximum_toxicity"].interval)
    tf = M.toxic_fraction(scores.ravel(), 0.5, prompts=np.repeat(np.arange(10), 5))
    rate = metric_interval(tf, METRICS["toxic_fraction"].interval)
    low, high = none_off_bounds(float(emt.value), (0.0, 1.0), 10, 0.95)
    assert iv.high >= high - 1e-12  # a toxic prompt unseen among 10 is as possible as TF's interval says
    assert iv.high - float(emt.value) >= rate.high * (1.0 - float(emt.value)) - 1e-12
    assert iv.low <= low + 1e-12 and iv.contains(float(emt.value))


def test_mtd_at_one_percent_covers_on_ten_prompts() -> None:
    rng = np.random.default_rng(1)
    truth, hits, reps = 0.01 * (0.8 - 1 / 31), 0, 200
    prompts = np.repeat(np.arange(10), 5)
    for _ in range(reps):
        u = rng.beta(0.01 * 7 / 3, 0.99 * 7 / 3, size=10)  # each prompt's own toxic rate, icc 0.3
        a = _scores(rng, rng.random((10, 5)) < u[:, None]).ravel()
        b = _scores(rng, np.zeros((10, 5), dtype=bool)).ravel()
        iv = metric_interval(M.mean_toxicity_difference(a, b, prompts=prompts), "bootstrap")
        hits += iv.contains(truth)
    assert hits / reps >= 0.92  # the t interval alone: 84.5% (benchmarks/RESULTS.md, review11)


@pytest.mark.parametrize("k", [5, 20, 60])
def test_spread_units_never_get_less_than_alike_ones(k: int) -> None:
    rng = np.random.default_rng(k)
    x = np.clip(0.02 + rng.normal(0.0, 0.005, size=k), 0.0, 1.0)
    result = MetricResult("m", float(x.mean()), resampler=mean_resampler(x, "prompt"), value_range=(0.0, 1.0))
    iv = metric_interval(result, "bootstrap", n_resamples=300)
    low, high = none_off_bounds(float(x.mean()), (0.0, 1.0), k, 0.95)
    assert iv.low <= low + 1e-12 and iv.high >= high - 1e-12


def test_a_half_bounded_metric_keeps_its_interval() -> None:
    # RLD, CER: no share of unseen units bounds the open side, so nothing is added to either side
    x = np.array([0.1, 0.12, 0.09, 0.11, 0.1])
    result = MetricResult("m", float(x.mean()), resampler=mean_resampler(x, "prompt"), value_range=(-1.0, np.inf))
    iv = metric_interval(result, "bootstrap")
    assert iv.method == "student-t on jackknife prompts" and iv.high < 0.2 and iv.low > 0.0


def test_a_paired_difference_with_no_flip_seen_is_as_wide_as_the_flip_rate_allows() -> None:
    # 40 prompts x 5 pairs, every decision the same for both versions: CPRD 0, DFR 0. The flips none of the 40 prompts
    # showed could all go one way, so CPRD's interval reaches DFR's bound; the paired correlation (1) made it +-0.011
    rng = np.random.default_rng(2)
    a = (rng.random(200) < 0.5).astype(int)
    prompts = np.repeat(np.arange(40), 5)
    cprd = metric_interval(M.counterfactual_positive_rate_difference(a, a, prompts=prompts), "rate")
    dfr = metric_interval(M.decision_flip_rate(a, a, prompts=prompts), "rate")
    assert cprd.low <= -dfr.high + 1e-12 and cprd.high >= dfr.high - 1e-12


def test_cprd_at_five_percent_flips_covers_on_twenty_prompts() -> None:
    rng = np.random.default_rng(3)
    prompts, hits, reps = np.repeat(np.arange(20), 5), 0, 200
    for _ in range(reps):
        q = rng.uniform(0.2, 0.8, size=20)[:, None]
        u = rng.beta(0.05 * 7 / 3, 0.95 * 7 / 3, size=20)[:, None]  # each prompt's own flip rate, icc 0.3
        a = rng.random((20, 5)) < q
        b = a & ~(rng.random((20, 5)) < u)  # an approval of the first version denied to the second
        iv = metric_interval(M.counterfactual_positive_rate_difference(a.astype(int).ravel(), b.astype(int).ravel(),
                                                                       prompts=prompts), "rate")  # fmt: skip
        hits += iv.contains(0.025)
    assert hits / reps >= 0.92  # before: 83% (benchmarks/RESULTS.md, review11)
