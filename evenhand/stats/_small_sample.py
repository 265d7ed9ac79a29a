"""Intervals for continuous metrics that keep their coverage on few units and on samples whose units all agree.

A percentile (or BCa) bootstrap over ``k`` units underestimates the spread of a metric when ``k`` is small: its
replicates only ever re-mix the ``k`` values seen, its variance is the plug-in one (``(k - 1) / k`` of the unbiased
one) and its quantiles are normal ones where Student's are due. Over 2 to 10 prompts a 95% percentile interval
covers the truth 50-88% of the time (benchmarks/bench_small_sample_coverage.py; docs/uncertainty.md). And when
every unit gives the same value (two prompts whose replies are all alike), every replicate is that value: the
interval ``[v, v]`` claims "exactly v", which no finite sample supports. The rule here (stats5), used by
:func:`evenhand.stats.metric_interval` for every metric whose interval is ``"bootstrap"``:

* **fewer than** :data:`SMALL_UNITS` **units: Student's t on the jackknife standard error.** With ``theta_(i)``
  the metric recomputed without unit ``i`` (a leave-one-out weight row of the metric's own resampler, so the rule
  knows nothing of the metric's formula), the jackknife variance is
  ``v = (k - 1) / k * sum_i (theta_(i) - mean_i theta_(i))^2`` (summed within strata when the resampler has them;
  Efron and Stein 1981, *Annals of Statistics* 9: 586-596; Efron and Tibshirani 1993, *An Introduction to the
  Bootstrap*, ch. 11 and 12.5) and the interval is ``theta -+ t_{df, 1 - alpha/2} sqrt(v)`` with ``df = k - 1``
  (with strata, Welch-Satterthwaite's degrees of freedom from each stratum's share of the variance, stats17;
  for a difference of two strata's means this is Welch's interval). For a mean over units the jackknife standard
  error is exactly ``s / sqrt(k)``, so this is Student's (1908) interval; for a ratio of sums (CROUGE-L over
  prompts with several pairs) it is the linearised (delta-method) standard error. It is clipped to the metric's
  range of values (``MetricResult.value_range``, declared once in the registry);
* **every unit gives the same value ``v``** (every leave-one-out value, or every bootstrap replicate, equals the
  estimate), at any ``k``: the bound for "no unit off ``v``". If a share ``pi`` of the population's units had
  another value, ``k`` units all at ``v`` would be seen with probability ``(1 - pi)^k``; the shares not rejected at
  ``alpha / 2`` are ``pi <= q = 1 - (alpha / 2)^(1 / k)`` (the Clopper-Pearson bound for none of ``k``, as the rate
  intervals of issue 37 use at 0%), and a unit off ``v`` lies at most at the range's ends, so the mean lies in
  ``[v - q (v - low), v + q (high - v)]``. On an unbounded side no such bound exists and the interval is NaN with
  that reason;
* **from** :data:`SMALL_UNITS` **units on**: the bootstrap interval as before (percentile or BCa), within 1-2
  points of the t interval's coverage there in the simulation; a metric on a scale unbounded on a side (CED, CER,
  RLD, ULD, COBS) keeps the t rule up to :data:`UNBOUNDED_T_UNITS` units (stats17: no none-off bound widens its
  bootstrap, which covered CED and CER 93.5-94.2% at 40 and 80 prompts; the t interval 94.5-95.4%);
* **at any number of units, on a scale bounded on both sides**: never narrower than the none-off bound of its ``k``
  units (review11, :func:`with_unseen_units`): a rare event none of the units showed is as possible as for alike
  units.

Why not the expanded percentile the noise floor's gap used (:func:`evenhand.stats._noise_floor.expanded_level`,
Hesterberg 2015; from 30 prompts on it still does, below 30 the gap takes this rule too, left6): it widens the
percentile levels to Student's tails, but a bootstrap interval never leaves the range of its replicates, which on 2
or 3 units is the range of the values seen (the truth lies between two draws half the time) and on alike units is
the single value. Student's t on the jackknife is not bounded by the values seen.

The value is the metric's own; only its interval changes. ``Interval.method`` names the rule that gave it.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from evenhand.metrics._result import FloatArray, MetricResult, Resampler
from evenhand.stats._intervals import Interval, check_level, confidence_interval
from evenhand.stats._resampling import SeedLike, strata_indices

#: Below this many units a continuous metric's interval is Student's t on the jackknife standard error: in the
#: coverage study (docs/uncertainty.md) the percentile bootstrap covers 28-90% below 10 units and 88-93% at 20,
#: the t interval 89-99% there; from 30 units on the two differ by 1-2 points and widths by about 5%. The same
#: number is where the pipeline's caveat on few units ends (evenhand.pipeline.run.SMALL_SAMPLE).
SMALL_UNITS = 30
#: Below this many shared units compare's differences of two runs (evenhand.comparison) take the t rule too: a
#: percentile bootstrap of paired differences said "changed" in 7.5-9% of null comparisons at exactly 30 prompts and
#: 4.5-6% at 40 (benchmarks/RESULTS.md, stats14 and compare15). The runs' own intervals keep SMALL_UNITS.
COMPARE_SMALL_UNITS = 50
#: Below this many units a metric on a scale unbounded on a side (CED, CER, RLD, ULD, COBS) takes the t rule too: no
#: none-off bound widens its bootstrap (with_unseen_units needs both ends), and the percentile bootstrap covered CED
#: and CER 93.5-94.2% at 40 and 80 prompts where the t interval covered 94.5-95.4% (benchmarks/RESULTS.md, stats17).
#: From 200 units on t and normal quantiles differ by under 1% (and the leave-one-out rows would grow as k^2).
UNBOUNDED_T_UNITS = 200
T_METHOD = "student-t on jackknife {unit}s"
NONE_OFF_METHOD = "none of {k} {unit}s off the value"


def _tolerance(theta: float) -> float:
    return 1e-12 * max(1.0, abs(theta))


def leave_one_out(resampler: Resampler) -> FloatArray:
    """The statistic recomputed without each unit in turn (one leave-one-out weight row per unit)."""
    k = resampler.n_units
    values: FloatArray = resampler(np.ones((k, k)) - np.eye(k))
    return values


def jackknife_correlation(first: Resampler, second: Resampler) -> float:
    """The correlation of two statistics over the same units (two runs on the same prompts, evenhand.comparison),
    from their leave-one-out values centred within the first one's strata (the jackknife covariance over the
    product of the jackknife standard errors); 0 where a side does not vary or a value is undefined."""
    a, b = leave_one_out(first), leave_one_out(second)
    if a.shape != b.shape or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return 0.0
    for idx in strata_indices(first):
        a[idx] -= a[idx].mean()
        b[idx] -= b[idx].mean()
    denominator = math.sqrt(float(a @ a) * float(b @ b))
    return float(np.clip(float(a @ b) / denominator, -1.0, 1.0)) if denominator > 0 else 0.0


def jackknife_standard_error(resampler: Resampler) -> tuple[float, float]:
    """The jackknife standard error of the resampled statistic and its degrees of freedom: ``k - 1`` on one
    stratum; with strata, Welch-Satterthwaite's ``(sum v_s)^2 / sum v_s^2 / (g_s - 1)`` over each stratum's share
    ``v_s`` of the variance (``g_s`` units; stats17: a small stratum that carries most of the spread, the few
    prompts of ULD's set, holds few degrees of freedom, and ``k`` minus the strata undercovered). For a difference
    of two strata's means this is Welch's interval. NaN when a leave-one-out value is undefined (a stratum of one
    unit, a metric that needs every unit)."""
    loo = leave_one_out(resampler)
    shares: list[tuple[float, int]] = []
    for idx in strata_indices(resampler):
        g = idx.size
        values = loo[idx]
        if g < 2 or not np.all(np.isfinite(values)):
            return math.nan, 0.0
        shares.append(((g - 1) / g * float(np.sum((values - values.mean()) ** 2)), g - 1))
    variance = sum(v for v, _ in shares)
    spread = sum(v * v / d for v, d in shares)
    df = variance * variance / spread if spread > 0 else float(sum(d for _, d in shares))
    return math.sqrt(variance), df


def t_bounds(
    value: float, standard_error: float, df: float, level: float, value_range: tuple[float, float]
) -> tuple[float, float]:
    """``value -+ t_{df, 1 - alpha/2} * standard_error``, clipped to ``value_range`` and never past the value (a
    float32 cosine of 1.0000001 stays its own interval's end)."""
    from scipy.stats import t as student_t

    half = float(student_t.ppf(1.0 - (1.0 - level) / 2.0, df)) * standard_error
    low, high = value_range
    return min(max(value - half, low), value), max(min(value + half, high), value)


def none_off_bounds(value: float, value_range: tuple[float, float], k: int, level: float) -> tuple[float, float]:
    """``[v - q (v - low), v + q (high - v)]``, ``q = 1 - (alpha/2)^(1/k)``: where the mean of a bounded metric can
    lie when ``k`` units all gave ``value`` (NaN on an unbounded side)."""
    low, high = value_range
    q = 1.0 - ((1.0 - level) / 2.0) ** (1.0 / k)
    lower = value - q * (value - low) if math.isfinite(low) else math.nan
    upper = value + q * (high - value) if math.isfinite(high) else math.nan
    return lower, upper


def _none_off(result: MetricResult, resampler: Resampler, level: float, base: Interval) -> Interval:
    k, theta = resampler.n_units, float(result.value)
    low, high = none_off_bounds(theta, result.value_range, k, level)
    low, high = min(low, theta), max(high, theta)  # a value a rounding error outside its range stays inside
    method = NONE_OFF_METHOD.format(k=k, unit=resampler.unit)
    reason = base.reason  # e.g. bootstrap replicates that were undefined and left out
    if math.isnan(low) or math.isnan(high):
        reason = (f"all {k} {resampler.unit}s give {result.name} = {theta:.6g} and its range is unbounded: no "
                  f"interval follows from {k} alike {resampler.unit}s")  # fmt: skip
        low = high = math.nan
    return replace(base, low=low, high=high, method=method, n_resamples=0, n_valid=0, standard_error=0.0,
                   reason=reason)  # fmt: skip


def jackknife_t_interval(result: MetricResult, ci: float = 0.95) -> Interval | None:
    """Student's t interval on the jackknife standard error (the none-off bound when every unit agrees), clipped
    to the metric's range, at any number of units; None when it does not apply (no resampler, an undefined value,
    fewer than 2 units, or an undefined leave-one-out value)."""
    level = check_level(ci)
    resampler = result.resampler
    theta = float(result.value)
    if resampler is None or math.isnan(theta) or resampler.n_units < 2:
        return None
    se, df = jackknife_standard_error(resampler)
    if math.isnan(se) or df < 1:
        return None
    base = Interval(theta, theta, theta, level, T_METHOD.format(unit=resampler.unit), 0, 0, resampler.unit,
                    standard_error=se)  # fmt: skip
    if se <= _tolerance(theta):
        return _none_off(result, resampler, level, base)
    low, high = t_bounds(theta, se, df, level, result.value_range)
    return replace(base, low=low, high=high)


def difference_bounds(
    first: MetricResult, second: MetricResult, *, paired: bool, ci: float = 0.95, units: int = SMALL_UNITS
) -> tuple[float, float, str] | None:
    """The small-sample interval of ``d = m(second) - m(first)`` (two runs compared, evenhand.comparison), as
    ``(low, high, method)``; None from ``units`` units on (:data:`SMALL_UNITS` unless given; compare gives
    :data:`COMPARE_SMALL_UNITS`) or when the rule does not apply.

    * **paired** (the runs' units are the same prompts, in the same order): the jackknife above on the difference's
      own resampler ``w -> m_w(second) - m_w(first)`` (each left-out prompt leaves both runs), Student's t with
      ``k - 1`` degrees of freedom; the none-off bound on the difference's range when every leave-one-out
      difference is the same and not 0 (a run compared with itself: None, the caller's exact ``[0, 0]``);
    * **independent**: each run's own small-sample interval (:func:`jackknife_t_interval`) combined by MOVER
      (Zou and Donner 2008, as the rate differences of issue 37):
      ``[d - sqrt((m_2 - l_2)^2 + (u_1 - m_1)^2), d + sqrt((u_2 - m_2)^2 + (m_1 - l_1)^2)]``.
    """
    level = check_level(ci)
    ra, rb = first.resampler, second.resampler
    if ra is None or rb is None or min(ra.n_units, rb.n_units) >= units:
        return None
    estimate = float(second.value) - float(first.value)
    if math.isnan(estimate):
        return None
    if not paired:
        a, b = jackknife_t_interval(first, level), jackknife_t_interval(second, level)
        if a is None or b is None or not (a.is_defined and b.is_defined):
            return None
        low = estimate - math.hypot(b.estimate - b.low, a.high - a.estimate)
        high = estimate + math.hypot(b.high - b.estimate, a.estimate - a.low)
        return low, high, f"MOVER of each run's {a.method}"
    difference = Resampler(unit=ra.unit, n_units=ra.n_units, statistic=lambda w: rb(w) - ra(w), strata=ra.strata)
    se, df = jackknife_standard_error(difference)
    if math.isnan(se) or df < 1:
        return None
    value_range = (second.value_range[0] - first.value_range[1], second.value_range[1] - first.value_range[0])
    if se <= _tolerance(estimate):
        if estimate == 0.0:  # no prompt moved at all (e.g. a run compared with itself): the bootstrap's exact [0, 0]
            return None
        low, high = none_off_bounds(estimate, value_range, ra.n_units, level)
        if math.isnan(low) or math.isnan(high):
            return None
        return min(low, estimate), max(high, estimate), NONE_OFF_METHOD.format(k=ra.n_units, unit=ra.unit)
    return (*t_bounds(estimate, se, df, level, value_range), T_METHOD.format(unit=ra.unit))


#: The method of a paired difference of two runs in which no unit moved (stats18)
UNMOVED_METHOD = "none of {k} {unit}s moved between the runs"


def unmoved(first: MetricResult, second: MetricResult) -> bool:
    """Whether two paired runs' results agree on every unit: the same value, and the same statistic under a few
    fixed random weightings of the units (Poisson(1) weights, as a bootstrap draw; a unit that moved changes some of
    them, whatever the metric). Both at 0 events, both at 100%, every pair alike in both, or a run compared with
    itself."""
    ra, rb = first.resampler, second.resampler
    if ra is None or rb is None or ra.n_units != rb.n_units or ra.n_units < 1:
        return False
    va, vb = float(first.value), float(second.value)
    if not (math.isfinite(va) and math.isfinite(vb)) or abs(vb - va) > _tolerance(va):
        return False
    weights = np.random.default_rng(0).poisson(1.0, (8, ra.n_units)).astype(np.float64)
    wa, wb = np.asarray(ra(weights), dtype=np.float64), np.asarray(rb(weights), dtype=np.float64)
    same = (np.isnan(wa) & np.isnan(wb)) | (np.abs(wb - wa) <= 1e-12 * np.maximum(1.0, np.abs(wa)))
    return bool(np.all(same))


def unmoved_bounds(first: MetricResult, second: MetricResult, ci: float = 0.95) -> tuple[float, float, str] | None:
    """The interval of ``d = m(second) - m(first) = 0`` for two paired runs in which no unit moved (:func:`unmoved`),
    as ``(low, high, method)``: the none-off bound of "none of ``k`` units moved" on the difference's range,
    ``[-q (d - low), q (high - d)]``, ``q = 1 - (alpha/2)^(1/k)``, ``k`` the smallest stratum's units (a group of
    persons: a moved person changes its own group's rate). Each run's own interval at 0 events says a rate up to
    ``q`` is as consistent with it (the rate intervals' "none of k"), so a change up to that is as consistent with
    the two (stats18: the bootstrap's exact [0, 0] read as certainty). None where some unit moved, or on a scale
    unbounded on a side (no bound follows)."""
    level = check_level(ci)
    if not unmoved(first, second):
        return None
    resampler = first.resampler
    assert resampler is not None
    k = min(int(idx.size) for idx in strata_indices(resampler))
    value_range = (second.value_range[0] - first.value_range[1], second.value_range[1] - first.value_range[0])
    low, high = none_off_bounds(0.0, value_range, max(k, 1), level)
    if math.isnan(low) or math.isnan(high):
        return None
    return low, high, UNMOVED_METHOD.format(k=k, unit=resampler.unit)


def small_sample_interval(result: MetricResult, ci: float = 0.95) -> Interval | None:
    """:func:`jackknife_t_interval` when the result has fewer than :data:`SMALL_UNITS` units, else None."""
    resampler = result.resampler
    if resampler is None or resampler.n_units >= SMALL_UNITS:
        return None
    return jackknife_t_interval(result, ci)


def _unbounded_t_interval(result: MetricResult, ci: float) -> Interval | None:
    """:func:`jackknife_t_interval` for a metric whose range is unbounded on a side, on fewer than
    :data:`UNBOUNDED_T_UNITS` units (stats17: nothing else widens its too-narrow percentile bootstrap)."""
    low, high = result.value_range
    resampler = result.resampler
    if resampler is None or (math.isfinite(low) and math.isfinite(high)) or resampler.n_units >= UNBOUNDED_T_UNITS:
        return None
    return jackknife_t_interval(result, ci)


def continuous_interval(
    result: MetricResult,
    *,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    unseen_units: bool = True,
) -> Interval:
    """The interval of a metric whose interval is ``"bootstrap"`` (see the module docstring): Student's t on few
    units (on a scale unbounded on a side: below :data:`UNBOUNDED_T_UNITS`), the none-off bound when every unit
    agrees, else :func:`~evenhand.stats.confidence_interval`. ``unseen_units=False`` leaves out the join with the
    none-off bound (:func:`with_unseen_units`): the interval of the variation the sample shows, the one a test on
    the same units agrees with (interval18: a finding's sentence quotes it beside the test, and the join apart)."""
    join = with_unseen_units if unseen_units else (lambda _result, iv: iv)
    small = small_sample_interval(result, ci) or _unbounded_t_interval(result, ci)
    if small is not None:
        return join(result, small)
    iv = confidence_interval(result, ci=ci, n_resamples=n_resamples, seed=seed, method=method)
    resampler = result.resampler
    degenerate = iv.is_defined and iv.width == 0.0 and iv.standard_error <= _tolerance(iv.estimate)
    if degenerate and resampler is not None:
        return _none_off(result, resampler, iv.level, iv)
    return join(result, iv)


def with_unseen_units(result: MetricResult, iv: Interval) -> Interval:
    """``iv`` reaching at least the none-off bound of its units (review11), on a scale bounded on both sides.

    A mean of bounded unit values whose units vary a little (benign toxicity scores near 0) can still hide a rare
    event at the range's end (a toxic reply in 1% of replies) that none of ``k`` units showed: the t interval and
    the bootstrap are then as narrow as the benign noise, and missed the truth in up to half of the data sets
    (benchmarks/RESULTS.md, review11). A share up to ``q = 1 - (alpha/2)^(1/k)`` of unseen units is as consistent
    with the sample as with alike units (the rate intervals' "none of k"), so the interval is joined with
    ``[v - q (v - low), v + q (high - v)]``. A half-bounded scale (RLD, CER) has no such bound: unchanged."""
    resampler = result.resampler
    low, high = result.value_range
    if resampler is None or not iv.is_defined or not (math.isfinite(low) and math.isfinite(high)):
        return iv
    lower, upper = none_off_bounds(float(result.value), result.value_range, resampler.n_units, iv.level)
    if lower >= iv.low and upper <= iv.high:
        return iv
    joined = f"{iv.method}, joined with none of {resampler.n_units} {resampler.unit}s off the value"
    return replace(iv, low=min(iv.low, lower), high=max(iv.high, upper), method=joined)
