"""A report read in one minute: what an assessment document says first, the same for the HTML report and the console.

The order (both): a headline per attribute ("gender: 1 concern; religion: 4 concerns, 11 pairs ok"), then each
finding that needs attention (concerns, then watches) in plain words, with its numbers and the pair of replies that
shows it best, then the ok findings folded into one line per attribute. Metric rows whose value is undefined (NaN)
become one line per attribute with their reasons; the rows themselves stay in results.json and metrics.csv.

Everything here reads the JSON document (``Assessment.to_dict()`` or a loaded results.json), so ``evenhand report``
renders a results file exactly as ``evenhand assess`` rendered the run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evenhand._json import finite_or_none

__all__ = ["WHOLE_USE_CASE", "AttributeLine", "Digest", "UndefinedLine", "digest", "evidence_line", "undefined_lines"]

WHOLE_USE_CASE = "whole use case"  # findings about every response (toxicity), not one attribute
_ATTENTION = ("concern", "watch")
_SHOWN_CLAUSES = 4  # metrics named on one NaN line before "and N more"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def scope(finding: Mapping[str, Any]) -> str:
    """Which groups a finding is about: "female vs male", "female vs male (class yes)" or "all groups"."""
    groups = finding.get("groups")
    text = " vs ".join(str(g) for g in groups) if groups else "all groups"
    return f"{text} (class {finding['class']})" if finding.get("class") else text


@dataclass
class AttributeLine:
    """The findings about one attribute (``attribute`` None: the whole use case), by severity."""

    attribute: str | None
    concerns: list[dict[str, Any]] = field(default_factory=list)
    watches: list[dict[str, Any]] = field(default_factory=list)
    ok: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.attribute if self.attribute is not None else WHOLE_USE_CASE

    @property
    def worst(self) -> str:
        return "concern" if self.concerns else "watch" if self.watches else "ok"

    @property
    def counts(self) -> str:
        """The counts, e.g. "1 concern, 2 to watch, 11 pairs ok" (pairs: every ok finding is about its own pair of
        groups; with several risks per pair, "14 ok")."""
        parts = []
        if self.concerns:
            parts.append(_plural(len(self.concerns), "concern", "concerns"))
        if self.watches:
            parts.append(f"{len(self.watches)} to watch")
        if self.ok:
            pairs = {tuple(f["groups"]) for f in self.ok if f.get("groups")}
            # "pairs ok" only when each ok finding is a pair of its own (one risk per pair); else count findings
            one_per_pair = len(pairs) == len(self.ok) and all(f.get("groups") for f in self.ok)
            parts.append(_plural(len(self.ok), "pair", "pairs") + " ok" if one_per_pair else f"{len(self.ok)} ok")
        return ", ".join(parts) or "nothing judged"

    @property
    def headline(self) -> str:
        return f"{self.label}: {self.counts}"

    def findings_of(self, severity: str) -> list[dict[str, Any]]:
        return {"concern": self.concerns, "watch": self.watches}.get(severity, self.ok)

    @property
    def ok_line(self) -> str:
        """The folded ok findings in one line: "religion: 9 findings ok (christian vs hindu, ... and 5 more)"."""
        return f"{self.label}: {self.ok_summary}"

    @property
    def ok_summary(self) -> str:
        """The folded ok findings: how many, and what they are about (bounded)."""
        scopes = [scope(f) if f.get("groups") else str(f.get("risk")) for f in self.ok]
        # a pair with several risks (similarity, toxicity, refusals, length) names each by its risk
        names = [
            f"{f.get('risk')}: {s}" if f.get("groups") and scopes.count(s) > 1 else s
            for f, s in zip(self.ok, scopes, strict=True)
        ]
        shown = ", ".join(names[:_SHOWN_CLAUSES]) + (f" and {len(names) - _SHOWN_CLAUSES} more" if
                                                     len(names) > _SHOWN_CLAUSES else "")  # fmt: skip
        return f"{_plural(len(self.ok), 'finding', 'findings')} ok ({shown})"


@dataclass
class UndefinedLine:
    """The undefined (NaN) metric rows of one attribute, in one line: each metric with its reason."""

    attribute: str | None
    clauses: list[str]
    n_rows: int

    @property
    def label(self) -> str:
        return self.attribute if self.attribute is not None else WHOLE_USE_CASE

    @property
    def text(self) -> str:
        shown = self.clauses[:_SHOWN_CLAUSES]
        more = len(self.clauses) - len(shown)
        tail = f"; and {_plural(more, 'more metric', 'more metrics')} (results.json lists each row)" if more else ""
        return "; ".join(shown) + tail


@dataclass
class Digest:
    """What a reader sees first: the status, a headline per attribute, the findings that need attention, the ok
    findings per attribute, and the verdict's notes."""

    status: str
    summary: str
    attributes: list[AttributeLine]
    attention: list[dict[str, Any]]
    notes: list[str]

    @property
    def headline(self) -> str:
        return "; ".join(a.headline for a in self.attributes)

    @property
    def ok_lines(self) -> list[AttributeLine]:
        return [a for a in self.attributes if a.ok]


def _attribute_order(doc: Mapping[str, Any], findings: Iterable[Mapping[str, Any]]) -> list[str | None]:
    """The whole use case first, then the attributes in the use case's order, then any other (intersections)."""
    use_case = (doc.get("plan") or {}).get("use_case") or {}
    seen = [f.get("attribute") for f in findings]
    order: list[str | None] = [None] if None in seen else []
    for name in [*(use_case.get("attributes") or []), *seen]:
        if name is not None and name in seen and name not in order:
            order.append(name)
    return order


def _illustrations(worst: Mapping[str, Any]) -> dict[str, Any]:
    """Risk -> the first worst example that shows a finding of it without an example of its own, as a verdict
    example of kind "reply" with its ``caption`` (the families declare which, and the words:
    ``ExampleSection.illustrates``, ``caption`` and ``measure``)."""
    from evenhand.pipeline.families import FAMILY_TYPES

    out: dict[str, Any] = {}
    for family in FAMILY_TYPES:
        for section in family.example_sections:
            examples = worst.get(section.key) or []
            if section.illustrates and examples and section.illustrates not in out:
                label, key = section.measure or ("", "")
                value = finite_or_none(examples[0].get(key)) if section.measure else None
                why = section.caption + (f" ({label} {value:.3g})" if value is not None else "")
                out[section.illustrates] = {"kind": "reply", **examples[0], "caption": why}
    return out


def digest(doc: Mapping[str, Any]) -> Digest | None:
    """The digest of an assessment document; None for a document without a verdict (schema 1)."""
    verdict = doc.get("verdict")
    if not isinstance(verdict, Mapping):
        return None
    findings = [dict(f) for f in verdict.get("findings") or []]
    illustration = _illustrations(doc.get("worst_examples") or {})
    lines = {name: AttributeLine(name) for name in _attribute_order(doc, findings)}
    for f in findings:
        shown = illustration.get(str(f.get("risk")))
        if f.get("severity") in _ATTENTION and shown and not f.get("example"):
            f["example"] = dict(shown)  # e.g. the most toxic reply shows a toxicity finding
        lines[f.get("attribute")].findings_of(str(f.get("severity"))).append(f)
    ordered = list(lines.values())
    attention = [f for severity in _ATTENTION for line in ordered for f in line.findings_of(severity)]
    return Digest(
        status=str(verdict.get("status", "ok")),
        summary=str(verdict.get("summary", "")),
        attributes=ordered,
        attention=attention,
        notes=[str(n) for n in verdict.get("notes") or []],
    )


# ------------------------------------------------------------------------------------------------ numbers
def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def evidence_line(e: Mapping[str, Any]) -> str:
    """One metric's numbers behind a finding: "CROUGE-L 0.412 [0.380, 0.441] · noise floor 0.620 · gap 0.208
    [0.180, 0.236] · adjusted p <0.001 · 200 independent units"."""
    value, low, high = (finite_or_none(e.get(k)) for k in ("value", "ci_low", "ci_high"))
    parts = [f"{e.get('metric')} " + ("NaN" if value is None else f"{value:.3g}")]
    if low is not None and high is not None:
        parts[0] += f" [{low:.3g}, {high:.3g}]"
    floor, gap, gap_low, gap_high = (finite_or_none(e.get(k)) for k in ("noise_floor", "gap", "gap_low", "gap_high"))
    if floor is not None:
        parts.append(f"noise floor {floor:.3g}")
    if gap is not None:
        parts.append(f"gap {gap:.3g}" + (f" [{gap_low:.3g}, {gap_high:.3g}]" if gap_low is not None
                                          and gap_high is not None else ""))  # fmt: skip
    p_adj, p = finite_or_none(e.get("p_adjusted")), finite_or_none(e.get("p_value"))
    if p_adj is not None:
        parts.append(f"adjusted p {_p(p_adj)}")
    elif p is not None:
        parts.append(f"p {_p(p)}")
    units = e.get("units")
    if isinstance(units, int):
        parts.append(_plural(units, "independent unit", "independent units"))
    return " · ".join(parts)


def example_caption(example: Mapping[str, Any]) -> str:
    """Why this pair was picked: "the pair of replies with the lowest ROUGE-L (0.05) of the 1,000 pairs, ..."."""
    if example.get("label") and example.get("caption"):  # picked as typical or most extreme: it says why (issue 37)
        return str(example["caption"])
    kind, measure = example.get("kind"), example.get("measure")
    value, n = finite_or_none(example.get("value")), example.get("n_pairs")
    if kind == "sentiment" and value is not None:  # signed a - b in the document; the caption says how large
        value = abs(value)
    of = f" of the {n:,} pairs" if isinstance(n, int) else ""
    shown = f" ({value:.3g})" if value is not None else ""
    if kind == "sentiment":
        return f"the pair of replies with the largest sentiment gap in the finding's direction{shown}{of}"
    if kind == "similarity":
        return f"the pair of replies with the lowest {measure}{shown}{of}, attribute words neutralized"
    if kind == "lists":
        overlap = f" ({measure} {value:.3g})" if value is not None else ""
        return f"the pair of lists with the least overlap{overlap}{of}"
    # a worst example that illustrates a finding (its family's words, digest), or an example that says itself why it
    # was picked (refusal, answer length: their kinds of evidence)
    return str(example.get("caption") or "")


# ------------------------------------------------------------------------------------------------ NaN rows
def undefined_lines(rows: Sequence[Mapping[str, Any]]) -> list[UndefinedLine]:
    """Metric rows whose value is undefined, one line per attribute: each metric once, with its reason (the first
    pair's when the pairs' reasons differ) and how many pairs of groups it covers (a red team's rows: how many rows,
    one per system prompt and pair)."""
    by_attribute: dict[str | None, dict[str, list[tuple[str, str]]]] = {}
    per_condition: set[str] = set()
    for row in rows:
        if row.get("value") is not None:
            continue
        metrics = by_attribute.setdefault(row.get("attribute"), {})
        metrics.setdefault(str(row.get("metric")), []).append(
            (str(row.get("comparison") or "all"), str(row.get("reason") or "undefined"))
        )
        if row.get("condition") is not None:  # a red team's row: one per system prompt, not per pair of groups
            per_condition.add(str(row.get("metric")))
    lines = []
    for attribute, metrics in by_attribute.items():
        clauses = []
        for metric, items in metrics.items():
            if len(items) == 1:
                label, reason = f"{metric} ({items[0][0]})", items[0][1]
            else:
                counted = "rows, by system prompt" if metric in per_condition else "pairs of groups"
                label = f"{metric} ({len(items)} {counted})"
                same = len({r for _, r in items}) == 1
                reason = items[0][1] if same else f"{items[0][1]} (for {items[0][0]}; results.json has each pair's)"
            clauses.append(f"{label}: {reason}")
        lines.append(UndefinedLine(attribute, clauses, sum(len(v) for v in metrics.values())))
    return lines
