"""Noise floor for counterfactual similarity (CROUGE-L, CBLEU, CCS).

Two responses sampled for the *same* prompt already differ; their similarity is what sampling alone produces.
A counterfactual similarity is only evidence of attribute-driven change where it falls below that baseline.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand._validation import as_array, as_float_array, as_text_list, check_same_length
from evenhand.errors import InputError, InputKeyError, InputTypeError
from evenhand.metric_functions import PAIR_SIMILARITIES
from evenhand.metrics._result import FloatArray, MetricResult, Resampler, _safe_divide
from evenhand.registry import METRICS, metric
from evenhand.stats._intervals import Interval, check_level, confidence_interval
from evenhand.stats._resampling import SeedLike, as_generator
from evenhand.stats._small_sample import small_sample_interval, with_unseen_units

Similarity = Callable[[list[str], list[str]], Any]


def _resolve_similarity(similarity: Similarity | str) -> tuple[Similarity, str | None]:
    """A callable as is; a name: a per-pair score ("rouge_l", "bleu") or a metric of the registry that has one
    ("CROUGE-L", "counterfactual_bleu")."""
    if isinstance(similarity, str):
        # the per-pair scores behind the registry's similarity metrics that need no model (``pair_similarity``)
        by_name = {k: p for k, p in PAIR_SIMILARITIES.items() if not p.needs_model}
        pair_score = similarity.strip().lower().replace("rouge-l", "rouge_l")
        if pair_score not in by_name:
            try:
                pair_score = str(metric(similarity).pair_similarity)
            except KeyError:
                pair_score = ""
        if pair_score not in by_name:
            raise InputError(
                f"similarity {similarity!r} is not a known name; use 'rouge_l' or 'bleu', or pass a callable "
                "(texts, texts) -> one score per pair (e.g. functools.partial(cosine_scores, embedder=...))"
            )
        label = next(m.name for m in METRICS.values() if m.pair_similarity == pair_score)
        return by_name[pair_score].load(), label
    if not callable(similarity):
        raise InputTypeError(
            f"similarity must be a callable (texts, texts) -> scores or a name, got {type(similarity).__name__}"
        )
    return similarity, None


@dataclass(frozen=True)
class NoiseFloor:
    """Counterfactual similarity beside the similarity of same-prompt, same-group resamples.

    ``gap = baseline - counterfactual``: how much less alike counterfactual responses are than two samples of
    the same prompt. ``baseline`` is the larger of the two groups' own floors (``floor_a``, ``floor_b``: the mean
    similarity of two replies to one group's version) when the floor knows each score's group, else the mean of
    all same-prompt pairs. Why the larger one: when only one group's replies shift (30% of them short and generic),
    the unaffected group's floor stays where it was and the counterfactual similarity falls by a share of the
    affected replies (first order), while the averaged floor falls almost as much as the counterfactual similarity
    (the gap is then second order in the share). A gap whose interval contains 0 means the counterfactual
    similarity cannot be told apart from sampling noise. ``p_value`` is the one-sided swap test of the gap
    (:func:`swap_test_of_gap`; NaN when the floor was built from scores alone, without the cross pairs it needs).
    """

    name: str
    counterfactual: float
    baseline: float
    gap: float
    gap_interval: Interval
    counterfactual_interval: Interval
    baseline_interval: Interval
    n_prompts: int
    n_counterfactual_pairs: int
    n_baseline_pairs: int
    per_prompt: pd.DataFrame = field(repr=False, compare=False, default_factory=pd.DataFrame)
    reason: str | None = None
    p_value: float = math.nan
    n_permutations: int = 0
    floor_a: float = math.nan  # group A's own same-prompt floor (NaN: the floor was not split by group)
    floor_b: float = math.nan

    @property
    def distinguishable(self) -> bool:
        """True when the gap's interval excludes 0 (counterfactual similarity differs from sampling noise)."""
        return self.gap_interval.is_defined and not self.gap_interval.contains(0.0)

    def summary(self) -> dict[str, Any]:
        def clean(x: float) -> float | None:
            return None if math.isnan(x) else float(x)

        return {
            "metric": self.name,
            "counterfactual": clean(self.counterfactual),
            "baseline": clean(self.baseline),
            "floor_a": clean(self.floor_a),
            "floor_b": clean(self.floor_b),
            "gap": clean(self.gap),
            "gap_low": clean(self.gap_interval.low),
            "gap_high": clean(self.gap_interval.high),
            "level": self.gap_interval.level,
            "n_prompts": self.n_prompts,
            "n_counterfactual_pairs": self.n_counterfactual_pairs,
            "n_baseline_pairs": self.n_baseline_pairs,
            "p_value": clean(self.p_value),
            "reason": self.reason,
        }


def _scores(similarity: Similarity, left: list[str], right: list[str], what: str) -> FloatArray:
    values = similarity(left, right)
    # NaN = a pair with no tokens on either side (undefined similarity): left out, as the metrics do
    arr = as_float_array(
        np.asarray(values, dtype=np.float64).ravel(), f"{what} similarities", allow_empty=True, allow_nan=True
    )
    if arr.size != len(left):
        raise InputError(
            f"similarity returned {arr.size} values for {len(left)} {what} pairs; it must return one per pair"
        )
    return arr


def noise_floor(
    responses_a: Any,
    responses_b: Any,
    prompt_ids: Any,
    similarity: Similarity | str,
    *,
    attribute: Any = None,
    name: str | None = None,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    n_permutations: int = 0,
    stop_after: int | None = None,
) -> NoiseFloor:
    """Compare counterfactual similarity with the similarity of two responses to the same prompt.

    Row ``i`` is one counterfactual response pair: ``responses_a[i]`` (group A's prompt) and ``responses_b[i]``
    (group B's prompt), generated from counterfactual input pair ``prompt_ids[i]``. With ``m >= 2`` rows for a
    prompt, its baseline pairs are consecutive samples of the same group, ``(a_j, a_j+1)`` and ``(b_j, b_j+1)``.

    ``counterfactual = mean v(a_i, b_i)``, ``baseline = max(floor_a, floor_b)`` where ``floor_a`` is the mean of
    ``v(a_j, a_j+1)`` (and ``floor_b`` of ``v(b_j, b_j+1)``), ``gap = baseline - counterfactual``, over the prompts
    with at least two rows; ``v`` is ``similarity(left, right) -> one score per
    pair`` (e.g. per-pair ROUGE-L, BLEU or embedding cosine), or the name ``"rouge_l"`` / ``"bleu"`` for the
    per-pair functions behind CROUGE-L and CBLEU. ``attribute`` (``"gender"``, ``"race"`` or a custom lexicon)
    neutralizes every text first, as the counterfactual metrics do, so both sides are compared alike.
    Intervals: cluster bootstrap over prompts; the gap's is widened for few prompts (:func:`expanded_level`), and
    below 30 prompts it is Student's t on the jackknife (:func:`evenhand.stats.continuous_interval`'s rule, left6).
    ``p_value``: with ``n_permutations`` > 0, the swap test of the gap (:func:`swap_test_of_gap`), which scores the
    consecutive pairs across the groups too (twice the floor's similarity calls); ``stop_after`` ends it early where
    there is clearly no evidence. The assessment runs up to 19,999 swaps, stopping after 20 that reach the floor, so
    that p can be small enough for the Benjamini-Hochberg adjustment over every test of the run.

    Returns:
        :class:`NoiseFloor`. NaN values with a reason when no prompt has two or more responses.
    """
    left_all = as_text_list(responses_a, "responses_a")
    right_all = as_text_list(responses_b, "responses_b")
    ids = as_array(prompt_ids, "prompt_ids")
    check_same_length(responses_a=left_all, responses_b=right_all, prompt_ids=ids)
    similarity, label = _resolve_similarity(similarity)
    display = name or label or str(getattr(similarity, "__name__", "similarity"))
    if attribute is not None:
        from evenhand.text.counterfactual import neutralize

        left_all, right_all = neutralize(left_all, attribute), neutralize(right_all, attribute)

    labels, codes, first, second = consecutive_rows(ids)
    rows = np.flatnonzero(np.isin(codes, codes[first]))  # the rows of prompts with at least two rows

    cf = _scores(similarity, [left_all[i] for i in rows], [right_all[i] for i in rows], "counterfactual")
    base_left = [left_all[i] for i in first] + [right_all[i] for i in first]
    base_right = [left_all[i] for i in second] + [right_all[i] for i in second]
    base = _scores(similarity, base_left, base_right, "baseline")
    base_codes = np.concatenate([codes[first], codes[first]])
    floor = noise_floor_from_scores(
        cf,
        labels[codes[rows]],
        base,
        labels[base_codes],
        baseline_sides=np.repeat([0, 1], first.size),  # side a's consecutive pairs, then side b's
        name=display,
        ci=ci,
        n_resamples=n_resamples,
        seed=seed,
        method=method,
        n_prompts_total=labels.size,
    )
    if floor.n_prompts == 0 or n_permutations <= 0:
        return floor
    # the consecutive pairs across the groups, (a_j, b_j+1) and (b_j, a_j+1): what a swap turns a floor pair into
    cross = _scores(
        similarity,
        [left_all[i] for i in first] + [right_all[i] for i in first],
        [right_all[i] for i in second] + [left_all[i] for i in second],
        "cross",
    )
    p = swap_test_of_gap(base, cross, first, second, n_permutations=n_permutations, stop_after=stop_after, seed=seed)
    return replace(floor, p_value=p, n_permutations=n_permutations)


def consecutive_rows(
    prompt_ids: npt.NDArray[Any],
) -> tuple[npt.NDArray[Any], npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The prompts (sorted), each row's prompt code, and the consecutive rows of each prompt: ``first[k]`` and
    ``second[k]`` are rows ``j`` and ``j+1`` of one prompt (its samples in their original order), the pairs a
    same-prompt noise floor compares."""
    try:
        labels, codes = np.unique(prompt_ids, return_inverse=True)
    except TypeError as exc:
        raise InputTypeError(f"prompt_ids must be comparable labels of one type (all str or all int): {exc}") from exc
    codes = np.asarray(codes, dtype=np.intp).ravel()
    order = np.argsort(codes, kind="stable")  # rows of each prompt together, in their original order
    same_next = codes[order][1:] == codes[order][:-1]
    return labels, codes, order[:-1][same_next], order[1:][same_next]


def swap_test_of_gap(
    same: FloatArray,
    cross: FloatArray,
    first: npt.NDArray[np.int64],
    second: npt.NDArray[np.int64],
    *,
    n_permutations: int = 999,
    stop_after: int | None = None,
    seed: SeedLike = 0,
    per_group: bool = True,
) -> float:
    """One-sided permutation p-value that the noise floor is higher than the counterfactual similarity.

    Under the null hypothesis the group does not matter, so the two responses ``a_j``, ``b_j`` of counterfactual
    pair ``j`` are exchangeable: a permutation swaps them, independently for every pair. A swap leaves the
    counterfactual pairs as they are and turns the floor pairs of consecutive samples ``(a_j, a_j+1)``,
    ``(b_j, b_j+1)`` into ``(a_j, b_j+1)``, ``(b_j, a_j+1)`` when exactly one of ``j``, ``j+1`` is swapped. So the
    statistic is the floor (the counterfactual mean is fixed), and::

        p = (1 + #{permuted floor >= observed floor}) / (1 + n_permutations)

    With ``per_group`` (the default) the floor is the larger of the two groups' own floors, ``max(floor_a,
    floor_b)``, as :class:`NoiseFloor` reports it: a swap of ``j`` alone makes side a's pair ``(b_j, a_j+1)`` and
    side b's ``(a_j, b_j+1)``; of ``j+1`` alone, ``(a_j, b_j+1)`` and ``(b_j, a_j+1)``; of both, the two sides trade
    their pairs. Without it, the mean of all floor pairs (the averaged floor of earlier versions).

    ``same`` are the floor scores of the ``(first[k], second[k])`` pairs, side a then side b (length ``2K``);
    ``cross`` the cross pairs ``(a_first, b_second)`` then ``(b_first, a_second)``. NaN scores (no tokens) are
    left out of each mean. Why it is needed beside the gap's interval: per-prompt gaps are skewed, and a bootstrap
    interval of their mean then excludes 0 too often with few prompts (about 8% of null seeds at 10 prompts for a
    one-sided 2.5%), while the swap test is exact at any size.

    ``stop_after``: stop once that many permutations reach the observed floor and return ``h / l`` (Besag and
    Clifford's sequential test), so that a large ``n_permutations`` (a small p-value floor, ``1 / (1 + n)``, which a
    multiple-testing correction over many tests needs) costs little where there is no evidence.
    """
    k = first.size
    if k == 0 or same.size != 2 * k or cross.size != 2 * k:
        return math.nan
    same_pairs, cross_pairs = same.reshape(2, k), cross.reshape(2, k)
    rows = int(max(first.max(initial=0), second.max(initial=0))) + 1
    rng = as_generator(seed)

    # the floor's mean, NaN scores left out, as sums and counts: a pair that becomes a cross pair changes them by
    # its column of these differences, so each permutation's mean is two matrix-vector products, not a (P, 2, K) copy
    same_sum, same_n = np.nansum(same_pairs, axis=0), np.sum(~np.isnan(same_pairs), axis=0).astype(np.float64)
    cross_sum, cross_n = np.nansum(cross_pairs, axis=0), np.sum(~np.isnan(cross_pairs), axis=0).astype(np.float64)
    shift_sum, shift_n = cross_sum - same_sum, cross_n - same_n

    def mean(total: FloatArray, count: FloatArray) -> FloatArray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, total / np.where(count > 0, count, 1.0), np.nan)

    # per side: each pair's score and count (NaN: no tokens, left out) as the four arrays a swap picks among
    scores = [np.nan_to_num(x) for x in (same_pairs[0], same_pairs[1], cross_pairs[0], cross_pairs[1])]
    counts = [(~np.isnan(x)).astype(np.float64) for x in (same_pairs[0], same_pairs[1], cross_pairs[0], cross_pairs[1])]

    def side(values: list[FloatArray], own: int, f1: FloatArray, f2: FloatArray, both: FloatArray) -> FloatArray:
        """Side ``own``'s total under swaps ``f1`` (of ``j``) and ``f2`` (of ``j+1``): the same pair when neither or
        both flip (then the other side's), a cross pair when one does; written as products so it stays linear."""
        sa, sb, ca, cb = values
        mine, theirs = (sa, sb) if own == 0 else (sb, sa)
        only_first, only_second = (cb, ca) if own == 0 else (ca, cb)
        return (
            mine.sum()
            + f1 @ (only_first - mine)
            + f2 @ (only_second - mine)
            + both @ (mine + theirs - only_first - only_second)
        )

    def floor(flips: npt.NDArray[np.bool_]) -> FloatArray:
        """The floor under each row of swap flags (P, rows)."""
        if not per_group:
            changed = (flips[:, first] != flips[:, second]).astype(np.float64)  # (P, K): became a cross pair
            return mean(same_sum.sum() + changed @ shift_sum, same_n.sum() + changed @ shift_n)
        f1, f2 = flips[:, first].astype(np.float64), flips[:, second].astype(np.float64)
        both = f1 * f2
        floors = [mean(side(scores, s, f1, f2, both), side(counts, s, f1, f2, both)) for s in (0, 1)]
        return np.fmax(floors[0], floors[1])

    observed = float(floor(np.zeros((1, rows), dtype=bool))[0])
    if math.isnan(observed):
        return math.nan
    count, chunk = 0, max(1, 2**20 // max(2 * k, 1))
    for start in range(0, n_permutations, chunk):
        size = min(chunk, n_permutations - start)  # fair coin flips, eight from each random byte
        bits = np.unpackbits(rng.integers(0, 256, size=(size, (rows + 7) // 8), dtype=np.uint8), axis=1)
        flips: npt.NDArray[np.bool_] = bits[:, :rows].astype(bool)
        count += int(np.sum(floor(flips) >= observed - 1e-12))
        done = start + len(flips)
        if stop_after is not None and count >= stop_after and done < n_permutations:
            return count / done  # clearly no evidence: Besag and Clifford's sequential p = h / l
    return (1 + count) / (1 + n_permutations)


def noise_floor_from_scores(
    counterfactual_scores: Any,
    counterfactual_prompts: Any,
    baseline_scores: Any,
    baseline_prompts: Any,
    *,
    baseline_sides: Any = None,
    name: str = "similarity",
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: SeedLike = 0,
    method: str = "percentile",
    n_prompts_total: int | None = None,
) -> NoiseFloor:
    """:func:`noise_floor` from similarity scores already computed (one per pair, each tagged with its prompt).

    ``baseline_sides`` (0 for a pair of group A's replies, 1 for group B's; one per baseline score) splits the
    floor by group: the baseline is then the larger group floor, in the estimate and in every bootstrap replicate.
    Without it, the baseline is the mean of all baseline scores. Only prompts with both counterfactual and
    baseline scores enter the comparison; NaN scores (undefined pairs) are left out.
    """
    level = check_level(ci)
    cf = as_float_array(counterfactual_scores, "counterfactual_scores", allow_empty=True, allow_nan=True)
    base = as_float_array(baseline_scores, "baseline_scores", allow_empty=True, allow_nan=True)
    cf_ids = as_array(counterfactual_prompts, "counterfactual_prompts", allow_empty=True)
    base_ids = as_array(baseline_prompts, "baseline_prompts", allow_empty=True)
    check_same_length(counterfactual_scores=cf, counterfactual_prompts=cf_ids)
    check_same_length(baseline_scores=base, baseline_prompts=base_ids)
    sides = None if baseline_sides is None else as_array(baseline_sides, "baseline_sides", allow_empty=True)
    if sides is not None:
        check_same_length(baseline_scores=base, baseline_sides=sides)
        if not np.isin(sides, [0, 1]).all():
            raise InputError("baseline_sides must be 0 (a pair of group A's replies) or 1 (group B's) for every score")
    n_all = n_prompts_total if n_prompts_total is not None else len(np.union1d(cf_ids, base_ids))
    # undefined similarities (NaN: neither text has a token) are left out, as the metrics leave them out
    cf, cf_ids = cf[~np.isnan(cf)], cf_ids[~np.isnan(cf)]
    defined = ~np.isnan(base)
    base, base_ids = base[defined], base_ids[defined]
    sides = sides[defined].astype(int) if sides is not None else None

    prompts = np.intersect1d(cf_ids, base_ids) if cf.size and base.size else np.empty(0)
    totals = _per_prompt(prompts, cf, cf_ids, base, base_ids)
    by_side = (
        [_per_prompt(prompts, cf, cf_ids, base[sides == k], base_ids[sides == k]) for k in (0, 1)]
        if (sides is not None)
        else None
    )
    if prompts.size == 0:
        why = "the noise floor needs two or more responses per prompt (no prompt has a same-prompt pair)"
        nan_iv = Interval(math.nan, math.nan, math.nan, level, method, n_resamples, 0, "prompt", reason=why)
        return NoiseFloor(name, math.nan, math.nan, math.nan, nan_iv, nan_iv, nan_iv, 0, 0, 0, totals, why)

    cf_sum, cf_n = totals["counterfactual_sum"].to_numpy(), totals["n_counterfactual"].to_numpy(float)
    base_sum, base_n = totals["baseline_sum"].to_numpy(), totals["n_baseline"].to_numpy(float)
    cf_value = float(cf_sum.sum() / cf_n.sum())
    side_sums = (
        [] if by_side is None else [(t["baseline_sum"].to_numpy(), t["n_baseline"].to_numpy(float)) for t in by_side]
    )

    def floor_statistic(w: FloatArray) -> FloatArray:
        if not side_sums:
            return _safe_divide(w @ base_sum, w @ base_n)
        # the larger group floor; a group with no defined pair in a replicate leaves the other's
        return np.fmax(*(_safe_divide(w @ total, w @ count) for total, count in side_sums))

    ones = np.ones((1, prompts.size))
    base_value = float(floor_statistic(ones)[0])
    floors = [float(_safe_divide(ones @ t, ones @ c)[0]) for t, c in side_sums] or [math.nan, math.nan]

    def gap_statistic(w: FloatArray) -> FloatArray:
        return floor_statistic(w) - _safe_divide(w @ cf_sum, w @ cf_n)

    n = prompts.size
    resamplers = {
        "gap": Resampler("prompt", n, gap_statistic),
        "counterfactual": Resampler("prompt", n, lambda w: _safe_divide(w @ cf_sum, w @ cf_n)),
        "baseline": Resampler("prompt", n, floor_statistic),
    }
    estimates = {"gap": base_value - cf_value, "counterfactual": cf_value, "baseline": base_value}
    rng = as_generator(seed)  # one stream for the three intervals, drawn in a fixed order: reproducible
    intervals = {
        key: confidence_interval(
            res,
            # the gap's interval decides a concern (does it exclude 0?): it must keep its level with few prompts
            ci=expanded_level(level, n) if key == "gap" else level,
            n_resamples=n_resamples,
            seed=rng,
            method=method,
            estimate=estimates[key],
        )
        for key, res in resamplers.items()
    }
    intervals["gap"] = replace(intervals["gap"], level=level)  # widened to keep this level, not a new level
    # few prompts: the house's interval of a continuous metric (Student's t on the jackknife; the none-off bound when
    # every prompt gives the same gap). The bootstrap above is still drawn: the counterfactual and baseline
    # intervals come after it from the same stream, and stay as they were
    gap_result = MetricResult(name, estimates["gap"], resampler=resamplers["gap"], value_range=_gap_range(name))
    small = small_sample_interval(gap_result, level)
    if small is not None and small.is_defined:  # alike prompts on an unbounded scale: the bootstrap's [v, v] stays
        intervals["gap"] = small
    if _mostly_alike(gap_statistic(np.eye(n))):
        # more than half of the prompts give the same gap (0: no counterfactual pair differs from the floor's): a
        # bounded gap then reaches at least the none-off bound of its prompts (stats14), as the metrics' own
        # intervals do (review11), since a complete change in a share of prompts none of the k showed is as
        # possible; the bootstrap alone covered 53.5% at a 1% change rate on 40 prompts. Not where the prompts'
        # gaps vary: there the bound cost the gap all its power below 40 prompts at a gap of 0.1, where the
        # bootstrap already covered 93-98% (benchmarks/RESULTS.md, stats14)
        intervals["gap"] = with_unseen_units(gap_result, intervals["gap"])
    reason: str | None = None
    if n < n_all:
        reason = f"{n_all - n} of {n_all} prompts had fewer than two responses and were left out"
    return NoiseFloor(
        name=name,
        counterfactual=cf_value,
        baseline=base_value,
        gap=base_value - cf_value,
        gap_interval=intervals["gap"],
        counterfactual_interval=intervals["counterfactual"],
        baseline_interval=intervals["baseline"],
        n_prompts=int(n),
        n_counterfactual_pairs=int(cf_n.sum()),
        n_baseline_pairs=int(base_n.sum()),
        per_prompt=totals,
        reason=reason,
        floor_a=floors[0],
        floor_b=floors[1],
    )


def _mostly_alike(values: FloatArray) -> bool:
    """Whether more than half of the units give one and the same value (undefined ones left out)."""
    finite = np.round(values[np.isfinite(values)], 12)
    if finite.size == 0:
        return False
    _, counts = np.unique(finite, return_counts=True)
    return bool(2 * counts.max() > finite.size)


def _gap_range(name: str) -> tuple[float, float]:
    """The range of a gap between two similarities of the metric ``name`` (the floor minus the counterfactual
    similarity: ``(low - high, high - low)`` of the metric's range, from the registry); unbounded for a score the
    registry does not know (a callable, the estimates' spreads)."""
    try:
        low, high = metric(name).value_range
    except InputKeyError:
        return -math.inf, math.inf
    return low - high, high - low


def expanded_level(level: float, n_units: int) -> float:
    """The percentile level that gives a bootstrap interval over ``n_units`` clusters its nominal ``level``.

    A percentile bootstrap interval is too narrow with few clusters: it uses normal quantiles and the plug-in
    variance (divided by n, not n - 1). On null counterfactual data with 10 prompts, a 95% gap interval excluded 0
    on the upper side for about 9% of seeds instead of 2.5%. The expanded percentile interval (Hesterberg 2015)
    widens the tails to those of Student's t::

        z' = sqrt(n / (n - 1)) * t_{n-1}((1 + level) / 2),   level' = 2 * Phi(z') - 1

    which changes little for large ``n`` (0.95 becomes 0.951 at 200 prompts) and much for small ``n`` (0.983 at 10).
    """
    from scipy.stats import norm, t

    if n_units < 2:
        return level
    z = math.sqrt(n_units / (n_units - 1)) * float(t.ppf((1.0 + level) / 2.0, n_units - 1))
    # at two or three clusters the widened level rounds to 1: keep it a valid level (the extreme replicates)
    return min(2.0 * float(norm.cdf(z)) - 1.0, 1.0 - 1e-9)


def _per_prompt(
    prompts: npt.NDArray[Any],
    cf: FloatArray,
    cf_ids: npt.NDArray[Any],
    base: FloatArray,
    base_ids: npt.NDArray[Any],
) -> pd.DataFrame:
    def totals(values: FloatArray, ids: npt.NDArray[Any]) -> tuple[FloatArray, FloatArray]:
        mask = np.isin(ids, prompts)
        pos = np.searchsorted(prompts, ids[mask])
        return (
            np.bincount(pos, weights=values[mask], minlength=prompts.size).astype(np.float64),
            np.bincount(pos, minlength=prompts.size).astype(np.float64),
        )

    cf_sum, cf_n = totals(cf, cf_ids)
    base_sum, base_n = totals(base, base_ids)
    return pd.DataFrame(
        {
            "prompt_id": prompts,
            "n_counterfactual": cf_n.astype(int),
            "counterfactual_sum": cf_sum,
            "n_baseline": base_n.astype(int),
            "baseline_sum": base_sum,
            "counterfactual": _safe_divide(cf_sum, cf_n),
            "baseline": _safe_divide(base_sum, base_n),
        }
    )
