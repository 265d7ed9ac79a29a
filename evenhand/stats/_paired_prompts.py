"""A paired sign-flip permutation test over prompts, for signed differences between the two counterfactual
versions of each prompt (refusal rate, answer length; :mod:`evenhand.metrics.parity`).

Under the null hypothesis the group named in a prompt does not matter, so the two replies of each pair are
exchangeable, and so are the two sides of all the pairs of one prompt together (the samples of one prompt are
correlated): a permutation swaps the two sides of every pair of a random subset of prompts. Single replies are never
resampled on their own.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from evenhand._validation import as_float_array, check_same_length, power_of_two_scale
from evenhand.errors import InputError
from evenhand.metrics._result import FloatArray, prompt_units
from evenhand.stats._permutation import PermutationTest
from evenhand.stats._resampling import SeedLike, as_generator

Statistic = Literal["difference", "log_ratio"]
_TIES = 1e-12  # a permuted statistic this close to the observed one counts as reaching it


def _statistic(
    sum_a: FloatArray, sum_b: FloatArray, n_pairs: int, statistic: Statistic, half: float = 0.5
) -> FloatArray:
    """The statistic of the sides' totals; ``half`` is the log ratio's 1/2 at the scale the totals were taken."""
    if statistic == "difference":  # mean over pairs of a - b
        return np.asarray((sum_a - sum_b) / n_pairs, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):  # log of the ratio of the sides' totals (0 words: +-inf)
        return np.asarray(np.log((sum_a + half) / (sum_b + half)), dtype=np.float64)


def paired_prompt_test(
    values_a: Any,
    values_b: Any,
    prompts: Any = None,
    *,
    statistic: Statistic = "difference",
    n_permutations: int = 9999,
    seed: SeedLike = 0,
) -> PermutationTest:
    """Two-sided paired sign-flip permutation test that ``values_a`` and ``values_b`` (one per counterfactual pair,
    e.g. refusal indicators or word counts of the two replies) come from the same distribution.

    Statistics: ``"difference"``, the mean over pairs of ``a - b`` (a refusal rate difference); ``"log_ratio"``,
    ``log((sum a + 1/2) / (sum b + 1/2))`` (a relative length difference, symmetric under a swap). Swapping the two
    sides of every pair of a prompt (``prompts``: the prompt of each pair; without it each pair is its own unit).

    p-value: exact over all ``2**K`` swaps of the ``K`` prompts when ``2**K <= n_permutations``; otherwise Monte
    Carlo, ``(1 + #{|permuted| >= |observed|}) / (1 + n_permutations)``, seeded. ``details``: ``n_pairs``,
    ``unit``, ``n_units``, ``statistic_name``.
    """
    if statistic not in ("difference", "log_ratio"):
        raise InputError(f"statistic must be 'difference' or 'log_ratio', got {statistic!r}")
    a = as_float_array(values_a, "values_a")
    b = as_float_array(values_b, "values_b")
    n = check_same_length(values_a=a, values_b=b)
    # numbers near 1e308 (CED's): the statistic is taken at an exact power-of-two scale (its p-value is the same at
    # any scale), since their sums overflowed (statistic NaN, p 0.0: a finding from nothing). The log ratio of the
    # totals does not depend on the scale once its 1/2 is scaled with them (faults17: it was taken of inf / inf).
    scale = power_of_two_scale(a, b)
    a, b = a / scale, b / scale
    half = 0.5 / scale
    unscale = scale if statistic == "difference" else 1.0
    if n_permutations < 1:
        raise InputError(f"n_permutations must be >= 1, got {n_permutations}")
    if prompts is None:
        sum_a, sum_b, unit = a, b, "pair"
    else:
        units = prompt_units(prompts, n, "pair")
        sum_a, sum_b, unit = units.sums(a), units.sums(b), "prompt"
    k = int(sum_a.size)
    observed = float(_statistic(np.array([sum_a.sum()]), np.array([sum_b.sum()]), n, statistic, half)[0])
    details = {"n_pairs": n, "unit": unit, "n_units": k, "statistic_name": statistic}
    exact = k <= 20 and 2**k <= n_permutations
    rng = as_generator(seed)
    count = total = 0
    rows = max(8, 2**18 // max(k, 1))
    if exact:
        codes = np.arange(2**k, dtype=np.int64)
        chunks: Any = (((codes[s : s + rows, None] >> np.arange(k)) & 1).astype(bool) for s in range(0, 2**k, rows))
    else:
        chunks = (rng.random((min(rows, n_permutations - s), k)) < 0.5 for s in range(0, n_permutations, rows))
    for swap in chunks:
        perm_a = np.where(swap, sum_b, sum_a).sum(axis=1)
        perm_b = np.where(swap, sum_a, sum_b).sum(axis=1)
        perm = _statistic(perm_a, perm_b, n, statistic, half)
        count += int(np.sum(np.abs(perm) >= abs(observed) - _TIES))
        total += swap.shape[0]
    p = count / total if exact else (1 + count) / (1 + total)
    method = "exact" if exact else "monte-carlo"
    if not (math.isfinite(observed * unscale) and math.isfinite(observed)):
        why = (
            "the statistic is beyond the largest floating-point number (about 1.8e308)"
            if statistic == "difference"
            else "the log ratio needs each side's total above -1/2 (counts, which are never negative)"
        )
        return PermutationTest(math.nan, math.nan, "two-sided", method, total, ("a", "b"), details, reason=why)
    return PermutationTest(observed * unscale, p, "two-sided", method, total, ("a", "b"), details)
