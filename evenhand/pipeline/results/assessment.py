"""The result of :func:`evenhand.assess`: metrics table, response-level data, and the results document they make.

The document's form (schema, streaming writer, loader) is :mod:`evenhand.pipeline.results.document`'s; the pass/fail
rules are :mod:`evenhand.pipeline.verdict.thresholds`'. Both are re-exported here, where docs and older code import
them from.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from evenhand._display import render_html
from evenhand._files import write_bytes, write_text
from evenhand._formula_guard import guard_frame
from evenhand._json import finite_or_none, json_safe
from evenhand._redact import redact_mapping
from evenhand._version import __version__
from evenhand.config import RunSettings
from evenhand.errors import InputError, InputKeyError
from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.evidence.scorer_error import corrected_columns
from evenhand.pipeline.evidence.signed_differences import signed_columns
from evenhand.pipeline.families import FAMILY_OF, FAMILY_TYPES, GROUP_MEANS, HISTOGRAMS, PAIR_SCATTER, Family
from evenhand.pipeline.families.examples import ExampleInput
from evenhand.pipeline.families.judged import JUDGE_KEY, READER_KEY
from evenhand.pipeline.responses.frame import group_pairs, ok_rows
from evenhand.pipeline.responses.personal_names import signals_by_attribute
from evenhand.pipeline.results.document import (
    RESPONSE_BLOCK,
    SCHEMA,
    SCHEMA_VERSION,
    WritesDocument,
    load_results,
    settings_block,
    write_document,
)
from evenhand.pipeline.results.schema import METRIC_COLUMNS, TEST_COLUMNS
from evenhand.pipeline.verdict.examples import attach_examples, examples_by_finding
from evenhand.pipeline.verdict.findings import Verdict, make_verdict
from evenhand.pipeline.verdict.kinds.base import RunFacts
from evenhand.pipeline.verdict.thresholds import ThresholdCheck, check_thresholds

# the results document's names and the gate's, where docs and older code import them from
__all__ = [
    "METRIC_COLUMNS", "RESPONSE_BLOCK", "SCHEMA", "SCHEMA_VERSION", "TEST_COLUMNS", "Assessment", "ThresholdCheck",
    "check_thresholds", "load_results",
]  # fmt: skip

_MAX_POINTS = 400
_BINS = np.linspace(0.0, 1.0, 11)


@dataclass
class Assessment(WritesDocument):
    """Everything an assessment produced.

    Attributes:
        plan: the :class:`~evenhand.framework.Plan` that was run (metrics with reasons, not-applicable items).
        records: one :class:`MetricRecord` per metric row (the ``MetricResult``, interval and noise floor).
        responses: response-level data, one row per response (prompt, group, sample, response, scores, labels).
        meta: when it was made, the model, timings, what generation was estimated to send, the LLM assistants'
            audits and usage.
        caveats: what a reader must keep in mind (scorer biases, small samples, unparsed answers, ...).
        threshold_checks: the outcome of the config's pass/fail rules.
        rules: the config's pass/fail rules (:class:`evenhand.config.Threshold`), applied when the assessment is made
            (``threshold_checks``), on its records and its verdict.
        settings: the run's settings (:class:`evenhand.config.RunSettings`), as the run used them.
        described: what the metric families described of what they used (the scorers, the labels' words, ``k``,
            ...: ``RunContext.described``); with ``settings``, results.json's ``settings`` block.
        scorer_audit: ``{kind: audit}``: how the scorers in use score identity statements
            (:mod:`evenhand.scorers.audit`); the verdict discounts the findings they explain.
        names: the personal names behind the counterfactual prompts
            (:func:`~evenhand.pipeline.responses.personal_names.names_used`): ``{"read": bool, "seed": int,
            "attributes": {attribute: {"signals", "found", "n_prompts", "groups"}}}`` (and ``masked`` when the
            replies were compared with them masked); none read when not given.
        sections: results.json's sections that only some runs have, by name: ``numbers`` (numeric outcomes: each
            group's numbers, their distribution) and ``impact_ratios`` (the NYC Local Law 144 table), as the
            families made them.
    """

    plan: Plan
    records: list[MetricRecord]
    responses: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    caveats: list[str] = field(default_factory=list)
    threshold_checks: list[ThresholdCheck] = field(default_factory=list)
    rules: Sequence[Any] = field(default=(), repr=False)
    settings: RunSettings = field(default_factory=RunSettings, repr=False)
    described: dict[str, Any] = field(default_factory=dict, repr=False)
    scorer_audit: dict[str, Any] = field(default_factory=dict, repr=False)
    names: dict[str, Any] = field(default_factory=dict, repr=False)
    sections: dict[str, Any] = field(default_factory=dict, repr=False)
    _verdict: Verdict | None = field(default=None, init=False, repr=False)
    _examples: dict[tuple[Any, ...], list[dict[str, Any]]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.names:
            self.names = {"read": self.plan.use_case.names, "seed": 0, "attributes": {}}
        if self.rules:
            self.threshold_checks = check_thresholds(self.records, self.rules, self.verdict)

    @property
    def impact_ratios(self) -> pd.DataFrame | None:
        """The NYC Local Law 144 impact-ratio table (docs/regulation.md), one row per category, or None when the run
        made none."""
        table = self.sections.get("impact_ratios")
        return None if table is None else pd.DataFrame(table["rows"])

    # ----------------------------------------------------------------------------------------------- tables
    @property
    def metrics(self) -> pd.DataFrame:
        """The metrics table: one row per metric × attribute × pair of groups, with interval and noise floor."""
        rows = [self._row(i, r) for i, r in enumerate(self.records)]
        return pd.DataFrame(rows, columns=METRIC_COLUMNS)

    @property
    def _row_passed(self) -> dict[int, bool]:
        """Row index -> passed (every rule that judged the row passed): the one source of a row's mark."""
        marks: dict[int, bool] = {}
        for check in self.threshold_checks:
            if check.record is not None:
                marks[check.record] = marks.get(check.record, True) and check.passed
        return marks

    def _row(self, index: int, rec: MetricRecord) -> dict[str, Any]:
        severities = self.verdict.by_record  # what the verdict made of this row's evidence
        res = rec.result
        passed = self._row_passed.get(index)
        reason = res.reason
        note = res.details.get("note") if isinstance(res.details, Mapping) else None
        for extra in (note, *rec.notes):
            if extra:
                reason = f"{reason}; {extra}" if reason else str(extra)
        groups = rec.comparison.groups or (None, None)
        return {
            "metric": rec.name,
            "full_name": rec.spec.full_name,
            "key": rec.key,
            "family": rec.family,
            "attribute": rec.attribute,
            "comparison": rec.comparison.label,
            "group_a": groups[0],
            "group_b": groups[1],
            "class": rec.comparison.cls,
            **rec.numbers(),  # value, interval, noise floor and gap, p-values
            "ci_method": rec.interval.method if rec.interval is not None else None,
            **signed_columns(rec),
            **corrected_columns(rec),
            "n": ", ".join(f"{v} {k}" for k, v in res.sizes.items()),
            "range_low": float(res.value_range[0]),
            "range_high": float(res.value_range[1]),
            # a signed difference (RRD, TSD, the red team's shifts) has no "higher" or "lower" that is fairer: closer
            # to 0 is fairer (MetricSpec.direction), so the row says "not applicable" rather than a misleading False
            "higher_is_fairer": None if rec.spec.signed else bool(res.higher_is_fairer),
            "passed": passed,
            "severity": severities[index] if index < len(severities) else None,
            "reason": reason,
        }

    def export_responses(self, path: str | os.PathLike[str]) -> Path:
        """Write the responses, with every score, parsed label or item list and the group each belongs to, as CSV
        or Parquet (by the file's suffix); returns the path. Counterfactual rows of different groups with the same
        ``attribute, prompt_id, sample`` are the pairs the counterfactual metrics compare."""
        frame = self.responses[[c for c in self.responses.columns if not str(c).startswith("_")]].copy()
        suffix = Path(path).suffix.lower()
        if suffix == ".csv":
            if "items" in frame:  # K-item lists: one cell, items separated by " | "
                frame["items"] = [" | ".join(map(str, v)) if isinstance(v, list) else v for v in frame["items"]]
            # a reply such as "=HYPERLINK(...)" must not run in a spreadsheet; evenhand's reader undoes the guard
            return write_text(path, guard_frame(frame).to_csv(index=False))
        if suffix in (".parquet", ".pq"):
            import io

            for name in frame.columns:  # Parquet columns hold one type: mixed ids and labels become text
                if frame[name].dtype == object and name != "items":
                    frame[name] = [None if v is None else str(v) for v in frame[name]]
            buffer = io.BytesIO()
            frame.to_parquet(buffer, index=False)
            return write_bytes(path, buffer.getvalue())
        raise InputError(f"responses can be exported as .csv or .parquet, not {suffix or 'a file without suffix'}")

    @property
    def tests(self) -> pd.DataFrame:
        """Every test of the assessment: one row per classification metric and pair of groups (exact test of the
        two groups' rates), per counterfactual sentiment row (paired swap test), per counterfactual similarity row
        (the swap test of its noise floor) and per COBS / SA row (group shuffle of prompts), with ``p_adjusted``
        taken over all of them (:func:`evenhand.stats.omnibus_then_pairs`, families: ``key``, ``attribute`` and
        class)."""
        rows: list[dict[str, Any]] = []
        for rec in self.records:
            if rec.pair_tests is not None:
                for t in rec.pair_tests.to_dict(orient="records"):
                    row = {"metric": rec.name, "key": rec.key, "attribute": rec.attribute}
                    row.update(comparison=rec.comparison.label, method="exact (hypergeometric)")
                    row.update({c: t.get(c) for c in TEST_COLUMNS if c in t and c != "metric"})
                    rows.append(row)
            elif rec.test is not None:
                n, units = rec.test.details.get("n_pairs"), rec.test.details.get("n_units")
                method = FAMILY_OF.get(rec.family, Family).test_method.format(method=rec.test.method)
                rows.append(
                    _test_row(
                        rec,
                        rec.groups or rec.test.groups,
                        rec.test.statistic,
                        (n, units),
                        rec.test.p_value,
                        rec.test.n_permutations,
                        method,
                        rec.test.reason,
                    )
                )  # units: the prompts whose pairs were swapped together
            elif rec.swap_p is not None:  # a similarity row: the swap test of its noise floor
                nf = rec.noise
                # the difference is the gap: noise floor minus counterfactual similarity
                rows.append(
                    _test_row(
                        rec,
                        rec.groups or (None, None),
                        nf.gap,
                        (None, nf.n_prompts),
                        rec.swap_p,
                        nf.n_permutations,
                        "swap test of the noise floor",
                        None,
                    )
                )
        return pd.DataFrame(rows, columns=TEST_COLUMNS)

    @property
    def passed(self) -> bool | None:
        """Whether every configured threshold passed; None when no threshold was set (nothing was gated)."""
        if not self.threshold_checks:
            return None
        return all(c.passed for c in self.threshold_checks)

    @property
    def verdict(self) -> Verdict:
        """What the assessment found, per risk, attribute and pair of groups
        (:mod:`evenhand.pipeline.verdict.findings`)."""
        if self._verdict is None:
            self._verdict = make_verdict(
                self.records,
                facts=self._facts(),
                statistics=self.settings.statistics.ci is not None,
                scorer_audit=self.scorer_audit,
                signals=signals_by_attribute(self.names),
            )
        return self._verdict

    def result(self, metric: str, attribute: str | None = None, comparison: Any = None) -> Any:
        """The ``MetricResult`` of a metric (display name or key), e.g. ``a.result("CROUGE-L", "gender")``.

        ``comparison`` picks one row of a pairwise metric: a pair of groups (``("female", "male")``), a
        :class:`~evenhand.pipeline.evidence.records.Comparison` or its label (``"female vs male"``).
        """
        for rec in self.records:
            if metric in (rec.name, rec.key) and attribute in (None, rec.attribute):
                if rec.comparison.matches(comparison):
                    return rec.result
        raise InputKeyError(f"no metric {metric!r} for attribute {attribute!r} in this assessment")

    # ----------------------------------------------------------------------------------------------- figures
    def _groups(self) -> list[dict[str, Any]]:
        """Per-group summaries for the plots: the means of counterfactual responses the families declare
        (``Family.group_means``), and per-group rates of the families whose per-item values are rates."""
        out: list[dict[str, Any]] = []
        frame = self.responses
        means = [m for m in GROUP_MEANS if m.column in frame]
        columns = ["attribute", "group", *(m.column for m in means)]
        cf = frame.loc[_answered(frame) & frame["group"].notna(), columns] if len(frame) else frame  # no texts
        if len(cf):
            for (attribute, group), rows in cf.groupby(["attribute", "group"], sort=False):
                entry: dict[str, Any] = {"kind": "counterfactual", "attribute": attribute, "group": group}
                entry["n"] = len(rows)
                for m in means:
                    values = rows[m.column].map(len) if m.of_lengths else rows[m.column].astype(float)
                    entry[m.key] = finite_or_none(values.mean())
                out.append(entry)
        for rec in self.records:
            if FAMILY_OF.get(rec.family, Family).group_rates and rec.result.item_labels is not None:
                labels = rec.result.item_labels
                for g, v in zip(labels.tolist(), np.asarray(rec.result.per_item).tolist(), strict=False):
                    out.append(
                        {
                            "kind": "rate",
                            "metric": rec.name,
                            "attribute": rec.attribute,
                            "comparison": rec.comparison.label,
                            "class": rec.comparison.cls,
                            "group": g,
                            "rate": finite_or_none(v),
                        }
                    )
        return out

    def _distributions(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        frame = self.responses
        if not len(frame):
            return out
        scores = [c for h in HISTOGRAMS for c in h.columns(frame.columns)]  # as the families declare them
        rows = frame.loc[_answered(frame), ["attribute", "group", *scores]]  # the texts are not copied
        originals = rows[rows["group"].isna()]
        for score in scores:
            if len(originals):
                counts, _ = np.histogram(originals[score].astype(float).clip(0, 1), bins=_BINS)
                out.append({"score": score, "attribute": None, "group": "original prompts", "counts": counts})
            for (attribute, group), part in rows[rows["group"].notna()].groupby(["attribute", "group"], sort=False):
                counts, _ = np.histogram(part[score].astype(float).clip(0, 1), bins=_BINS)
                out.append({"score": score, "attribute": attribute, "group": group, "counts": counts})
        return out

    def _pairs(self) -> list[dict[str, Any]]:
        """The counterfactual pairs' scores a family scatters (``Family.pair_scatter``; first pair of groups per
        attribute)."""
        out: list[dict[str, Any]] = []
        scatter = PAIR_SCATTER
        if scatter is None or scatter.column not in self.responses:
            return out
        sides = [f"{scatter.column}_a", f"{scatter.column}_b"]
        for attribute in dict.fromkeys(ok_rows(self.responses, original=False)["attribute"].tolist()):
            for a, b, pairs in group_pairs(self.responses, attribute):
                pts = pairs[sides].astype(float).to_numpy()[:_MAX_POINTS]
                out.append({"attribute": attribute, "group_a": a, "group_b": b, "points": pts.round(4)})
                break
        return out

    def _worst(self) -> dict[str, list[dict[str, Any]]]:
        """The worst examples of every kind the families declare (:mod:`evenhand.pipeline.families.examples`)."""
        frame = self.responses
        # masks, not row copies: a copy of the frame would copy every text in it
        answered = _answered(frame) if len(frame) else pd.Series(False, index=frame.index)
        cf_attributes = list(dict.fromkeys(frame.loc[answered & frame["group"].notna(), "attribute"].tolist()))
        data = ExampleInput(frame, answered, cf_attributes, self.described.get("refusal_threshold"))
        worst: dict[str, list[dict[str, Any]]] = {}
        for family in FAMILY_TYPES:
            for section in family.example_sections:
                found = section.find(data)
                if found:
                    worst[section.key] = found
        return worst

    def _summary(self) -> dict[str, Any]:
        frame = self.responses
        n_ok = int((frame["status"] == "ok").sum()) if len(frame) else 0
        by_group: dict[str, Any] = {}
        if len(frame):
            keys = pd.Series([g if g is not None else "original" for g in frame["group"]], index=frame.index)
            for g, ok_share in (frame["status"] == "ok").groupby(keys, sort=False).mean().items():
                by_group[str(g)] = finite_or_none(1.0 - ok_share)
        return {
            "n_prompts": len(self.plan.use_case.prompts),
            "n_responses": len(frame),
            "n_ok": n_ok,
            "n_failed": len(frame) - n_ok,
            "non_completion_rate": by_group,
            "passed": self.passed,
        }

    # ----------------------------------------------------------------------------------------------- output
    def to_dict(self, *, include_responses: bool = True) -> dict[str, Any]:
        """The JSON document (schema ``evenhand/assessment`` 2.1) as a Python dict."""
        doc = self._document()
        if include_responses:
            doc["responses"] = json_safe(self.responses[self._response_columns()].to_dict(orient="records"))
        return doc

    def _document(self) -> dict[str, Any]:
        """The JSON document without its responses, JSON-safe (:func:`evenhand._json.json_safe`)."""
        metrics = self.metrics
        metrics["groups"] = pd.Series([rec.groups for rec in self.records], index=metrics.index, dtype=object)
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "evenhand_version": __version__,
            "created": self.meta.get("created") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "plan": self.plan.to_dict(),
            "model": redact_mapping(self.meta.get("model", {})),  # whatever source described it
            "settings": settings_block(self.settings, self.described),
            "timings": self.meta.get("timings", {}),
            # what generation was estimated to send before it started (generated responses only); the judge's audit
            # and what it found (a run with a judge only: docs/assistants.md), before the results it qualifies
            **{k: self.meta[k] for k in ("generation_estimate", READER_KEY, JUDGE_KEY) if k in self.meta},
            "summary": self._summary(),
            "metrics": metrics.to_dict(orient="records"),
            "tests": self.tests.to_dict(orient="records"),
            "groups": self._groups(),
            "distributions": self._distributions(),
            "bins": _BINS,
            "pairs": self._pairs(),
            "worst_examples": self._worst(),
            "caveats": list(self.caveats),
            "thresholds": [c.__dict__ for c in self.threshold_checks],
            "verdict": attach_examples(self.verdict.to_dict(), self._finding_examples()),
            "scorer_audit": self.scorer_audit,
            "names": self.names,
            **self.sections,  # only the runs that have them: a run without writes what it always wrote
        }
        cleaned: dict[str, Any] = json_safe(doc)
        return cleaned

    def _finding_examples(self) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
        """The pair of replies behind each concern or watch (:mod:`evenhand.pipeline.verdict.examples`), found once."""
        if self._examples is None:
            findings = self.verdict.to_dict()["findings"]
            self._examples = examples_by_finding(findings, self.responses, self._facts())
        return self._examples

    def _facts(self) -> RunFacts:
        """What the kinds of evidence need to know of the run beyond a record (for its sentences and its examples)."""
        masked = bool(self.names.get("masked"))  # the run compared its replies with the names masked
        specs = self.plan.use_case.attribute_specs
        return RunFacts.of_run(self.settings, self.described, attribute_specs=specs, names_masked=masked)

    def _response_columns(self) -> list[str]:
        return [c for c in self.responses.columns if not str(c).startswith("_")]

    def _write_json(self, handle: IO[str], *, include_responses: bool) -> None:
        responses = self.responses if include_responses else None
        write_document(handle, self._document(), responses, self._response_columns())

    def __repr__(self) -> str:
        return (
            f"Assessment({self.plan.use_case.task}, {len(self.records)} metric rows, "
            f"{len(self.responses)} responses, passed={self.passed})"
        )

    def _repr_html_(self) -> str | None:  # Jupyter: rendered by the presentation layer (evenhand._display)
        return render_html(self)


def _test_row(
    rec: MetricRecord,
    groups: Sequence[Any],
    difference: Any,
    sizes: tuple[Any, Any],
    p_value: Any,
    n_permutations: Any,
    method: str,
    reason: Any,
) -> dict[str, Any]:
    """One row of :attr:`Assessment.tests` for a test that is one per metric row; ``sizes`` is (items, units) of
    each side, the same for both sides of a paired test."""
    (a, b), (n, units) = groups, sizes
    return {
        "metric": rec.name, "key": rec.key, "attribute": rec.attribute, "comparison": rec.comparison.label,
        "group_a": a, "group_b": b, "difference": difference, "n_a": n, "n_b": n, "units_a": units,
        "units_b": units, "n_permutations": n_permutations, "p_value": p_value, "p_adjusted": rec.p_adjusted,
        "method": method, "reason": reason,
    }  # fmt: skip


def _answered(frame: pd.DataFrame) -> pd.Series:
    """The rows :func:`~evenhand.pipeline.responses.frame.ok_rows` selects, as a mask (selecting columns first copies
    less)."""
    return (frame["status"] == "ok") & frame["response"].notna()
