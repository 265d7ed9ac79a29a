"""Result objects shared by every metric family.

Every metric function returns a :class:`MetricResult`: ``float(result)`` is the metric value, and the result
carries the per-item values it was computed from, the input sizes, a reason when the value is NaN, and a
:class:`Resampler` that lets :mod:`evenhand.stats` bootstrap the metric from those per-item contributions
without ever going back to the texts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._display import render_html
from evenhand.errors import InputError

FloatArray = npt.NDArray[np.float64]
# (B, n_units) non-negative resampling weights -> (B,) metric values
Statistic = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True, eq=False)
class Resampler:
    """How a metric is recomputed from re-weighted resampling units.

    A bootstrap replicate is a weight vector over units (how many times each unit was drawn). ``statistic``
    maps a ``(B, n_units)`` weight matrix to ``B`` metric values, vectorised. ``strata`` (one label per unit),
    when set, asks the bootstrap to resample within each stratum (e.g. rows within each group).
    """

    unit: str
    n_units: int
    statistic: Statistic
    strata: npt.NDArray[Any] | None = None

    def __call__(self, weights: FloatArray) -> FloatArray:
        w = np.atleast_2d(np.asarray(weights, dtype=np.float64))
        if w.shape[1] != self.n_units:
            raise InputError(f"weights must have {self.n_units} columns (one per {self.unit}), got {w.shape[1]}")
        return np.asarray(self.statistic(w), dtype=np.float64)


def _safe_divide(num: FloatArray, den: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def mean_resampler(values: npt.ArrayLike, unit: str) -> Resampler:
    """Resampler for a plain mean over units (EMT over prompts, CROUGE-L over pairs, ...)."""
    x = np.asarray(values, dtype=np.float64)
    return Resampler(unit=unit, n_units=x.size, statistic=lambda w: _safe_divide(w @ x, w.sum(axis=1)))


def ratio_resampler(numerators: npt.ArrayLike, denominators: npt.ArrayLike, unit: str) -> Resampler:
    """Resampler for sum(num)/sum(den) over units (TF with responses clustered by prompt, ...)."""
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    return Resampler(unit=unit, n_units=num.size, statistic=lambda w: _safe_divide(w @ num, w @ den))


@dataclass(frozen=True, eq=False)
class Prompts:
    """The prompt (the independent resampling unit) of each item (response, pair, row), from :func:`prompt_units`.

    ``codes[i]`` is the index of item ``i``'s prompt among ``labels`` (prompts in order of first appearance), so
    with all-distinct prompts ``codes`` is ``0, 1, 2, ...`` and a prompt-level resampler equals the item-level one.
    """

    codes: npt.NDArray[np.intp]
    labels: npt.NDArray[Any]

    @property
    def n(self) -> int:
        """Number of distinct prompts."""
        return int(self.labels.size)

    def sums(self, values: npt.ArrayLike) -> FloatArray:
        """Per-prompt sums of one value per item (a cluster's contribution to a sum over items)."""
        sums = np.bincount(self.codes, weights=np.asarray(values, dtype=np.float64), minlength=self.n)
        return np.asarray(sums, dtype=np.float64)

    def counts(self) -> FloatArray:
        """Items per prompt."""
        return np.bincount(self.codes, minlength=self.n).astype(np.float64)


def prompt_units(prompts: Any, n_items: int, item: str = "item") -> Prompts:
    """Validate ``prompts=`` (one label per item: list, tuple, array or Series) and factorize it.

    Raises ValueError when the length differs from ``n_items`` or a label is missing (None/NaN).
    """
    from evenhand._validation import as_array

    labels = as_array(prompts, "prompts")
    if labels.size != n_items:
        raise InputError(
            f"inputs must have the same length: prompts needs one prompt id per {item}, "
            f"got {labels.size} ids for {n_items} {item}s"
        )
    codes, uniques = pd.factorize(labels, sort=False)
    if (codes < 0).any():
        raise InputError(f"prompts[{int(np.flatnonzero(codes < 0)[0])}] is missing (None/NaN)")
    return Prompts(np.asarray(codes, dtype=np.intp), np.asarray(uniques))


def clustered(resampler: Resampler, prompts: Prompts) -> Resampler:
    """``resampler`` with prompts as the units: a weight per prompt becomes the weight of each of its items (a
    prompt drawn twice counts all its items twice), for statistics that are not sums over items (COBS, SA)."""
    if resampler.strata is not None:  # strata label items; which stratum would a prompt of several be in?
        raise ValueError("a stratified resampler cannot be clustered by prompt")
    codes = prompts.codes
    inner = resampler.statistic
    return Resampler(unit="prompt", n_units=prompts.n, statistic=lambda w: inner(np.atleast_2d(w)[:, codes]))


def clustered_ratio_resampler(numerators: npt.ArrayLike, denominators: npt.ArrayLike, prompts: Prompts) -> Resampler:
    """Cluster bootstrap of ``sum(num) / sum(den)`` over items: prompts are the units, each carrying the sums of
    its items' numerators and denominators (a prompt drawn twice counts all its items twice)."""
    return ratio_resampler(prompts.sums(numerators), prompts.sums(denominators), unit="prompt")


#: How a rate metric's value follows from its groups' rates (:class:`RateCounts`).
RateKind = Literal["rate", "difference", "spread"]


class RateCounts:
    """The successes and trials behind a rate metric, per independent unit and group: what an interval for a rate
    near 0% or 100%, or on few prompts, needs (:func:`evenhand.stats.metric_interval`; docs/uncertainty.md).

    ``successes[u, g]`` of ``trials[u, g]`` are unit ``u``'s (a prompt with its replies or pairs, a person, a row)
    in group ``g`` (column 0 alone for a single rate). ``kind`` says how the metric's value follows from the group
    rates ``S_g / T_g``: ``"rate"`` (the one column), ``"difference"`` (the first minus the second: paired when a
    unit holds trials of both, as the two replies of a counterfactual pair) or ``"spread"`` (the largest minus the
    smallest rate of the groups with trials). :meth:`deferred` builds the arrays on first use, so a metric that is
    never given an interval costs nothing more.
    """

    def __init__(
        self, successes: npt.ArrayLike, trials: npt.ArrayLike, kind: RateKind, unit: str,
        groups: tuple[str, ...] = ("rate",),
    ) -> None:  # fmt: skip
        self.kind, self.unit, self.groups = kind, unit, tuple(groups)
        self._build: Callable[[], tuple[FloatArray, FloatArray]] | None = None
        self._arrays: tuple[FloatArray, FloatArray] | None = (
            np.asarray(successes, dtype=np.float64), np.asarray(trials, dtype=np.float64)
        )  # fmt: skip

    @classmethod
    def deferred(
        cls, build: Callable[[], tuple[FloatArray, FloatArray]], kind: RateKind, unit: str, groups: tuple[str, ...]
    ) -> RateCounts:
        """Counts whose arrays ``build()`` gives when first asked for."""
        counts = cls(np.empty((0, len(groups))), np.empty((0, len(groups))), kind, unit, groups)
        counts._arrays, counts._build = None, build
        return counts

    def _materialized(self) -> tuple[FloatArray, FloatArray]:
        if self._arrays is None:
            assert self._build is not None
            self._arrays, self._build = self._build(), None
        return self._arrays

    @property
    def successes(self) -> FloatArray:
        return self._materialized()[0]

    @property
    def trials(self) -> FloatArray:
        return self._materialized()[1]

    def __repr__(self) -> str:
        return f"RateCounts(kind={self.kind!r}, unit={self.unit!r}, groups={self.groups!r})"

    @property
    def rates(self) -> FloatArray:
        """Each group's rate ``S_g / T_g`` (NaN without trials)."""
        return _safe_divide(self.successes.sum(axis=0)[None, :], self.trials.sum(axis=0)[None, :])[0]

    @property
    def value(self) -> float:
        """The metric's value from the counts (what :func:`evenhand.stats.metric_interval` checks it against)."""
        rates = self.rates
        if self.kind == "rate":
            return float(rates[0])
        if self.kind == "difference":
            return float(rates[0] - rates[1])
        defined = rates[~np.isnan(rates)]
        return float(defined.max() - defined.min()) if defined.size >= 2 else math.nan


def rate_counts(
    successes: npt.ArrayLike, trials: npt.ArrayLike, prompts: Prompts | None, *, kind: RateKind = "rate",
    unit: str | None = None, groups: tuple[str, ...] = ("rate",),
) -> RateCounts:  # fmt: skip
    """:class:`RateCounts` from one entry per item (a reply, a pair; ``(items, groups)`` for several groups), summed
    per prompt when ``prompts`` are given, else each item its own unit."""
    s = np.asarray(successes, dtype=np.float64)
    t = np.asarray(trials, dtype=np.float64)
    if s.ndim == 1:
        s, t = s[:, None], t[:, None]
    if prompts is not None:
        s = np.stack([prompts.sums(col) for col in s.T], axis=1)
        t = np.stack([prompts.sums(col) for col in t.T], axis=1)
    chosen = unit if unit is not None else ("prompt" if prompts is not None else "item")
    return RateCounts(s, t, kind, chosen, groups)


@dataclass(frozen=True, eq=False)
class MetricResult:
    """The value of one metric, with everything needed to explain and resample it.

    Attributes:
        name: short display name, e.g. ``"TF"`` or ``"CROUGE-L"``.
        value: the metric value (NaN when undefined; see ``reason``).
        per_item: per-item values (per response, prompt, pair, group, ...); see ``item_unit``.
        item_unit: what one entry of ``per_item`` stands for.
        sizes: input sizes, e.g. ``{"responses": 2500, "prompts": 100}``.
        reason: why ``value`` is NaN, or None.
        details: family-specific extras (per-group rates, pairwise differences, per-word values, ...).
        resampler: how :mod:`evenhand.stats` bootstraps this metric (None when it cannot be resampled).
        value_range: the range of possible values.
        higher_is_fairer: direction of the metric.
        params: the parameters used (threshold, attribute, ...).
        item_labels: optional labels of the per-item entries (prompt ids, group names, words).
        rate_counts: for a rate, a difference of two rates or a spread of several, the successes and trials per
            unit behind it (:class:`RateCounts`), from which an interval with coverage at 0% and 100% is computed.
    """

    name: str
    value: float
    per_item: FloatArray = field(default_factory=lambda: np.empty(0))
    item_unit: str = "item"
    sizes: Mapping[str, int] = field(default_factory=dict)
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    resampler: Resampler | None = None
    value_range: tuple[float, float] = (0.0, 1.0)
    higher_is_fairer: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)
    item_labels: npt.NDArray[Any] | None = None
    rate_counts: RateCounts | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        extra = f", reason={self.reason!r}" if self.reason else ""
        sizes = ", ".join(f"{k}={v}" for k, v in self.sizes.items())
        return f"MetricResult({self.name}={self.value:.6g}, {sizes}{extra})"

    def _repr_html_(self) -> str | None:  # Jupyter: rendered by the presentation layer (evenhand._display)
        return render_html(self)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data, what a display renders: name, value, range, direction, reason, sizes and how
        many per-item values there are (numbers as they are: NaN when undefined, an infinite range end kept)."""
        return {
            "name": self.name,
            "value": float(self.value),
            "value_range": [float(self.value_range[0]), float(self.value_range[1])],
            "higher_is_fairer": bool(self.higher_is_fairer),
            "is_defined": self.is_defined,
            "reason": self.reason,
            "sizes": {str(k): int(v) for k, v in self.sizes.items()},
            "n_items": len(self.per_item),
            "item_unit": self.item_unit,
            "params": dict(self.params),
        }

    @property
    def is_defined(self) -> bool:
        return not math.isnan(self.value)

    def to_frame(self) -> pd.DataFrame:
        """Per-item values as a DataFrame (one row per ``item_unit``)."""
        frame = pd.DataFrame({self.item_unit: np.arange(len(self.per_item)), "value": self.per_item})
        if self.item_labels is not None and len(self.item_labels) == len(self.per_item):
            frame[self.item_unit] = self.item_labels
        return frame

    def summary(self) -> dict[str, Any]:
        """A flat, JSON-friendly summary (value, name, sizes, reason, params).

        Non-finite numbers (an undefined value, an unbounded range end such as COBS's ``inf``) become None, since
        strict JSON has no NaN or Infinity.
        """
        return {
            "metric": self.name,
            "value": None if math.isnan(self.value) else float(self.value),
            "reason": self.reason,
            "range": [float(b) if math.isfinite(b) else None for b in self.value_range],
            "higher_is_fairer": self.higher_is_fairer,
            **{f"n_{k}": int(v) for k, v in self.sizes.items()},
            "params": dict(self.params),
        }


def undefined(name: str, reason: str, **kwargs: Any) -> MetricResult:
    """A NaN result that says why the metric is undefined."""
    return MetricResult(name=name, value=math.nan, reason=reason, **kwargs)


def paired_mean(
    identity: dict[str, Any], per_pair: npt.ArrayLike, prompts: Any, details: dict[str, Any],
    params: dict[str, Any] | None = None, *, flags: npt.ArrayLike | None = None,
) -> MetricResult:  # fmt: skip
    """The mean over counterfactual pairs of a per-pair value (a difference, a flip), with a resampler that draws
    prompts with all their pairs (``prompts=``), else pairs: the one engine of the signed pair metrics (TSD, MTD,
    RRD, DFR, CPRD). ``identity``: the registry's name, range and direction (``MetricSpec.identity()``).

    ``flags``: when the per-pair value is a 0/1 flag (``(pairs,)``: a flip) or the difference of the two replies'
    flags (``(pairs, 2)``: toxic, refused, the positive decision), those flags: the result then carries its
    :class:`RateCounts` (a rate, or a paired difference of two rates)."""
    values = np.asarray(per_pair, dtype=np.float64)
    sizes = {"pairs": int(values.size)}
    units = None
    if prompts is None:
        resampler = ratio_resampler(values, np.ones_like(values), unit="pair")
    else:
        units = prompt_units(prompts, values.size, "pair")
        sizes["prompts"] = units.n
        resampler = ratio_resampler(units.sums(values), units.counts(), unit="prompt")
    counts = None
    if flags is not None:
        f = np.asarray(flags, dtype=np.float64)
        kind: RateKind = "difference" if f.ndim == 2 else "rate"
        groups = ("first", "second") if kind == "difference" else ("rate",)
        counts = rate_counts(f, np.ones_like(f), units, kind=kind, unit=resampler.unit, groups=groups)
    return MetricResult(
        **identity, value=float(values.mean()), per_item=values, item_unit="pair", sizes=sizes, resampler=resampler,
        details=details, params=dict(params or {}), rate_counts=counts,
    )  # fmt: skip
