"""Thresholds: the config's pass/fail rules applied to an assessment's metric rows and verdict (the CI gate).

:func:`check_thresholds` judges; :class:`ThresholdCheck` is one outcome, as results.json's ``thresholds`` lists it.
What a gate prints from these checks is :mod:`evenhand.gate`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from evenhand._json import finite_or_none
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.verdict.findings import record_scope
from evenhand.pipeline.verdict.severity import ALPHA, SEVERITIES
from evenhand.registry import METRICS


@dataclass
class ThresholdCheck:
    """One rule applied to one metric row (or to the verdict): what it judged, the value, and the outcome.

    ``record`` is the index of the judged row in ``Assessment.records`` (None for verdict rules and rules that
    matched nothing): the one link from a check to the row it marks passed or failed, everywhere it is shown.
    """

    metric: str | None
    attribute: str | None
    min: float | None
    max: float | None
    value: float | None
    passed: bool
    reason: str = ""
    groups: list[str] | None = None
    comparison: str | None = None
    measure: str = "value"
    rule: str = ""
    record: int | None = None
    #: a verdict rule: every finding it counted, ``"concern counterfactual (gender, female vs male): ..."`` (the
    #: reason quotes the first three; the gate's messages and the JUnit file list them all)
    findings: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """``SCSP (gender, female vs male) = 0.21 not in [-inf, 0.1]`` (what a failure message says)."""
        scope = ", ".join(s for s in (self.attribute, self.comparison) if s and s != "all") or "all"
        # a verdict rule's label already says what it counts ("findings at concern or worse")
        counted = self.metric is None and self.measure == "findings"
        measure = "" if self.measure == "value" or counted else f" {self.measure}"
        low = "-inf" if self.min is None else f"{self.min:g}"
        high = "inf" if self.max is None else f"{self.max:g}"
        value = "undefined" if self.value is None else f"{self.value:.4g}"
        verdict = "in" if self.passed else "not in"
        return f"{self.metric or self.rule}{measure} ({scope}) = {value} {verdict} [{low}, {high}]"

    @classmethod
    def from_dict(cls, item: Mapping[str, Any]) -> ThresholdCheck:
        """A check as results.json's ``thresholds`` holds it (keys a results file of another version lacks take
        their defaults; unknown keys are ignored)."""
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in dict(item).items() if k in known}
        for required in ("metric", "attribute", "min", "max", "value"):
            values.setdefault(required, None)
        values["passed"] = bool(values.get("passed"))
        return cls(**values)


def check_thresholds(
    records: Sequence[MetricRecord], rules: Sequence[Any], verdict: Any = None
) -> list[ThresholdCheck]:
    """Apply pass/fail rules (:class:`evenhand.config.Threshold`) to every matching metric row, or to the verdict.

    A metric rule gives one check per row it matches (metric, attribute and pair of groups), on the rule's
    ``measure``; for classification the pair of groups selects the row of the pairwise rate test. An undefined
    value fails (an undefined fairness number cannot pass a gate); a rule that matches no row fails too, so that a
    typo in a config cannot pass silently. A verdict rule counts the findings at its severity or worse.
    """
    checks: list[ThresholdCheck] = []
    for rule in rules:
        if getattr(rule, "verdict", None) is not None:
            checks.append(_verdict_check(rule, verdict, records))
            continue
        wanted = tuple(rule.groups) if getattr(rule, "groups", None) else None
        measure = getattr(rule, "measure", "value")
        matched = 0
        for index, rec in enumerate(records):
            if not _names(rule.metric, rec) or rule.attribute not in (None, rec.attribute):
                continue
            for groups, value in _measures(rec, measure, wanted):
                matched += 1
                ok = value is not None and _within(value, rule.min, rule.max)
                why = "" if ok else ("undefined" if value is None else "outside the allowed range")
                if value is None and measure == "p_adjusted" and rec.descriptive:  # CED beside CER (est17b)
                    beside = METRICS[rec.spec.described_beside or rec.key].name
                    why = f"undefined: {rec.name} is descriptive beside {beside}, whose test decides (gate {beside})"
                label = rec.comparison.label if groups is None or groups == rec.groups else " vs ".join(groups)
                checks.append(
                    ThresholdCheck(
                        rec.name, rec.attribute, rule.min, rule.max, value, ok, why,
                        groups=list(groups) if groups else None, comparison=label, measure=measure,
                        rule=_label(rule), record=index,
                    )
                )  # fmt: skip
        if not matched:
            computed = any(_names(rule.metric, r) for r in records)
            reason = "no row matches" if computed else "the metric is not computed in this assessment"
            checks.append(
                ThresholdCheck(rule.metric, rule.attribute, rule.min, rule.max, None, False, reason,
                               groups=list(wanted) if wanted else None, measure=measure, rule=_label(rule))
            )  # fmt: skip
    return checks


def _label(rule: Any) -> str:
    label = getattr(rule, "label", None)
    return str(label) if label is not None else str(rule.metric)


def _names(name: str | None, rec: MetricRecord) -> bool:
    if name is None:
        return False
    wanted = str(name).strip().lower()
    return wanted in (rec.key, rec.name.lower(), rec.spec.full_name.lower())


def _within(value: float, low: float | None, high: float | None) -> bool:
    return (low is None or value >= low) and (high is None or value <= high)


def _measures(
    rec: MetricRecord, measure: str, wanted: tuple[str, ...] | None
) -> list[tuple[tuple[str, str] | None, float | None]]:
    """(pair of groups, value of the measure) for each part of the row a rule judges."""
    if rec.pair_tests is not None and wanted is not None:  # classification: the pair's own test row
        table = rec.pair_tests
        rows = table[table["group_a"].astype(str).isin(wanted) & table["group_b"].astype(str).isin(wanted)]
        out: list[tuple[tuple[str, str] | None, float | None]] = []
        for row in rows.to_dict(orient="records"):
            pair = (str(row["group_a"]), str(row["group_b"]))
            if measure == "p_adjusted":
                out.append((pair, finite_or_none(row.get("p_adjusted"))))
            elif measure == "value":
                diff = finite_or_none(row.get("difference"))
                out.append((pair, None if diff is None else abs(diff)))
            else:
                out.append((pair, None))
        return out
    if wanted is not None and (rec.groups is None or set(rec.groups) != set(wanted)):
        return []
    nf = rec.noise
    if measure == "value":
        value = finite_or_none(rec.result.value)
        if value is not None and METRICS[rec.key].signed:
            # a signed gap (group A minus group B: RRD, RLD, TSD, MTD, CPRD) is judged by its size, as the
            # classification pairs' differences are: which group is A is an order, not a direction of fairness
            value = abs(value)
    elif measure == "gap":
        value = finite_or_none(nf.gap) if nf is not None else None
    elif measure == "below_floor":  # as the verdict decides it: the gap's interval above 0, confirmed by the swap test
        low = finite_or_none(nf.gap_interval.low) if nf is not None else None
        swap = (
            finite_or_none(rec.p_adjusted)
            if rec.p_adjusted is not None
            else finite_or_none(nf.p_value)
            if nf is not None
            else None
        )
        value = None if low is None else float(low > 0 and (swap is None or swap < ALPHA))
    else:
        value = finite_or_none(rec.p_adjusted)
    return [(rec.groups, value)]


def _verdict_check(rule: Any, verdict: Any, records: Sequence[MetricRecord]) -> ThresholdCheck:
    worst = SEVERITIES.index(rule.verdict)
    wanted = set(rule.groups) if rule.groups else None

    def in_rule(attribute: str | None, groups: tuple[str, ...] | None) -> bool:
        same_groups = wanted is None or (groups is not None and set(groups) == wanted)
        return rule.attribute in (None, attribute) and same_groups

    in_scope = [f for f in (verdict.findings if verdict is not None else []) if in_rule(f.attribute, f.groups)]
    findings = [f for f in in_scope if SEVERITIES.index(f.severity) <= worst]
    count = float(len(findings))
    # a rule in whose scope nothing was judged fails, as a metric rule that matches no row does: a model whose every
    # reply to one group's versions was empty left no pair to compare, "nothing to judge", and the gate passed
    judged = verdict is None or bool(in_scope)
    ok = judged and _within(count, rule.min, rule.max)
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    why = "" if ok else f"{len(findings)} finding(s): " + "; ".join(f.sentence for f in findings[:3]) + more
    if not judged:
        why = "nothing was judged: no finding" + (f" for {rule.attribute}" if rule.attribute else "")
    # a row whose replies could not be read (every decision unparsed, none a refusal) was never judged: the other rows'
    # findings ("RRD ok, 0% vs 0%") cannot pass the gate for it
    unread = [r for r in records if r.unread and in_rule(r.attribute, r.groups)] if verdict is not None else []
    if unread:
        ok = False
        names = ", ".join(dict.fromkeys(f"{r.name} ({record_scope(r)})" for r in unread))
        reasons = "; ".join(dict.fromkeys(str(r.result.reason) for r in unread))
        why = f"{names} could not be judged: {reasons}" + (f"; {why}" if why else "")
    counted = [f"{f.severity} {f.risk} ({_finding_scope(f)}): {f.sentence}" for f in findings]
    return ThresholdCheck(
        None, rule.attribute, rule.min, rule.max, count, ok, why,
        groups=list(rule.groups) if rule.groups else None, measure="findings", rule=_label(rule), findings=counted,
    )  # fmt: skip


def _finding_scope(finding: Any) -> str:
    """``gender, female vs male`` (``all`` for a finding about the whole use case)."""
    parts = [finding.attribute, " vs ".join(finding.groups or ()), f"class {finding.cls}" if finding.cls else None]
    return ", ".join(p for p in parts if p) or "all"
