"""Summaries of the template probes and the continuation prompts, per condition (system prompt).

Template probes: the independent unit is the template (its replies for every group are one counterfactual set), so
each group's rate is the mean over templates of the template's rate for that group (each template counts once),
the interval of a gap resamples templates, and the test permutes the group labels within each template. The gap
reported per attribute is the largest over its pairs of groups; the permutation test uses the largest gap as its
statistic in every permutation too, so choosing the largest pair is part of the test (no selection bias).

Condition against the reference ("benign"): the same prompt and the same sample slot under both system prompts, a
paired difference whose interval resamples the units (templates, or continuation prompts, with all their samples)
and whose p-value is a sign-flip test over those units (:func:`evenhand.stats.paired_prompt_test`).

Intervals (left6): a gap or a difference is a mean over units, so its interval is the house's interval for a
continuous metric, :func:`evenhand.stats.continuous_interval` (one home for this kind of evidence: docs/uncertainty.md,
"Intervals on few units"): Student's t on the jackknife standard error below 30 units (the ten built-in templates
always), the "none of k units off the value" bound when every unit gives the same difference, the percentile
bootstrap from 30 units on. The percentile bootstrap of its own these summaries used before covered 49-91% on 2-10
templates (benchmarks/RESULTS.md, "Left items (left6)").

Intervals that agree with their tests (issue 27): the interval shown is that interval joined with 0 unless its own
test rejects at the interval's level (:func:`evenhand.stats.joined_with_zero_unless_rejected`, as the assessment's
intervals are). A plain interval of the largest pair, chosen after the fact, excluded 0 on about half of the data sets
with no group difference at all (6 groups, 10 templates: docs/redteam.md), while the test, which allows for the
choice, rejected about 3%; joined, the interval excludes 0 only where the test rejects. The interval before joining
stays in the result (``unjoined``).
The section's p-values are also adjusted together (:func:`adjust_probe_p_values`, Benjamini-Hochberg): ``p_value``
is each test's own, ``p_adjusted`` allows for the number of tests in the section.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd

from evenhand.metrics._result import MetricResult, Resampler, mean_resampler, ratio_resampler
from evenhand.stats import benjamini_hochberg, continuous_interval, joined_with_zero_unless_rejected, paired_prompt_test
from evenhand.stats._resampling import as_generator

#: The per-reply measures of the template summaries: column of the scored frame -> the name in the results.
MEASURES = {"toxic": "toxic_share", "refused": "refusal_rate", "sentiment": "mean_sentiment"}
#: The range of each per-reply measure (0/1 flags, a toxicity probability, a sentiment score in [-1, 1]): a
#: difference of two of them lies in ``(low - high, high - low)``, which bounds its interval
RANGES = {"toxic": (0.0, 1.0), "refused": (0.0, 1.0), "toxicity": (0.0, 1.0), "sentiment": (-1.0, 1.0)}


#: What :func:`adjust_probe_p_values` says it did (the section's ``multiple_testing``)
ADJUSTMENT = (
    "p_adjusted: Benjamini-Hochberg over every test of this section (the largest gap of each condition, attribute "
    "and measure, and each condition's differences from the reference); p_value: each test's own"
)


def _interval(
    value: float, resampler: Resampler, column: str, p_value: float, *, level: float | None, n_resamples: int, seed: int
) -> dict[str, Any] | None:
    """The interval shown for a difference of ``column`` with ``value`` over the units of ``resampler``: the house's
    interval of a continuous metric (:func:`evenhand.stats.continuous_interval`), joined with 0 unless the test's
    ``p_value`` is below ``1 - level`` (the interval before joining is kept under ``unjoined``). None without a
    level; NaN bounds with the reason where no interval follows."""
    if level is None:
        return None
    low, high = RANGES[column]
    result = MetricResult(name=f"{column} difference", value=value, resampler=resampler,
                          value_range=(low - high, high - low))  # fmt: skip
    own = continuous_interval(result, ci=level, n_resamples=n_resamples, seed=seed)
    shown = joined_with_zero_unless_rejected(own, p_value)
    out: dict[str, Any] = {"low": shown.low, "high": shown.high, "level": level, "method": own.method}
    if own.reason:
        out["reason"] = own.reason
    if shown is not own:
        out["method"] = f"{own.method}, joined with 0: its test does not reject at the {level:.0%} level"
        out["unjoined"] = {"low": own.low, "high": own.high}
    return out


def adjust_probe_p_values(tests: list[dict[str, Any] | None]) -> None:
    """Add ``p_adjusted`` (Benjamini-Hochberg, :func:`evenhand.stats.benjamini_hochberg`) to every test of the
    probe section at once; a test without a p-value gets None."""
    found = [t for t in tests if t is not None and isinstance(t.get("p_value"), float)]
    adjusted = benjamini_hochberg(np.array([t["p_value"] for t in found], dtype=float))
    for test, p in zip(found, adjusted, strict=True):
        test["p_adjusted"] = float(p)
    for other in tests:
        if other is not None:
            other.setdefault("p_adjusted", None)


def cell_matrix(frame: pd.DataFrame, column: str, groups: list[str]) -> tuple[list[str], np.ndarray]:
    """The templates and their ``templates x groups`` matrix of mean ``column`` (NaN: no reply in that cell)."""
    table = frame.pivot_table(index="template_id", columns="group", values=column, aggfunc="mean", dropna=False)
    table = table.reindex(columns=groups)
    return [str(t) for t in table.index], table.to_numpy(dtype=float)


def _pair_means(cells: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    """Mean paired difference (column i minus column j, over the rows where both exist) of every pair; the last
    axis of the result runs over the pairs. ``cells``: (..., templates, groups)."""
    out = []
    for i, j in pairs:
        diff = cells[..., i] - cells[..., j]
        with warnings.catch_warnings():  # a pair with no template holding both groups: NaN, said once by the caller
            warnings.simplefilter("ignore", RuntimeWarning)
            out.append(np.nanmean(diff, axis=-1))
    return np.stack(out, axis=-1)


def largest_gap(
    cells: np.ndarray, groups: list[str], *, column: str, level: float | None, n_resamples: int, seed: int
) -> dict[str, Any] | None:
    """The largest difference between two groups' means over templates of the measure ``column``, with a
    within-template permutation p-value of the largest gap (the choice of the pair is part of the test) and the
    interval over templates of the chosen pair, joined with 0 unless that test rejects (see the module's note). None
    with fewer than two groups or no template that has replies for two of them."""
    if len(groups) < 2:
        return None
    pairs = list(itertools.combinations(range(len(groups)), 2))
    observed = _pair_means(cells, pairs)
    if not np.isfinite(observed).any():
        return None
    k = int(np.nanargmax(np.abs(observed)))
    i, j = pairs[k]
    value = float(observed[k])
    if value < 0:  # name the higher group first: the gap is positive
        i, j, value = j, i, -value
    paired = ~np.isnan(cells[:, i]) & ~np.isnan(cells[:, j])
    rng = as_generator(seed)
    n_templates = int(paired.sum())
    diffs = (cells[:, i] - cells[:, j])[paired]
    # permutation: the group labels of each template's cells are exchangeable under no group effect
    order = np.argsort(rng.random((n_resamples, *cells.shape)), axis=-1)
    permuted = np.take_along_axis(np.broadcast_to(cells, order.shape), order, axis=-1)
    largest = np.nanmax(np.abs(_pair_means(permuted, pairs)), axis=-1)
    p_value = (1 + int(np.sum(largest >= abs(value) - 1e-12))) / (1 + n_resamples)
    return {
        "groups": [groups[i], groups[j]],
        "value": value,
        "interval": _interval(value, mean_resampler(diffs, "template"), column, p_value, level=level,
                              n_resamples=n_resamples, seed=seed),
        "p_value": p_value,
        "test": "permutation of group labels within templates (largest gap over all pairs)",
        "n_templates": n_templates,
        "n_pairs_compared": len(pairs),
    }


def template_summary(
    frame: pd.DataFrame, groups_of: dict[str, list[str]], *, level: float | None, n_resamples: int, seed: int
) -> dict[str, Any]:
    """Per attribute: each group's toxic share, refusal rate and mean sentiment (means over templates), and the
    largest gap of each measure. ``frame``: the template rows of one condition with replies (``status == "ok"``)."""
    out: dict[str, Any] = {}
    for attribute, groups in groups_of.items():
        rows = frame[frame["attribute"] == attribute]
        entry: dict[str, Any] = {"groups": [], "gaps": {}}
        matrices = {}
        for column, name in MEASURES.items():
            _, cells = cell_matrix(rows, column, groups)
            matrices[name] = cells
            entry["gaps"][name] = largest_gap(cells, groups, column=column, level=level, n_resamples=n_resamples,
                                              seed=seed)
        counts = rows.groupby("group").size()
        for g, group in enumerate(groups):
            row: dict[str, Any] = {"group": group, "n_replies": int(counts.get(group, 0))}
            for name, cells in matrices.items():
                column_values = cells[:, g] if cells.size else np.array([])
                row[name] = float(np.nanmean(column_values)) if np.isfinite(column_values).any() else None
            entry["groups"].append(row)
        out[attribute] = entry
    return out


def paired_difference(
    condition: pd.DataFrame,
    reference: pd.DataFrame,
    column: str,
    unit: str,
    *,
    unit_name: str,
    level: float | None,
    n_resamples: int,
    seed: int,
) -> dict[str, Any] | None:
    """``column`` under a condition minus under the reference, paired by (prompt, sample), resampled and tested by
    ``unit`` (a column naming the independent unit, called ``unit_name``: a template, a continuation prompt). None
    with no pair."""
    keys = ["prompt", "sample"]
    both = condition[[*keys, unit, column]].merge(reference[[*keys, column]], on=keys, suffixes=("", "_reference"))
    both = both.dropna(subset=[column, f"{column}_reference"])
    if both.empty:
        return None
    a = both[column].to_numpy(dtype=float)
    b = both[f"{column}_reference"].to_numpy(dtype=float)
    units = pd.factorize(both[unit])[0]
    n_units = int(units.max()) + 1
    sums = np.bincount(units, weights=a - b, minlength=n_units)
    counts = np.bincount(units, minlength=n_units).astype(float)
    test = paired_prompt_test(a, b, units, n_permutations=n_resamples, seed=seed)
    value = float(np.mean(a - b))
    return {
        "value": value,
        "condition_value": float(a.mean()),
        "reference_value": float(b.mean()),
        "interval": _interval(value, ratio_resampler(sums, counts, unit_name), column, float(test.p_value),
                              level=level, n_resamples=n_resamples, seed=seed),
        "p_value": float(test.p_value),
        "test": f"paired sign-flip over {unit_name}s",
        "n_pairs": int(a.size),
        "n_units": n_units,
    }
