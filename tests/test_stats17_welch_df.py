"""stats17 item 3: the t rule's degrees of freedom with strata are Welch-Satterthwaite's, not units minus strata.

ULD (the observational length gap: a few prompts that name an unplaced person against the rest) is a ratio of two
strata's means whose spread comes mostly from the small stratum; with ``k - 2`` degrees of freedom its t interval
covered 91.5-93.5% on 10 and 20 prompts (3 and 6 of them in the set; benchmarks/RESULTS.md, stats17). For a
difference of two means the jackknife within strata gives Welch's standard error exactly, and with Satterthwaite's
degrees of freedom the interval is Welch's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import ttest_ind

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult, Resampler
from evenhand.stats._small_sample import jackknife_standard_error, jackknife_t_interval


def _difference_of_means(x: np.ndarray, y: np.ndarray) -> MetricResult:
    values = np.concatenate([x, y])
    first = np.arange(values.size) < x.size

    def statistic(w: np.ndarray) -> np.ndarray:
        return (w * first) @ values / (w @ first) - (w * ~first) @ values / (w @ ~first)  # type: ignore[no-any-return]

    strata = np.where(first, "set", "rest")
    return MetricResult("d", float(x.mean() - y.mean()), resampler=Resampler("prompt", values.size, statistic, strata),
                        value_range=(-10.0, 10.0))  # fmt: skip


def test_a_difference_of_two_strata_means_is_welchs_interval() -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(0.0, 3.0, 3), rng.normal(0.0, 1.0, 17)
    iv = jackknife_t_interval(_difference_of_means(x, y))
    welch = ttest_ind(x, y, equal_var=False)
    assert iv is not None
    assert (iv.low, iv.high) == pytest.approx(tuple(welch.confidence_interval(0.95)), rel=1e-9)
    assert jackknife_standard_error(_difference_of_means(x, y).resampler)[1] == pytest.approx(welch.df)  # type: ignore[arg-type]


def test_one_stratum_keeps_k_minus_1() -> None:
    x = np.array([0.1, 0.4, 0.2, 0.9])
    se, df = jackknife_standard_error(Resampler("prompt", 4, lambda w: w @ x / w.sum(axis=1)))
    assert df == 3 and se == pytest.approx(x.std(ddof=1) / 2)


def test_uld_on_ten_prompts_takes_the_small_sets_degrees_of_freedom() -> None:
    rng = np.random.default_rng(3)
    member = np.repeat(np.arange(10) < 3, 5)
    words = np.repeat(rng.integers(20, 120, 10), 5) + rng.poisson(3.0, 50)
    result = M.unplaced_length_difference(words, member, prompts=np.repeat(np.arange(10), 5))
    assert result.resampler is not None
    _, df = jackknife_standard_error(result.resampler)
    assert 2.0 <= df < 8.0  # units minus strata would say 8
