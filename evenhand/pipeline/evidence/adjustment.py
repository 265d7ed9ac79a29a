"""One multiplicity adjustment over every test of a set of metric records (an assessment's, or a red team's own).

Each record's test (a counterfactual sentiment or toxicity-per-group swap test, a paired prompt-level test, a
similarity row's noise-floor swap test, a classification metric's table of pair tests) joins one adjustment:
an omnibus test per metric and attribute, Benjamini-Hochberg across them, Holm within
(:func:`evenhand.stats.omnibus_then_pairs`). Each record then carries its ``p_adjusted`` (and a pair-test table its
``p_adjusted`` column), which the verdict reads.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evenhand.pipeline.evidence.records import Comparison, MetricRecord
from evenhand.registry import FAMILIES, METRICS


def adjust_p_values(records: Sequence[MetricRecord]) -> None:
    """One adjustment over every test of ``records`` (all group pairs, attributes, metrics and classes; a red
    team adjusts its adversarial rows as their own set, :mod:`evenhand.redteaming`, leaving the assessment's as they
    are): an omnibus test per metric and attribute, Benjamini-Hochberg across them, then the pairs within (Holm),
    so that with many groups the pairs that carry a difference are found without chance findings on the others
    (:func:`evenhand.stats.omnibus_then_pairs`; with two groups it is Benjamini-Hochberg over all tests).

    The tests of a family the registry adjusts apart (``FamilySpec.adjusted_apart``: the observational rows of
    issue 33) are one more such set, adjusted on their own after the others.

    A record described beside another metric's defined test (``MetricSpec.described_beside``: CED beside CER) is
    marked descriptive and joins no set: its ``p_adjusted`` stays None (:func:`mark_descriptive`)."""
    mark_descriptive(records)
    records = [r for r in records if not r.descriptive]
    _adjust([r for r in records if not FAMILIES[r.family].adjusted_apart])
    _adjust([r for r in records if FAMILIES[r.family].adjusted_apart])


def _adjust(records: Sequence[MetricRecord]) -> None:
    from evenhand.stats import omnibus_then_pairs

    single = [r for r in records if r.test is not None and r.pair_tests is None]
    tables = [r for r in records if r.pair_tests is not None]
    floors = [r for r in records if r.swap_p is not None]  # a similarity row's test: its noise floor's swap test
    raw = [r.test.p_value for r in single] + [r.swap_p for r in floors]
    families = [test_family(r) for r in [*single, *floors]]
    for rec in tables:
        assert rec.pair_tests is not None
        raw.extend(rec.pair_tests["p_value"].tolist())
        families.extend([test_family(rec)] * len(rec.pair_tests))
    if not raw:
        return
    adjusted = omnibus_then_pairs(np.asarray(raw, dtype=float), families).tolist()
    for rec in [*single, *floors]:
        rec.p_adjusted = float(adjusted.pop(0))
    for rec in tables:
        assert rec.pair_tests is not None
        n = len(rec.pair_tests)
        rec.pair_tests["p_adjusted"] = adjusted[:n]
        del adjusted[:n]
        if rec.test is not None:
            a, b = rec.test.groups
            hit = rec.pair_tests[(rec.pair_tests["group_a"] == a) & (rec.pair_tests["group_b"] == b)]
            rec.p_adjusted = float(hit["p_adjusted"].iloc[0])


def test_family(rec: MetricRecord) -> tuple[str | None, ...]:
    """The family of a record's tests in the adjustment: one metric's pairs of groups of one attribute (and
    class; and, for a red team's rows, adversarial system prompt). Metrics that test one comparison two ways
    (``MetricSpec.tested_with``: CER and CED) are one family, so that a finding on the stronger of the two is
    adjusted for both."""
    family: tuple[str | None, ...] = (rec.spec.adjustment_key, rec.attribute, rec.comparison.cls)
    return family if rec.comparison.condition is None else (*family, rec.comparison.condition)


def _pairs(rec: MetricRecord) -> int | None:
    """The pairs a record's value rests on (``MetricResult.sizes["pairs"]``), None where it does not say."""
    sizes = getattr(rec.result, "sizes", None) or {}
    return int(sizes["pairs"]) if "pairs" in sizes else None


def rests_on_enough(deciding_pairs: int | None, own_pairs: int | None) -> bool:
    """Whether a metric described beside another (CED beside CER) is only described: the deciding metric's test
    rests on at least half of this metric's pairs (or either count is unknown, as in older files). The one rule, for
    a run (:func:`mark_descriptive`) and for ``evenhand compare`` (:func:`evenhand.comparison.rows.judge_rows`), so
    that the two cannot judge the same rows apart (left18)."""
    return own_pairs is None or deciding_pairs is None or 2 * deciding_pairs >= own_pairs


def mark_descriptive(records: Sequence[MetricRecord]) -> None:
    """Mark each record whose metric is described beside another (``MetricSpec.described_beside``) where that
    metric's test of the same attribute and comparison is defined (a finite p) on at least half of the record's pairs:
    CED beside CER. Where CER has no test (numbers of 0 or less, no positive pairs), CED stays a test and decides
    (est17b); so it does where CER rests on fewer than half of CED's pairs (deploy18: fee adjustments of "-$120",
    "$0", "$40", where CER reads 1 pair of 43 and CED all of them): a ratio of the few positive pairs cannot stand
    for the comparison."""
    defined: dict[tuple[str | None, str | None, Comparison], int | None] = {
        (r.key, r.attribute, r.comparison): _pairs(r)
        for r in records
        if r.test is not None and r.test.p_value is not None and np.isfinite(r.test.p_value)
    }
    for rec in records:
        beside = rec.spec.described_beside
        key = (beside, rec.attribute, rec.comparison)
        rec.descriptive = key in defined and rests_on_enough(defined.get(key), _pairs(rec))
        if beside is not None and rec.descriptive:
            note = f"descriptive beside {METRICS[beside].name}: {METRICS[beside].name}'s test decides"
            if note not in rec.notes:
                rec.notes.append(note)
