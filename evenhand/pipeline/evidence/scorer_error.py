"""Gaps corrected for the scorer's own per-group error (issue 37): beside a record's raw value, the Rogan-Gladen
corrected gap between its two groups' rates, with the scorer audit's own uncertainty in its interval
(:func:`evenhand.stats.corrected_rate`, docs/scorers.md).

A record gets one when its family names the scorer audit that can explain its group differences
(``FamilySpec.audit``), that audit ran at the record's threshold and measured both of the record's groups, and the
record's result carries the counts of a difference of two rates (``MetricResult.rate_counts``): today the toxic
share difference (TSD) per pair of groups. The raw value, and every threshold on it, is unchanged; the verdict reads
the corrected interval (a gap the scorer's error could explain is at most a watch, ``ScorerErrorExplainsGap``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.registry import FAMILIES

#: Draws of the rate and the audit behind each corrected interval (a few milliseconds per record)
CORRECTION_DRAWS = 4000


def correct_for_scorer_error(records: Sequence[MetricRecord], audits: Mapping[str, Any], st: Any) -> None:
    """Set ``rec.corrected`` (a :class:`evenhand.stats.CorrectedRate`) on each record the audits can correct (see
    the module docstring); a note says why a record that could have one has none."""
    from evenhand.scorers.audit import error_counts
    from evenhand.stats import ScorerError, corrected_rate

    for rec in records:
        audit = audits.get(FAMILIES[rec.family].audit or "")
        counts = rec.result.rate_counts
        if audit is None or counts is None or counts.kind != "difference" or rec.groups is None:
            continue
        if rec.attribute is None or not rec.result.is_defined:
            continue
        threshold = rec.result.params.get("threshold")
        if threshold is not None and abs(float(audit.get("threshold", threshold)) - float(threshold)) > 1e-12:
            rec.notes.append(f"no correction for the scorer's error: its audit ran at threshold {audit['threshold']}, "
                             f"the metric at {threshold}")  # fmt: skip
            continue
        found = [error_counts(audit, rec.attribute, group) for group in rec.groups]
        missing = [g for g, c in zip(rec.groups, found, strict=True) if c is None]
        if missing:
            rec.notes.append(f"no correction for the scorer's error: its audit has no statements about "
                             f"{' or '.join(missing)}")  # fmt: skip
            continue
        errors = [ScorerError(group, **c) for group, c in zip(rec.groups, found, strict=True) if c is not None]
        rec.corrected = corrected_rate(counts, errors, st.ci, n_draws=CORRECTION_DRAWS, seed=st.seed)
        if rec.corrected.reason:
            rec.notes.append(f"correction for the scorer's error: {rec.corrected.reason}")


def corrected_columns(rec: MetricRecord) -> dict[str, float | None]:
    """The metrics table's corrected columns of a record (None where it has no correction): the corrected gap and its
    interval, and each group's corrected rate (``corrected_a``, ``corrected_b``: the raw rates are the row's
    details)."""
    c = rec.corrected
    if c is None:
        return dict.fromkeys(("corrected_value", "corrected_low", "corrected_high", "corrected_a", "corrected_b"))
    per_group = [r.get("corrected") for r in c.rates.values()]  # in the counts' order: the row's groups
    a, b = per_group if len(per_group) == 2 else (None, None)
    return {"corrected_value": c.corrected, "corrected_low": c.low, "corrected_high": c.high, "corrected_a": a,
            "corrected_b": b}  # fmt: skip
