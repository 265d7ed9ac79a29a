"""The same-version noise floor of numeric answers (task estimation): how far apart the numbers of a prompt's two
counterfactual versions are, beside how far apart two samples of the *same* version are.

A model sampled at a temperature answers "$72,000" and then "$69,500" to one and the same request. The paired test of
CER and CED asks whether one group's numbers are shifted one way; this floor asks the question of the counterfactual
similarity metrics: do the versions' numbers differ more than sampling alone makes two answers differ, in either
direction (a model that offers one group more for some requests and less for others)? It is the similarity noise
floor of :mod:`evenhand.stats._noise_floor` on the negated distance between two numbers, so every rule of that floor
holds here: consecutive samples of each version form its floor pairs, the floor is the tighter group's (the
unaffected group's samples keep their spread when only one group's answers shift), intervals resample prompts, and
the swap test exchanges the two versions of each pair.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from evenhand._json import finite_or_none
from evenhand._validation import FloatArray, as_array, as_float_array, check_same_length
from evenhand.errors import InputError
from evenhand.stats._intervals import Interval
from evenhand.stats._noise_floor import consecutive_rows, noise_floor_from_scores, swap_test_of_gap
from evenhand.stats._resampling import SeedLike

Scale = Literal["log", "linear"]


@dataclass(frozen=True)
class EstimateFloor:
    """The spread between the two versions' numbers beside the spread between two samples of one version.

    ``counterfactual`` is the mean distance ``d(a_j, b_j)`` over the counterfactual pairs, ``floor_a`` (``floor_b``)
    the mean distance between consecutive samples of group A's (B's) version, ``baseline`` the smaller of the two (the
    floor), and ``gap = counterfactual - baseline`` (above 0: the versions' numbers differ more than sampling alone
    explains). ``d`` is ``|log(x / y)|`` on the ``"log"`` scale (a relative spread: 0.1 is about 10%; pairs with a
    number of 0 or less are left out) and ``|x - y|`` on the ``"linear"`` one (in the answers' unit). ``p_value``: the
    one-sided swap test that the floor is below the counterfactual spread (NaN unless asked for with
    ``n_permutations``). The fields are named as :class:`~evenhand.stats.NoiseFloor`'s, so a metric row reads either.
    """

    scale: Scale
    counterfactual: float
    baseline: float
    floor_a: float
    floor_b: float
    gap: float
    gap_interval: Interval
    n_prompts: int
    n_counterfactual_pairs: int
    n_baseline_pairs: int
    p_value: float = math.nan
    n_permutations: int = 0
    reason: str | None = None

    @property
    def distinguishable(self) -> bool:
        """True when the gap's interval lies above 0: the versions' numbers differ more than two samples of one
        version do."""
        return self.gap_interval.is_defined and self.gap_interval.low > 0

    def summary(self) -> dict[str, Any]:
        return {
            "scale": self.scale,
            "counterfactual": finite_or_none(self.counterfactual),
            "baseline": finite_or_none(self.baseline),
            "floor_a": finite_or_none(self.floor_a),
            "floor_b": finite_or_none(self.floor_b),
            "gap": finite_or_none(self.gap),
            "gap_low": finite_or_none(self.gap_interval.low),
            "gap_high": finite_or_none(self.gap_interval.high),
            "level": self.gap_interval.level,
            "n_prompts": self.n_prompts,
            "n_counterfactual_pairs": self.n_counterfactual_pairs,
            "n_baseline_pairs": self.n_baseline_pairs,
            "p_value": finite_or_none(self.p_value),
            "reason": self.reason,
        }


def _distance(x: FloatArray, y: FloatArray, scale: Scale) -> FloatArray:
    """``|log(x / y)|`` (NaN unless both are above 0) or ``|x - y|`` (NaN where either is NaN)."""
    if scale == "linear":
        return np.abs(x - y)
    positive = (np.nan_to_num(x, nan=-1.0) > 0) & (np.nan_to_num(y, nan=-1.0) > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(positive, np.abs(np.log(np.where(positive, x, 1.0) / np.where(positive, y, 1.0))), np.nan)


def estimate_noise_floor(
    estimates_a: Any,
    estimates_b: Any,
    prompt_ids: Any,
    *,
    scale: Scale = "log",
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    n_permutations: int = 0,
    stop_after: int | None = None,
) -> EstimateFloor:
    """Compare the distance between the two versions' numbers with the distance between two samples of one version.

    Row ``i`` is one counterfactual pair: ``estimates_a[i]`` read from the group-A version's reply, ``estimates_b[i]``
    from the group-B version's, both for prompt ``prompt_ids[i]`` (NaN where a reply held no number: left out). A
    prompt's rows are its samples in order; only prompts with two or more take part (the others are counted in
    ``reason``). ``scale``, the fields and the swap test (``n_permutations`` > 0; ``stop_after`` ends it early where
    there is clearly nothing) as in :class:`EstimateFloor`; intervals resample prompts, the gap's widened for few
    prompts as the similarity floor's is.

    >>> a = [100, 104, 100, 96] ; b = [80, 84, 80, 76] ; ids = [1, 1, 2, 2]
    >>> round(estimate_noise_floor(a, b, ids, scale="linear").gap, 6)
    16.0
    """
    if scale not in ("log", "linear"):
        raise InputError(f"scale must be 'log' or 'linear', got {scale!r}")
    a = as_float_array(estimates_a, "estimates_a", allow_nan=True)
    b = as_float_array(estimates_b, "estimates_b", allow_nan=True)
    ids = as_array(prompt_ids, "prompt_ids")
    check_same_length(estimates_a=a, estimates_b=b, prompt_ids=ids)
    labels, codes, first, second = consecutive_rows(ids)
    rows = np.flatnonzero(np.isin(codes, codes[first]))
    # the similarity floor's maths on -distance: its "larger floor" is the smaller spread, its gap the spread's excess
    same = -np.concatenate([_distance(a[first], a[second], scale), _distance(b[first], b[second], scale)])
    floor = noise_floor_from_scores(
        -_distance(a[rows], b[rows], scale),
        labels[codes[rows]],
        same,
        labels[np.concatenate([codes[first], codes[first]])],
        baseline_sides=np.repeat([0, 1], first.size),
        name=f"{scale} spread",
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        method=method,
        n_prompts_total=labels.size,
    )
    p = math.nan
    if floor.n_prompts and n_permutations > 0:
        cross = -_distance(np.concatenate([a[first], b[first]]), np.concatenate([b[second], a[second]]), scale)
        p = swap_test_of_gap(same, cross, first, second, n_permutations=n_permutations, stop_after=stop_after,
                             seed=seed)  # fmt: skip
    return EstimateFloor(
        scale=scale,
        counterfactual=0.0 - floor.counterfactual,  # 0.0 - x: a distance of 0 is 0.0, never -0.0
        baseline=0.0 - floor.baseline,
        floor_a=0.0 - floor.floor_a,
        floor_b=0.0 - floor.floor_b,
        gap=floor.gap,
        gap_interval=floor.gap_interval,
        n_prompts=floor.n_prompts,
        n_counterfactual_pairs=floor.n_counterfactual_pairs,
        n_baseline_pairs=floor.n_baseline_pairs,
        p_value=p,
        n_permutations=n_permutations if not math.isnan(p) else 0,
        reason=floor.reason,
    )
