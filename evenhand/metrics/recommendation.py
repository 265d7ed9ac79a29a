"""Counterfactual fairness metrics for recommendation use cases (paper section 3.3).

Each input is a sequence of ``N`` recommendation lists of length ``K``; ``recs1[i]`` and ``recs2[i]`` answer the
same prompt with the protected attribute group swapped. Items are mapped to integer ids once (a hash
factorisation), then every metric is computed for all pairs at once from the ``(N, K, K)`` item-equality tensor.

* Jaccard-K: ``|R' ∩ R''| / |R' ∪ R''|``.
* SERP-K: ``ψ(R', R'') = Σ_{v ∈ R'} I(v ∈ R'') (K − rank(v, R') + 1) / (K(K+1)/2)`` with 1-based ranks;
  per pair ``min(ψ(R', R''), ψ(R'', R'))``.
* PRAG-K: ``η(R', R'')`` counts the pairs ``v1 ≠ v2`` of ``R'`` with ``v1`` ranked before ``v2`` in ``R'``,
  ``v1 ∈ R''`` and ``v1`` ranked before ``v2`` in ``R''`` (or ``v2 ∉ R''``), divided by ``K(K−1)/2``, the number
  of such pairs. The paper prints ``K(K+1)`` as the denominator, under which identical lists score
  ``(K−1)/(2(K+1)) < 1/2``, contradicting the stated range [0, 1]; ``K(K−1)/2`` makes identical lists score 1.
  Per pair ``min(η(R', R''), η(R'', R'))``.

All three range over [0, 1]; higher is fairer. The value is the mean over pairs. With ``prompts=`` (the prompt of
each pair: several samples of one prompt give several pairs) the resampler draws prompts with all their pairs;
without it each pair is a unit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import paired_by_position
from evenhand.errors import InputError, InputTypeError
from evenhand.metrics._result import (
    MetricResult,
    Prompts,
    Resampler,
    clustered_ratio_resampler,
    mean_resampler,
    prompt_units,
)
from evenhand.registry import METRICS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
Normalizer = Callable[[Any], Any]
Duplicates = Literal["error", "mask"]
SpreadStatistic = Literal["range", "std", "max", "min"]

#: Each per-pair statistic -> the registry key of its metric (name, range and direction are the registry's).
METRIC_KEYS: dict[str, str] = {"jaccard": "jaccard_at_k", "serp": "serp_at_k", "prag": "prag_at_k"}
METRIC_NAMES: dict[str, str] = {metric: METRICS[key].name for metric, key in METRIC_KEYS.items()}
_CHUNK_CELLS = 4_000_000  # bound the (rows, K, K) equality tensor to a few MB per chunk


def normalize_item(item: Any) -> Any:
    """Default item normalisation: case-fold strings and collapse runs of whitespace; other items unchanged."""
    return " ".join(item.casefold().split()) if isinstance(item, str) else item


# --------------------------------------------------------------------------------------------------- inputs
def _as_lists(recs: Any, name: str) -> list[Sequence[Any]]:
    if recs is None or isinstance(recs, (str, bytes)):
        raise InputTypeError(f"{name} must be a sequence of recommendation lists, got {type(recs).__name__}")
    if isinstance(recs, (np.ndarray, pd.Series)):
        recs = recs.tolist()
    if not isinstance(recs, Iterable):
        raise InputTypeError(f"{name} must be a sequence of recommendation lists, got {type(recs).__name__}")
    lists = list(recs)
    if not lists:
        raise InputError(f"{name} is empty: pass at least one recommendation list")
    if all(type(rec) is list for rec in lists):  # the common case, without 10,000 ABC isinstance checks
        return lists
    for i, rec in enumerate(lists):
        if isinstance(rec, (str, bytes)) or not isinstance(rec, (Sequence, np.ndarray)):
            raise InputTypeError(
                f"{name}[{i}] is {type(rec).__name__} ({rec!r:.60}), expected a list of recommended items "
                f"({name} is a list of lists, one per prompt)"
            )
    return lists


def _list_length(side: Sequence[Sequence[Any]], k: int | None, name: str, other: int | None) -> int:
    lengths = np.fromiter(map(len, side), dtype=np.int64, count=len(side))
    if k is not None:
        short = np.flatnonzero(lengths < k)
        if short.size:
            i = int(short[0])
            raise InputError(f"{name}[{i}] has {lengths[i]} items, fewer than k={k}")
        return k
    expected = int(lengths[0]) if other is None else other
    bad = np.flatnonzero(lengths != expected)
    if bad.size:
        i = int(bad[0])
        raise InputError(
            f"recommendation lists must all have the same length K={expected}, but {name}[{i}] has {lengths[i]} "
            "items; pass k=<K> to compare the first K items of every list"
        )
    if expected == 0:
        raise InputError("recommendation lists are empty (K=0)")
    return expected


def _encode(
    sides: Sequence[Sequence[Sequence[Any]]],
    names: Sequence[str],
    k: int | None,
    normalize: bool | Normalizer,
    duplicates: Duplicates,
) -> list[IntArray]:
    """Lists -> one (N, K) array of integer item ids per side; equal ids mean equal (normalised) items."""
    if k is not None and (not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1):
        raise InputError(f"k must be a positive integer, got {k!r}")
    if duplicates not in ("error", "mask"):
        raise InputError(f"duplicates must be 'error' or 'mask', got {duplicates!r}")
    big_k: int | None = None
    for side, name in zip(sides, names, strict=True):
        big_k = _list_length(side, k, name, big_k if k is None else None)
    assert big_k is not None
    flat = [
        item
        for side in sides
        for item in itertools.chain.from_iterable(side if k is None else (rec[:k] for rec in side))
    ]
    items = np.fromiter(flat, dtype=object, count=len(flat))
    codes, uniques = pd.factorize(items)
    if (codes < 0).any():
        pos = int(np.flatnonzero(codes < 0)[0])
        side_index = int(np.searchsorted(np.cumsum([len(side) * big_k for side in sides]), pos, side="right"))
        pos -= sum(len(side) * big_k for side in sides[:side_index])
        raise InputError(
            f"{names[side_index]}[{pos // big_k}] has a missing item (None/NaN) at position {pos % big_k + 1}"
        )
    if normalize:
        norm = normalize_item if normalize is True else normalize
        if not callable(norm):
            raise InputTypeError(f"normalize must be a bool or a callable, got {type(normalize).__name__}")
        normalized = np.fromiter((norm(u) for u in uniques), dtype=object, count=len(uniques))
        remap = pd.factorize(normalized)[0]
        codes = remap[codes]  # far fewer unique items than items: normalise each once
    codes = codes.astype(np.int64)
    arrays = []
    offset = 0
    for side, name in zip(sides, names, strict=True):
        size = len(side) * big_k
        ids = codes[offset : offset + size].reshape(len(side), big_k)
        arrays.append(_handle_duplicates(ids, side, name, duplicates, offset))
        offset += size
    return arrays


def _handle_duplicates(
    ids: IntArray, side: Sequence[Sequence[Any]], name: str, duplicates: Duplicates, offset: int
) -> IntArray:
    """Find items repeated within a list (after normalisation): raise, or mask the later occurrences."""
    order = np.argsort(ids, axis=1, kind="stable")
    sorted_ids = np.take_along_axis(ids, order, axis=1)
    repeat_sorted = np.zeros(ids.shape, dtype=bool)
    repeat_sorted[:, 1:] = sorted_ids[:, 1:] == sorted_ids[:, :-1]  # later occurrences (stable sort)
    if not repeat_sorted.any():
        return ids
    repeat = np.zeros(ids.shape, dtype=bool)
    np.put_along_axis(repeat, order, repeat_sorted, axis=1)
    if duplicates == "error":
        row, col = (int(x[0]) for x in np.nonzero(repeat))
        raise InputError(
            f"{name}[{row}] recommends the same item twice ({side[row][col]!r} at position {col + 1}); "
            "recommendations must be distinct. Pass duplicates='mask' to keep the first occurrence and count "
            "repeats as non-matching slots."
        )
    masked = ids.copy()
    # unique negative ids never equal any item of either side
    masked[repeat] = -1 - offset - np.flatnonzero(repeat.ravel())
    return masked


# --------------------------------------------------------------------------------------------------- core
@dataclass(frozen=True)
class _PairValues:
    jaccard: FloatArray
    serp_12: FloatArray
    serp_21: FloatArray
    prag_12: FloatArray
    prag_21: FloatArray


def _pair_values(a: IntArray, b: IntArray, metrics: Iterable[str] = ("jaccard", "serp", "prag")) -> _PairValues:
    """Per-pair Jaccard and both directions of ψ (SERP) and η (PRAG), vectorised in row chunks.

    Only the requested metrics are computed; the others are left NaN.
    """
    wanted = set(metrics)
    n, k = a.shape
    weights = (k - np.arange(k)).astype(np.float64)  # K − rank + 1 with 1-based ranks
    serp_norm = k * (k + 1) / 2
    prag_norm = k * (k - 1) / 2
    before = np.triu(np.ones((k, k), dtype=bool), 1)  # r1 < r2: v1 ranked before v2 in the scanned list
    out = {f: np.full(n, np.nan) for f in ("jaccard", "serp_12", "serp_21", "prag_12", "prag_21")}
    step = max(1, _CHUNK_CELLS // (k * k))
    for start in range(0, n, step):
        sl = slice(start, start + step)
        equal = a[sl, :, None] == b[sl, None, :]  # equal[i, r, s]: item r of R' is item s of R''
        in_b = equal.any(axis=2)
        if "jaccard" in wanted:
            inter = np.count_nonzero(in_b, axis=1)
            out["jaccard"][sl] = inter / (2 * k - inter)
        if wanted.isdisjoint({"serp", "prag"}):
            continue
        in_a = equal.any(axis=1)
        if "serp" in wanted:
            out["serp_12"][sl] = in_b @ weights / serp_norm
            out["serp_21"][sl] = in_a @ weights / serp_norm
        if "prag" in wanted and k > 1:
            out["prag_12"][sl] = _rank_agreements(equal.argmax(axis=2), in_b, k, before) / prag_norm
            out["prag_21"][sl] = _rank_agreements(equal.argmax(axis=1), in_a, k, before) / prag_norm
    return _PairValues(**out)


def _rank_agreements(position: IntArray, present: npt.NDArray[np.bool_], k: int, before: Any) -> IntArray:
    """Count r1 < r2 with item r1 present in the other list and placed before item r2 there (absent = last)."""
    pos = np.where(present, position, k)
    agree = (pos[:, :, None] < pos[:, None, :]) & present[:, :, None] & before
    return np.count_nonzero(agree.reshape(len(pos), -1), axis=1)


_DOCS = {
    "jaccard": "mean |R' ∩ R''| / |R' ∪ R''| over counterfactual pairs",
    "serp": "mean min(ψ(R', R''), ψ(R'', R')) over counterfactual pairs (rank-weighted overlap)",
    "prag": "mean min(η(R', R''), η(R'', R')) over counterfactual pairs (pairwise ranking agreement)",
}


def _per_pair(values: _PairValues, metric: str, symmetric: bool = True) -> FloatArray:
    if metric == "jaccard":
        return values.jaccard
    first, second = (values.serp_12, values.serp_21) if metric == "serp" else (values.prag_12, values.prag_21)
    return np.minimum(first, second) if symmetric else first


def _pair_result(
    metric: str, per_pair: FloatArray, k: int, params: Mapping[str, Any], units: Prompts | None = None
) -> MetricResult:
    identity = METRICS[METRIC_KEYS[metric]].identity()  # name, range and direction: the registry's
    n = per_pair.size
    sizes = {"pairs": n, "k": k} if units is None else {"pairs": n, "prompts": units.n, "k": k}
    if metric == "prag" and k < 2:
        return MetricResult(
            **identity,
            value=math.nan,
            per_item=per_pair,
            item_unit="pair",
            sizes=sizes,
            reason="PRAG-K compares pairs of items within a list, so it needs K ≥ 2",
            params=dict(params),
        )
    return MetricResult(
        **identity,
        value=float(per_pair.mean()),
        per_item=per_pair,
        item_unit="pair",
        sizes=sizes,
        details={"definition": _DOCS[metric], "min_pair": float(per_pair.min()), "max_pair": float(per_pair.max())},
        # without prompt ids the pair is the unit; with them a prompt is drawn with all its pairs (cluster bootstrap)
        resampler=(
            mean_resampler(per_pair, unit="pair")
            if units is None
            else clustered_ratio_resampler(per_pair, np.ones_like(per_pair), units)
        ),
        params=dict(params),
    )


def _pairwise(
    metrics: Sequence[str],
    recs1: Any,
    recs2: Any,
    k: int | None,
    normalize: bool | Normalizer,
    duplicates: Duplicates,
    prompts: Any = None,
) -> dict[str, MetricResult]:
    side1, side2 = _as_lists(recs1, "recs1"), _as_lists(recs2, "recs2")
    if len(side1) != len(side2):
        raise InputError(
            f"recs1 and recs2 must hold the same number of lists (one per counterfactual pair): "
            f"{len(side1)} vs {len(side2)}"
        )
    units = None if prompts is None else prompt_units(prompts, len(side1), "pair")
    a, b = _encode([side1, side2], ["recs1", "recs2"], k, normalize, duplicates)
    values = _pair_values(a, b, metrics)
    params = {"k": a.shape[1], "normalize": bool(normalize) if not callable(normalize) else "custom"}
    params["duplicates"] = duplicates
    return {METRIC_NAMES[m]: _pair_result(m, _per_pair(values, m), a.shape[1], params, units) for m in metrics}


# --------------------------------------------------------------------------------------------------- public
@paired_by_position
def jaccard_at_k(
    recs1: Any,
    recs2: Any,
    *,
    k: int | None = None,
    normalize: bool | Normalizer = True,
    duplicates: Duplicates = "error",
    prompts: Any = None,
) -> MetricResult:
    """Jaccard-K (paper 3.3): mean Jaccard similarity of counterfactual recommendation lists.

    ``Jaccard-K = (1/N) Σ_i |R'_i ∩ R''_i| / |R'_i ∪ R''_i|``. Range [0, 1], 1 is fairest (identical sets).
    Ignores ranks.

    Args:
        recs1, recs2: ``N`` recommendation lists each (list of lists, 2-D array or Series of lists); pair ``i``
            answers the same prompt for two protected attribute groups.
        k: compare the first ``k`` items of every list (each must have at least ``k``). By default every list
            must have the same length ``K``.
        normalize: ``True`` case-folds strings and collapses whitespace before comparing (``"The  Matrix"`` ==
            ``"the matrix"``); ``False`` compares items exactly; a callable maps each item to its comparison key.
        duplicates: an item repeated within a list raises ``ValueError`` (``"error"``), or keeps its first
            occurrence with the repeats counted as non-matching slots (``"mask"``).
        prompts: optional prompt id of each pair (several samples of one prompt give several pairs). The value
            is the same; the resampler's unit becomes the prompt with all its pairs (cluster bootstrap), because
            the answers to one prompt are correlated. Without it the unit is the pair.

    Returns:
        :class:`MetricResult` with the per-pair similarities in ``per_item`` and a mean resampler over pairs (over
        prompts with ``prompts=``).
    """
    return _pairwise(["jaccard"], recs1, recs2, k, normalize, duplicates, prompts)["Jaccard-K"]


@paired_by_position
def serp_at_k(
    recs1: Any,
    recs2: Any,
    *,
    k: int | None = None,
    normalize: bool | Normalizer = True,
    duplicates: Duplicates = "error",
    prompts: Any = None,
) -> MetricResult:
    """SERP-K (paper 3.3): rank-weighted overlap of counterfactual recommendation lists.

    ``ψ(R', R'') = Σ_{v ∈ R'} I(v ∈ R'') (K − rank(v, R') + 1) / (K(K+1)/2)`` (ranks start at 1) and
    ``SERP-K = (1/N) Σ_i min(ψ(R'_i, R''_i), ψ(R''_i, R'_i))``. Range [0, 1], 1 is fairest; identical lists give 1,
    disjoint lists 0. Arguments as in :func:`jaccard_at_k`.
    """
    return _pairwise(["serp"], recs1, recs2, k, normalize, duplicates, prompts)["SERP-K"]


@paired_by_position
def prag_at_k(
    recs1: Any,
    recs2: Any,
    *,
    k: int | None = None,
    normalize: bool | Normalizer = True,
    duplicates: Duplicates = "error",
    prompts: Any = None,
) -> MetricResult:
    """PRAG-K (paper 3.3): agreement of pairwise rankings between counterfactual recommendation lists.

    ``η(R', R'') = Σ_{v1 ≠ v2 ∈ R'} I(v1 ∈ R'') I(rank(v1, R') < rank(v2, R')) I(rank(v1, R'') < rank(v2, R''))
    / (K(K−1)/2)``, where an item missing from ``R''`` ranks after every item in it, and
    ``PRAG-K = (1/N) Σ_i min(η(R'_i, R''_i), η(R''_i, R'_i))``. Range [0, 1], 1 is fairest; identical lists give
    1. The paper prints the denominator ``K(K+1)``, which caps the value below 1/2; ``K(K−1)/2`` (the number of
    ordered pairs counted) restores the stated range. NaN when ``K < 2``. Arguments as in :func:`jaccard_at_k`.
    """
    return _pairwise(["prag"], recs1, recs2, k, normalize, duplicates, prompts)["PRAG-K"]


def recommendation_metrics(
    recs1: Any,
    recs2: Any,
    *,
    metrics: Sequence[str] = ("jaccard", "serp", "prag"),
    k: int | None = None,
    normalize: bool | Normalizer = True,
    duplicates: Duplicates = "error",
    prompts: Any = None,
) -> dict[str, MetricResult]:
    """Jaccard-K, SERP-K and PRAG-K from one encoding of the lists: ``{"Jaccard-K": ..., "SERP-K": ...}``.

    Arguments as in :func:`jaccard_at_k` (``prompts=``: the prompt of each pair, the resampling unit).
    """
    return _pairwise(_check_metrics(metrics), recs1, recs2, k, normalize, duplicates, prompts)


def _check_metrics(metrics: Sequence[str] | str) -> list[str]:
    chosen = [metrics] if isinstance(metrics, str) else list(metrics)
    lookup = {**{m: m for m in METRIC_NAMES}, **{v.lower(): m for m, v in METRIC_NAMES.items()}}
    unknown = [m for m in chosen if m.lower() not in lookup]
    if unknown or not chosen:
        raise InputError(f"unknown recommendation metric(s) {unknown}; choose from {list(METRIC_NAMES)}")
    return [lookup[m.lower()] for m in chosen]


_SPREADS: dict[str, Callable[[FloatArray], FloatArray]] = {
    "range": lambda x: np.max(x, axis=-1) - np.min(x, axis=-1),
    "std": lambda x: np.std(x, axis=-1),
    "max": lambda x: np.max(x, axis=-1),
    "min": lambda x: np.min(x, axis=-1),
}


def sensitive_to_neutral_similarity(
    neutral_recs: Any,
    group_recs: Mapping[Any, Any],
    *,
    metrics: Sequence[str] = ("jaccard", "serp", "prag"),
    statistic: SpreadStatistic = "range",
    k: int | None = None,
    normalize: bool | Normalizer = True,
    duplicates: Duplicates = "error",
    symmetric: bool = False,
    prompts: Any = None,
) -> dict[str, MetricResult]:
    """Attribute-wise form (Zhang et al., 2023): each group's lists against lists from attribute-neutral prompts.

    For every group ``g`` the similarity ``S_g`` is the mean over prompts of ``sim(R_g, R_neutral)``; SERP and
    PRAG scan the group's list against the neutral one (``ψ(R_g, R_neutral)``; ``symmetric=True`` takes the min of
    both directions as in the pairwise form). Across groups the result reports max, min, range
    (SNSR, the default ``value``) and population standard deviation (SNSV); ``statistic`` picks the ``value``.

    Args:
        neutral_recs: ``N`` lists from the neutral prompts (a sequence, or a mapping prompt id -> list).
        group_recs: ``{group: N lists}`` in the same prompt order (or mappings with the same prompt ids).
        statistic: ``"range"`` (lower is fairer), ``"std"`` (lower is fairer), ``"min"`` or ``"max"`` (higher
            is fairer).
        k, normalize, duplicates: as in :func:`jaccard_at_k`.
        prompts: optional prompt id of each of the ``N`` positions (in list order, or the mapping's key order),
            when several positions are samples of one prompt. The resampler then draws prompts with all their
            positions (cluster bootstrap) and ``sizes`` counts ``lists`` and distinct ``prompts``; without it
            each position is its own prompt.

    Returns:
        ``{"Jaccard-K": ..., "SERP-K": ..., "PRAG-K": ...}``; ``per_item`` holds each group's mean similarity
        (``item_labels`` are the groups) and the resampler bootstraps prompts.
    """
    if statistic not in _SPREADS:
        raise InputError(f"statistic must be one of {list(_SPREADS)}, got {statistic!r}")
    if not isinstance(group_recs, Mapping) or len(group_recs) < 1:
        raise InputTypeError("group_recs must be a non-empty mapping {group: recommendation lists}")
    chosen = _check_metrics(metrics)
    group_names = list(group_recs)
    neutral, groups = _align_prompts(neutral_recs, [group_recs[g] for g in group_names], group_names)
    encoded = _encode(
        [neutral, *groups], ["neutral_recs", *[f"group_recs[{g!r}]" for g in group_names]], k, normalize, duplicates
    )
    ref, per_group = encoded[0], encoded[1:]
    big_k = ref.shape[1]
    units = None if prompts is None else prompt_units(prompts, ref.shape[0], "list")
    values = [_pair_values(ids, ref, chosen) for ids in per_group]
    results = {}
    for metric in chosen:
        sims = np.vstack([_per_pair(v, metric, symmetric) for v in values])  # (groups, prompts)
        results[METRIC_NAMES[metric]] = _neutral_result(metric, sims, group_names, statistic, big_k, symmetric, units)
    return results


def _align_prompts(
    neutral: Any, groups: Sequence[Any], names: Sequence[Any]
) -> tuple[list[Sequence[Any]], list[list[Sequence[Any]]]]:
    if isinstance(neutral, Mapping):
        keys = list(neutral)
        aligned = []
        for name, recs in zip(names, groups, strict=True):
            if not isinstance(recs, Mapping) or set(recs) != set(keys):
                raise InputError(f"group_recs[{name!r}] must be a mapping with the same prompt ids as neutral_recs")
            aligned.append(_as_lists([recs[key] for key in keys], f"group_recs[{name!r}]"))
        return _as_lists([neutral[key] for key in keys], "neutral_recs"), aligned
    ref = _as_lists(neutral, "neutral_recs")
    aligned = [_as_lists(recs, f"group_recs[{name!r}]") for name, recs in zip(names, groups, strict=True)]
    for name, lists in zip(names, aligned, strict=True):
        if len(lists) != len(ref):
            raise InputError(
                f"group_recs[{name!r}] has {len(lists)} lists but neutral_recs has {len(ref)}: one list per prompt"
            )
    return ref, aligned


def _neutral_result(
    metric: str,
    sims: FloatArray,
    groups: Sequence[Any],
    statistic: str,
    k: int,
    symmetric: bool,
    units: Prompts | None = None,
) -> MetricResult:
    name = METRIC_NAMES[metric]
    params = {"statistic": statistic, "k": k, "symmetric": symmetric, "reference": "neutral"}
    sizes = {"prompts": sims.shape[1], "groups": sims.shape[0], "k": k}
    if units is not None:
        sizes = {"lists": sims.shape[1], "prompts": units.n, "groups": sims.shape[0], "k": k}
    labels = np.asarray(groups, dtype=object)
    if metric == "prag" and k < 2:
        return MetricResult(
            name=name,
            value=math.nan,
            item_unit="group",
            sizes=sizes,
            params=params,
            reason="PRAG-K compares pairs of items within a list, so it needs K ≥ 2",
        )
    means = sims.mean(axis=1)
    spread = _SPREADS[statistic]
    summary = {s: float(fn(means)) for s, fn in _SPREADS.items()}

    # per-unit sums of each group's similarities and the positions per unit (a unit: a list position, or a prompt)
    unit_sims, unit_sizes = sims, np.ones(sims.shape[1])
    if units is not None:
        cells = (np.arange(sims.shape[0])[:, None] * units.n + units.codes[None, :]).ravel()
        sums = np.bincount(cells, weights=sims.ravel(), minlength=sims.shape[0] * units.n)
        unit_sims = np.asarray(sums, dtype=np.float64).reshape(-1, units.n)
        unit_sizes = units.counts()

    def resample(weights: FloatArray) -> FloatArray:
        total = weights.sum(axis=1, keepdims=True) if units is None else (weights @ unit_sizes)[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            group_means = np.where(total > 0, (weights @ unit_sims.T) / np.where(total > 0, total, 1.0), np.nan)
        return spread(group_means)

    return MetricResult(
        name=name,
        value=summary[statistic],
        per_item=means,
        item_unit="group",
        item_labels=labels,
        sizes=sizes,
        details={
            **summary,
            "SNSR": summary["range"],
            "SNSV": summary["std"],
            "group_similarity": {_plain(g): float(v) for g, v in zip(groups, means, strict=True)},
            "per_prompt": sims,
        },
        resampler=Resampler(unit="prompt", n_units=unit_sims.shape[1], statistic=resample),
        value_range=(0.0, 1.0) if statistic != "std" else (0.0, 0.5),
        higher_is_fairer=statistic in ("min", "max"),
        params=params,
    )


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
