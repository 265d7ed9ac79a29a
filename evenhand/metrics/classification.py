"""Group fairness metrics for classification use cases (paper section 3.2).

Each metric compares a group-level rate ``B`` across protected attribute groups:

=====  ==========================  ===================  ====================
name   rate B per group            numerator            denominator
=====  ==========================  ===================  ====================
DP     predicted prevalence        Ŷ=1                  all rows
FNRD   false negative rate         Y=1, Ŷ=0             Y=1
FORD   false omission rate         Y=1, Ŷ=0             Ŷ=0
FPRD   false positive rate         Y=0, Ŷ=1             Y=0
FDRD   false discovery rate        Y=0, Ŷ=1             Ŷ=1
=====  ==========================  ===================  ====================

With two groups the difference is ``|B(G') − B(G'')|`` as in the paper; with more groups it is the largest
difference between any two groups, ``max_g B(g) − min_g B(g)``. The ``*_ratio`` variants report
``min_g B(g) / max_g B(g)`` (paper footnote 24). Everything is computed from one ``bincount`` of
(group, confusion cell) pairs, so 100,000 rows take about a millisecond.

Resampling unit: rows within their group; with ``prompts=`` (the prompt, e.g. the person described, of each row)
prompts with all their rows, within their group, since repeated answers about one person are correlated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand._validation import FloatArray, paired_by_position
from evenhand.errors import InputError
from evenhand.metrics._group_data import FN, FP, TN, TP, Prepared, label, prepare
from evenhand.metrics._result import MetricResult, Prompts, RateCounts, RateKind, Resampler, prompt_units
from evenhand.registry import ALIASES, METRICS, MetricSpec, rate_metrics

_DENSE_ONEHOT_LIMIT = 4_000_000  # cells of a dense (rows, 4 x groups) one-hot matrix (32 MB)


@dataclass(frozen=True)
class RateCells:
    """The maths of one group rate: which confusion cells it counts. What the rate is called, the metric that
    compares it and whether it needs ground truth are registry facts (:data:`evenhand.registry.METRICS`)."""

    key: str  # the registry key of the difference metric
    formula: str
    numerator: tuple[int, ...]  # confusion cells counted in the numerator
    denominator: tuple[int, ...]  # confusion cells counted in the denominator
    empty_reason: str  # why the rate is undefined when the denominator is empty

    @property
    def spec(self) -> MetricSpec:
        return METRICS[self.key]

    @property
    def short(self) -> str:  # name of the difference metric
        return self.spec.name

    @property
    def rate(self) -> str:  # name of the group-level rate
        return str(self.spec.rate)

    @property
    def needs_truth(self) -> bool:
        return self.spec.needs_truth


#: The cells of each group rate, by the registry key of its difference metric (in registry order).
RATES: Mapping[str, RateCells] = {
    c.key: c
    for c in (
        RateCells("demographic_parity_difference", "P(Ŷ=1 | G)", (FP, TP), (TN, FP, FN, TP), "no rows"),
        RateCells("false_negative_rate_difference", "P(Ŷ=0 | Y=1, G)", (FN,), (FN, TP), "no actual positives (Y=1)"),
        RateCells("false_omission_rate_difference", "P(Y=1 | Ŷ=0, G)", (FN,), (TN, FN),
                  "no predicted negatives (Ŷ=0)"),
        RateCells("false_positive_rate_difference", "P(Ŷ=1 | Y=0, G)", (FP,), (TN, FP), "no actual negatives (Y=0)"),
        RateCells("false_discovery_rate_difference", "P(Y=0 | Ŷ=1, G)", (FP,), (FP, TP),
                  "no predicted positives (Ŷ=1)"),
    )
}  # fmt: skip
assert list(RATES) == [m.key for m in rate_metrics()]  # one rate per group-rate metric of the registry


def rate_cells(name: str, *, ratio: bool | None = False) -> RateCells:
    """The rate behind a group-rate metric named any way the registry knows (:data:`evenhand.registry.ALIASES`);
    ``ratio=False`` rejects a ratio function's name, ``None`` accepts both. KeyError when it names no group rate."""
    alias = ALIASES.get(str(name).strip().lower())
    if alias is None or alias.key not in RATES or (ratio is not None and alias.ratio and not ratio):
        raise KeyError(name)
    return RATES[alias.key]


# --------------------------------------------------------------------------------------------------- core
def _rates_from_counts(counts: FloatArray, spec: RateCells) -> tuple[FloatArray, FloatArray, FloatArray]:
    """counts (..., n_groups, 4) -> numerators, denominators, rates (NaN where the denominator is 0)."""
    num = counts[..., list(spec.numerator)].sum(axis=-1)
    den = counts[..., list(spec.denominator)].sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    return num, den, rates


def _spread(rates: FloatArray, ratio: bool) -> FloatArray:
    """max − min (or min / max) over the defined group rates along the last axis; NaN if fewer than 2."""
    defined = (~np.isnan(rates)).sum(axis=-1)
    hi = np.fmax.reduce(rates, axis=-1)
    lo = np.fmin.reduce(rates, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(hi > 0, lo / np.where(hi > 0, hi, 1.0), np.nan) if ratio else hi - lo
    return np.where(defined >= 2, value, np.nan)


#: (replicates, groups) group rates -> (replicates,) values; the metric's own is the spread (:func:`_spread`)
Gap = Callable[[FloatArray], FloatArray]


def _resampler(prep: Prepared, spec: RateCells, ratio: bool, gap: Gap | None = None) -> Resampler:
    """Rows are the units; a draw's row weights give weighted confusion counts per group via a one-hot matrix.
    ``gap`` replaces the spread of the rates (evenhand.metrics.rate_gap: one pair's signed difference)."""
    n_groups = prep.labels.size
    n_rows = prep.codes.size
    column = prep.codes * 4 + prep.cells  # (group, confusion cell) of each row
    counts_of = _weighted_counts(np.arange(n_rows), column, n_rows, 4 * n_groups)

    def statistic(weights: FloatArray) -> FloatArray:
        counts = counts_of(weights)
        rates = _rates_from_counts(counts.reshape(-1, n_groups, 4), spec)[2]
        return _spread(rates, ratio) if gap is None else gap(rates)

    return Resampler(unit="row", n_units=n_rows, statistic=statistic, strata=prep.labels[prep.codes])


def _weighted_counts(
    unit: npt.NDArray[np.intp], column: npt.NDArray[np.intp], n_units: int, n_columns: int
) -> Callable[[FloatArray], FloatArray]:
    """``weights (B, n_units) -> (B, n_columns)`` weighted counts, where row ``i`` adds its unit's weight to
    ``column[i]``: through a dense count matrix (BLAS, fastest when small), else a sparse one. The matrix is built
    on each call, so a result keeps no large matrix alive."""
    if n_units * n_columns <= _DENSE_ONEHOT_LIMIT:

        def dense(weights: FloatArray) -> FloatArray:
            if unit.size == n_units:  # one row per unit (rows are the units): a one-hot matrix
                matrix = np.zeros((n_units, n_columns))
                matrix[unit, column] = 1.0
            else:
                cells = np.bincount(unit * n_columns + column, minlength=n_units * n_columns)
                matrix = cells.reshape(n_units, n_columns).astype(np.float64)
            return weights @ matrix

        return dense
    from scipy import sparse

    def sparse_counts(weights: FloatArray) -> FloatArray:
        # (column, unit) entries: repeated cells are summed
        matrix = sparse.csr_matrix((np.ones(unit.size), (column, unit)), shape=(n_columns, n_units))
        return np.asarray(matrix @ weights.T).T

    return sparse_counts


def _prompt_resampler(
    prep: Prepared, spec: RateCells, ratio: bool, units: Prompts, gap: Gap | None = None
) -> Resampler:
    """Prompts (people, in person-level data) are the units: a draw counts every row of a drawn prompt.

    A prompt's rows add its weight to the confusion counts of their groups, so rates are per-group sums of the
    prompts' numerators over sums of their denominators. Strata: the group(s) a prompt's rows fall in. When each
    prompt belongs to one group (person-level data) prompts are resampled within each group, as rows are without
    ``prompts=``; a prompt whose rows span several groups (counterfactual versions under one id) is resampled
    among the prompts spanning the same groups, so every replicate keeps the design's sizes.
    """
    n_groups = prep.labels.size
    column = prep.codes * 4 + prep.cells
    counts_of = _weighted_counts(units.codes, column, units.n, 4 * n_groups)

    def statistic(weights: FloatArray) -> FloatArray:
        counts = counts_of(weights)
        rates = _rates_from_counts(counts.reshape(-1, n_groups, 4), spec)[2]
        return _spread(rates, ratio) if gap is None else gap(rates)

    return Resampler(unit="prompt", n_units=units.n, statistic=statistic, strata=_prompt_strata(prep, units))


def _groups_of_prompts(prep: Prepared, units: Prompts) -> npt.NDArray[np.bool_]:
    """``(prompts, groups)``: whether a prompt has a row in a group."""
    hits = np.bincount(units.codes * prep.labels.size + prep.codes, minlength=units.n * prep.labels.size)
    return hits.reshape(units.n, prep.labels.size) > 0


def _prompt_strata(prep: Prepared, units: Prompts) -> npt.NDArray[Any]:
    """The stratum of each prompt: its group, or the tuple of its groups when its rows span several."""
    present = _groups_of_prompts(prep, units)
    strata = np.empty(units.n, dtype=object)
    strata[:] = prep.labels[present.argmax(axis=1)]
    spanning = np.flatnonzero(present.sum(axis=1) > 1)
    if spanning.size:
        combos, which = np.unique(present[spanning], axis=0, return_inverse=True)
        names = np.empty(len(combos), dtype=object)
        names[:] = [tuple(label(g) for g in prep.labels[combo]) for combo in combos]  # one per distinct combination
        strata[spanning] = names[np.asarray(which).ravel()]
    return strata


def rate_counts_of(
    prep: Prepared, spec: RateCells, units: Prompts | None, kind: RateKind, columns: Sequence[int] | None = None
) -> RateCounts:
    """The rate's numerator (successes) and denominator (trials) counts per unit (prompt, else row) and group, for
    intervals at 0% and 100% (:class:`~evenhand.metrics._result.RateCounts`); ``columns``: these groups only, in
    this order. Units without a row in any denominator are left out."""
    n_groups = prep.labels.size
    chosen = list(columns) if columns is not None else list(range(n_groups))
    names = tuple(str(label(g)) for g in prep.labels[chosen])

    def build() -> tuple[FloatArray, FloatArray]:
        codes, n = (np.arange(prep.codes.size), prep.codes.size) if units is None else (units.codes, units.n)
        flat = codes * n_groups + prep.codes
        cells = [np.isin(prep.cells, part).astype(np.float64) for part in (spec.numerator, spec.denominator)]
        successes, trials = (np.bincount(flat, weights=c, minlength=n * n_groups).reshape(n, n_groups)[:, chosen]
                             for c in cells)  # fmt: skip
        used = trials.sum(axis=1) > 0
        return successes[used], trials[used]

    return RateCounts.deferred(build, kind, "row" if units is None else "prompt", names)


def _units(prompts: Any, prep: Prepared) -> Prompts | None:
    return None if prompts is None else prompt_units(prompts, prep.codes.size, "row")


def _group_metric(prep: Prepared, key: str, ratio: bool, pos_label: Any, units: Prompts | None = None) -> MetricResult:
    spec = RATES[key]
    num, den, rates = _rates_from_counts(prep.counts.astype(np.float64), spec)
    labels = prep.labels
    names = [label(g) for g in labels]
    undefined = {names[i]: spec.empty_reason for i in np.flatnonzero(np.isnan(rates))}
    value = float(_spread(rates, ratio))
    short = spec.short
    # the ratio variant is another function of the same rate (registry ``MetricSpec.ratio``): higher is fairer
    identity = spec.spec.identity()
    if ratio:
        identity |= {"name": f"{short[:-1] if short != 'DP' else 'DP'}-ratio", "higher_is_fairer": True}
    reason = None
    if math.isnan(value):
        if len(undefined) > labels.size - 2:
            reason = f"the {spec.rate} is defined for fewer than two groups; undefined for " + "; ".join(
                f"group {g!r} ({why})" for g, why in undefined.items()
            )
        else:
            reason = f"every defined group {spec.rate} is 0, so the ratio min/max is 0/0"
    i, j = np.triu_indices(labels.size, k=1)
    pairwise = [
        {
            "group_a": names[a],
            "group_b": names[b],
            "rate_a": float(rates[a]),
            "rate_b": float(rates[b]),
            "difference": float(abs(rates[a] - rates[b])),
            "ratio": float(_spread(rates[[a, b]], ratio=True)),
        }
        for a, b in zip(i.tolist(), j.tolist(), strict=True)
    ]
    details: dict[str, Any] = {
        "rate": spec.rate,
        "formula": spec.formula,
        "rates": dict(zip(names, rates.tolist(), strict=True)),
        "numerators": dict(zip(names, num.astype(int).tolist(), strict=True)),
        "denominators": dict(zip(names, den.astype(int).tolist(), strict=True)),
        "group_sizes": dict(zip(names, prep.counts.sum(axis=1).tolist(), strict=True)),
        "pairwise": pairwise,
        "undefined": undefined,
    }
    if not math.isnan(value):
        defined = np.flatnonzero(~np.isnan(rates))
        details["max_group"] = names[int(defined[np.argmax(rates[defined])])]
        details["min_group"] = names[int(defined[np.argmin(rates[defined])])]
    if prep.has_truth:
        details["confusion"] = {
            g: dict(zip(("tn", "fp", "fn", "tp"), row, strict=True))
            for g, row in zip(names, prep.counts.tolist(), strict=True)
        }
    sizes = {"rows": int(prep.codes.size), "groups": int(labels.size), "rows_in_denominators": int(den.sum())}
    if units is None:
        resampler = _resampler(prep, spec, ratio)
    else:
        sizes["prompts"] = units.n
        present = _groups_of_prompts(prep, units)
        details["prompts_per_group"] = dict(zip(names, present.sum(axis=0).tolist(), strict=True))
        details["prompts_in_several_groups"] = int((present.sum(axis=1) > 1).sum())
        resampler = _prompt_resampler(prep, spec, ratio, units)
    return MetricResult(
        **identity,
        value=value,
        per_item=rates,
        item_unit="group",
        item_labels=labels,
        sizes=sizes,
        reason=reason,
        details=details,
        resampler=resampler,
        params={"pos_label": label(pos_label) if pos_label is not None else None, "ratio": ratio},
        rate_counts=None if ratio else rate_counts_of(prep, spec, units, "spread"),
    )


# --------------------------------------------------------------------------------------------------- public
@paired_by_position
def demographic_parity_difference(
    y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """Demographic parity (DP, paper 3.2.1): difference in predicted prevalence rates across groups.

    ``DP = |P(Ŷ=1 | G=G') − P(Ŷ=1 | G=G'')|``; with more than two groups, the largest difference between any two
    groups. Range [0, 1], 0 is fairest.

    Args:
        y_pred: predictions (list, NumPy array or pandas Series) — bools, 0/1, or any labels with ``pos_label``.
        groups: the protected attribute group of each row (at least two distinct groups).
        pos_label: the positive class; with more than two classes every other class counts as negative.
        prompts: optional prompt id of each row: the independent unit (the person, in person-level data, asked
            several times). The value is the same; the resampler then draws prompts with all their rows (cluster
            bootstrap, within each group), ``sizes["prompts"]`` counts them and ``details["prompts_per_group"]``
            gives the units per group. Without it the unit is the row (resampled within its group).

    Returns:
        :class:`MetricResult`; ``per_item`` holds the rate of each group (``item_labels``), ``details`` the
        counts, every pairwise difference and the reason for any undefined group rate.
    """
    prep = prepare(None, y_pred, groups, pos_label)
    return _group_metric(prep, "demographic_parity_difference", False, pos_label, _units(prompts, prep))


@paired_by_position
def false_negative_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False negative rate difference (FNRD, paper 3.2.2; equal opportunity difference).

    ``FNRD = |P(Ŷ=0 | Y=1, G=G') − P(Ŷ=0 | Y=1, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without actual positives has an undefined (NaN) rate.
    Arguments as in :func:`demographic_parity_difference`, plus the ground truth ``y_true``.
    """
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_negative_rate_difference", False, pos_label, _units(prompts, prep))


@paired_by_position
def false_omission_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False omission rate difference (FORD, paper 3.2.2).

    ``FORD = |P(Y=1 | Ŷ=0, G=G') − P(Y=1 | Ŷ=0, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without predicted negatives has an undefined (NaN) rate.
    """
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_omission_rate_difference", False, pos_label, _units(prompts, prep))


@paired_by_position
def false_positive_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False positive rate difference (FPRD, paper 3.2.2).

    ``FPRD = |P(Ŷ=1 | Y=0, G=G') − P(Ŷ=1 | Y=0, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without actual negatives has an undefined (NaN) rate.
    """
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_positive_rate_difference", False, pos_label, _units(prompts, prep))


@paired_by_position
def false_discovery_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False discovery rate difference (FDRD, paper 3.2.2).

    ``FDRD = |P(Y=0 | Ŷ=1, G=G') − P(Y=0 | Ŷ=1, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without predicted positives has an undefined (NaN) rate.
    """
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_discovery_rate_difference", False, pos_label, _units(prompts, prep))


@paired_by_position
def demographic_parity_ratio(y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None) -> MetricResult:
    """Demographic parity as a ratio: ``min_g P(Ŷ=1 | g) / max_g P(Ŷ=1 | g)``. Range [0, 1], 1 is fairest.

    NaN (with a reason) when every group rate is 0.
    """
    prep = prepare(None, y_pred, groups, pos_label)
    return _group_metric(prep, "demographic_parity_difference", True, pos_label, _units(prompts, prep))


@paired_by_position
def false_negative_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FNR(g) / max_g FNR(g)``. Range [0, 1], 1 is fairest; NaN when every group FNR is 0."""
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_negative_rate_difference", True, pos_label, _units(prompts, prep))


@paired_by_position
def false_omission_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FOR(g) / max_g FOR(g)``. Range [0, 1], 1 is fairest; NaN when every group FOR is 0."""
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_omission_rate_difference", True, pos_label, _units(prompts, prep))


@paired_by_position
def false_positive_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FPR(g) / max_g FPR(g)``. Range [0, 1], 1 is fairest; NaN when every group FPR is 0."""
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_positive_rate_difference", True, pos_label, _units(prompts, prep))


@paired_by_position
def false_discovery_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FDR(g) / max_g FDR(g)``. Range [0, 1], 1 is fairest; NaN when every group FDR is 0."""
    prep = prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "false_discovery_rate_difference", True, pos_label, _units(prompts, prep))


def _resolve(metrics: Iterable[str] | None, ratio: bool, has_truth: bool) -> list[str]:
    """The registry keys of the group rates to compute, from any spelling the registry knows (one alias table)."""
    if metrics is None:
        return list(RATES) if has_truth else ["demographic_parity_difference"]
    keys = []
    for metric in metrics:
        alias = ALIASES.get(str(metric).strip().lower())
        if alias is None or alias.key not in RATES:
            specs = rate_metrics()
            known = ", ".join([*(m.name for m in specs), *(m.key for m in specs), *(str(m.ratio) for m in specs)])
            raise InputError(f"unknown classification metric {metric!r}; choose from {known}")
        if (alias.ratio or metric == alias.key) and alias.ratio != ratio:  # a function name says which it is
            raise InputError(f"{metric!r} does not match ratio={ratio}")
        spec = RATES[alias.key]
        if spec.needs_truth and not has_truth:
            raise InputError(f"{spec.short} needs y_true (ground truth); only DP works on predictions alone")
        keys.append(alias.key)
    return keys


def classification_metrics(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    metrics: Sequence[str] | None = None,
    pos_label: Any = None,
    ratio: bool = False,
    prompts: Any = None,
) -> dict[str, MetricResult]:
    """Several classification fairness metrics from one pass over the data.

    Args:
        y_true: ground truth, or None to compute DP alone.
        y_pred, groups, pos_label: as in :func:`demographic_parity_difference`.
        metrics: short names (``"DP"``, ``"FNRD"``, ``"FORD"``, ``"FPRD"``, ``"FDRD"``) or function names; all
            five by default (DP only without ``y_true``). :func:`classification_metrics_for` picks them from the
            use case.
        ratio: report ``min/max`` ratios instead of differences.
        prompts: optional prompt id of each row, the resampling unit (see :func:`demographic_parity_difference`).

    Returns:
        ``{result.name: MetricResult}``, e.g. ``{"DP": ..., "FNRD": ...}``.
    """
    prep = prepare(y_true, y_pred, groups, pos_label)
    units = _units(prompts, prep)
    keys = _resolve(metrics, ratio, y_true is not None)
    results = [_group_metric(prep, key, ratio, pos_label, units) for key in keys]
    return {r.name: r for r in results}


def one_vs_rest(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    sensitive_classes: Iterable[Any],
    metrics: Sequence[str] | None = None,
    ratio: bool = False,
    prompts: Any = None,
) -> dict[Any, dict[str, MetricResult]]:
    """Multiclass fairness (paper 3.2.3): binary metrics for each sensitive class against all other classes.

    ``sensitive_classes`` are the outcomes with significant impact on the people concerned (Rouzot et al.,
    2023). Returns ``{class: {metric name: MetricResult}}``. ``prompts``: the prompt id of each row, the
    resampling unit (see :func:`demographic_parity_difference`).
    """
    classes = list(sensitive_classes)
    if not classes:
        raise InputError("sensitive_classes is empty: name at least one class to assess one-vs-rest")
    return {
        label(c): classification_metrics(
            y_true, y_pred, groups, metrics=metrics, pos_label=c, ratio=ratio, prompts=prompts
        )
        for c in classes
    }
