"""Group-shuffle test for co-occurrence stereotype metrics (COBS, SA).

COBS and SA are averages of absolute log ratios and distances from uniform: never below 0, and above 0 on any
finite corpus, even where group words and stereotype words are independent. An interval that excludes 0 is then no
evidence. The null they need is *which group a response mentions does not matter for the words around it*: under
it, the group mentions can be shuffled among the responses that mention one group, keeping how often each group is
mentioned, and the metric recomputed on the shuffled corpus.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.errors import InputError
from evenhand.stats._permutation import PermutationTest
from evenhand.stats._resampling import SeedLike, as_generator, check_count

_TIE_TOL = 1e-9


@runtime_checkable
class PreparedStatistic(Protocol):
    """A statistic recomputed on many corpora made of the same texts, which it prepares (e.g. tokenizes) once.

    ``prepare(texts)`` gets every text a corpus of the test can hold, each once; the function it returns gets one
    corpus as the indices of its texts in ``texts`` and must give what the statistic gives on those texts.
    """

    def prepare(self, texts: list[str]) -> Callable[[npt.NDArray[np.int64]], float]: ...


def _on_texts(statistic: Callable[[list[str]], float], pool: list[str]) -> Callable[[npt.NDArray[np.int64]], float]:
    """A statistic of texts as one of the indices of its texts in ``pool``."""
    return lambda corpus: statistic([pool[k] for k in corpus.tolist()])


def _places(
    indices: list[int], where: Mapping[int, int], version_of: Mapping[int, list[int]], n_groups: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Texts ``indices``: their places in the corpus, and per text the slots of its versions (one column a group)."""
    at = np.fromiter((where[i] for i in indices), dtype=np.int64, count=len(indices))
    rows = np.array([version_of[i] for i in indices], dtype=np.int64).reshape(len(indices), n_groups)
    return at, rows


def group_shuffle_test(
    texts: Sequence[str],
    versions: Mapping[str, Sequence[str]],
    statistic: Callable[[list[str]], float] | PreparedStatistic,
    *,
    units: Sequence[Any] | npt.NDArray[Any] | None = None,
    n_permutations: int = 199,
    stop_after: int = 10,
    max_texts: int | None = None,
    seed: SeedLike = 0,
) -> PermutationTest:
    """One-sided permutation test that a co-occurrence statistic is larger than group mentions alone give.

    ``versions[g][i]`` is text ``i`` with every group mention made group ``g``'s (e.g. the rows of
    :func:`evenhand.counterfactual_prompts` run on the responses); a text that equals exactly one group's version
    mentions that group only. ``units`` (one label per text, e.g. the prompt id) are what is shuffled: the
    responses to one prompt share its group words and its topic, so they are not exchangeable one by one, and
    shuffling single responses would make the null spread far too narrow (p-values far too small). A unit whose
    texts all mention the same single group takes part as a whole: each permutation shuffles the groups among those
    units (each group keeps its number of units) and gives every mentioning text of a unit its new group's version.
    Within a unit whose texts mention different groups, those texts swap groups among themselves (the answers to
    one prompt are exchangeable with each other); a text naming several groups stays as it is. ``statistic`` is
    recomputed on each shuffled corpus (e.g. ``lambda t: cooccurrence_bias(t, ...).value``; NaN results are left
    out). Without ``units`` each text is its own unit. Only the texts with a group mention enter ``statistic``:
    COBS and SA count co-occurrences within responses that mention a group, so the others change nothing but the
    cost.

    p-value: ``(1 + #{permuted >= observed}) / (1 + n)`` over ``n`` valid permutations, stopped early once
    ``stop_after`` permutations reach the observed value (Besag and Clifford's sequential test: ``p = h / l``
    after ``l`` permutations with ``h`` hits), so data without an association cost a few recomputations only.
    ``max_texts`` bounds the cost on large corpora: the test then runs on the mentioning texts of randomly drawn
    units, about that many texts (a valid test of the same null, with less power), observed value included.
    """
    n_permutations = check_count(n_permutations, "n_permutations")
    names = list(versions)
    if units is None:
        codes = np.arange(len(texts))
    else:
        codes = pd.factorize(pd.Series(np.asarray(units, dtype=object).ravel()))[0]  # 1 and 1.0 are one unit
        if codes.size != len(texts):
            raise InputError(f"units needs one label per text: got {codes.size} for {len(texts)} texts")
    # per text: the single group it mentions (index into names), or -1 for none of them, -2 for several
    alone: dict[int, int] = {}
    for i, text in enumerate(texts):
        matches = [k for k, g in enumerate(names) if versions[g][i] == text]
        if len(matches) < len(names):  # some version differs: the text mentions a compared group
            alone[i] = matches[0] if len(matches) == 1 else -2
    members: dict[int, list[int]] = {}
    for i in alone:
        members.setdefault(int(codes[i]), []).append(i)
    rng = as_generator(seed)
    chosen = list(members)
    if max_texts is not None and len(alone) > max_texts:
        chosen, total = [], 0
        for u in rng.permutation(np.asarray(list(members))).tolist():
            if total and total + len(members[u]) > max_texts:
                continue
            chosen.append(u)
            total += len(members[u])
    moving_units, labels = [], []
    within: list[tuple[list[int], npt.NDArray[np.int64]]] = []  # units whose texts mention different groups
    for u in chosen:
        found = {alone[i] for i in members[u]}
        if len(found) == 1 and min(found) >= 0:  # every mention of the unit is of one same group
            moving_units.append(u)
            labels.append(found.pop())
        else:  # its single-group texts swap groups among themselves (a text naming several groups stays)
            single = [i for i in members[u] if alone[i] >= 0]
            if len({alone[i] for i in single}) >= 2:
                within.append((single, np.array([alone[i] for i in single])))
    mentioned = sorted(i for u in chosen for i in members[u])
    details: dict[str, Any] = {
        "n_shuffled": len(moving_units),
        "n_shuffled_within": len(within),
        "n_texts": len(mentioned),
        "groups": names,
    }
    # a pair of groups (COBS) is named as such; SA compares them all at once
    compared = (names[0], names[1]) if len(names) == 2 else ("all groups", "all groups")
    # every text a corpus can hold, once: the mentioning texts and their versions; a corpus is their indices
    slots: dict[str, int] = {}
    base = np.array([slots.setdefault(texts[i], len(slots)) for i in mentioned], dtype=np.int64)
    version_of = {i: [slots.setdefault(versions[g][i], len(slots)) for g in names] for i in mentioned}
    pool = list(slots)
    compute = statistic.prepare(pool) if isinstance(statistic, PreparedStatistic) else _on_texts(statistic, pool)
    observed = float(compute(base))
    where = {i: k for k, i in enumerate(mentioned)}
    if math.isnan(observed) or (len(set(labels)) < 2 and not within):
        why = "the statistic is undefined" if math.isnan(observed) else "fewer than two groups are mentioned alone"
        return PermutationTest(observed, math.nan, "greater", "group shuffle", 0, compared, details, why)
    # the texts that move, as arrays: their places in the corpus, their unit's place in ``labels`` and the slots of
    # their versions (one column per group); per unit that swaps within, the same for its single-group texts
    moving = [i for u in moving_units for i in members[u]]
    move_at, move_rows = _places(moving, where, version_of, len(names))
    move_unit = np.repeat(np.arange(len(moving_units)), [len(members[u]) for u in moving_units])
    swaps = [(*_places(single, where, version_of, len(names)), groups) for single, groups in within]
    hits = valid = 0
    for _ in range(n_permutations):
        shuffled = rng.permutation(np.asarray(labels)).astype(np.int64)
        corpus = base.copy()
        corpus[move_at] = move_rows[np.arange(move_at.size), shuffled[move_unit]]
        for at, rows, groups in swaps:
            corpus[at] = rows[np.arange(at.size), rng.permutation(groups)]
        value = float(compute(corpus))
        if math.isnan(value):
            continue
        valid += 1
        hits += value >= observed - _TIE_TOL * max(1.0, abs(observed))
        if hits >= stop_after:  # clearly no evidence: p = h / l (sequential Monte Carlo)
            details["stopped_early"] = True
            return PermutationTest(observed, hits / valid, "greater", "group shuffle", valid, compared,
                                   details)  # fmt: skip
    if valid == 0:
        why = "the statistic is undefined on every shuffled corpus"
        return PermutationTest(observed, math.nan, "greater", "group shuffle", 0, compared, details, why)
    return PermutationTest(observed, (1 + hits) / (1 + valid), "greater", "group shuffle", valid,
                           compared, details)  # fmt: skip
