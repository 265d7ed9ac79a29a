"""Comparing runs side by side: two models, two prompt versions, or the same use case before and after a change.

``evenhand.compare(a, b, *more)`` reads two or more assessments (results files, loaded results dicts or
:class:`~evenhand.pipeline.results.assessment.Assessment` objects) and returns a :class:`RunComparison`: every
metric row per run, each run's difference from the first (the baseline) with an interval, paired by prompt and
sample where the runs share prompts (:mod:`evenhand.comparison.pairing`), how the findings changed, and a verdict on
the difference. See docs/compare.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from evenhand.comparison.findings import FindingChange
from evenhand.comparison.pairing import Difference
from evenhand.comparison.result import RunComparison
from evenhand.comparison.rows import PAIRINGS, MetricComparison, compare_rows
from evenhand.comparison.runs import Run, check_compatible, default_labels, load_run
from evenhand.errors import InputError

__all__ = ["Difference", "FindingChange", "MetricComparison", "Run", "RunComparison", "compare", "load_runs"]


def load_runs(items: Sequence[Any], labels: Sequence[str] | None = None) -> list[Run]:
    """The runs to compare, labelled (``A``, ``B``, ... unless ``labels`` are given), checked to be comparable."""
    if len(items) < 2:
        raise InputError(f"compare needs at least two runs, got {len(items)}")
    names = list(labels) if labels is not None else default_labels(len(items))
    if len(names) != len(items):
        raise InputError(f"labels: {len(names)} label(s) for {len(items)} runs; give one per run")
    if len(set(names)) != len(names) or not all(str(n).strip() for n in names):
        raise InputError(f"labels: each run needs its own non-empty label, got {names}")
    runs = [load_run(item, str(name)) for item, name in zip(items, names, strict=True)]
    check_compatible(runs)
    return runs


def compare(
    a: Any,
    b: Any,
    *more: Any,
    labels: Sequence[str] | None = None,
    ci: float = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    pairing: str = "auto",
) -> RunComparison:
    """Compare two or more runs of the same use case: ``b`` (and each of ``more``) against the baseline ``a``.

    Args:
        a, b, *more: results paths, loaded results dicts or ``Assessment`` objects; the first is the baseline.
        labels: a name per run (default ``A``, ``B``, ``C``, ...).
        ci: level of the intervals of the differences.
        n_resamples: bootstrap replicates per difference.
        seed: seed of the bootstrap (the same seed gives the same intervals).
        pairing: ``"auto"`` pairs by prompt and sample where the runs share prompts; ``"independent"`` never pairs.

    Returns:
        A :class:`RunComparison` (``.sentences()``, ``.metrics``, ``.to_json()``, ``.to_html()``).
    """
    from evenhand.comparison.findings import compare_findings
    from evenhand.stats._intervals import check_level
    from evenhand.stats._resampling import check_count

    level = check_level(ci)
    check_count(n_resamples, "n_resamples", minimum=10)
    if pairing not in PAIRINGS:
        raise InputError(f"pairing must be one of {', '.join(PAIRINGS)}, got {pairing!r}")
    runs = load_runs([a, b, *more], labels)
    rows = compare_rows(runs, level=level, n_resamples=n_resamples, seed=seed, pairing=pairing)
    findings = [change for run in runs[1:] for change in compare_findings(runs[0], run)]
    settings = {"ci": level, "n_resamples": n_resamples, "seed": seed, "pairing": pairing}
    return RunComparison(runs, rows, findings, settings)
