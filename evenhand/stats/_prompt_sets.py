"""A permutation test over prompts for a difference between two sets of prompts (the observational comparisons of
:mod:`evenhand.metrics.unplaced`: the prompts that name a person no name list can place against the rest).

Under the null hypothesis which set a prompt is in does not matter for its replies, so the set labels are
exchangeable among prompts: a permutation draws a new set of the same size from all the prompts, each prompt moving
with all its replies (the replies of one prompt are correlated). Single replies are never shuffled on their own.
"""

from __future__ import annotations

import itertools
import math
from typing import Any, Literal

import numpy as np

from evenhand._validation import as_float_array
from evenhand.errors import InputError
from evenhand.metrics._result import FloatArray
from evenhand.metrics.unplaced import set_totals
from evenhand.stats._permutation import PermutationTest
from evenhand.stats._resampling import SeedLike, as_generator, check_count

SetStatistic = Literal["difference", "log_ratio"]
_TIES = 1e-12  # a permuted statistic this close to the observed one counts as reaching it


def _statistic(in_sums: FloatArray, in_counts: FloatArray, total: float, count: float, kind: SetStatistic) -> Any:
    """The set's mean minus the rest's (or the log of their ratio, each mean plus 1/2), from the set's totals."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_in = in_sums / in_counts
        mean_out = (total - in_sums) / (count - in_counts)
        if kind == "difference":
            return mean_in - mean_out
        return np.log((mean_in + 0.5) / (mean_out + 0.5))


def prompt_set_test(
    values: Any,
    in_set: Any,
    prompts: Any = None,
    *,
    statistic: SetStatistic = "difference",
    n_permutations: int = 9999,
    seed: SeedLike = 0,
) -> PermutationTest:
    """Two-sided permutation test that the replies to a set of prompts and to the other prompts come from one
    distribution (the mean of ``values`` is the same).

    Args:
        values: one value per reply (a refusal or toxicity indicator, a length in words, a decision).
        in_set: per reply, whether its prompt is in the set (the same for every reply of a prompt).
        prompts: the prompt of each reply; without it each reply is its own unit.
        statistic: ``"difference"``, the set's mean minus the rest's; ``"log_ratio"``, ``log((mean_set + 1/2) /
            (mean_rest + 1/2))`` (a relative length difference, symmetric in the two sets).
        n_permutations: Monte Carlo draws when not every split is enumerated.
        seed: seed of the draws.

    p-value: exact over every split of the units into a set of the same size when there are at most
    ``n_permutations`` of them; otherwise Monte Carlo, ``(1 + #{|permuted| >= |observed|}) / (1 + n)``, seeded.
    NaN, with a reason, when one side has no unit. ``details``: ``n_replies``, ``unit``, ``n_units``,
    ``n_units_in_set``, ``statistic_name``.
    """
    if statistic not in ("difference", "log_ratio"):
        raise InputError(f"statistic must be 'difference' or 'log_ratio', got {statistic!r}")
    n_permutations = check_count(n_permutations, "n_permutations")
    v = as_float_array(values, "values", allow_empty=True)
    sums, counts, member, _ = set_totals(v, in_set, prompts)
    k, m = int(sums.size), int(member.sum())
    unit = "prompt" if prompts is not None else "reply"
    details = {"n_replies": int(v.size), "unit": unit, "n_units": k, "n_units_in_set": m, "statistic_name": statistic}
    groups = ("in set", "rest")
    if m == 0 or m == k:
        return PermutationTest(math.nan, math.nan, "two-sided", "permutation of prompts", 0, groups, details,
                               reason="one set has no prompt")  # fmt: skip
    total, count = float(sums.sum()), float(counts.sum())
    observed = float(_statistic(sums[member].sum(), counts[member].sum(), total, count, statistic))
    hits = draws = 0
    exact = math.comb(k, m) <= n_permutations
    rows = max(8, 2**20 // k)
    if exact:
        splits = np.array(list(itertools.combinations(range(k), m)), dtype=np.intp).reshape(-1, m)
        chunks: Any = (splits[s : s + rows] for s in range(0, len(splits), rows))
    else:
        rng = as_generator(seed)
        chunks = (
            np.argpartition(rng.random((min(rows, n_permutations - s), k)), m - 1, axis=1)[:, :m]
            for s in range(0, n_permutations, rows)
        )
    for chosen in chunks:
        permuted = _statistic(sums[chosen].sum(axis=1), counts[chosen].sum(axis=1), total, count, statistic)
        hits += int(np.sum(np.abs(permuted) >= abs(observed) - _TIES))
        draws += chosen.shape[0]
    if exact:
        return PermutationTest(observed, hits / draws, "two-sided", "exact", draws, groups, details)
    return PermutationTest(observed, (1 + hits) / (1 + draws), "two-sided", "monte-carlo", draws, groups, details)
