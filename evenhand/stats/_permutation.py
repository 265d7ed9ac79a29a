"""Permutation tests of "no difference between groups".

Permutations act on the independent unit: the prompt (the person, in person-level classification) with all its
answers, never single answers of one prompt.

* Classification rates (paper 3.2): permuting group labels among the rows a rate is computed on. With one row per
  prompt (or no ``prompts=``) the permutation distribution of the number of outcomes landing in group A is
  hypergeometric, so every permutation is accounted for in closed form: the p-value is exact, with no Monte Carlo
  error and no cost. When a prompt has several rows (repeated answers) the rows are not exchangeable and the
  hypergeometric test would be anti-conservative: group labels are permuted among prompts instead, each prompt
  keeping all its rows (Monte Carlo).
* Counterfactual sentiment (paper 3.1.3.2): the two responses of a counterfactual pair are exchangeable under the
  null, so each pair (with ``prompts=``: all pairs of a prompt together) is swapped (or not) at random; all
  ``2**N`` swaps are enumerated when that is at most ``n_permutations``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_array, as_float_array, check_same_length, check_threshold
from evenhand.errors import InputError, InputTypeError
from evenhand.metrics._result import FloatArray, prompt_units
from evenhand.metrics.classification import RATES, RateCells, rate_cells
from evenhand.registry import rate_name
from evenhand.stats._multiple_testing import benjamini_hochberg
from evenhand.stats._resampling import SeedLike, as_generator, check_count

ALTERNATIVES = ("two-sided", "greater", "less")
# relative tolerance when comparing permuted statistics with the observed one (floating-point ties)
_TIE_TOL = 1e-9


#: The rates a test takes, by the name it reports ("false_negative_rate") -> the registry key of their metric; any
#: spelling the registry's one alias table knows ("FNRD", "fnr", "false_negative_rate_difference") names one.
_RATE_KEYS = {rate_name(cells.spec): key for key, cells in RATES.items()}
_SENTIMENT_STATISTICS = ("wcsp", "scsp", "mean")
# the ``method`` column of pairwise_rate_tests
EXACT_METHOD = "exact (hypergeometric)"
PROMPT_METHOD = "permutation of prompts (Monte Carlo)"


@dataclass(frozen=True)
class PermutationTest:
    """Result of a permutation test.

    ``statistic`` is the observed value of the test statistic (for a two-sided test its absolute value is what is
    compared), ``p_value`` the permutation p-value (NaN with ``reason`` when the test is undefined).
    ``n_permutations`` is None for an exact test that accounts for every permutation.
    """

    statistic: float
    p_value: float
    alternative: str
    method: str
    n_permutations: int | None
    groups: tuple[Any, Any]
    details: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "details"}
        out["groups"] = list(self.groups)
        return {**out, **self.details}


def _check_alternative(alternative: str) -> str:
    if alternative not in ALTERNATIVES:
        raise InputError(f"alternative must be one of {ALTERNATIVES}, got {alternative!r}")
    return alternative


def _binary(values: Any, name: str) -> npt.NDArray[np.int64]:
    arr = as_float_array(values, name)
    if not np.isin(arr, (0.0, 1.0)).all():
        first = int(np.flatnonzero(~np.isin(arr, (0.0, 1.0)))[0])
        raise InputError(f"{name} must hold binary labels 0/1; {name}[{first}] = {arr[first]!r}")
    return arr.astype(np.int64)


def _rate_metric(metric: str) -> str:
    if not isinstance(metric, str):
        raise InputTypeError(f"metric must be a string, got {type(metric).__name__}")
    try:
        return rate_name(rate_cells(metric).spec)
    except KeyError:
        shorts = ", ".join(RATES[key].short for key in _RATE_KEYS.values())
        raise InputError(f"metric must be one of {sorted(_RATE_KEYS)} (or {shorts}), got {metric!r}") from None


def _spec(metric: str) -> RateCells:
    return RATES[_RATE_KEYS[metric]]


def _rows_and_outcome(
    metric: str, y_pred: npt.NDArray[np.int64], y_true: npt.NDArray[np.int64] | None
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """The rows the rate is computed on (its denominator's confusion cells) and the outcome it counts."""
    spec = _spec(metric)
    if y_true is None:
        if spec.needs_truth:
            raise InputError(f"{metric} needs y_true (ground-truth labels)")
        y_true = np.zeros_like(y_pred)  # every cell of the rate's denominator is counted: truth does not matter
    cells = 2 * y_true + y_pred  # the classification module's confusion-cell coding
    rows = np.isin(cells, spec.denominator)
    return rows, np.isin(cells, spec.numerator).astype(np.int64)


def _exact_rate_p_value(k: int, n_a: int, n_b: int, total: int, alternative: str) -> float:
    """P(statistic at least as extreme) when ``total`` outcomes are spread at random over ``n_a + n_b`` rows."""
    from scipy.stats import hypergeom

    support = np.arange(max(0, total - n_b), min(total, n_a) + 1)
    pmf = hypergeom.pmf(support, n_a + n_b, total, n_a)
    diffs = support / n_a - (total - support) / n_b
    observed = k / n_a - (total - k) / n_b
    return float(min(1.0, pmf[_extreme(diffs, observed, alternative)].sum()))


def _extreme(values: npt.NDArray[np.float64], observed: float, alternative: str) -> npt.NDArray[np.bool_]:
    """Which values are at least as extreme as ``observed`` under ``alternative`` (ties within a relative
    tolerance count, so that floating-point noise cannot hide them)."""
    tol = _TIE_TOL * max(1.0, abs(observed))
    if alternative == "two-sided":
        return np.asarray(np.abs(values) >= abs(observed) - tol)
    if alternative == "greater":
        return np.asarray(values >= observed - tol)
    return np.asarray(values <= observed + tol)


def rate_difference_test(
    y_pred: Any,
    groups: Any,
    y_true: Any = None,
    *,
    metric: str = "demographic_parity",
    group_a: Any = None,
    group_b: Any = None,
    alternative: str = "two-sided",
    prompts: Any = None,
    n_permutations: int = 9999,
    seed: SeedLike = 0,
) -> PermutationTest:
    """Permutation test that a classification rate is the same in two groups (exact when rows are the units).

    The rate is the paper's group-level quantity behind DP, FNRD, FORD, FPRD or FDRD, e.g. for FNRD
    ``P(y_pred = 0 | y_true = 1, G = g)``. Under the null hypothesis the group labels of the rows the rate is
    computed on (all rows for DP, actual positives for FNR, ...) are exchangeable. The statistic is
    ``rate_a - rate_b``; the p-value is the share of all label permutations whose statistic is at least as extreme
    (``|.|`` for two-sided), computed exactly from the hypergeometric distribution.

    Args:
        y_pred: binary predictions (0/1).
        groups: the protected-attribute group of each row.
        y_true: binary ground truth (needed by every metric except demographic parity).
        metric: ``"demographic_parity"``, ``"false_negative_rate"``, ``"false_omission_rate"``,
            ``"false_positive_rate"``, ``"false_discovery_rate"`` (or DP, FNRD, FORD, FPRD, FDRD).
        group_a, group_b: the two groups to compare (default: the two groups present, in sorted order).
        alternative: ``"two-sided"``, ``"greater"`` (rate_a > rate_b) or ``"less"``.
        prompts: optional prompt (person) id of each row, the independent unit. When some prompt has more than
            one of the tested rows, its rows are not exchangeable one by one: the group labels are permuted among
            prompts instead, each prompt keeping all its rows (a prompt whose rows are in both groups swaps its
            two groups' rows at random), Monte Carlo with ``n_permutations`` and ``seed``, p-value
            ``(1 + #{as extreme}) / (1 + n_permutations)``. With one row per prompt the exact test is kept.
        n_permutations, seed: for the Monte Carlo permutation of prompts.

    Returns:
        :class:`PermutationTest` with ``details`` holding both rates, the row counts (``n_a``, ``n_b``), the unit
        counts (``units_a``, ``units_b``), ``unit`` and ``test`` (:data:`EXACT_METHOD` or
        :data:`PROMPT_METHOD`). ``method`` is ``"exact"`` or ``"monte-carlo"``. NaN p-value with a reason when a
        group has no row the rate is computed on.
    """
    metric = _rate_metric(metric)
    _check_alternative(alternative)
    n_permutations = check_count(n_permutations, "n_permutations")
    pred, grp, truth, units = _rate_inputs(y_pred, groups, y_true, prompts)
    a, b = _pick_groups(grp, group_a, group_b)
    rows, outcome = _rows_and_outcome(metric, pred, truth)
    return _rate_test(metric, rows, outcome, grp, a, b, alternative, units, n_permutations, seed)


def _rate_inputs(
    y_pred: Any, groups: Any, y_true: Any, prompts: Any
) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], npt.NDArray[np.int64] | None, npt.NDArray[np.intp] | None]:
    """Validated predictions, groups, truth and the prompt code of each row (None without ``prompts=``)."""
    pred = _binary(y_pred, "y_pred")
    grp = as_array(groups, "groups")
    truth = None if y_true is None else _binary(y_true, "y_true")
    if truth is None:
        check_same_length(y_pred=pred, groups=grp)
    else:
        check_same_length(y_pred=pred, groups=grp, y_true=truth)
    units = None if prompts is None else prompt_units(prompts, pred.size, "row").codes
    return pred, grp, truth, units


def _pick_groups(grp: npt.NDArray[Any], group_a: Any, group_b: Any) -> tuple[Any, Any]:
    present = [g.item() if isinstance(g, np.generic) else g for g in pd.unique(grp)]
    if group_a is None and group_b is None:
        if len(present) != 2:
            raise InputError(
                f"groups holds {len(present)} groups ({present[:6]}); pass group_a and group_b, "
                "or use pairwise_rate_tests for every pair"
            )
        first, second = sorted(present, key=str)
        return first, second
    if group_a is None or group_b is None:
        raise InputError("pass both group_a and group_b, or neither")
    for g in (group_a, group_b):
        if g not in present:
            raise InputError(f"group {g!r} does not occur in groups (present: {present[:10]})")
    if group_a == group_b:
        raise InputError("group_a and group_b must differ")
    return group_a, group_b


def _rate_test(
    metric: str,
    rows: npt.NDArray[np.bool_],
    outcome: npt.NDArray[np.int64],
    grp: npt.NDArray[Any],
    a: Any,
    b: Any,
    alternative: str,
    units: npt.NDArray[np.intp] | None = None,
    n_permutations: int = 9999,
    seed: SeedLike = 0,
) -> PermutationTest:
    in_a, in_b = rows & (grp == a), rows & (grp == b)
    n_a, n_b = int(in_a.sum()), int(in_b.sum())
    k_a, k_b = int(outcome[in_a].sum()), int(outcome[in_b].sum())
    spec = _spec(metric)
    details: dict[str, Any] = {"metric": metric, "n_a": n_a, "n_b": n_b}
    if units is None:
        details.update(unit="row", units_a=n_a, units_b=n_b)
        per_prompt = False
    else:
        details.update(unit="prompt", units_a=_distinct(units[in_a]), units_b=_distinct(units[in_b]))
        tested = units[in_a | in_b]
        per_prompt = tested.size > _distinct(tested)  # some prompt has several of the tested rows
    details["test"] = PROMPT_METHOD if per_prompt else EXACT_METHOD
    if n_a == 0 or n_b == 0:
        empty = a if n_a == 0 else b
        reason = f"group {empty!r} has {spec.empty_reason}, so its {spec.rate} is undefined"
        rate_a = k_a / n_a if n_a else math.nan
        rate_b = k_b / n_b if n_b else math.nan
        details.update(rate_a=rate_a, rate_b=rate_b)
        return PermutationTest(math.nan, math.nan, alternative, "exact", None, (a, b), details, reason)
    rate_a, rate_b = k_a / n_a, k_b / n_b
    details.update(rate_a=rate_a, rate_b=rate_b, rate=spec.formula)
    if per_prompt:
        assert units is not None
        selected = in_a | in_b
        p = _prompt_permutation_p_value(
            units[selected], in_a[selected], outcome[selected], alternative, n_permutations, as_generator(seed)
        )
        return PermutationTest(rate_a - rate_b, p, alternative, "monte-carlo", n_permutations, (a, b), details)
    p = _exact_rate_p_value(k_a, n_a, n_b, k_a + k_b, alternative)
    return PermutationTest(rate_a - rate_b, p, alternative, "exact", None, (a, b), details)


def _distinct(codes: npt.NDArray[np.intp]) -> int:
    return int(np.unique(codes).size)


def _prompt_permutation_p_value(
    units: npt.NDArray[np.intp],
    in_a: npt.NDArray[np.bool_],
    outcome: npt.NDArray[np.int64],
    alternative: str,
    n_permutations: int,
    rng: np.random.Generator,
) -> float:
    """Monte Carlo p-value of ``rate_a - rate_b`` when the group labels are permuted among prompts.

    The tested rows (those of groups a and b the rate is computed on) form one block per (prompt, group). Under the
    null hypothesis a prompt's group label does not matter, so:

    * prompts with rows in one of the two groups (person-level data) exchange their labels: each permutation
      gives a random set of as many prompts as group a had the label a, every prompt keeping all its rows;
    * a prompt with rows in both groups (counterfactual versions under one id) swaps its two blocks at random.

    Vectorised over permutations: a chunk's labels are a ``(b, prompts)`` matrix, and the permuted counts of group
    a are matrix products with the per-prompt row and outcome counts. ``p = (1 + #{as extreme}) / (1 + n)``.
    """
    codes, uniques = pd.factorize(units, sort=False)
    n_units = len(uniques)
    cell = codes * 2 + in_a  # block: (prompt, side); side 1 = group a
    rows = np.bincount(cell, minlength=2 * n_units).reshape(n_units, 2).astype(np.float64)
    hits = np.bincount(cell, weights=outcome.astype(np.float64), minlength=2 * n_units).reshape(n_units, 2)
    total_rows, total_hits = float(rows.sum()), float(hits.sum())
    rows_a, hits_a = float(rows[:, 1].sum()), float(hits[:, 1].sum())
    observed = hits_a / rows_a - (total_hits - hits_a) / (total_rows - rows_a)
    both = (rows > 0).all(axis=1)
    # one-group prompts: label a or b, exchanged among them; their row / outcome totals
    pool_rows, pool_hits = rows[~both].sum(axis=1), hits[~both].sum(axis=1)
    pool_label = rows[~both, 1] > 0
    # two-group prompts: their a block by default, plus (b block - a block) when swapped
    fixed_rows, fixed_hits = float(rows[both, 1].sum()), float(hits[both, 1].sum())
    swap_rows, swap_hits = rows[both, 0] - rows[both, 1], hits[both, 0] - hits[both, 1]
    chunk = max(8, 2**16 // max(n_units, 1))
    count = 0
    for start in range(0, n_permutations, chunk):
        b = min(chunk, n_permutations - start)
        labels = rng.permuted(np.tile(pool_label, (b, 1)), axis=1).astype(np.float64)
        perm_rows = labels @ pool_rows + fixed_rows
        perm_hits = labels @ pool_hits + fixed_hits
        if swap_rows.size:
            swaps = (rng.random((b, swap_rows.size)) < 0.5).astype(np.float64)
            perm_rows = perm_rows + swaps @ swap_rows
            perm_hits = perm_hits + swaps @ swap_hits
        with np.errstate(divide="ignore", invalid="ignore"):
            perm = perm_hits / perm_rows - (total_hits - perm_hits) / (total_rows - perm_rows)
        count += int(np.sum(_extreme(perm, observed, alternative)))
    return (1 + count) / (1 + n_permutations)


def pairwise_rate_tests(
    y_pred: Any,
    groups: Any,
    y_true: Any = None,
    *,
    metrics: str | Sequence[str] = "demographic_parity",
    alternative: str = "two-sided",
    prompts: Any = None,
    n_permutations: int = 9999,
    seed: SeedLike = 0,
) -> pd.DataFrame:
    """:func:`rate_difference_test` for every pair of groups and every metric, with Benjamini-Hochberg adjustment.

    Returns one row per (metric, group pair): ``metric, group_a, group_b, rate_a, rate_b, difference, n_a, n_b,
    units_a, units_b, p_value, p_adjusted, method, n_permutations, reason``, with the signed
    ``difference = rate_a - rate_b`` (the metric itself reports ``|difference|``). ``n_a``/``n_b`` count the rows
    the rate is computed on, ``units_a``/``units_b`` the independent units among them (rows without ``prompts=``,
    distinct prompts with it). ``method`` is ``"exact (hypergeometric)"`` (one row per unit) or ``"permutation of
    prompts (Monte Carlo)"`` (some prompt has several of the tested rows; ``n_permutations`` permutations, else
    ``n_permutations`` is NaN). ``p_adjusted`` controls the false discovery rate over all rows.

    ``prompts``, ``n_permutations`` and ``seed`` as in :func:`rate_difference_test`; each test starts from ``seed``,
    so a row's p-value does not depend on the other rows.
    """
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise InputError("metrics is empty")
    keys = [_rate_metric(m) for m in names]
    _check_alternative(alternative)
    n_permutations = check_count(n_permutations, "n_permutations")
    pred, grp, truth, units = _rate_inputs(y_pred, groups, y_true, prompts)
    present = sorted((g.item() if isinstance(g, np.generic) else g for g in pd.unique(grp)), key=str)
    if len(present) < 2:
        raise InputError(f"groups must hold at least two groups, got {present}")
    records = []
    for key in keys:
        rows, outcome = _rows_and_outcome(key, pred, truth)
        for a, b in itertools.combinations(present, 2):
            test = _rate_test(key, rows, outcome, grp, a, b, alternative, units, n_permutations, seed)
            records.append(
                {
                    "metric": key,
                    "group_a": a,
                    "group_b": b,
                    "rate_a": test.details["rate_a"],
                    "rate_b": test.details["rate_b"],
                    "difference": test.statistic,
                    "n_a": test.details["n_a"],
                    "n_b": test.details["n_b"],
                    "units_a": test.details["units_a"],
                    "units_b": test.details["units_b"],
                    "p_value": test.p_value,
                    "method": test.details["test"],
                    "n_permutations": test.n_permutations if test.n_permutations is not None else math.nan,
                    "reason": test.reason,
                }
            )
    frame = pd.DataFrame.from_records(records)
    frame.insert(frame.columns.get_loc("p_value") + 1, "p_adjusted", benjamini_hochberg(frame["p_value"].to_numpy()))
    return frame


def _sentiment_statistic(a: FloatArray, b: FloatArray, statistic: str, threshold: float) -> FloatArray:
    """Row-wise statistic for (P, N) arrays of the two sides of each pair."""
    if statistic == "scsp":
        # Wasserstein-1 between two equal-size samples in [0, 1] = mean |sorted(a) - sorted(b)| (= SCSP)
        return np.abs(np.sort(a, axis=1) - np.sort(b, axis=1)).mean(axis=1)
    if statistic == "wcsp":
        return (a > threshold).mean(axis=1) - (b > threshold).mean(axis=1)
    return a.mean(axis=1) - b.mean(axis=1)


def counterfactual_sentiment_test(
    scores_a: Any,
    scores_b: Any,
    *,
    statistic: str = "wcsp",
    threshold: float = 0.5,
    alternative: str = "two-sided",
    n_permutations: int = 9999,
    seed: SeedLike = 0,
    prompts: Any = None,
) -> PermutationTest:
    """Paired permutation test that counterfactual responses have the same sentiment distribution.

    ``scores_a[i]`` and ``scores_b[i]`` are the sentiment scores of the two responses of counterfactual pair ``i``.
    Under the null hypothesis the group mention does not matter, so the two scores of a pair are exchangeable:
    each permutation swaps a random subset of pairs. Statistics:

    * ``"wcsp"``: ``mean(I(s_a > t)) - mean(I(s_b > t))`` (signed WCSP, paper 3.1.3.2);
    * ``"scsp"``: Wasserstein-1 distance between the two score samples (SCSP; two-sided only);
    * ``"mean"``: ``mean(s_a) - mean(s_b)``.

    ``prompts``: optional prompt id of each pair. Several pairs (samples) of one counterfactual prompt are
    correlated, so the unit is the prompt: one random sign per prompt swaps the two sides of *all* its pairs
    together. Without it every pair is its own unit.

    p-value: exact over all ``2**N`` swaps of the ``N`` units when ``2**N <= n_permutations``; otherwise Monte
    Carlo, ``(1 + #{permuted >= observed}) / (1 + n_permutations)`` (never 0), seeded. ``details`` holds
    ``n_pairs``, ``unit`` ("pair" or "prompt") and ``n_units``.
    """
    if statistic not in _SENTIMENT_STATISTICS:
        raise InputError(f"statistic must be one of {_SENTIMENT_STATISTICS}, got {statistic!r}")
    _check_alternative(alternative)
    if statistic == "scsp" and alternative != "two-sided":
        raise InputError("SCSP is a distance (no direction); use alternative='two-sided'")
    threshold = check_threshold(threshold)
    a = as_float_array(scores_a, "scores_a", bounds=(0.0, 1.0))
    b = as_float_array(scores_b, "scores_b", bounds=(0.0, 1.0))
    n = check_same_length(scores_a=a, scores_b=b)
    n_permutations = check_count(n_permutations, "n_permutations")
    codes = None if prompts is None else prompt_units(prompts, n, "pair").codes
    n_units = n if codes is None else int(codes.max()) + 1
    observed = float(_sentiment_statistic(a[None, :], b[None, :], statistic, threshold)[0])
    details = {
        "statistic_name": statistic,
        "threshold": threshold,
        "n_pairs": n,
        "unit": "pair" if codes is None else "prompt",
        "n_units": n_units,
    }

    exact = n_units <= 62 and 2**n_units <= n_permutations
    count = 0
    total = 0
    for unit_swap in _swap_chunks(n_units, n_permutations, exact, as_generator(seed)):
        swap = unit_swap if codes is None else unit_swap[:, codes]  # all pairs of a prompt swap together
        perm = _sentiment_statistic(np.where(swap, b, a), np.where(swap, a, b), statistic, threshold)
        count += int(np.sum(_extreme(perm, observed, alternative)))
        total += unit_swap.shape[0]
    if exact:
        p = count / total
        return PermutationTest(observed, p, alternative, "exact", total, ("a", "b"), details)
    p = (1 + count) / (1 + total)
    return PermutationTest(observed, p, alternative, "monte-carlo", total, ("a", "b"), details)


def _swap_chunks(n: int, n_permutations: int, exact: bool, rng: np.random.Generator) -> Any:
    rows = max(8, 2**18 // max(n, 1))
    if exact:
        codes = np.arange(2**n, dtype=np.int64)
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, codes.size, rows):
            yield ((codes[start : start + rows, None] >> bits) & 1).astype(bool)
        return
    for start in range(0, n_permutations, rows):
        yield rng.random((min(rows, n_permutations - start), n)) < 0.5
