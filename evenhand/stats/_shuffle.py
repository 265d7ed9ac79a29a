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
from typing import Any

import numpy as np

from evenhand.stats._permutation import PermutationTest
from evenhand.stats._resampling import SeedLike, as_generator, check_count

_TIE_TOL = 1e-9


def group_shuffle_test(
    texts: Sequence[str],
    versions: Mapping[str, Sequence[str]],
    statistic: Callable[[list[str]], float],
    *,
    n_permutations: int = 199,
    stop_after: int = 10,
    max_texts: int | None = None,
    seed: SeedLike = 0,
) -> PermutationTest:
    """One-sided permutation test that a co-occurrence statistic is larger than group mentions alone give.

    ``versions[g][i]`` is text ``i`` with every group mention made group ``g``'s (e.g. the rows of
    :func:`evenhand.counterfactual_prompts` run on the responses); a text that equals exactly one group's version
    mentions that group only and takes part in the shuffle; the others (no mention, several groups, a group not
    compared) stay as they are. Each permutation shuffles the groups among the taking-part texts, so each group is
    mentioned as often as before, and recomputes ``statistic`` (e.g. ``lambda t: cooccurrence_bias(t, ...).value``;
    NaN results are left out). Only the texts with a group mention enter ``statistic``: COBS and SA count
    co-occurrences within responses that mention a group, so the others change nothing but the cost.

    p-value: ``(1 + #{permuted >= observed}) / (1 + n)`` over ``n`` valid permutations, stopped early once
    ``stop_after`` permutations reach the observed value (Besag and Clifford's sequential test: ``p = h / l``
    after ``l`` permutations with ``h`` hits), so data without an association cost a few recomputations only.
    ``max_texts`` bounds the cost on large corpora: the test then runs on that many of the texts with a group
    mention, drawn at random (a valid test of the same null, with less power), observed value included.
    """
    n_permutations = check_count(n_permutations, "n_permutations")
    names = list(versions)
    labels: list[int] = []
    moving: list[int] = []
    for i, text in enumerate(texts):
        matches = [k for k, g in enumerate(names) if versions[g][i] == text]
        if len(matches) == 1:
            moving.append(i)
            labels.append(matches[0])
    mentioned = sorted(set(moving) | {i for i, t in enumerate(texts) if any(versions[g][i] != t for g in names)})
    rng = as_generator(seed)
    if max_texts is not None and len(mentioned) > max_texts:
        mentioned = sorted(int(i) for i in rng.choice(mentioned, size=max_texts, replace=False))
        kept = set(mentioned)
        labels = [label for i, label in zip(moving, labels, strict=True) if i in kept]
        moving = [i for i in moving if i in kept]
    details: dict[str, Any] = {"n_shuffled": len(moving), "n_texts": len(mentioned), "groups": names}
    # a pair of groups (COBS) is named as such; SA compares them all at once
    compared = (names[0], names[1]) if len(names) == 2 else ("all groups", "all groups")
    base = [texts[i] for i in mentioned]
    observed = float(statistic(base))
    where = {i: k for k, i in enumerate(mentioned)}
    if math.isnan(observed) or len(set(labels)) < 2:
        why = "the statistic is undefined" if math.isnan(observed) else "fewer than two groups are mentioned alone"
        return PermutationTest(observed, math.nan, "greater", "group shuffle", 0, compared, details, why)
    hits = valid = 0
    for _ in range(n_permutations):
        shuffled = rng.permutation(np.asarray(labels))
        corpus = list(base)
        for i, label in zip(moving, shuffled, strict=True):
            corpus[where[i]] = versions[names[int(label)]][i]
        value = float(statistic(corpus))
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
