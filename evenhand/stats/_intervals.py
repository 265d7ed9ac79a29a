"""Bootstrap confidence intervals (percentile and BCa) for any :class:`~evenhand.metrics.MetricResult`."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from evenhand._validation import power_of_two_scale
from evenhand.errors import InputError, InputTypeError
from evenhand.metrics._result import FloatArray, MetricResult, Resampler
from evenhand.stats._resampling import (
    SeedLike,
    as_generator,
    bootstrap_replicates,
    check_count,
    get_resampler,
    jackknife_influence,
)

METHODS = ("percentile", "bca")
# Fewer valid replicates than this share of the requested ones and the interval is reported as undefined.
_MIN_VALID_SHARE = 0.5


@dataclass(frozen=True)
class Interval:
    """A bootstrap confidence interval for one metric.

    ``low, high = interval`` unpacks the bounds. ``reason`` says why the bounds are NaN, or notes replicates that
    were undefined (for example a resample in which a group had no positives) and were left out.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str
    n_resamples: int
    n_valid: int
    unit: str
    standard_error: float = math.nan
    reason: str | None = None
    # a rate's interval (evenhand.stats.rate_interval): each group's effective number of trials; None for a bootstrap
    effective_n: dict[str, float] | None = None

    def __iter__(self) -> Iterator[float]:
        yield self.low
        yield self.high

    @property
    def is_defined(self) -> bool:
        return not (math.isnan(self.low) or math.isnan(self.high))

    @property
    def width(self) -> float:
        return self.high - self.low

    def contains(self, value: float) -> bool:
        """True when ``low <= value <= high`` (False when the interval is undefined)."""
        return self.is_defined and self.low <= value <= self.high

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly fields (NaN becomes None)."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            out[key] = None if isinstance(value, float) and math.isnan(value) else value
        return out


def check_level(ci: Any) -> float:
    if isinstance(ci, bool) or not isinstance(ci, (int, float, np.floating)):
        raise InputTypeError(f"ci must be a number in (0, 1), e.g. 0.95, got {type(ci).__name__}")
    level = float(ci)
    if not 0.0 < level < 1.0:
        raise InputError(f"ci must lie strictly between 0 and 1 (e.g. 0.95), got {level}")
    return level


def _undefined(estimate: float, level: float, method: str, n: int, unit: str, reason: str, valid: int = 0) -> Interval:
    return Interval(estimate, math.nan, math.nan, level, method, n, valid, unit, reason=reason)


def confidence_interval(
    result: MetricResult | Resampler,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    *,
    estimate: float | None = None,
) -> Interval:
    """Bootstrap confidence interval for a metric, resampling the units its result carries.

    The metric's :class:`~evenhand.metrics.Resampler` says what a unit is: the independent unit, a prompt with all
    its responses for toxicity and stereotype metrics, and with ``prompts=`` a prompt with all its counterfactual
    pairs, classification rows (within its group) or pairs of recommendation lists; without ``prompts=`` a pair or
    a row within its group. Each replicate draws ``n`` units with replacement (within each stratum when the
    resampler has strata) and recomputes the metric from the per-unit contributions, never from text.

    Percentile: ``[q(alpha/2), q(1 - alpha/2)]`` of the replicates, ``alpha = 1 - ci``.
    BCa (Efron 1987): the quantile levels become ``Phi(z0 + (z0 + z)/(1 - a (z0 + z)))`` for
    ``z = Phi^-1(alpha/2), Phi^-1(1 - alpha/2)``, with bias correction ``z0 = Phi^-1(share of replicates below
    the estimate)`` and acceleration ``a = sum(u^3) / (6 (sum(u^2))^1.5)`` from jackknife influence values ``u``
    (leave-one-unit-out weight rows; leave-one-group-out above 2,000 units).

    Args:
        result: a metric result (or a bare ``Resampler``, with ``estimate=`` its value).
        ci: confidence level in (0, 1).
        n_resamples: number of bootstrap replicates.
        seed: int or ``numpy.random.Generator``; the same seed gives the same interval.
        method: ``"percentile"`` or ``"bca"``.
        estimate: the point estimate when ``result`` is a Resampler (default: the statistic at unit weights).

    Returns:
        An :class:`Interval` inside the metric's range of values. NaN bounds, with ``reason``, when the metric is
        undefined, carries no resampler, or fewer than half of the replicates are defined.
    """
    level = check_level(ci)
    n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    resampler = get_resampler(result)
    unit = resampler.unit if resampler is not None else "item"
    if isinstance(result, MetricResult):
        name, theta = result.name, float(result.value)
        if math.isnan(theta):
            why = result.reason or "the metric value is NaN"
            return _undefined(theta, level, method, n_resamples, unit, f"{name} is undefined: {why}")
        if resampler is None:
            return _undefined(theta, level, method, n_resamples, unit, f"{name} carries no resampler")
    else:
        name = "statistic"
        theta = float(estimate) if estimate is not None else float(result(np.ones((1, result.n_units)))[0])
        if math.isnan(theta):
            return _undefined(theta, level, method, n_resamples, unit, "the statistic is undefined at unit weights")
    assert resampler is not None
    if resampler.n_units < 2:
        return _undefined(theta, level, method, n_resamples, unit, f"cannot resample fewer than 2 {unit}s")

    rng = as_generator(seed)
    replicates = bootstrap_replicates(resampler, n_resamples, rng)
    valid = replicates[np.isfinite(replicates)]
    if valid.size < max(2, _MIN_VALID_SHARE * n_resamples):
        why = f"only {valid.size} of {n_resamples} bootstrap replicates of {name} are defined"
        return _undefined(theta, level, method, n_resamples, unit, why, valid.size)

    alpha = 1.0 - level
    probs = np.array([alpha / 2.0, 1.0 - alpha / 2.0])
    if method == "bca":
        probs = _bca_levels(valid, theta, probs, resampler, rng)
    low, high = np.quantile(valid, probs)
    reason: str | None = None
    # replicates near 1e308 (CED of huge numbers): the spread and SE are taken at an exact power-of-two scale, where
    # neither the difference nor the squares overflow
    scale = power_of_two_scale(valid)
    if (valid.max() / scale - valid.min() / scale) * scale <= 1e-12 * max(1.0, abs(theta)):
        low = high = float(valid[0])  # a degenerate distribution (e.g. no toxic response at all)
        # the bootstrap cannot show what it never draws: say so rather than let [0, 0] read as certainty
        reason = (f"every bootstrap replicate of {name} equals {low:g}: the bootstrap shows no uncertainty here; "
                  "evenhand.stats.metric_interval gives an interval that covers the value (e.g. 'none of k units')")
    if valid.size < n_resamples:
        undefined = f"{n_resamples - valid.size} of {n_resamples} replicates of {name} were undefined and left out"
        reason = f"{reason}; {undefined}" if reason else undefined
    return Interval(
        estimate=theta,
        low=float(low),
        high=float(high),
        level=level,
        method=method,
        n_resamples=n_resamples,
        n_valid=int(valid.size),
        unit=unit,
        standard_error=float((valid / scale).std(ddof=1)) * scale,
        reason=reason,
    )


def _bca_levels(
    replicates: FloatArray, theta: float, probs: FloatArray, resampler: Resampler, rng: np.random.Generator
) -> FloatArray:
    from scipy.special import ndtr, ndtri

    b = replicates.size
    # ties count half, so discrete metrics (TP, rate differences) are not pushed to one side
    share = (np.sum(replicates < theta) + 0.5 * np.sum(replicates == theta)) / b
    z0 = float(ndtri(np.clip(share, 0.5 / b, 1.0 - 0.5 / b)))
    u = jackknife_influence(resampler, rng)
    denom = float(np.sum(u**2)) ** 1.5
    accel = float(np.sum(u**3)) / (6.0 * denom) if denom > 0 else 0.0
    z = ndtri(probs)
    adjusted = ndtr(z0 + (z0 + z) / (1.0 - accel * (z0 + z)))
    return np.clip(np.asarray(adjusted, dtype=np.float64), 0.0, 1.0)


def bootstrap_distribution(result: MetricResult | Resampler, n_resamples: int = 1000, seed: SeedLike = 0) -> FloatArray:
    """The ``n_resamples`` bootstrap replicates behind :func:`confidence_interval` (NaN where undefined).

    Same seed, same replicates: ``confidence_interval(r, seed=s)`` is computed from exactly these values.
    """
    n_resamples = check_count(n_resamples, "n_resamples", minimum=1)
    resampler = get_resampler(result)
    if resampler is None:
        raise InputError(f"{getattr(result, 'name', 'the result')} carries no resampler; it cannot be bootstrapped")
    return bootstrap_replicates(resampler, n_resamples, as_generator(seed))


def interval_table(
    results: Mapping[str, MetricResult] | Iterable[MetricResult],
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    method: str = "percentile",
) -> pd.DataFrame:
    """One row per metric: ``metric, value, low, high, level, method, unit, n_valid, reason``.

    Each metric gets its own generator seeded with ``seed``, so a metric's interval does not depend on which other
    metrics are in the table.
    """
    items = list(results.items()) if isinstance(results, Mapping) else [(r.name, r) for r in results]
    rows = []
    for label, result in items:
        if not isinstance(result, MetricResult):
            raise InputTypeError(f"results[{label!r}] is {type(result).__name__}, expected a MetricResult")
        iv = confidence_interval(result, ci=ci, n_resamples=n_resamples, seed=seed, method=method)
        reason = iv.reason if iv.reason is not None else result.reason
        rows.append(
            {
                "metric": label,
                "value": result.value,
                "low": iv.low,
                "high": iv.high,
                "level": iv.level,
                "method": iv.method,
                "unit": iv.unit,
                "n_valid": iv.n_valid,
                "reason": reason,
            }
        )
    columns = ["metric", "value", "low", "high", "level", "method", "unit", "n_valid", "reason"]
    return pd.DataFrame.from_records(rows, columns=columns)


def joined_with_zero_unless_rejected(interval: Interval, p_value: float) -> Interval:
    """The interval joined with 0 where the metric's own test does not reject "no difference" at the interval's level.

    A distance (|DP|, SCSP, WCSP, COBS, SA) is above 0 on almost any finite sample, so its bootstrap interval sits
    above 0 on data with no bias at all (SCSP's always, |DP|'s in 22-72% of null data sets) while its test rejects
    about 5%: read alone, the interval over-calls. The shown interval is therefore the bootstrap interval, widened
    to include 0 (from below for a distance, from either side for a signed difference) unless the test's p is below
    ``1 - level``. On null data
    it then excludes 0 exactly as often as the test rejects, and where there is a difference it still covers the
    truth at least as often as the bootstrap interval (it only ever grows). An undefined p or interval is returned
    as it is.
    """
    alpha = round(1.0 - interval.level, 12)  # 1 - 0.95 is 0.0500000000000000444 in floating point
    if not interval.is_defined or math.isnan(p_value) or p_value < alpha:
        return interval
    return replace(interval, low=min(interval.low, 0.0), high=max(interval.high, 0.0))
