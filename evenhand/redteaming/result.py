"""What a red team produced (:class:`RedTeam`): the benign assessment, each condition's own assessment, and the
adversarial rows that compare each condition with the benign one.

Its document (results.json) is the benign assessment's, as ``evenhand assess`` writes it, plus: the adversarial
rows in ``metrics`` and ``tests`` (each with its ``condition``), their findings (risk ``adversarial``, one per
condition and per condition, attribute and pair of groups) in the ``verdict``, and a ``redteam`` section naming
every condition (its kind, full system prompt, own verdict, non-completion rate, toxic share and refusal rate).
With template probes, a ``probes`` section of its own (:mod:`evenhand.redteaming.probes`): model-level numbers, never
mixed with the use case's rows or verdict.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any

import pandas as pd

from evenhand._files import remove_stale_outputs, write_text
from evenhand._json import finite_or_none, json_safe
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.responses.parsers import label_text
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.results.document import WritesDocument, write_document
from evenhand.pipeline.results.outputs import OUTPUT_NAMES
from evenhand.pipeline.verdict.findings import Verdict
from evenhand.redteaming.conditions import Condition

#: The document's red-team section, beside the assessment's (results.json ``redteam``)
SECTION = "redteam"
#: ... and the model-level probes' (results.json ``probes``), apart from the use case's
PROBES = "probes"
#: A blocked condition's own verdict status: no reply, so no assessment of its own (its NCS says how many)
NOT_ASSESSED = "not assessed"
#: ... and the note written in its folder instead of an assessment's outputs
BLOCKED_NOTE = "not-assessed.json"
_ERRORS_SHOWN = 5


@dataclass
class RedTeam(WritesDocument):
    """A red team's results: ``benign`` (the use case under its own system prompt), ``assessments`` (each
    adversarial condition's own assessment, by name), ``records`` (the adversarial rows) and ``conditions`` (the
    benign one first)."""

    benign: Assessment
    conditions: list[Condition]
    assessments: dict[str, Assessment]
    records: list[MetricRecord]
    meta: dict[str, Any] = field(default_factory=dict)
    #: the model-level template probes (``ProbeResults.to_dict()``), when the config asked for them
    probes: dict[str, Any] | None = None
    #: the config's pass/fail rules (:class:`evenhand.config.Threshold`), checked over the combined rows
    thresholds: list[Any] = field(default_factory=list)
    #: each condition's replies as the shifts read them (scores a family left out added), by name
    replies: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: each adversarial condition whose every request got no reply (errors, content filters), by name -> why;
    #: it has no assessment of its own, only its requests in ``replies`` and its rows (non-completion defined)
    blocked: dict[str, str] = field(default_factory=dict)
    _combined: Assessment | None = field(default=None, init=False, repr=False)

    @property
    def combined(self) -> Assessment:
        """The benign assessment with the adversarial rows after its own: one verdict and one metrics table (the
        benign rows, their p-values and threshold checks exactly as the benign assessment has them)."""
        if self._combined is None:
            b = self.benign
            # the config's pass/fail rules apply to every row and finding, the adversarial ones included (a TSS
            # rule, or "no concern" over the whole verdict, gates the red team)
            # (the benign run's settings, descriptions and scorer audit with it: one run's, typed)
            self._combined = replace(b, records=[*b.records, *self.records], meta=dict(b.meta), caveats=list(b.caveats),
                                     threshold_checks=[], rules=self.thresholds)  # fmt: skip
        return self._combined

    @property
    def verdict(self) -> Verdict:
        """The benign assessment's findings and the adversarial ones (risk ``adversarial``)."""
        return self.combined.verdict

    @property
    def passed(self) -> bool | None:
        """Whether every configured threshold passed over the benign and the adversarial rows (None: no rule)."""
        return self.combined.passed

    @property
    def threshold_checks(self) -> list[Any]:
        return self.combined.threshold_checks

    @property
    def adversarial_findings(self) -> list[Any]:
        return [f for f in self.verdict.findings if f.condition is not None]

    @property
    def responses(self) -> pd.DataFrame:
        return self.benign.responses

    @property
    def metrics(self) -> pd.DataFrame:
        """Every row: the benign assessment's, then the adversarial ones, with a ``condition`` column."""
        table = self.combined.metrics
        table["condition"] = [rec.comparison.condition for rec in self.combined.records]
        return table

    def export_responses(self, path: str | os.PathLike[str]) -> Path:
        """The benign condition's responses (each condition's are in its own folder)."""
        return self.benign.export_responses(path)

    # ----------------------------------------------------------------------------------------------- document
    def to_dict(self, *, include_responses: bool = True) -> dict[str, Any]:
        doc = self._document()
        if include_responses:
            doc["responses"] = self.benign.to_dict()["responses"]
        return doc

    def _document(self) -> dict[str, Any]:
        doc = self.combined.to_dict(include_responses=False)
        conditions = [rec.comparison.condition for rec in self.combined.records]
        for row, condition in zip(doc["metrics"], conditions, strict=True):
            if condition is not None:
                row["condition"] = condition
        by_label = {rec.comparison.label: rec.comparison.condition for rec in self.records}
        for row in doc["tests"]:
            condition = by_label.get(row.get("comparison"))
            if condition is not None:
                row["condition"] = condition
        doc[SECTION] = json_safe(self.section())
        if self.probes is not None:
            doc[PROBES] = json_safe(self.probes)
        return doc

    def section(self) -> dict[str, Any]:
        """results.json ``redteam``: the conditions, what each one's replies were like, and its own verdict."""
        rows = []
        scoring = self.benign.settings.scoring  # the run's typed settings: every condition is scored alike
        for condition in self.conditions:
            findings = [f for f in self.adversarial_findings if f.condition == condition.name]
            worst = min((f.severity for f in findings), key=("concern", "watch", "ok").index, default=None)
            rows.append({
                **condition.to_dict(),
                "folder": None if condition.kind == "benign" else f"conditions/{self.folders[condition.name]}",
                "verdict": self._own_verdict(condition),
                "adversarial_status": worst,
                **describe_replies(self.replies_of(condition.name), scoring.toxicity_threshold,
                                   scoring.refusal_threshold, self._positive_label()),
            })  # fmt: skip
        return {
            "benign": self.conditions[0].name,
            "conditions": rows,
            "timings": dict(self.meta.get("timings", {})),
            **{k: self.meta[k] for k in ("generation_estimate", "note") if k in self.meta},
        }

    def _positive_label(self) -> str | None:
        """The decision whose share each condition's replies get beside their toxic share (the section, the console,
        the report): a binary classification use case's positive label; None for other tasks and for multiclass."""
        classification = self.benign.settings.classification
        if self.benign.plan.use_case.task != "classification" or classification.sensitive_classes:
            return None
        return label_text(classification.positive_label)

    def replies_of(self, name: str) -> pd.DataFrame:
        """A condition's replies as compared (its assessment's responses where nothing was added)."""
        if name in self.replies:
            return self.replies[name]
        return self.benign.responses if name == self.conditions[0].name else self.assessments[name].responses

    def _own_verdict(self, condition: Condition) -> dict[str, Any]:
        if condition.name in self.blocked:
            return {"status": NOT_ASSESSED, "summary": f"not assessed: {self.blocked[condition.name]}"}
        assessment = self.benign if condition.kind == "benign" else self.assessments[condition.name]
        return {"status": assessment.verdict.status, "summary": assessment.verdict.summary}

    def write_blocked(self, name: str, folder: Path, *, requests: bool = True) -> tuple[Path, list[Path]]:
        """A blocked condition's folder: ``not-assessed.json`` (why, how many requests, their statuses and distinct
        errors, and each request's status when ``requests``), and an earlier run's assessment files removed, since
        they would pass for this run's. Returns the note's path and the files removed."""
        frame = self.replies_of(name)
        condition = next(c for c in self.conditions if c.name == name)
        errors = [e for e in dict.fromkeys(frame["error"].tolist()) if isinstance(e, str) and e]
        note: dict[str, Any] = {
            **condition.to_dict(),
            "assessed": False,
            "reason": f"no request got a reply under this system prompt: {self.blocked[name]}",
            "n_requests": len(frame),
            "statuses": {str(k): int(v) for k, v in frame["status"].value_counts().items()},
            "errors": errors[:_ERRORS_SHOWN],
        }
        if requests:
            columns = ["prompt_id", "attribute", "group", "sample", "status", "error"]
            note["requests"] = frame[[c for c in columns if c in frame]].to_dict(orient="records")
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / BLOCKED_NOTE
        write_text(path, json.dumps(json_safe(note), indent=2, ensure_ascii=False) + "\n")
        return path, remove_stale_outputs(folder, OUTPUT_NAMES, kept=())

    @property
    def folders(self) -> dict[str, str]:
        """Each adversarial condition's folder name under ``conditions/``, unique (a clash is numbered)."""
        out: dict[str, str] = {}
        for condition in self.conditions[1:]:
            slug, n = condition.slug, 2
            while slug in out.values() or slug == "benign":
                slug, n = f"{condition.slug}-{n}", n + 1
            out[condition.name] = slug
        return out

    def _write_json(self, handle: IO[str], *, include_responses: bool) -> None:
        b = self.benign
        columns = [c for c in b.responses.columns if not str(c).startswith("_")]
        write_document(handle, self._document(), b.responses if include_responses else None, columns)

    def __repr__(self) -> str:
        return (
            f"RedTeam({len(self.conditions) - 1} adversarial system prompts, {len(self.records)} adversarial rows, "
            f"verdict {self.verdict.status})"
        )


def describe_replies(frame: pd.DataFrame, toxicity_threshold: float | None = None,
                     refusal_threshold: float | None = None,
                     positive_label: str | None = None) -> dict[str, Any]:  # fmt: skip
    """A condition's replies in three numbers: the share of requests with no reply (errors, content filters), and
    the shares of replies scored toxic and refused (over the original and counterfactual replies); with
    ``positive_label`` (a classification use case), a fourth: the share of the replies parsed into a label that are
    that decision."""
    decided = {} if positive_label is None else {"positive_rate": None}
    if not len(frame):
        return {"n_requests": 0, "non_completion_rate": None, "toxic_share": None, "refusal_rate": None, **decided}
    answered = (frame["status"] == "ok") & frame["response"].notna()
    out: dict[str, Any] = {"n_requests": len(frame), "non_completion_rate": float(1.0 - answered.mean())}
    for name, column, threshold in (("toxic_share", "toxicity", toxicity_threshold),
                                    ("refusal_rate", "refusal", refusal_threshold)):  # fmt: skip
        scores = frame.loc[answered, column].dropna() if column in frame else pd.Series(dtype=float)
        cut = 0.5 if threshold is None else threshold
        out[name] = finite_or_none((scores >= cut).mean()) if len(scores) else None
    if positive_label is not None:
        labels = frame.loc[answered, "label"].dropna() if "label" in frame else pd.Series(dtype=object)
        out["positive_rate"] = finite_or_none((labels.astype(str) == positive_label).mean()) if len(labels) else None
    return out


def summary_lines(result: RedTeam) -> list[str]:
    """One line per condition for the console: its replies and its adversarial findings."""
    lines = []
    for row in result.section()["conditions"]:
        parts = [_share("no reply", row["non_completion_rate"]), _share("toxic", row["toxic_share"]),
                 _share("refused", row["refusal_rate"]),
                 _share("positive decisions", row.get("positive_rate"))]  # fmt: skip
        status = row["adversarial_status"] or ("baseline" if row["kind"] == "benign" else "nothing judged")
        if row["verdict"]["status"] == NOT_ASSESSED:
            status += "; no request got a reply (blocked or failed), so no assessment of its own"
        lines.append(f"{row['name']} ({row['kind']}): {', '.join(p for p in parts if p)}; {status}")
    note = result.meta.get("note")
    return [*lines, f"note: {note}"] if note else lines


def _share(what: str, value: float | None) -> str:
    return "" if value is None else f"{value:.1%} {what}"


__all__ = ["BLOCKED_NOTE", "NOT_ASSESSED", "PROBES", "SECTION", "RedTeam", "describe_replies", "summary_lines"]
