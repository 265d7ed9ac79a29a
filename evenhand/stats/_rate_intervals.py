"""Intervals for rates and rate differences that keep their coverage at 0%, at 100% and on few prompts (issue 37).

A percentile bootstrap of a sample with no toxic reply says the toxic share is "exactly 0": every replicate is 0.
With 40 prompts a rate up to about 9% is consistent with none seen. The intervals here are score-type intervals for
a binomial proportion, computed on the *effective* number of trials of clustered data:

* **effective trials** (Kish's design effect; Korn and Graubard 1998, *Survey Methodology* 24: 193-201): with
  ``s_u`` successes of ``t_u`` trials in unit ``u`` (a prompt with its replies), ``p = S / T`` the rate, the
  variance of the ratio estimator over the ``k`` units is ``v = k / (k - 1) * sum_u (s_u - p t_u)^2 / T^2``, and
  the effective number of trials is ``n* = p (1 - p) / v`` (``T`` divided by the design effect), kept between
  the number of units and ``T`` and multiplied by ``(z / t_{k-1})^2`` for the few units the variance rests on.
  A rate of exactly 0 or 1 carries no information on the within-prompt correlation, so it gets ``n* = k``: as if
  each prompt had been asked once ("none seen among 40 prompts");
* **the rate's interval**: Wilson's score interval (Wilson 1927), Jeffreys' (the Beta(x + 1/2, n - x + 1/2)
  quantiles) or Clopper-Pearson's on ``x* = p n*`` successes of ``n*`` trials (non-integer counts are fine: all
  three are continuous in them). Whatever the method, the upper bound is never below the one for no success, and
  the lower bound never above the one for all successes, so more events never make the interval claim a rate
  closer to 0 (or 1) than none would;
* **a difference of two rates** (Newcombe 1998, *Statistics in Medicine* 17: 873-890 and 2635-2650; Zou and
  Donner 2008's MOVER): with each rate's interval ``[l_i, u_i]``,
  ``L = d - sqrt((p_1 - l_1)^2 + (u_2 - p_2)^2 - 2 r (p_1 - l_1)(u_2 - p_2))`` and
  ``U = d + sqrt((u_1 - p_1)^2 + (p_2 - l_2)^2 - 2 r (u_1 - p_1)(p_2 - l_2))``, where ``r`` is the correlation of
  the two rates' estimates across units (0 for independent groups; for paired replies, the correlation of the
  units' residuals, so a pair table with one pair per unit gives Newcombe's paired interval);
* **the spread of several groups' rates** (``max - min``, the classification gaps): every pair's difference
  interval at level ``1 - alpha / P`` over the ``P`` pairs (Bonferroni, so all hold together), and the spread's
  interval runs from the largest distance of a pair's interval from 0 to the largest absolute bound.

The value is the metric's own (``S / T``, a difference or a spread of such rates): only its interval changes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Literal, get_args

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand.metrics._result import FloatArray, MetricResult, RateCounts
from evenhand.registry import IntervalMethod
from evenhand.stats._intervals import Interval, check_level, confidence_interval
from evenhand.stats._resampling import SeedLike
from evenhand.stats._small_sample import (
    SMALL_UNITS,
    continuous_interval,
    difference_bounds,
    jackknife_correlation,
    unmoved_bounds,
)

BinomialMethod = Literal["wilson", "jeffreys", "clopper-pearson"]
BINOMIAL_METHODS: tuple[str, ...] = ("wilson", "jeffreys", "clopper-pearson")
#: Clopper-Pearson on effective counts (Korn and Graubard 1998): the one of the three that kept at least 93%
#: coverage in every cell of the simulation (docs/uncertainty.md); Wilson and Jeffreys fell to 90% on 10 prompts.
DEFAULT_METHOD: BinomialMethod = "clopper-pearson"
#: The interval methods a metric can declare in the registry (``MetricSpec.interval``).
INTERVAL_METHODS: tuple[str, ...] = get_args(IntervalMethod)


def _z(level: float) -> float:
    from scipy.special import ndtri

    return float(ndtri(1.0 - (1.0 - level) / 2.0))


def binomial_bounds(
    successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95, method: BinomialMethod = "wilson"
) -> tuple[FloatArray, FloatArray]:
    """Two-sided ``level`` bounds for a binomial proportion of ``successes`` out of ``trials`` (vectorised;
    non-integer counts allowed, ``0 <= successes <= trials``, ``trials > 0``).

    * ``"wilson"``: ``(p + z^2/2n -+ z sqrt(p(1-p)/n + z^2/4n^2)) / (1 + z^2/n)``;
    * ``"jeffreys"``: the ``alpha/2`` and ``1 - alpha/2`` quantiles of Beta(x + 1/2, n - x + 1/2), with 0 (1) as the
      lower (upper) bound at x = 0 (x = n);
    * ``"clopper-pearson"``: Beta(x, n - x + 1) and Beta(x + 1, n - x) quantiles (exact for integer counts).

    >>> [round(float(b[0]), 4) for b in binomial_bounds(81, 263)]
    [0.2553, 0.3662]
    """
    from scipy.special import betaincinv

    x = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    x, n = np.broadcast_arrays(np.atleast_1d(x), np.atleast_1d(n))
    alpha = 1.0 - level
    if method == "wilson":
        z = _z(level)
        p = x / n
        denominator = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denominator
        half = z * np.sqrt(np.maximum(p * (1.0 - p) / n + z * z / (4.0 * n * n), 0.0)) / denominator
        low, high = centre - half, centre + half
    elif method == "jeffreys":
        with np.errstate(invalid="ignore"):
            low = betaincinv(x + 0.5, n - x + 0.5, alpha / 2.0)
            high = betaincinv(x + 0.5, n - x + 0.5, 1.0 - alpha / 2.0)
    elif method == "clopper-pearson":
        with np.errstate(invalid="ignore", divide="ignore"):
            low = betaincinv(np.where(x > 0, x, 1.0), n - x + 1.0, alpha / 2.0)
            high = betaincinv(x + 1.0, np.where(x < n, n - x, 1.0), 1.0 - alpha / 2.0)
    else:
        raise InputError(f"method must be one of {BINOMIAL_METHODS}, got {method!r}")
    low = np.where(x <= 0, 0.0, low)
    high = np.where(x >= n, 1.0, high)
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


@dataclass(frozen=True)
class EffectiveRate:
    """One group's rate with its clustered sample size (see the module docstring)."""

    rate: float
    successes: float
    trials: float
    units: int  # units with at least one trial
    effective_trials: float  # n*: the trials an independent sample with the same precision would hold

    @property
    def effective_successes(self) -> float:
        return self.rate * self.effective_trials


def effective_rate(successes: npt.ArrayLike, trials: npt.ArrayLike, level: float = 0.95) -> EffectiveRate:
    """The rate ``sum(successes) / sum(trials)`` over units (one entry per unit) and its effective number of
    trials ``n*`` (design effect from the units' residuals; ``k`` units when the rate is 0 or 1)."""
    from scipy.stats import t as student_t

    s = np.asarray(successes, dtype=np.float64)
    m = np.asarray(trials, dtype=np.float64)
    used = m > 0
    s, m = s[used], m[used]
    k = int(m.size)
    total_s, total_t = float(s.sum()), float(m.sum())
    if k == 0:
        return EffectiveRate(math.nan, 0.0, 0.0, 0, 0.0)
    p = total_s / total_t
    if p <= 0.0 or p >= 1.0 or k == 1:
        return EffectiveRate(p, total_s, total_t, k, float(k))
    if m.max() <= 1.0:  # one trial per unit: nothing to correlate, the binomial variance is exact
        return EffectiveRate(p, total_s, total_t, k, total_t)
    residuals = s - p * m
    variance = k / (k - 1) * float(residuals @ residuals) / total_t**2
    n_eff = total_t if variance <= 0 else p * (1.0 - p) / variance
    n_eff = min(max(n_eff, float(k)), total_t)
    n_eff *= (_z(level) / float(student_t.ppf(1.0 - (1.0 - level) / 2.0, k - 1))) ** 2  # few units
    return EffectiveRate(p, total_s, total_t, k, n_eff)


def effective_bounds(er: EffectiveRate, level: float, method: BinomialMethod) -> tuple[float, float]:
    """Bounds of one effective rate, kept monotone: never tighter near 0 (1) than for no (every) success."""
    units = float(er.units)
    low, high = binomial_bounds([er.effective_successes, 0.0, units], [er.effective_trials, units, units], level,
                                method)  # fmt: skip
    return float(min(low[0], low[2])), float(max(high[0], high[1]))


def square_and_add(
    first: tuple[float, float, float], second: tuple[float, float, float], correlation: float = 0.0,
    limit: float = 1.0,
) -> tuple[float, float]:  # fmt: skip
    """Newcombe's square-and-add (MOVER) bounds of ``p_1 - p_2`` from each rate's ``(p, low, high)`` and the
    correlation of their estimates (0 for independent samples), clipped to ``[-limit, limit]`` (two rates: 1)."""
    (p1, l1, u1), (p2, l2, u2), r = first, second, correlation
    d = p1 - p2
    below = (p1 - l1) ** 2 + (u2 - p2) ** 2 - 2.0 * r * (p1 - l1) * (u2 - p2)
    above = (u1 - p1) ** 2 + (p2 - l2) ** 2 - 2.0 * r * (u1 - p1) * (p2 - l2)
    return max(-limit, d - math.sqrt(max(below, 0.0))), min(limit, d + math.sqrt(max(above, 0.0)))


def newcombe_bounds(
    successes_a: float, trials_a: float, successes_b: float, trials_b: float, *, level: float = 0.95,
    method: BinomialMethod = "wilson", correlation: float = 0.0,
) -> tuple[float, float]:  # fmt: skip
    """Newcombe's (1998) interval of ``successes_a / trials_a - successes_b / trials_b`` from plain counts: method 10
    of his comparison of eleven (Wilson bounds, ``correlation=0``) for independent samples; with the correlation of
    a paired table, his paired method 10.

    >>> [round(b, 4) for b in newcombe_bounds(56, 70, 48, 80)]
    [0.0524, 0.3339]
    """
    (la, lb), (ua, ub) = binomial_bounds([successes_a, successes_b], [trials_a, trials_b], level, method)
    pa, pb = successes_a / trials_a, successes_b / trials_b
    return square_and_add((pa, float(la), float(ua)), (pb, float(lb), float(ub)), correlation)


def paired_correlation(residuals_a: npt.ArrayLike, residuals_b: npt.ArrayLike) -> float:
    """The correlation of two rates' estimates from their units' residuals ``s_u - p t_u``, with Newcombe's (1998,
    paired method 10) shrinkage: a positive covariance loses 1/2 (so a 2x2 pair table gives his
    ``max(AD - BC - N/2, 0)``); 0 when a side does not vary."""
    ea = np.asarray(residuals_a, dtype=np.float64)
    eb = np.asarray(residuals_b, dtype=np.float64)
    denominator = math.sqrt(float(ea @ ea) * float(eb @ eb))
    if denominator <= 0:
        return 0.0
    covariance = float(ea @ eb)
    if covariance > 0:
        covariance = max(covariance - 0.5, 0.0)
    return float(np.clip(covariance / denominator, -1.0, 1.0))



def _spread_bounds(
    rates: Sequence[EffectiveRate], counts: RateCounts, level: float, method: BinomialMethod
) -> tuple[float, float, int]:
    """Bounds of ``|rate_a - rate_b|`` (two groups) or of ``max - min`` over the groups with trials: each pair's
    square-and-add interval at ``1 - alpha / P``, so that the ``P`` pairs' intervals hold together."""
    defined = [g for g, er in enumerate(rates) if er.units > 0]
    pairs = list(combinations(defined, 2))
    pair_level = 1.0 - (1.0 - level) / len(pairs)
    bounds = {g: effective_bounds(rates[g], pair_level, method) for g in defined}
    low = high = 0.0
    for a, b in pairs:
        r = _unit_correlation(counts, rates, a, b)
        la, ua = square_and_add((rates[a].rate, *bounds[a]), (rates[b].rate, *bounds[b]), r)
        low = max(low, la, -ua)  # how far the pair's interval keeps |rate_a - rate_b| from 0
        high = max(high, abs(la), abs(ua))
    return low, high, len(pairs)


def _unit_correlation(counts: RateCounts, rates: Sequence[EffectiveRate], a: int, b: int) -> float:
    s, t = counts.successes, counts.trials
    return paired_correlation(s[:, a] - rates[a].rate * t[:, a], s[:, b] - rates[b].rate * t[:, b])


def is_paired(counts: RateCounts) -> bool:
    """Whether ``counts`` hold a paired difference: two sides with the same trials in every unit, some of them."""
    t = counts.trials
    return counts.kind == "difference" and t.shape[1] == 2 and np.array_equal(t[:, 0], t[:, 1]) and bool(
        np.any(t[:, 0] > 0))


def unseen_discordance(counts: RateCounts, level: float, method: BinomialMethod) -> float | None:
    """How far discordant pairs could move a paired difference when no unit showed one (review11): the upper bound
    of the share of discordant trials when none was seen, on the units as any rate at 0% here ("none of k"). With
    both versions of every prompt answered alike the units' paired correlation is 1 and Newcombe's interval shrinks
    to the point (CPRD 0 [-0.011, 0.011] on 40 prompts where DFR, the share of flips, says up to 8.8%), yet flips
    none of the prompts showed may all go one way: CPRD at a 5% flip rate on 20 prompts covered 83%. None where a
    unit's two sides differ (Newcombe's interval stands: widening it there too cost half the power at a 10-point
    CPRD on 20 prompts, for 2 points of coverage) and for unpaired counts (a unit with trials on one side only, or
    unequal trials on the two sides)."""
    s, t = counts.successes, counts.trials
    if not is_paired(counts) or np.any(s[:, 0] != s[:, 1]):
        return None
    return effective_bounds(effective_rate(np.zeros(len(t)), t[:, 0], level), level, method)[1]


def rate_interval(
    counts: RateCounts, ci: float = 0.95, method: BinomialMethod = DEFAULT_METHOD, *, estimate: float | None = None
) -> Interval:
    """The interval of the rate, difference or spread that ``counts`` hold (:class:`RateCounts`: successes and
    trials per unit and group), with coverage at 0%, 100% and on few units (see the module docstring).

    ``Interval.method`` names it (``"clopper-pearson on effective prompts"``, ``"newcombe (clopper-pearson) on
    effective prompts"``), ``Interval.effective_n`` gives each group's effective number of trials, and
    ``n_resamples`` is 0 (nothing is drawn). ``estimate``: the metric's value (default: the counts').
    """
    level = check_level(ci)
    if method not in BINOMIAL_METHODS:
        raise InputError(f"method must be one of {BINOMIAL_METHODS}, got {method!r}")
    theta = counts.value if estimate is None else float(estimate)
    rates = [effective_rate(counts.successes[:, g], counts.trials[:, g], level) for g in range(len(counts.groups))]
    effective = {name: er.effective_trials for name, er in zip(counts.groups, rates, strict=True) if er.units > 0}
    name = f"{method} on effective {counts.unit}s"
    if counts.kind != "rate":
        name = f"newcombe ({method}) on effective {counts.unit}s"
    with_trials = [er for er in rates if er.units > 0]
    needed = 1 if counts.kind == "rate" else 2
    if len(with_trials) < needed or (counts.kind == "difference" and len(with_trials) < len(rates)):
        return Interval(theta, math.nan, math.nan, level, name, 0, 0, counts.unit, reason="too few groups have trials",
                        effective_n=effective)  # fmt: skip
    if counts.kind == "rate":
        low, high = effective_bounds(rates[0], level, method)
    elif counts.kind == "difference":
        r = _unit_correlation(counts, rates, 0, 1)
        first, second = (effective_bounds(er, level, method) for er in rates)
        low, high = square_and_add((rates[0].rate, *first), (rates[1].rate, *second), r)
        unseen = unseen_discordance(counts, level, method)
        d = rates[0].rate - rates[1].rate
        if unseen is not None and (d - unseen < low or d + unseen > high):
            low, high = max(-1.0, min(low, d - unseen)), min(1.0, max(high, d + unseen))
            name += ", joined with none of the units' pairs discordant"
    else:
        low, high, n_pairs = _spread_bounds(rates, counts, level, method)
        if n_pairs > 1:
            name += f", simultaneous over {n_pairs} pairs"
    return Interval(theta, float(low), float(high), level, name, 0, 0, counts.unit, effective_n=effective)


def metric_interval(
    result: MetricResult,
    interval: str = "bootstrap",
    *,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    rate_method: BinomialMethod = DEFAULT_METHOD,
    unseen_units: bool = True,
) -> Interval:
    """A metric's interval by the method its registry entry declares (``MetricSpec.interval``): ``"rate"`` for a
    rate, a difference of two rates or a spread of several, whose result carries its :class:`RateCounts`
    (:func:`rate_interval`); ``"bootstrap"`` otherwise: on fewer than ``SMALL_UNITS`` units Student's t on the
    jackknife standard error, and when every unit gives the same value the bound for "none off it", else the
    bootstrap (``method``: percentile or BCa; :mod:`evenhand.stats._small_sample`). A ``"rate"`` metric whose
    result carries no counts, or counts that do not give its value, falls back to that, with a reason.
    ``unseen_units=False``: a ``"bootstrap"`` interval without its join with the none-off bound
    (:func:`continuous_interval`)."""
    counts = result.rate_counts
    if interval == "rate" and counts is not None and result.is_defined:
        if abs(counts.value - float(result.value)) <= 1e-9:
            iv = rate_interval(counts, ci, rate_method, estimate=float(result.value))
            return with_skew(result, iv, n_resamples=n_resamples, seed=seed) if is_paired(counts) else iv
        fallback = f"{result.name}'s counts do not give its value: interval from its resampled units"
        iv = continuous_interval(result, ci=ci, n_resamples=n_resamples, seed=seed, method=method,
                                 unseen_units=unseen_units)  # fmt: skip
        return replace(iv, reason=f"{iv.reason}; {fallback}" if iv.reason else fallback)
    if interval not in INTERVAL_METHODS:
        raise InputError(f"interval must be one of {INTERVAL_METHODS}, got {interval!r}")
    return continuous_interval(result, ci=ci, n_resamples=n_resamples, seed=seed, method=method,
                               unseen_units=unseen_units)  # fmt: skip


def with_skew(result: MetricResult, iv: Interval, *, n_resamples: int = 1000, seed: SeedLike = 0) -> Interval:
    """A paired difference's rate interval joined with the BCa bootstrap of its units (stats17).

    Flips that go one way and gather on a few prompts make the difference skewed; Newcombe's square-and-add from
    the two sides' intervals spreads it evenly, and missed the truth above it: CPRD at a 10% one-way flip rate on 40
    prompts covered 91.9% (every miss on the upper side). BCa's acceleration reads that skew from the jackknife,
    and the join covered 95.2% there; it only widens, and left the share of intervals excluding 0 unchanged in
    every planted cell measured (benchmarks/RESULTS.md, stats17). Where no unit's two sides differ the bootstrap
    is the point and the join changes nothing (the unseen-discordance bound holds there)."""
    if result.resampler is None or not iv.is_defined:
        return iv
    bca = confidence_interval(result, ci=iv.level, n_resamples=n_resamples, seed=seed, method="bca")
    if not bca.is_defined or (bca.low >= iv.low and bca.high <= iv.high):
        return iv
    method = f"{iv.method}, joined with the BCa bootstrap of {bca.unit}s"
    return replace(iv, low=min(iv.low, bca.low), high=max(iv.high, bca.high), method=method)


#: A run-to-run difference of rates takes the rate rule (:func:`rate_difference_bounds`) where a group has fewer
#: effective events (or non-events) than this in the two runs together: the textbook condition for a normal
#: approximation of a proportion (``n p >= 10`` and ``n (1 - p) >= 10``), here on effective trials. Above it the
#: paired bootstrap of the differences kept its null rate (benchmarks/RESULTS.md, stats14) and its power where two
#: runs share most answers (12 of 160 decisions changed, all one way: clear to the paired bootstrap, not to each
#: run's own interval combined).
MIN_EFFECTIVE_EVENTS = 10.0


def _effective_events(counts: RateCounts, iv: Interval) -> dict[str, tuple[float, float]]:
    """Each group's effective events and non-events, ``(p n*, (1 - p) n*)`` (the groups with trials)."""
    effective = iv.effective_n or {}
    out = {}
    for name, rate in zip(counts.groups, counts.rates, strict=True):
        n = effective.get(name)
        if n is not None and math.isfinite(float(rate)):
            out[name] = (float(rate) * n, (1.0 - float(rate)) * n)
    return out


def rate_difference_bounds(
    first: MetricResult, second: MetricResult, *, paired: bool, ci: float = 0.95,
    method: BinomialMethod = DEFAULT_METHOD,
) -> tuple[float, float, str] | None:  # fmt: skip
    """The interval of ``d = m(second) - m(first)`` for two runs of a metric whose interval is ``"rate"`` (a rate, a
    difference of two rates or a spread; evenhand.comparison), as ``(low, high, method)``, where events are rare:
    a group with fewer than :data:`MIN_EFFECTIVE_EVENTS` effective events or non-events in the two runs together.

    Each run's own interval (:func:`rate_interval`: Clopper-Pearson on effective prompts, with its bounds at 0% and
    on few prompts) combined by square-and-add (MOVER; Zou and Donner 2008), with the correlation of the two runs'
    estimates when they are paired by prompt (:func:`~evenhand.stats._small_sample.jackknife_correlation`; 0 when
    independent). A percentile bootstrap of the two runs' differences undercovers where events are rare: on 30
    prompts with a few unanswered requests, compare read NRD "worse" in 5 of 40 null runs (stats14). None where a
    result carries no counts that give its value, an interval is undefined, or a paired run repeats the baseline's
    counts exactly (the bootstrap's exact ``[0, 0]``), and None where every group of both runs has enough events
    (the caller's bootstrap then)."""
    level = check_level(ci)
    ends: list[tuple[float, float, float]] = []
    events: dict[str, tuple[float, float]] = {}  # each group's effective events and non-events, both runs
    for result in (first, second):
        counts = result.rate_counts
        if counts is None or not result.is_defined or abs(counts.value - float(result.value)) > 1e-9:
            return None
        iv = rate_interval(counts, level, method, estimate=float(result.value))
        if not iv.is_defined:
            return None
        ends.append((iv.estimate, iv.low, iv.high))
        for group, (hits, misses) in _effective_events(counts, iv).items():
            pooled = events.get(group, (0.0, 0.0))
            events[group] = (pooled[0] + hits, pooled[1] + misses)
    if min((min(pair) for pair in events.values()), default=math.inf) >= MIN_EFFECTIVE_EVENTS:
        return None
    ca, cb = first.rate_counts, second.rate_counts
    assert ca is not None and cb is not None
    correlation = 0.0
    if paired and first.resampler is not None and second.resampler is not None:
        if ca.successes.shape == cb.successes.shape and np.array_equal(ca.successes, cb.successes) and np.array_equal(
            ca.trials, cb.trials
        ):
            return None
        correlation = jackknife_correlation(first.resampler, second.resampler)
    low, high = square_and_add(ends[1], ends[0], correlation, limit=2.0 if ca.kind == "difference" else 1.0)
    how = f"correlation {correlation:.2f} of the paired runs" if paired else "independent runs"
    return low, high, f"MOVER of each run's {method} on effective {ca.unit}s ({how})"


def run_difference_bounds(
    first: MetricResult,
    second: MetricResult,
    interval: str,
    *,
    paired: bool,
    ci: float = 0.95,
    units: int = SMALL_UNITS,
) -> tuple[float, float, str] | None:
    """The interval of two runs' difference by the rule each run's own interval follows (``interval``, the
    registry's ``MetricSpec.interval``): a ``"rate"`` metric's by :func:`rate_difference_bounds` where events are
    rare; otherwise (or where the counts do not apply) the small-sample rule of continuous metrics on fewer than
    ``units`` units (``SMALL_UNITS`` unless given; :func:`~evenhand.stats._small_sample.difference_bounds`); None:
    the caller's bootstrap. Paired runs in which no unit moved (both at 0 events or 100%, every pair alike in both)
    take the none-off bound of "none of k units moved" first, at any number of units
    (:func:`~evenhand.stats._small_sample.unmoved_bounds`; stats18: the bootstrap's [0, 0] claimed certainty)."""
    if paired:
        still = unmoved_bounds(first, second, ci)
        if still is not None:
            return still
    if interval == "rate":
        bounds = rate_difference_bounds(first, second, paired=paired, ci=ci)
        if bounds is not None:
            return bounds
    small = difference_bounds(first, second, paired=paired, ci=ci, units=units)
    if small is None:
        return None
    low, high, method = small
    return low, high, f"{method} (fewer than {units} units)"
