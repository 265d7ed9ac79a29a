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
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import FloatArray, as_array, check_hashable, check_same_length
from evenhand.metrics._result import MetricResult, Prompts, Resampler, prompt_units

# Confusion cells per row: 2 * Y + Ŷ.
_TN, _FP, _FN, _TP = 0, 1, 2, 3
_DENSE_ONEHOT_LIMIT = 4_000_000  # cells of a dense (rows, 4 x groups) one-hot matrix (32 MB)


@dataclass(frozen=True)
class _RateSpec:
    short: str  # name of the difference metric
    rate: str  # name of the group-level rate
    formula: str
    numerator: tuple[int, ...]  # confusion cells counted in the numerator
    denominator: tuple[int, ...]  # confusion cells counted in the denominator
    empty_reason: str  # why the rate is undefined when the denominator is empty
    needs_truth: bool = True


_SPECS: dict[str, _RateSpec] = {
    "DP": _RateSpec(
        "DP", "predicted prevalence rate", "P(Ŷ=1 | G)", (_FP, _TP), (_TN, _FP, _FN, _TP), "no rows", False
    ),
    "FNRD": _RateSpec(
        "FNRD", "false negative rate", "P(Ŷ=0 | Y=1, G)", (_FN,), (_FN, _TP), "no actual positives (Y=1)"
    ),
    "FORD": _RateSpec(
        "FORD", "false omission rate", "P(Y=1 | Ŷ=0, G)", (_FN,), (_TN, _FN), "no predicted negatives (Ŷ=0)"
    ),
    "FPRD": _RateSpec(
        "FPRD", "false positive rate", "P(Ŷ=1 | Y=0, G)", (_FP,), (_TN, _FP), "no actual negatives (Y=0)"
    ),
    "FDRD": _RateSpec(
        "FDRD", "false discovery rate", "P(Y=0 | Ŷ=1, G)", (_FP,), (_FP, _TP), "no predicted positives (Ŷ=1)"
    ),
}

# public function name -> (metric key, ratio?)
FUNCTION_NAMES: dict[str, tuple[str, bool]] = {
    "demographic_parity_difference": ("DP", False),
    "false_negative_rate_difference": ("FNRD", False),
    "false_omission_rate_difference": ("FORD", False),
    "false_positive_rate_difference": ("FPRD", False),
    "false_discovery_rate_difference": ("FDRD", False),
    "demographic_parity_ratio": ("DP", True),
    "false_negative_rate_ratio": ("FNRD", True),
    "false_omission_rate_ratio": ("FORD", True),
    "false_positive_rate_ratio": ("FPRD", True),
    "false_discovery_rate_ratio": ("FDRD", True),
}

ErrorFocus = Literal["assistive", "punitive"]


# --------------------------------------------------------------------------------------------------- inputs
def _as_labels(values: Any, name: str) -> npt.NDArray[Any]:
    """Labels as a 1-D array; plain bool / int / str inputs skip the per-item scan of ``as_array``."""
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.to_numpy()
    arr: npt.NDArray[Any] | None = None
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "biufU":
        arr = values
    elif isinstance(values, (list, tuple)) and values:
        candidate = np.asarray(values)
        if candidate.ndim == 1 and candidate.dtype.kind in "biuU":  # None or NaN would give object / float
            arr = candidate
    if arr is None:
        arr = as_array(values, name)
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    missing = pd.isna(arr) if arr.dtype.kind in "fO" else None
    if missing is not None and missing.any():
        raise ValueError(f"{name}[{int(np.flatnonzero(missing)[0])}] is missing (None/NaN)")
    return arr


def _binarize(values: Any, name: str, pos_label: Any) -> npt.NDArray[np.bool_]:
    """Labels -> boolean "is positive" array. Without ``pos_label`` only bools and 0/1 are accepted."""
    arr = _as_labels(values, name)
    if pos_label is not None:
        return np.asarray(arr == pos_label, dtype=bool)
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind in "iuf":
        is_binary = (arr == 0) | (arr == 1)
        if not is_binary.all():
            other = arr[~is_binary][0]
            raise ValueError(
                f"{name} contains the label {other!r}, so it is not 0/1 or bool; pass pos_label=<the positive "
                "class> (every other class then counts as negative: one-vs-rest, paper 3.2.3)"
            )
        return np.asarray(arr == 1)
    examples = ", ".join(repr(v) for v in pd.unique(arr)[:3])
    raise ValueError(f"{name} holds labels such as {examples}; pass pos_label=<the positive class>")


def _check_pos_label_seen(pos_label: Any, **positives: npt.NDArray[np.bool_]) -> None:
    """A declared positive label that matches nothing is almost always a typo or a type mismatch."""
    if pos_label is not None and not any(p.any() for p in positives.values()):
        names = " or ".join(positives)
        raise ValueError(
            f"pos_label={pos_label!r} does not occur in {names}; check its spelling and type (1 vs '1'). "
            "If the positive class is genuinely absent, pass boolean arrays instead."
        )


# The last string-group array factorised, with its result: a report computes several metrics on the same groups,
# and factorising strings is the one step that costs milliseconds. Reused only when the content is equal.
_last_groups: list[tuple[npt.NDArray[Any], npt.NDArray[np.intp], npt.NDArray[Any]]] = []


def _factorize_groups(groups: Any) -> tuple[npt.NDArray[np.intp], npt.NDArray[Any]]:
    """Group labels -> (code per row, sorted group names), both read-only."""
    if isinstance(groups, (pd.Series, pd.Index)):
        groups = groups.to_numpy()
    cacheable = isinstance(groups, np.ndarray) and groups.ndim == 1 and groups.dtype.kind in "USO"
    if cacheable and _last_groups:
        previous, codes, labels = _last_groups[0]
        try:
            same = previous.dtype == groups.dtype and bool(np.array_equal(previous, groups))
        except (TypeError, ValueError):  # exotic objects without a plain ==
            same = False
        if same:
            return codes, labels
    codes, labels = _factorize(groups)
    codes.setflags(write=False)
    labels.setflags(write=False)
    if cacheable:
        _last_groups[:] = [(groups.copy(), codes, labels)]
    return codes, labels


def _factorize(groups: Any) -> tuple[npt.NDArray[np.intp], npt.NDArray[Any]]:
    if isinstance(groups, np.ndarray) and groups.ndim == 1:
        arr = groups.astype(object) if groups.dtype.kind in "US" else groups  # pandas hashes objects faster
    elif isinstance(groups, (str, bytes, np.ndarray)) or groups is None or not isinstance(groups, Iterable):
        arr = as_array(groups, "groups")  # raises the shared, descriptive error
    else:
        items = list(groups)
        arr = np.fromiter(items, dtype=object, count=len(items))  # tuples stay whole (intersectional groups)
    if arr.size == 0:
        raise ValueError("groups is empty")
    try:
        codes, labels = pd.factorize(arr, sort=True)
    except TypeError:  # mixed, unorderable labels: keep the order of appearance
        check_hashable(arr, "groups")  # a list of lists: one line naming the argument, not pandas' TypeError
        codes, labels = pd.factorize(arr, sort=False)
    if (codes < 0).any():
        raise ValueError(f"groups[{int(np.flatnonzero(codes < 0)[0])}] is missing (None/NaN)")
    labels = np.asarray(labels)
    if labels.size < 2:
        raise ValueError(
            f"groups contains a single group ({_label(labels[0])!r}); group fairness needs at least two groups"
        )
    return np.array(codes, dtype=np.intp), labels.copy()


@dataclass(frozen=True)
class _Prepared:
    codes: npt.NDArray[np.intp]  # group index per row
    labels: npt.NDArray[Any]  # group names
    cells: npt.NDArray[np.intp]  # confusion cell per row (2 * Y + Ŷ)
    counts: npt.NDArray[np.int64]  # (n_groups, 4) confusion counts
    has_truth: bool


def _prepare(y_true: Any, y_pred: Any, groups: Any, pos_label: Any) -> _Prepared:
    pred = _binarize(y_pred, "y_pred", pos_label)
    codes, labels = _factorize_groups(groups)
    if y_true is None:
        check_same_length(y_pred=pred, groups=codes)
        _check_pos_label_seen(pos_label, y_pred=pred)
        cells = pred.astype(np.intp)
    else:
        truth = _binarize(y_true, "y_true", pos_label)
        check_same_length(y_true=truth, y_pred=pred, groups=codes)
        _check_pos_label_seen(pos_label, y_true=truth, y_pred=pred)
        cells = 2 * truth.astype(np.intp) + pred
    counts = np.bincount(codes * 4 + cells, minlength=4 * labels.size).reshape(labels.size, 4)
    return _Prepared(codes, labels, cells, counts, y_true is not None)


# --------------------------------------------------------------------------------------------------- core
def _rates_from_counts(counts: FloatArray, spec: _RateSpec) -> tuple[FloatArray, FloatArray, FloatArray]:
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


def _resampler(prep: _Prepared, spec: _RateSpec, ratio: bool, gap: Gap | None = None) -> Resampler:
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
    prep: _Prepared, spec: _RateSpec, ratio: bool, units: Prompts, gap: Gap | None = None
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


def _groups_of_prompts(prep: _Prepared, units: Prompts) -> npt.NDArray[np.bool_]:
    """``(prompts, groups)``: whether a prompt has a row in a group."""
    hits = np.bincount(units.codes * prep.labels.size + prep.codes, minlength=units.n * prep.labels.size)
    return hits.reshape(units.n, prep.labels.size) > 0


def _prompt_strata(prep: _Prepared, units: Prompts) -> npt.NDArray[Any]:
    """The stratum of each prompt: its group, or the tuple of its groups when its rows span several."""
    present = _groups_of_prompts(prep, units)
    strata = np.empty(units.n, dtype=object)
    strata[:] = prep.labels[present.argmax(axis=1)]
    spanning = np.flatnonzero(present.sum(axis=1) > 1)
    if spanning.size:
        combos, which = np.unique(present[spanning], axis=0, return_inverse=True)
        names = np.empty(len(combos), dtype=object)
        names[:] = [tuple(_label(g) for g in prep.labels[combo]) for combo in combos]  # one per distinct combination
        strata[spanning] = names[np.asarray(which).ravel()]
    return strata


def _units(prompts: Any, prep: _Prepared) -> Prompts | None:
    return None if prompts is None else prompt_units(prompts, prep.codes.size, "row")


def _group_metric(prep: _Prepared, key: str, ratio: bool, pos_label: Any, units: Prompts | None = None) -> MetricResult:
    spec = _SPECS[key]
    num, den, rates = _rates_from_counts(prep.counts.astype(np.float64), spec)
    labels = prep.labels
    names = [_label(g) for g in labels]
    undefined = {names[i]: spec.empty_reason for i in np.flatnonzero(np.isnan(rates))}
    value = float(_spread(rates, ratio))
    name = f"{key[:-1] if key != 'DP' else 'DP'}-ratio" if ratio else key
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
        name=name,
        value=value,
        per_item=rates,
        item_unit="group",
        item_labels=labels,
        sizes=sizes,
        reason=reason,
        details=details,
        resampler=resampler,
        value_range=(0.0, 1.0),
        higher_is_fairer=ratio,
        params={"pos_label": _label(pos_label) if pos_label is not None else None, "ratio": ratio},
    )


def _label(value: Any) -> Any:
    """Group / class labels as plain JSON-friendly Python values (NumPy scalars -> Python scalars)."""
    return value.item() if isinstance(value, np.generic) else value


# --------------------------------------------------------------------------------------------------- public
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
    prep = _prepare(None, y_pred, groups, pos_label)
    return _group_metric(prep, "DP", False, pos_label, _units(prompts, prep))


def false_negative_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False negative rate difference (FNRD, paper 3.2.2; equal opportunity difference).

    ``FNRD = |P(Ŷ=0 | Y=1, G=G') − P(Ŷ=0 | Y=1, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without actual positives has an undefined (NaN) rate.
    Arguments as in :func:`demographic_parity_difference`, plus the ground truth ``y_true``.
    """
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FNRD", False, pos_label, _units(prompts, prep))


def false_omission_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False omission rate difference (FORD, paper 3.2.2).

    ``FORD = |P(Y=1 | Ŷ=0, G=G') − P(Y=1 | Ŷ=0, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without predicted negatives has an undefined (NaN) rate.
    """
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FORD", False, pos_label, _units(prompts, prep))


def false_positive_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False positive rate difference (FPRD, paper 3.2.2).

    ``FPRD = |P(Ŷ=1 | Y=0, G=G') − P(Ŷ=1 | Y=0, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without actual negatives has an undefined (NaN) rate.
    """
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FPRD", False, pos_label, _units(prompts, prep))


def false_discovery_rate_difference(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """False discovery rate difference (FDRD, paper 3.2.2).

    ``FDRD = |P(Y=0 | Ŷ=1, G=G') − P(Y=0 | Ŷ=1, G=G'')|``, the largest pairwise difference with more than two
    groups. Range [0, 1], 0 is fairest. A group without predicted positives has an undefined (NaN) rate.
    """
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FDRD", False, pos_label, _units(prompts, prep))


def demographic_parity_ratio(y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None) -> MetricResult:
    """Demographic parity as a ratio: ``min_g P(Ŷ=1 | g) / max_g P(Ŷ=1 | g)``. Range [0, 1], 1 is fairest.

    NaN (with a reason) when every group rate is 0.
    """
    prep = _prepare(None, y_pred, groups, pos_label)
    return _group_metric(prep, "DP", True, pos_label, _units(prompts, prep))


def false_negative_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FNR(g) / max_g FNR(g)``. Range [0, 1], 1 is fairest; NaN when every group FNR is 0."""
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FNRD", True, pos_label, _units(prompts, prep))


def false_omission_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FOR(g) / max_g FOR(g)``. Range [0, 1], 1 is fairest; NaN when every group FOR is 0."""
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FORD", True, pos_label, _units(prompts, prep))


def false_positive_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FPR(g) / max_g FPR(g)``. Range [0, 1], 1 is fairest; NaN when every group FPR is 0."""
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FPRD", True, pos_label, _units(prompts, prep))


def false_discovery_rate_ratio(
    y_true: Any, y_pred: Any, groups: Any, *, pos_label: Any = None, prompts: Any = None
) -> MetricResult:
    """``min_g FDR(g) / max_g FDR(g)``. Range [0, 1], 1 is fairest; NaN when every group FDR is 0."""
    prep = _prepare(y_true, y_pred, groups, pos_label)
    return _group_metric(prep, "FDRD", True, pos_label, _units(prompts, prep))


def _resolve(metrics: Iterable[str] | None, ratio: bool, has_truth: bool) -> list[str]:
    if metrics is None:
        return list(_SPECS) if has_truth else ["DP"]
    keys = []
    for metric in metrics:
        if metric in FUNCTION_NAMES:
            key, is_ratio = FUNCTION_NAMES[metric]
            if is_ratio != ratio:
                raise ValueError(f"{metric!r} does not match ratio={ratio}")
        elif metric.upper() in _SPECS:
            key = metric.upper()
        else:
            known = ", ".join([*_SPECS, *FUNCTION_NAMES])
            raise ValueError(f"unknown classification metric {metric!r}; choose from {known}")
        if _SPECS[key].needs_truth and not has_truth:
            raise ValueError(f"{key} needs y_true (ground truth); only DP works on predictions alone")
        keys.append(key)
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
    prep = _prepare(y_true, y_pred, groups, pos_label)
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
        raise ValueError("sensitive_classes is empty: name at least one class to assess one-vs-rest")
    return {
        _label(c): classification_metrics(
            y_true, y_pred, groups, metrics=metrics, pos_label=c, ratio=ratio, prompts=prompts
        )
        for c in classes
    }


# --------------------------------------------------------------------------------------------------- framework
def classification_metrics_for(prevalence_parity: bool, intervention: ErrorFocus | None = None) -> dict[str, str]:
    """Which classification metrics to report, following the decision framework (paper section 4).

    If fairness requires approximately equal predicted prevalence across groups, report the representation metric
    (DP). Otherwise report error-based metrics: disparities in false negatives (FNRD, FORD) when the model assigns
    assistive interventions, in false positives (FPRD, FDRD) when it assigns punitive ones, and all four when the
    kind of intervention is unknown.

    Returns:
        ``{function name in evenhand.metrics: reason}``, in reporting order; pass the keys to
        ``classification_metrics(y_true, y_pred, groups, metrics=...)`` to compute them in one pass.
    """
    if intervention not in (None, "assistive", "punitive"):
        raise ValueError(f"intervention must be 'assistive', 'punitive' or None, got {intervention!r}")
    if prevalence_parity:
        return {
            "demographic_parity_difference": "predicted prevalence should be about equal across groups "
            "(representation fairness)"
        }
    assistive = {
        "false_negative_rate_difference": "assistive intervention: missing a deserving person (false negative) "
        "is the harm; compares the share of actual positives that are missed",
        "false_omission_rate_difference": "assistive intervention: compares the share of negative predictions "
        "that are wrong (people wrongly denied the intervention)",
    }
    punitive = {
        "false_positive_rate_difference": "punitive intervention: wrongly punishing someone (false positive) is "
        "the harm; compares the share of actual negatives that are flagged",
        "false_discovery_rate_difference": "punitive intervention: compares the share of positive predictions "
        "that are wrong (people wrongly punished)",
    }
    if intervention == "assistive":
        return assistive
    if intervention == "punitive":
        return punitive
    unknown = " (intervention type not stated, so both false negatives and false positives are assessed)"
    return {name: why + unknown for name, why in {**assistive, **punitive}.items()}


SHORT_NAMES: Mapping[str, str] = {name: key for name, (key, ratio) in FUNCTION_NAMES.items() if not ratio}
