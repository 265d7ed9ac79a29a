"""The result of :func:`evenhand.compare`: a :class:`RunComparison` of two or more assessments.

JSON schema ``evenhand/comparison`` 1.1 (``docs/compare.md``): ``schema``, ``schema_version``,
``evenhand_version``, ``created``, ``baseline``, ``runs``, ``settings``, ``verdict`` (``status``, ``by_run``,
``sentences``), ``metrics`` (one row per metric, attribute and pair of groups: ``values`` and ``intervals`` per run,
``differences`` from the baseline) and ``findings`` (how each finding changed).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from evenhand._files import write_text
from evenhand._version import __version__
from evenhand.comparison.findings import FindingChange
from evenhand.comparison.pairing import Difference
from evenhand.comparison.rows import (
    IMPROVED,
    NO_CLEAR_CHANGE,
    NOT_COMPARABLE,
    RULE,
    WORSE,
    MetricComparison,
    not_comparable_kind,
)
from evenhand.comparison.runs import Run
from evenhand.comparison.schema import SCHEMA, SCHEMA_VERSION
from evenhand.pipeline.verdict.severity import MIN_UNITS

MIXED = "mixed"
NO_CLEAR = NO_CLEAR_CHANGE


@dataclass
class RunComparison:
    """Two or more runs side by side: every metric row per run, each run's difference from the baseline (run 1)
    with an interval, how the findings changed, and a verdict on the difference.

    Attributes:
        runs: the runs, baseline first.
        rows: one :class:`~evenhand.comparison.rows.MetricComparison` per metric, attribute and pair of groups.
        findings: one :class:`~evenhand.comparison.findings.FindingChange` per finding and run after the baseline.
        settings: ``ci``, ``n_resamples``, ``seed`` and ``pairing``.
    """

    runs: list[Run]
    rows: list[MetricComparison]
    findings: list[FindingChange]
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.runs]

    @property
    def baseline(self) -> str:
        return self.runs[0].label

    def status_of(self, label: str) -> str:
        """``worse``, ``improved``, ``mixed`` or ``no clear change``: run ``label`` against the baseline, from the
        counts its summary gives first (issue 37): its findings' changes when any finding got worse or improved
        (``worse``: some worse and none improved; ``mixed``: both), else its metric differences the same way. A
        metric row that moved under findings that did not is detail, not the verdict: 13 findings worse and none
        improved read "worse" whatever two metric rows did."""
        directions = {f.direction for f in self.findings if f.run == label} & {WORSE, IMPROVED}
        if not directions:
            directions = {r.changes[label] for r in self.rows if r.changes.get(label) in (WORSE, IMPROVED)}
        if WORSE in directions and IMPROVED in directions:
            return MIXED
        return WORSE if WORSE in directions else IMPROVED if IMPROVED in directions else NO_CLEAR

    @property
    def rule(self) -> str:
        """How a metric row's word is decided (the adjusted p at the comparison's level)."""
        level = float(self.settings.get("ci", 0.95))
        return RULE.format(alpha=round(1.0 - level, 6), units=MIN_UNITS)

    @property
    def status(self) -> str:
        """The overall status: ``worse`` if any run is worse (``mixed`` if it or another also improved), ...."""
        states = {self.status_of(label) for label in self.labels[1:]}
        if MIXED in states or {WORSE, IMPROVED} <= states:
            return MIXED
        return WORSE if WORSE in states else IMPROVED if IMPROVED in states else NO_CLEAR

    @property
    def worse_findings(self) -> list[FindingChange]:
        """Findings that appeared or got worse in a run (what ``evenhand compare --fail-on worse`` gates on)."""
        return [f for f in self.findings if f.direction == WORSE]

    def summary_of(self, label: str) -> str:
        """``2 findings worse, 1 improved; 3 metrics worse, 0 better, 5 no clear change``."""
        found = [f for f in self.findings if f.run == label]
        changes = [r.changes.get(label) for r in self.rows]
        return (
            f"findings: {sum(f.direction == WORSE for f in found)} worse, "
            f"{sum(f.direction == IMPROVED for f in found)} improved, {len(found)} in all; "
            f"metrics: {changes.count(WORSE)} worse, {changes.count(IMPROVED)} better, "
            f"{changes.count(NO_CLEAR)} no clear change, {changes.count(NOT_COMPARABLE)} not comparable"
            f"{self._not_comparable_kinds(label)}"
        )

    def _not_comparable_kinds(self, label: str) -> str:
        """`` (6 undefined in both runs, 1 in one run only)``: why rows are not comparable, or "" when none is."""
        kinds = Counter(
            not_comparable_kind(r.differences[label]) for r in self.rows if r.changes.get(label) == NOT_COMPARABLE
        )
        return f" ({', '.join(f'{n} {kind}' for kind, n in kinds.most_common())})" if kinds else ""

    def sentences(self) -> list[str]:
        """The verdict on the difference in plain words: per run, its status, then what got worse, then what
        improved (findings first, then metrics)."""
        out = []
        for label in self.labels[1:]:
            out.append(f"{label} vs {self.baseline}: {self.status_of(label)} ({self.summary_of(label)})")
            for direction in (WORSE, IMPROVED):
                out += [f.sentence for f in self.findings if f.run == label and f.direction == direction]
                out += [r.sentences[label] for r in self.rows if r.changes.get(label) == direction]
        return out

    # ------------------------------------------------------------------------------------------- tables
    @property
    def metrics(self) -> pd.DataFrame:
        """One row per metric row and run after the baseline: the values, the difference, its interval, how."""
        records = []
        for row in self.rows:
            for label, diff in row.differences.items():
                record: dict[str, Any] = {"metric": row.metric, "attribute": row.attribute}
                record["comparison"] = row.comparison
                record |= {f"value_{name}": row.values.get(name) for name in self.labels}
                record |= _difference_fields(label, diff)
                record |= {"change": row.changes[label], "note": diff.note}
                records.append(record)
        return pd.DataFrame(records)

    # ------------------------------------------------------------------------------------------- output
    def to_dict(self) -> dict[str, Any]:
        """The JSON document (schema ``evenhand/comparison`` 1.1)."""
        from evenhand._json import json_safe as _clean

        doc = {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "evenhand_version": __version__,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "baseline": self.baseline,
            "runs": [run.describe() for run in self.runs],
            "settings": dict(self.settings),
            "verdict": {
                "status": self.status,
                "by_run": {
                    label: {"status": self.status_of(label), "summary": self.summary_of(label)}
                    for label in self.labels[1:]
                },
                "sentences": self.sentences(),
                "rule": self.rule,
            },
            "metrics": [_row_dict(row) for row in self.rows],
            "findings": [f.to_dict() for f in self.findings],
        }
        cleaned: dict[str, Any] = _clean(doc)
        return cleaned

    def to_json(self, path: str | os.PathLike[str] | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=1, ensure_ascii=False)
        if path is not None:
            write_text(path, text)
        return text

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """The self-contained comparison report (and write it to ``path`` when given)."""
        from evenhand.comparison.render import render_comparison_html

        html = render_comparison_html(self.to_dict())
        if path is not None:
            write_text(Path(path), html)
        return html

    def __repr__(self) -> str:
        return f"RunComparison({' vs '.join(self.labels)}: {self.status}, {len(self.rows)} metric rows)"

    def _repr_html_(self) -> str:  # Jupyter: the verdict on the difference first (evenhand.notebook)
        from evenhand.report.notebook import comparison_html

        return comparison_html(self.to_dict())


def _difference_fields(label: str, diff: Difference) -> dict[str, Any]:
    """A run's difference from the baseline as both the metrics table and the JSON document give it (same keys, same
    order): the estimate, its interval, the row's own p (read off its interval) and its p adjusted across the
    comparison's rows (the word, "change", rests on the adjusted one), and how it was obtained."""
    return {
        "run": label,
        "difference": diff.estimate,
        "ci_low": diff.low,
        "ci_high": diff.high,
        "p_value": diff.p_value,
        "p_adjusted": diff.p_adjusted,
        "method": diff.method,
    }


def _row_dict(row: MetricComparison) -> dict[str, Any]:
    return {
        "key": row.key,
        "metric": row.metric,
        "full_name": row.full_name,
        "attribute": row.attribute,
        "groups": list(row.groups) if row.groups else None,
        "class": row.cls,
        "comparison": row.comparison,
        "higher_is_fairer": row.higher_is_fairer,
        "values": row.values,
        "intervals": {label: list(bounds) for label, bounds in row.intervals.items()},
        # a gap between two groups compared with its sign: first − second, and each run's signed gap
        "signed": None
        if row.signed_groups is None
        else {"groups": list(row.signed_groups), "values": dict(row.signed_values)},
        # the signed difference each run stored beside a distance of two groups (group A minus group B, with its
        # interval), when the runs' results carry it (added within 1.1; null for older results files)
        "signed_stored": None
        if not row.stored_signed
        else {
            "direction": row.stored_direction,
            "values": {label: list(triple) for label, triple in row.stored_signed.items()},
        },
        "differences": [
            {
                **_difference_fields(label, diff),
                "note": diff.note,
                "n_units": diff.n_units,
                "change": row.changes[label],
                "sentence": row.sentences[label],
                # signed rows: the interval of |gap(run)| − |gap(baseline)| (below 0: the gap clearly shrank)
                "size_change": None if diff.signed is None else [diff.signed.size_low, diff.signed.size_high],
            }
            for label, diff in row.differences.items()
        ],
    }
