"""Classification inputs as per-group confusion counts: the validation and formatting step behind every group-rate
metric (:mod:`evenhand.metrics.classification`, :mod:`evenhand.metrics.rate_gap`).

Labels become booleans ("is positive"), groups become codes, and each row falls in one confusion cell
(``2 * Y + Ŷ``); one ``bincount`` of (group, cell) pairs then gives every rate's numerator and denominator.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_array, check_hashable, check_same_length
from evenhand.errors import InputError

# Confusion cells per row: 2 * Y + Ŷ.
TN, FP, FN, TP = 0, 1, 2, 3


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
        raise InputError(f"{name} is empty")
    missing = pd.isna(arr) if arr.dtype.kind in "fO" else None
    if missing is not None and missing.any():
        raise InputError(f"{name}[{int(np.flatnonzero(missing)[0])}] is missing (None/NaN)")
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
            raise InputError(
                f"{name} contains the label {other!r}, so it is not 0/1 or bool; pass pos_label=<the positive "
                "class> (every other class then counts as negative: one-vs-rest, paper 3.2.3)"
            )
        return np.asarray(arr == 1)
    examples = ", ".join(repr(v) for v in pd.unique(arr)[:3])
    raise InputError(f"{name} holds labels such as {examples}; pass pos_label=<the positive class>")


def _check_pos_label_seen(pos_label: Any, **positives: npt.NDArray[np.bool_]) -> None:
    """A declared positive label that matches nothing is almost always a typo or a type mismatch."""
    if pos_label is not None and not any(p.any() for p in positives.values()):
        names = " or ".join(positives)
        raise InputError(
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
        raise InputError("groups is empty")
    try:
        codes, labels = pd.factorize(arr, sort=True)
    except TypeError:  # mixed, unorderable labels: keep the order of appearance
        check_hashable(arr, "groups")  # a list of lists: one line naming the argument, not pandas' TypeError
        codes, labels = pd.factorize(arr, sort=False)
    if (codes < 0).any():
        raise InputError(f"groups[{int(np.flatnonzero(codes < 0)[0])}] is missing (None/NaN)")
    labels = np.asarray(labels)
    if labels.size < 2:
        raise InputError(
            f"groups contains a single group ({label(labels[0])!r}); group fairness needs at least two groups"
        )
    return np.array(codes, dtype=np.intp), labels.copy()


@dataclass(frozen=True)
class Prepared:
    codes: npt.NDArray[np.intp]  # group index per row
    labels: npt.NDArray[Any]  # group names
    cells: npt.NDArray[np.intp]  # confusion cell per row (2 * Y + Ŷ)
    counts: npt.NDArray[np.int64]  # (n_groups, 4) confusion counts
    has_truth: bool


def prepare(y_true: Any, y_pred: Any, groups: Any, pos_label: Any) -> Prepared:
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
    return Prepared(codes, labels, cells, counts, y_true is not None)


def label(value: Any) -> Any:
    """Group / class labels as plain JSON-friendly Python values (NumPy scalars -> Python scalars)."""
    return value.item() if isinstance(value, np.generic) else value
