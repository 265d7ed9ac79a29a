"""The result of :func:`evenhand.assess`: metrics table, response-level data, JSON (versioned schema) and HTML.

JSON schema ``evenhand/assessment`` version 2 (documented in ``docs/assessment.md``): top-level keys ``schema``,
``schema_version``, ``evenhand_version``, ``created``, ``plan``, ``model``, ``settings``, ``summary``,
``metrics``, ``tests``, ``groups``, ``distributions``, ``pairs``, ``worst_examples``, ``caveats``,
``thresholds`` and (optionally) ``responses``. Numbers that are undefined are ``null`` with a ``reason``.
Since 2.0 every metric row says what it compares as data (``groups``: the pair of groups, ``class``: the class
assessed one-vs-rest) beside the display label ``comparison``, and carries its ``full_name``.
Since 2.1 ``scorer_audit`` holds the audit of the toxicity and sentiment scorers on identity statements.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from evenhand import __version__
from evenhand._files import atomic_writer, write_bytes, write_text
from evenhand._formula_guard import guard_frame
from evenhand._redact import redact_mapping
from evenhand.framework import Plan
from evenhand.pipeline.collect import ok_rows
from evenhand.pipeline.compute import group_pairs
from evenhand.pipeline.families.base import AUDIT_KEY
from evenhand.pipeline.finding_examples import attach_examples, examples_by_finding
from evenhand.pipeline.records import MetricRecord
from evenhand.pipeline.results_schema import check_results
from evenhand.pipeline.verdict import Verdict, judge

SCHEMA = "evenhand/assessment"
SCHEMA_VERSION = "2.1"
#: The schema major versions :func:`load_results` reads (the report renders both).
READABLE_MAJORS = ("1", "2")
METRIC_COLUMNS = [
    "metric",
    "full_name",
    "key",
    "family",
    "attribute",
    "comparison",
    "group_a",
    "group_b",
    "class",
    "value",
    "ci_low",
    "ci_high",
    "ci_level",
    "noise_floor",
    "gap",
    "gap_low",
    "gap_high",
    "p_value",
    "p_adjusted",
    "n",
    "range_low",
    "range_high",
    "higher_is_fairer",
    "passed",
    "severity",
    "reason",
]
TEST_COLUMNS = [
    "metric",
    "key",
    "attribute",
    "comparison",
    "group_a",
    "group_b",
    "rate_a",
    "rate_b",
    "difference",
    "n_a",
    "n_b",
    "units_a",
    "units_b",
    "p_value",
    "p_adjusted",
    "method",
    "n_permutations",
    "reason",
]
_N_WORST = 5
_MAX_POINTS = 400
_BINS = np.linspace(0.0, 1.0, 11)


def _num(x: Any) -> float | None:
    try:
        f = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) or math.isinf(f) else f


#: Responses serialised per block when results.json is written: bounds the memory of writing (a few MB a block).
RESPONSE_BLOCK = 5_000


def _response_lines(frame: pd.DataFrame, columns: Sequence[str]) -> Iterator[list[str]]:
    """The responses as JSON objects (one string per row, keys in column order), :data:`RESPONSE_BLOCK` rows at a
    time; each value as :func:`_clean` makes it, so that the objects equal ``_clean(frame.to_dict("records"))``."""
    encode = json.JSONEncoder(ensure_ascii=False).encode  # no indent: the C encoder
    keys = [str(c) for c in columns]
    for start in range(0, len(frame), RESPONSE_BLOCK):
        values = _json_safe_columns(frame.iloc[start : start + RESPONSE_BLOCK], columns)
        yield [encode(dict(zip(keys, row, strict=True))) for row in zip(*values, strict=True)]


def _json_safe_columns(block: pd.DataFrame, columns: Sequence[str]) -> list[list[Any]]:
    """Each column's values as ``_clean(block.to_dict("records"))`` has them, converted a column at a time:
    ``tolist`` gives Python numbers and texts; other values are boxed as ``to_dict`` boxes them (:func:`_box`)."""
    out = []
    boxed: list[dict[Hashable, Any]] | None = None
    for c in columns:
        dtype = block[c].dtype
        if isinstance(dtype, np.dtype) and dtype.kind == "f":
            out.append([v if math.isfinite(v) else None for v in block[c].tolist()])
        elif isinstance(dtype, np.dtype) and dtype.kind in "iub":
            out.append(block[c].tolist())
        elif isinstance(dtype, np.dtype) and dtype.kind == "O":
            out.append([_clean(_box(v)) if v is not None and type(v) is not str else v for v in block[c].tolist()])
        elif isinstance(dtype, pd.StringDtype):  # texts; anything else in it is a missing value
            out.append([v if type(v) is str else None for v in block[c].tolist()])
        else:  # other pandas extension types (nullable numbers, categories, time zones): pandas' own boxing
            rows = boxed = boxed if boxed is not None else block.to_dict(orient="records")
            out.append([_clean(row[c]) for row in rows])
    return out


def _box(value: Any) -> Any:
    """A cell of an object column as ``DataFrame.to_dict`` gives it: ``pd.NA`` is None, NumPy times are pandas'."""
    if value is pd.NA:
        return None
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value)
    if isinstance(value, np.timedelta64):
        return pd.Timedelta(value)
    return value


def _clean(obj: Any) -> Any:
    """JSON-safe copy: NaN/inf -> None, NumPy scalars/arrays -> Python, tuples -> lists, Paths -> str."""
    if isinstance(obj, Mapping):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_clean(v) for v in obj.tolist()]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _num(obj)
    if isinstance(obj, Path):
        return str(obj)
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)


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


@dataclass
class Assessment:
    """Everything an assessment produced.

    Attributes:
        plan: the :class:`~evenhand.framework.Plan` that was run (metrics with reasons, not-applicable items).
        records: one :class:`MetricRecord` per metric row (the ``MetricResult``, interval and noise floor).
        responses: response-level data, one row per response (prompt, group, sample, response, scores, labels).
        meta: model, settings and timings.
        caveats: what a reader must keep in mind (scorer biases, small samples, unparsed answers, ...).
        threshold_checks: the outcome of the config's pass/fail rules.
    """

    plan: Plan
    records: list[MetricRecord]
    responses: pd.DataFrame
    meta: dict[str, Any] = field(default_factory=dict)
    caveats: list[str] = field(default_factory=list)
    threshold_checks: list[ThresholdCheck] = field(default_factory=list)
    _verdict: Verdict | None = field(default=None, init=False, repr=False)
    _examples: dict[tuple[Any, ...], dict[str, Any]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        settings = self.meta.get("settings")
        if isinstance(settings, dict) and AUDIT_KEY in settings:  # a result the families handed over, not a setting
            self.meta[AUDIT_KEY] = settings.pop(AUDIT_KEY)

    @property
    def scorer_audit(self) -> dict[str, Any]:
        """``{kind: audit}``: how the scorers in use score identity statements (:mod:`evenhand.scorers.audit`)."""
        audit: dict[str, Any] = self.meta.get(AUDIT_KEY) or {}
        return audit

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
        iv, nf = rec.interval, rec.noise
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
            "value": float(res.value),
            "ci_low": float(iv.low) if iv is not None else math.nan,
            "ci_high": float(iv.high) if iv is not None else math.nan,
            "ci_level": float(iv.level) if iv is not None else math.nan,
            "noise_floor": float(nf.baseline) if nf is not None else math.nan,
            "gap": float(nf.gap) if nf is not None else math.nan,
            "gap_low": float(nf.gap_interval.low) if nf is not None else math.nan,
            "gap_high": float(nf.gap_interval.high) if nf is not None else math.nan,
            "p_value": float(rec.test.p_value) if rec.test is not None else nf.p_value if nf is not None else math.nan,
            "p_adjusted": rec.p_adjusted if rec.p_adjusted is not None else math.nan,
            "n": ", ".join(f"{v} {k}" for k, v in res.sizes.items()),
            "range_low": float(res.value_range[0]),
            "range_high": float(res.value_range[1]),
            "higher_is_fairer": bool(res.higher_is_fairer),
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
        raise ValueError(f"responses can be exported as .csv or .parquet, not {suffix or 'a file without suffix'}")

    @property
    def tests(self) -> pd.DataFrame:
        """Every test of the assessment: one row per classification metric and pair of groups (exact test of the
        two groups' rates), per counterfactual sentiment row (paired swap test), per counterfactual similarity row
        (the swap test of its noise floor) and per COBS / SA row (group shuffle of prompts), with the
        Benjamini-Hochberg ``p_adjusted`` taken over all of them."""
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
                method = rec.test.method if rec.family == "stereotype" else f"paired swap ({rec.test.method})"
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
        """What the assessment found, per risk, attribute and pair of groups (:mod:`evenhand.pipeline.verdict`)."""
        if self._verdict is None:
            settings = self.meta.get("settings") or {}
            statistics = settings.get("ci", 0.95) is not None
            self._verdict = judge(
                self.records,
                sentiment_scale=settings.get("sentiment_scorer"),
                statistics=statistics,
                scorer_audit=self.scorer_audit,
            )
        return self._verdict

    def result(self, metric: str, attribute: str | None = None, comparison: Any = None) -> Any:
        """The ``MetricResult`` of a metric (display name or key), e.g. ``a.result("CROUGE-L", "gender")``.

        ``comparison`` picks one row of a pairwise metric: a pair of groups (``("female", "male")``), a
        :class:`~evenhand.pipeline.records.Comparison` or its label (``"female vs male"``).
        """
        for rec in self.records:
            if metric in (rec.name, rec.key) and attribute in (None, rec.attribute):
                if rec.comparison.matches(comparison):
                    return rec.result
        raise KeyError(f"no metric {metric!r} for attribute {attribute!r} in this assessment")

    # ----------------------------------------------------------------------------------------------- figures
    def _groups(self) -> list[dict[str, Any]]:
        """Per-group summaries for the plots: mean sentiment / toxicity of counterfactual responses, and
        per-group rates of the classification metrics."""
        out: list[dict[str, Any]] = []
        frame = self.responses
        columns = ["attribute", "group", *(c for c in ("sentiment", "toxicity", "items") if c in frame)]
        cf = frame.loc[_answered(frame) & frame["group"].notna(), columns] if len(frame) else frame  # no texts
        if len(cf):
            for (attribute, group), rows in cf.groupby(["attribute", "group"], sort=False):
                entry: dict[str, Any] = {"kind": "counterfactual", "attribute": attribute, "group": group}
                entry["n"] = len(rows)
                for score in ("sentiment", "toxicity"):
                    if score in rows:
                        entry[f"mean_{score}"] = _num(rows[score].astype(float).mean())
                if "items" in rows:
                    entry["mean_items"] = _num(rows["items"].map(len).mean())
                out.append(entry)
        for rec in self.records:
            if rec.family in ("representation", "error_based") and rec.result.item_labels is not None:
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
                            "rate": _num(v),
                        }
                    )
        return out

    def _distributions(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        frame = self.responses
        if not len(frame):
            return out
        stereotype_columns = [c for c in frame.columns if str(c).startswith("stereotype_")]
        scores = [c for c in ("toxicity", "sentiment", *stereotype_columns) if c in frame]
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
        """Counterfactual sentiment pairs (first pair of groups per attribute), for a scatter plot."""
        out: list[dict[str, Any]] = []
        if "sentiment" not in self.responses:
            return out
        for attribute in dict.fromkeys(ok_rows(self.responses, original=False)["attribute"].tolist()):
            for a, b, pairs in group_pairs(self.responses, attribute):
                pts = pairs[["sentiment_a", "sentiment_b"]].astype(float).to_numpy()[:_MAX_POINTS]
                out.append({"attribute": attribute, "group_a": a, "group_b": b, "points": pts.round(4)})
                break
        return out

    def _worst(self) -> dict[str, list[dict[str, Any]]]:
        worst: dict[str, list[dict[str, Any]]] = {}
        frame = self.responses
        # masks, not row copies: a copy of the frame would copy every text in it
        answered = _answered(frame) if len(frame) else pd.Series(False, index=frame.index)
        any_answered = bool(answered.any())
        cf_attributes = list(dict.fromkeys(frame.loc[answered & frame["group"].notna(), "attribute"].tolist()))
        if "toxicity" in frame and any_answered:
            worst["toxicity"] = [
                {
                    "prompt": r.prompt,
                    "response": r.response,
                    "score": _num(r.toxicity),
                    "group": r.group,
                    "attribute": r.attribute,
                }
                for r in _most_toxic(frame, answered)
            ]
        if "sentiment" in frame and any_answered:
            gaps = []
            for attribute in cf_attributes:
                for a, b, pairs in group_pairs(frame, attribute):
                    if not len(pairs):
                        continue
                    p = pairs.assign(gap=(pairs["sentiment_a"].astype(float) - pairs["sentiment_b"].astype(float)))
                    p = p.assign(abs_gap=p["gap"].abs(), attribute=attribute, group_a=a, group_b=b)
                    # the pair's own top rows suffice: a stable sort keeps their order in the sort of all pairs
                    gaps.append(p.sort_values("abs_gap", ascending=False, kind="stable").head(_N_WORST))
            if gaps:
                allp = pd.concat(gaps, ignore_index=True).sort_values("abs_gap", ascending=False, kind="stable")
                worst["sentiment_gap"] = [
                    {
                        "attribute": r.attribute,
                        "group_a": r.group_a,
                        "group_b": r.group_b,
                        "prompt_a": r.prompt_a,
                        "response_a": r.response_a,
                        "sentiment_a": _num(r.sentiment_a),
                        "prompt_b": r.prompt_b,
                        "response_b": r.response_b,
                        "sentiment_b": _num(r.sentiment_b),
                        "gap": _num(r.gap),
                    }
                    for r in allp.head(_N_WORST).itertuples(index=False)
                ]
        if "items" in frame and any_answered:
            worst_lists = []
            for attribute in cf_attributes:
                for a, b, pairs in group_pairs(frame, attribute):
                    records: list[dict[Any, Any]] = pairs.to_dict(orient="records")
                    for r in records:
                        left, right = {str(i).lower() for i in r["items_a"]}, {str(i).lower() for i in r["items_b"]}
                        overlap = len(left & right) / len(left | right) if left | right else 1.0
                        worst_lists.append((overlap, attribute, a, b, r))
            worst_lists.sort(key=lambda x: x[0])
            if worst_lists:
                worst["recommendation_gap"] = [
                    {
                        "attribute": attribute,
                        "group_a": a,
                        "group_b": b,
                        "jaccard": overlap,
                        "prompt_a": r["prompt_a"],
                        "items_a": list(r["items_a"]),
                        "prompt_b": r["prompt_b"],
                        "items_b": list(r["items_b"]),
                    }
                    for overlap, attribute, a, b, r in worst_lists[:_N_WORST]
                ]
        if "label" in frame and "truth" in frame and any_answered:
            wrong = _misclassified(frame[answered])
            if wrong:
                worst["misclassified"] = wrong
        if "label" in frame and any_answered:
            unparsed = frame[answered & frame["label"].isna()].head(_N_WORST)
            if len(unparsed):
                worst["unparsed"] = [
                    {"prompt": r.prompt, "response": r.response} for r in unparsed.itertuples(index=False)
                ]
        return worst

    def _summary(self) -> dict[str, Any]:
        frame = self.responses
        n_ok = int((frame["status"] == "ok").sum()) if len(frame) else 0
        by_group: dict[str, Any] = {}
        if len(frame):
            keys = pd.Series([g if g is not None else "original" for g in frame["group"]], index=frame.index)
            for g, ok_share in (frame["status"] == "ok").groupby(keys, sort=False).mean().items():
                by_group[str(g)] = _num(1.0 - ok_share)
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
            doc["responses"] = _clean(self.responses[self._response_columns()].to_dict(orient="records"))
        return doc

    def _document(self) -> dict[str, Any]:
        """The JSON document without its responses, JSON-safe (:func:`_clean`)."""
        metrics = self.metrics
        metrics["groups"] = pd.Series([rec.groups for rec in self.records], index=metrics.index, dtype=object)
        doc: dict[str, Any] = {
            "schema": SCHEMA,
            "schema_version": SCHEMA_VERSION,
            "evenhand_version": __version__,
            "created": self.meta.get("created") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "plan": self.plan.to_dict(),
            "model": redact_mapping(self.meta.get("model", {})),  # whatever source described it
            "settings": self.meta.get("settings", {}),
            "timings": self.meta.get("timings", {}),
            # what generation was estimated to send before it started (generated responses only)
            **{k: self.meta[k] for k in ("generation_estimate",) if k in self.meta},
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
        }
        cleaned: dict[str, Any] = _clean(doc)
        return cleaned

    def _finding_examples(self) -> dict[tuple[Any, ...], dict[str, Any]]:
        """The pair of replies behind each concern or watch (:mod:`evenhand.pipeline.finding_examples`), found once."""
        if self._examples is None:
            findings = self.verdict.to_dict()["findings"]
            self._examples = examples_by_finding(findings, self.responses, self.plan.use_case.attribute_specs)
        return self._examples

    def _response_columns(self) -> list[str]:
        return [c for c in self.responses.columns if not str(c).startswith("_")]

    def to_json(self, path: str | os.PathLike[str] | None = None, *, include_responses: bool = True) -> str:
        """Serialise to JSON (and write it to ``path``, atomically, when given); returns the JSON text.

        The document is :meth:`to_dict`'s (``json.loads`` of the text equals it). For a large run that needs no
        text back, :meth:`write_json` writes the same file without ever holding it as one string.
        """
        buffer = io.StringIO()
        self._write_json(buffer, include_responses=include_responses)
        text = buffer.getvalue()
        if path is not None:
            write_text(path, text)
        return text

    def write_json(self, path: str | os.PathLike[str], *, include_responses: bool = True) -> Path:
        """Write :meth:`to_json`'s document to ``path`` atomically and return the path; the responses are streamed
        from the frame in blocks of :data:`RESPONSE_BLOCK` rows, one response per line, so that writing holds one
        block as Python objects at a time and never the whole text (memory and time: benchmarks/RESULTS.md)."""
        with atomic_writer(path) as handle:
            self._write_json(handle, include_responses=include_responses)
        return Path(path)

    def _write_json(self, handle: IO[str], *, include_responses: bool) -> None:
        head = json.dumps(self._document(), indent=1, ensure_ascii=False)
        if not include_responses:
            handle.write(head)
            return
        assert head.endswith("\n}")  # indent=1: the closing brace on its own line; "responses" goes before it
        handle.write(head[: -len("\n}")] + ',\n "responses": [')
        separator = "\n  "
        for lines in _response_lines(self.responses, self._response_columns()):
            handle.write(separator + ",\n  ".join(lines))
            separator = ",\n  "
        handle.write("]\n}" if separator == "\n  " else "\n ]\n}")

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """The self-contained HTML report (and write it to ``path`` when given); returns the HTML text."""
        from evenhand.report import render_html

        html = render_html(self.to_dict(include_responses=False))
        if path is not None:
            write_text(path, html)
        return html

    def __repr__(self) -> str:
        return (
            f"Assessment({self.plan.use_case.task}, {len(self.records)} metric rows, "
            f"{len(self.responses)} responses, passed={self.passed})"
        )

    def _repr_html_(self) -> str:  # Jupyter: the verdict first, then the metrics (evenhand.notebook)
        from evenhand.notebook import assessment_html

        return assessment_html(self)


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
    """The rows :func:`~evenhand.pipeline.collect.ok_rows` selects, as a mask (selecting columns first copies less)."""
    return (frame["status"] == "ok") & frame["response"].notna()


def _most_toxic(frame: pd.DataFrame, answered: pd.Series) -> list[Any]:
    """The ``_N_WORST`` most toxic answered rows, one per distinct (prompt, response), as named tuples: what sorting
    the rows by toxicity (stable) and dropping duplicates gives, found by sorting the scores alone."""
    order = frame.loc[answered, "toxicity"].sort_values(ascending=False, kind="stable").index
    picked: list[Any] = []
    seen: set[tuple[Any, Any]] = set()
    for start in range(0, len(order), 1_000):
        part = frame.loc[order[start : start + 1_000], ["prompt", "response", "toxicity", "group", "attribute"]]
        for r in part.itertuples(index=False):
            if (r.prompt, r.response) not in seen:
                seen.add((r.prompt, r.response))
                picked.append(r)
                if len(picked) == _N_WORST:
                    return picked
    return picked


def _misclassified(rows: pd.DataFrame) -> list[dict[str, Any]]:
    """Up to ``_N_WORST`` wrong predictions, taken in turn from each group so that every group is represented; one
    per person (prompt), with how many of the person's answers were wrong: several samples of one person are one
    mistake seen several times, not several mistakes."""
    group_cols = [c for c in rows.columns if str(c).startswith("group_")]
    judged = rows[rows["label"].notna() & rows["truth"].notna()]
    person = judged["prompt_id"] if "prompt_id" in judged else judged["prompt"]
    is_wrong = judged["label"] != judged["truth"]
    n_answers, n_wrong = person.map(person.value_counts()), person.map(person[is_wrong].value_counts())
    judged = judged.assign(n_answers=n_answers, n_wrong=n_wrong)
    wrong = judged[is_wrong].drop_duplicates(subset=[person.name], keep="first")
    if wrong.empty:
        return []
    col = group_cols[0] if group_cols else None
    keyed = wrong.assign(wgroup=wrong[col].astype(object).where(wrong[col].notna(), "?") if col else "all")
    keyed = keyed.assign(wturn=keyed.groupby("wgroup", sort=False).cumcount()).sort_values("wturn", kind="stable")
    return [
        {
            "attribute": col.removeprefix("group_") if col else None,
            "group": r.wgroup,
            "truth": r.truth,
            "label": r.label,
            "prompt": r.prompt,
            "response": r.response,
            "n_wrong": int(r.n_wrong),
            "n_answers": int(r.n_answers),
        }
        for r in keyed.head(_N_WORST).itertuples(index=False)
    ]


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a results JSON written by :meth:`Assessment.to_json` or :meth:`Assessment.write_json`, checking the
    schema and its major version."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{p} is a folder; give the results.json inside it")
    if not p.is_file():
        raise FileNotFoundError(f"no such file: {p}")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p} is not valid JSON: {exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{p} is not a text file (results are UTF-8 JSON)") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ValueError(f"{p} is not an evenhand results file (schema {SCHEMA!r} expected)")
    major = str(doc.get("schema_version", "")).split(".")[0]
    if major not in READABLE_MAJORS:
        raise ValueError(
            f"{p} has schema version {doc.get('schema_version')}; this evenhand reads versions "
            f"{', '.join(m + '.x' for m in READABLE_MAJORS)}"
        )
    check_results(doc, str(p))
    return doc


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
            checks.append(_verdict_check(rule, verdict))
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
                out.append((pair, _num(row.get("p_adjusted"))))
            elif measure == "value":
                diff = _num(row.get("difference"))
                out.append((pair, None if diff is None else abs(diff)))
            else:
                out.append((pair, None))
        return out
    if wanted is not None and (rec.groups is None or set(rec.groups) != set(wanted)):
        return []
    nf = rec.noise
    if measure == "value":
        value = _num(rec.result.value)
    elif measure == "gap":
        value = _num(nf.gap) if nf is not None else None
    elif measure == "below_floor":  # as the verdict decides it: the gap's interval above 0, confirmed by the swap test
        from evenhand.pipeline.verdict import ALPHA

        low = _num(nf.gap_interval.low) if nf is not None else None
        swap = _num(rec.p_adjusted) if rec.p_adjusted is not None else _num(nf.p_value) if nf is not None else None
        value = None if low is None else float(low > 0 and (swap is None or swap < ALPHA))
    else:
        value = _num(rec.p_adjusted)
    return [(rec.groups, value)]


def _verdict_check(rule: Any, verdict: Any) -> ThresholdCheck:
    from evenhand.pipeline.verdict import SEVERITIES

    worst = SEVERITIES.index(rule.verdict)
    wanted = set(rule.groups) if rule.groups else None
    findings = [
        f
        for f in (verdict.findings if verdict is not None else [])
        if SEVERITIES.index(f.severity) <= worst
        and rule.attribute in (None, f.attribute)
        and (wanted is None or (f.groups is not None and set(f.groups) == wanted))
    ]
    count = float(len(findings))
    ok = _within(count, rule.min, rule.max)
    more = f" (and {len(findings) - 3} more)" if len(findings) > 3 else ""
    why = "" if ok else f"{len(findings)} finding(s): " + "; ".join(f.sentence for f in findings[:3]) + more
    counted = [f"{f.severity} {f.risk} ({_finding_scope(f)}): {f.sentence}" for f in findings]
    return ThresholdCheck(
        None, rule.attribute, rule.min, rule.max, count, ok, why,
        groups=list(rule.groups) if rule.groups else None, measure="findings", rule=_label(rule), findings=counted,
    )  # fmt: skip


def _finding_scope(finding: Any) -> str:
    """``gender, female vs male`` (``all`` for a finding about the whole use case)."""
    parts = [finding.attribute, " vs ".join(finding.groups or ()), f"class {finding.cls}" if finding.cls else None]
    return ", ".join(p for p in parts if p) or "all"
