"""The difference between two runs on one metric row, and its interval.

The difference of run B from run A on one metric row is ``d = m(B) - m(A)``. Its interval depends on what the runs
share:

* **paired**: both runs hold responses to the same prompts (same prompt id and prompt text, same sample). The
  prompt is the independent unit, so one bootstrap draw of prompts is applied to *both* runs, the metric is
  recomputed on each (through the metric's own :class:`~evenhand.metrics.Resampler`, i.e. the registry's metric
  function, never a re-implemented formula), and ``d*_b = m_b(B) - m_b(A)``. Prompt-to-prompt variation that both
  runs share cancels, so the interval is narrower than an independent one whenever the runs are correlated.
* **independent** (responses in both runs, no shared prompts): each run is resampled on its own draws.
* **normal approximation** (a run kept no responses, or the metric cannot be recomputed from them): each stored
  interval gives a standard error ``se = (high - low) / (2 z)``, and ``d ± z sqrt(se_A² + se_B²)``, clipped to the
  difference's possible range (a metric the registry declares in ``[lo, hi]`` differs by ``[lo - hi, hi - lo]``:
  a CBLEU difference of ``+0.943 [+0.721, +1.17]`` could not be), and its note says where it was clipped.

The interval is the percentile interval of the ``d*`` at the requested level.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from evenhand.metrics._result import FloatArray, MetricResult
from evenhand.pipeline.evidence.records import independent_units

#: Fewer shared prompts than this and a paired interval would be meaningless: the runs are treated as independent.
MIN_SHARED_PROMPTS = 2
_MIN_VALID_SHARE = 0.5  # as evenhand.stats: fewer valid replicates than this share and the interval is undefined

PAIRED, INDEPENDENT, NORMAL, NONE = "paired", "independent", "normal approximation", "none"


@dataclass(frozen=True)
class Difference:
    """The difference of one run from the baseline on one metric row, with its interval and how it was obtained."""

    estimate: float | None
    low: float | None
    high: float | None
    method: str
    note: str = ""
    n_units: int | None = None
    signed: SignedGap | None = None  # a gap between two groups, compared with its sign (evenhand.comparison.signed)
    #: the row's own p (read off its interval, :func:`interval_p_value`) and its p adjusted across the rows of the
    #: comparison (:func:`evenhand.comparison.rows.judge_rows`), on which the row's word rests
    p_value: float | None = None
    p_adjusted: float | None = None
    #: paired runs in which no prompt moved (evenhand.stats.unmoved: both at 0 events or 100%, a run compared with
    #: itself): its interval holds 0 with width (stats18), and it takes no part in the adjustment
    unmoved: bool = False


@dataclass(frozen=True)
class SignedGap:
    """A difference metric compared on its signed gap ``rate(first) − rate(second)`` (``groups``): the gap in the
    baseline and in the run, and the interval of the change in its size ``|gap(B)| − |gap(A)|`` (``size_low``,
    ``size_high``), which says whether a clear change made the gap larger or smaller."""

    groups: tuple[str, str]
    baseline: float
    run: float
    size_low: float | None = None
    size_high: float | None = None
    own: bool = False  # the metric is itself the signed gap (RRD, RLD), not its absolute value


# --------------------------------------------------------------------------------------------- bootstrap
def paired_replicates(a: MetricResult, b: MetricResult, n_resamples: int, rng: np.random.Generator) -> FloatArray:
    """``m*(B) - m*(A)`` with the same prompt draws for both runs (their units are the same prompts, same order)."""
    replicates_a, replicates_b = paired_draws(a, b, n_resamples, rng)
    return replicates_b - replicates_a


def paired_draws(
    a: MetricResult, b: MetricResult, n_resamples: int, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray]:
    """``(m*(A), m*(B))``, each replicate on the same prompt draw for both runs."""
    from evenhand.stats._resampling import bootstrap_weight_chunks, strata_indices

    ra, rb = a.resampler, b.resampler
    assert ra is not None and rb is not None
    strata = strata_indices(ra)  # resampled within groups (classification), as each run's own intervals are
    draws = [(ra(w), rb(w)) for w in bootstrap_weight_chunks(ra.n_units, n_resamples, rng, strata)]
    return np.concatenate([d[0] for d in draws]), np.concatenate([d[1] for d in draws])


def same_units(a: MetricResult, b: MetricResult) -> bool:
    """Whether two results resample the same units alike: same count, and the same stratum for every unit."""
    ra, rb = a.resampler, b.resampler
    if ra is None or rb is None or ra.n_units != rb.n_units:
        return False
    if ra.strata is None or rb.strata is None:
        return ra.strata is None and rb.strata is None
    return bool(np.array_equal(np.asarray(ra.strata, dtype=object), np.asarray(rb.strata, dtype=object)))


def independent_replicates(a: MetricResult, b: MetricResult, n_resamples: int, rng: np.random.Generator) -> FloatArray:
    """``m*(B) - m*(A)`` with each run resampled on its own draws (within its strata, as its own intervals are)."""
    replicates_a, replicates_b = independent_draws(a, b, n_resamples, rng)
    return replicates_b - replicates_a


def independent_draws(
    a: MetricResult, b: MetricResult, n_resamples: int, rng: np.random.Generator
) -> tuple[FloatArray, FloatArray]:
    """``(m*(A), m*(B))``, each run resampled on its own draws (the baseline's first)."""
    from evenhand.stats._resampling import bootstrap_replicates

    assert a.resampler is not None and b.resampler is not None
    replicates_a = bootstrap_replicates(a.resampler, n_resamples, rng)
    return replicates_a, bootstrap_replicates(b.resampler, n_resamples, rng)


def percentile_interval(replicates: FloatArray, level: float) -> tuple[float, float] | None:
    """The percentile interval of the finite replicates, or None when fewer than half of them are defined."""
    finite = replicates[np.isfinite(replicates)]
    if finite.size < max(2, _MIN_VALID_SHARE * replicates.size):
        return None
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(finite, [tail, 1.0 - tail])
    return float(low), float(high)


def interval_p_value(estimate: float | None, low: float | None, high: float | None, level: float) -> float | None:
    """The two-sided p of "no difference" read off a difference's interval at ``level``: the half of the interval
    towards 0 taken as ``z`` standard errors (``z`` the normal quantile of the level), ``p = 2 (1 - Phi(z |d| /
    half))``. So ``p < 1 - level`` exactly when the interval excludes 0, whatever rule gave it (percentile
    bootstrap, Student's t, MOVER, the rate rule, the normal approximation); an asymmetric interval is read on its
    side towards 0. ``d`` is the estimate kept within the interval (a percentile interval need not hold it). None
    without an interval; 1 for ``[0, 0]``."""
    if estimate is None or low is None or high is None or math.isnan(estimate):
        return None
    centre = min(max(float(estimate), float(low)), float(high))
    if centre == 0.0:
        return 1.0
    half = centre - float(low) if centre > 0 else float(high) - centre
    if half <= 0.0:  # a zero-width interval away from 0 (every prompt moved alike)
        return 0.0
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    return min(1.0, math.erfc(z * abs(centre) / half / math.sqrt(2.0)))  # 2 (1 - Phi(x)), exact far in the tail


def normal_difference(row_a: dict[str, Any], row_b: dict[str, Any], level: float, why: str) -> Difference:
    """``d ± z sqrt(se_A² + se_B²)`` with ``se = (high - low) / (2 z_run)`` from each run's stored interval."""
    va, vb = row_a.get("value"), row_b.get("value")
    if va is None or vb is None:
        return undefined_difference(row_a, row_b)
    estimate = float(vb) - float(va)
    errors = [_standard_error(r) for r in (row_a, row_b)]
    if any(e is None for e in errors):
        return Difference(estimate, None, None, NONE, f"no interval: a run stored no interval ({why})")
    se = math.sqrt(sum(e * e for e in errors if e is not None))
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    note = f"normal approximation from the two stored intervals, as independent runs ({why})"
    low, high, clipped = within_possible_range(row_a, estimate - z * se, estimate + z * se)
    units = [u for u in (stored_units(row_a), stored_units(row_b)) if u is not None]
    return Difference(estimate, low, high, NORMAL, note + clipped, min(units) if units else None)


def undefined_difference(
    row_a: dict[str, Any], row_b: dict[str, Any], labels: tuple[str, str] = ("A", "B")
) -> Difference:
    """No difference, for a row that a run left undefined, with the reason each run stored (results.json
    ``reason``): "undefined in both runs (no target word co-occurs with words of both groups)", each run's reason
    where they differ, or "undefined in run B (...); A has a value". A true limit (there is nothing to compare),
    said in the run's words (compare17: "undefined in both runs" alone read as compare failing)."""
    undefined = [(label, row) for label, row in zip(labels, (row_a, row_b), strict=True) if row.get("value") is None]
    reasons = {label: str(row.get("reason") or "").strip() for label, row in undefined}
    if len(undefined) == 2:
        said = [r for r in reasons.values() if r]
        if not said:
            why = "neither run stored a reason"
        elif len(set(reasons.values())) == 1:
            why = said[0]
        else:
            why = "; ".join(f"{label}: {reason or 'no reason stored'}" for label, reason in reasons.items())
        return Difference(None, None, None, NONE, f"undefined in both runs ({why})")
    label = undefined[0][0]
    defined = labels[1] if label == labels[0] else labels[0]
    why = reasons[label] or "no reason stored"
    return Difference(None, None, None, NONE, f"undefined in run {label} ({why}); {defined} has a value")


def within_possible_range(row: dict[str, Any], low: float, high: float) -> tuple[float, float, str]:
    """``(low, high)`` clipped to the range a difference of the row's metric can take (``[lo - hi, hi - lo]`` for a
    metric the registry declares in ``[lo, hi]``; unbounded where it declares no finite bound), and a note saying
    so where it clipped (else "")."""
    from evenhand.registry import METRICS

    spec = METRICS.get(str(row.get("key") or ""))
    if spec is None:
        return low, high, ""
    smallest, largest = spec.value_range
    widest = largest - smallest  # inf for an unbounded metric: nothing is clipped
    clipped_low, clipped_high = max(low, -widest), min(high, widest)
    if (clipped_low, clipped_high) == (low, high):
        return low, high, ""
    note = (
        f"; interval clipped to [{-widest:+.3g}, {widest:+.3g}], the most two runs of a metric in "
        f"[{smallest:.3g}, {largest:.3g}] can differ by"
    )
    return clipped_low, clipped_high, note


_SIZE = re.compile(r"(\d+) ([a-z]+)")


def stored_sizes(row: dict[str, Any] | None) -> dict[str, int]:
    """A stored metric row's sizes, read from its ``n`` ("40 responses, 12 prompts"; ``MetricResult.sizes``)."""
    return {name: int(count) for count, name in _SIZE.findall(str((row or {}).get("n") or ""))}


def stored_units(row: dict[str, Any]) -> int | None:
    """The independent units a stored metric row rests on, read from its ``n`` ("40 responses, 12 prompts"), so
    that a difference from stored intervals obeys the same fewer-than-10-prompts rule as a recomputed one."""
    return independent_units(stored_sizes(row))


def _standard_error(row: dict[str, Any]) -> float | None:
    low, high, level = row.get("ci_low"), row.get("ci_high"), row.get("ci_level")
    if low is None or high is None:
        return None
    z = NormalDist().inv_cdf(0.5 + float(level if level is not None else 0.95) / 2.0)
    return (float(high) - float(low)) / (2.0 * z)
