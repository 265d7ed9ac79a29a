"""Bootstrap and jackknife weight matrices for a :class:`~evenhand.metrics.Resampler`.

A bootstrap replicate is a vector of draw counts over resampling units (prompts, pairs, rows): drawing ``n``
units with replacement and counting how often each was drawn. The metric's ``statistic`` turns a ``(B, n)``
matrix of such counts into ``B`` metric values, so the texts are never touched again.

Weights are built in row chunks of about 2**16 cells: a chunk's bincount then fits in the CPU cache, which is
about ten times faster than one huge bincount for 20,000 units, and memory stays bounded for any ``B``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.errors import InputError, InputTypeError
from evenhand.metrics._result import FloatArray, MetricResult, Resampler

SeedLike = int | np.random.Generator | None

_CHUNK_CELLS = 2**16
_MIN_CHUNK_ROWS = 8
# Above this many units the jackknife for BCa leaves out groups of units instead of single units.
MAX_JACKKNIFE_UNITS = 2000


def as_generator(seed: SeedLike) -> np.random.Generator:
    """A NumPy Generator from an int seed, an existing Generator, or None (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or (isinstance(seed, (int, np.integer)) and not isinstance(seed, bool)):
        return np.random.default_rng(seed)
    raise InputTypeError(f"seed must be an int, a numpy.random.Generator or None, got {type(seed).__name__}")


def check_count(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputTypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise InputError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def get_resampler(source: MetricResult | Resampler) -> Resampler | None:
    if isinstance(source, Resampler):
        return source
    if isinstance(source, MetricResult):
        return source.resampler
    raise InputTypeError(f"expected a MetricResult or a Resampler, got {type(source).__name__}")


def strata_indices(resampler: Resampler) -> list[npt.NDArray[np.intp]]:
    """Unit indices of each stratum (one stratum holding every unit when ``strata`` is None)."""
    n = resampler.n_units
    if resampler.strata is None:
        return [np.arange(n)]
    strata = resampler.strata
    if len(strata) != n:
        raise InputError(f"resampler.strata must hold one label per unit ({n}), got {len(strata)}")
    codes, _ = pd.factorize(np.asarray(strata, dtype=object))  # hashing: tuples and mixed labels work too
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [part for part in np.split(order, bounds) if part.size]


def _chunk_rows(n_units: int) -> int:
    return max(_MIN_CHUNK_ROWS, _CHUNK_CELLS // max(n_units, 1))


def bootstrap_weight_chunks(
    n_units: int,
    n_resamples: int,
    rng: np.random.Generator,
    strata: list[npt.NDArray[np.intp]] | None = None,
) -> Iterator[FloatArray]:
    """Yield ``(b, n_units)`` draw-count matrices, ``n_resamples`` rows in all.

    Within each stratum, as many units are drawn (with replacement) as the stratum holds, so the stratum sizes
    stay fixed in every replicate.
    """
    parts = strata if strata is not None else [np.arange(n_units)]
    rows = _chunk_rows(n_units)
    # int32 draws cost half as much as int64 ones; a chunk's flat index must fit
    dtype: type[np.signedinteger[Any]] = np.int32 if rows * n_units < 2**31 else np.int64
    for start in range(0, n_resamples, rows):
        b = min(rows, n_resamples - start)
        offsets: npt.NDArray[np.signedinteger[Any]] = (np.arange(b, dtype=dtype) * n_units)[:, None]
        if len(parts) == 1:  # no strata: the drawn position is the unit itself
            flat = (rng.integers(0, n_units, size=(b, n_units), dtype=dtype) + offsets).ravel()
        else:
            flat = np.concatenate(
                [(idx[rng.integers(0, idx.size, size=(b, idx.size), dtype=dtype)] + offsets).ravel() for idx in parts]
            )
        yield np.bincount(flat, minlength=b * n_units).reshape(b, n_units).astype(np.float64)


def bootstrap_replicates(resampler: Resampler, n_resamples: int, rng: np.random.Generator) -> FloatArray:
    """``n_resamples`` bootstrap values of the resampled metric (NaN where a replicate is undefined)."""
    strata = strata_indices(resampler)
    chunks = [resampler(w) for w in bootstrap_weight_chunks(resampler.n_units, n_resamples, rng, strata)]
    return np.concatenate(chunks) if chunks else np.empty(0)


def jackknife_influence(resampler: Resampler, rng: np.random.Generator) -> FloatArray:
    """Jackknife influence values ``(g - 1) * (mean_loo - loo_j) / g``, within each stratum of ``g`` leave-outs.

    Each leave-out weight row is all ones with zeros on the left-out unit(s). With more than
    ``MAX_JACKKNIFE_UNITS`` units, units are split at random into that many groups (within strata) and each
    group is left out in turn (the grouped jackknife), which keeps the cost linear in ``n``.
    """
    n = resampler.n_units
    parts = strata_indices(resampler)
    n_groups = min(n, MAX_JACKKNIFE_UNITS)
    influence: list[FloatArray] = []
    rows = _chunk_rows(n)
    grouped = n > n_groups
    for idx in parts:
        g = max(1, round(n_groups * idx.size / n)) if grouped else idx.size
        if g < 2:
            continue
        # leave-out label of each unit of the stratum: itself, or one of g random, (almost) equal-sized groups
        labels = rng.permutation(np.arange(idx.size) % g) if grouped else np.arange(idx.size)
        values = np.empty(g)
        for start in range(0, g, rows):
            b = min(rows, g - start)
            w = np.ones((b, n))
            groups = np.arange(start, start + b)
            hit = labels[None, :] == groups[:, None]  # (b, stratum size)
            w[:, idx] = np.where(hit, 0.0, 1.0)
            values[start : start + b] = resampler(w)
        values = values[np.isfinite(values)]
        if values.size >= 2:  # divided by the stratum's count so strata of different sizes combine correctly
            influence.append((values.size - 1) * (values.mean() - values) / values.size)
    return np.concatenate(influence) if influence else np.empty(0)
