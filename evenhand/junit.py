"""JUnit XML for CI test reports (Jenkins, GitLab, GitHub): ``evenhand assess|metrics|compare --junit FILE``.

The writer reads the documents the commands write, never live objects, so every command that writes one can give
a JUnit file (a future ``redteam`` with findings and thresholds of the same shape reuses :func:`finding_cases` and
:func:`threshold_cases`):

* results.json (``evenhand/assessment``): with ``thresholds:`` each threshold check is a test case that passes or
  fails with the check and the sentences of the findings behind it; without thresholds each finding of the verdict
  is a test case: a concern fails with its sentence, a watch or an ok passes (the sentence in ``system-out``), and a
  finding or metric row that could not be computed is skipped with the reason;
* comparison.json (``evenhand/comparison``): each finding's change is a test case that fails when the finding
  appeared or got worse and is skipped when the run did not assess it; with ``--fail-on any`` each metric row's
  difference too (a worse one fails, one that cannot be compared is skipped).

Test names hold no values (CI tools track a test's history by its name). The file is written whole (temporary file
and rename) and holds no model settings: nothing secret can reach it. The element tree is built with the standard
library's ElementTree, which escapes text and attributes; characters XML 1.0 forbids are dropped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from xml.etree import ElementTree as ET

from evenhand.errors import InputError

Outcome = Literal["passed", "failed", "skipped"]
ASSESSMENT, COMPARISON = "evenhand/assessment", "evenhand/comparison"
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed anywhere in XML 1.0


@dataclass(frozen=True)
class Case:
    """One JUnit test case: ``failed`` carries ``message`` (one line) and ``details`` (every sentence behind it);
    ``skipped`` carries the reason in ``message``; ``passed`` may carry ``details`` (shown as its output)."""

    classname: str
    name: str
    outcome: Outcome
    message: str = ""
    details: str = ""


def write_junit(path: str | os.PathLike[str], doc: Mapping[str, Any], *, fail_on: str = "worse") -> Path:
    """Write the JUnit file of a results or comparison document to ``path`` atomically; returns the path.
    ``fail_on`` is ``evenhand compare``'s gate (a comparison's metric rows are test cases with ``any`` only)."""
    from evenhand._files import write_text

    return write_text(path, junit_xml(doc, fail_on=fail_on))


def check_junit_path(
    path: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str] | None],
    outputs: Iterable[str | os.PathLike[str]] = (),
) -> None:
    """Raise ValueError (``--junit FILE: ...``) when the JUnit file cannot be written where asked, or would overwrite
    an input or another output of the run: found before any work, not after it."""
    from evenhand._files import check_outputs

    target = Path(path)
    if target.is_dir():
        raise InputError(f"--junit {target}: it is a folder; give a file name (e.g. {target / 'evenhand.xml'})")
    folder = next((p for p in (target.parent, *target.parent.parents) if p.exists()), None)
    if folder is not None and not folder.is_dir():
        raise InputError(f"--junit {target}: cannot write there ({folder} is a file)")
    if folder is not None and folder == target.parent and not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"--junit {target}: the folder {folder} is not writable")
    try:
        check_outputs([target], inputs)
    except ValueError as exc:
        raise InputError(f"--junit: {exc}") from None
    resolved = target.expanduser().resolve()
    for other in outputs:
        if Path(other).expanduser().resolve() == resolved:
            raise InputError(f"--junit {target}: the run writes {other} there; choose another path")


def junit_xml(doc: Mapping[str, Any], *, fail_on: str = "worse") -> str:
    """The JUnit XML text of a results document (``evenhand/assessment``) or a comparison (``evenhand/comparison``).

    Raises ValueError for any other document."""
    schema = doc.get("schema")
    if schema == ASSESSMENT:
        use_case = (doc.get("plan") or {}).get("use_case") or {}
        suite = f"evenhand assess: {use_case.get('name') or 'LLM use case'}"
        checks = doc.get("thresholds") or []
        cases = threshold_cases(doc) if checks else [*finding_cases(doc), *undefined_metric_cases(doc)]
        status = (doc.get("verdict") or {}).get("status")
        gate = "thresholds" if checks else "findings (no thresholds set)"
    elif schema == COMPARISON:
        labels = [str(run.get("label")) for run in doc.get("runs") or []]
        suite = f"evenhand compare: {' vs '.join(labels)}"
        cases = comparison_cases(doc, fail_on)
        status = (doc.get("verdict") or {}).get("status")
        gate = f"--fail-on {fail_on}"
    else:
        raise InputError(f"a JUnit file is written from a results or comparison document, not schema {schema!r}")
    properties = {"evenhand_version": doc.get("evenhand_version"), "verdict": status, "gate": gate}
    return render(suite, cases, properties=properties, timestamp=doc.get("created"))


# ------------------------------------------------------------------------------------------------ assessment
def threshold_cases(doc: Mapping[str, Any]) -> list[Case]:
    """One case per threshold check of a results document: passed, or failed with the check and the sentences of
    the findings behind it (a verdict rule: every finding it counted)."""
    from evenhand.gate import check_line, threshold_checks

    findings = _findings(doc)
    cases = []
    for check in threshold_checks(doc):
        low = "-inf" if check.min is None else f"{check.min:g}"
        high = "inf" if check.max is None else f"{check.max:g}"
        measure = "" if check.measure in ("value", "findings") else f" {check.measure}"
        name = f"{check.metric or check.rule}{measure} ({_check_scope(check)}) in [{low}, {high}]"
        sentences = list(check.findings) or _sentences_for(check, findings)
        if check.passed:
            details = "\n".join([check_line(check), *sentences])
            cases.append(Case("evenhand.thresholds", name, "passed", details=details))
            continue
        message = check_line(check) + (f": {sentences[0]}" if sentences else "")
        cases.append(Case("evenhand.thresholds", name, "failed", message, "\n".join(sentences) or message))
    return cases


def finding_cases(doc: Mapping[str, Any]) -> list[Case]:
    """One case per finding of a document's verdict: a concern fails with its sentence, a watch or an ok passes
    (its sentence as output), and a finding none of whose metrics could be computed is skipped."""
    cases = []
    for finding in _findings(doc):
        scope = _scope(finding.get("attribute"), finding.get("groups"), finding.get("class"))
        name = f"{finding.get('risk')} ({scope})"
        if finding.get("condition"):  # a red team's finding: one case per adversarial system prompt
            name = f"{finding.get('risk')} under {finding.get('condition')!r} ({scope})"
        classname = f"evenhand.findings.{_dotted(finding.get('attribute') or 'all')}"
        sentence = str(finding.get("sentence") or "")
        evidence = finding.get("evidence") or []
        if evidence and all(e.get("value") is None for e in evidence):
            cases.append(Case(classname, name, "skipped", sentence or "not computable"))
        elif finding.get("severity") == "concern":
            lines = [str(e.get("sentence")) for e in evidence if e.get("severity") == "concern"] or [sentence]
            cases.append(Case(classname, name, "failed", sentence, "\n".join(lines)))
        else:
            cases.append(Case(classname, name, "passed", details=f"{finding.get('severity')}: {sentence}"))
    return cases


def undefined_metric_cases(doc: Mapping[str, Any]) -> list[Case]:
    """A skipped case per metric row that is undefined (NaN) and behind no finding: what was not assessed, and why."""
    behind = {(e.get("metric"), f.get("attribute")) for f in _findings(doc) for e in f.get("evidence") or []}
    cases = []
    for row in doc.get("metrics") or []:
        if row.get("value") is not None or (row.get("metric"), row.get("attribute")) in behind:
            continue
        name = f"{row.get('metric')} ({_scope(row.get('attribute'), None, None, row.get('comparison'))})"
        classname = f"evenhand.metrics.{_dotted(row.get('attribute') or 'all')}"
        cases.append(Case(classname, name, "skipped", str(row.get("reason") or "undefined")))
    return cases


def _findings(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list((doc.get("verdict") or {}).get("findings") or [])


def _sentences_for(check: Any, findings: Sequence[Mapping[str, Any]]) -> list[str]:
    """The sentences of the verdict's evidence about the checked metric, attribute (and pair of groups, or class)."""
    wanted = set(check.groups) if check.groups else None
    out = []
    for finding in findings:
        if check.attribute is not None and finding.get("attribute") != check.attribute:
            continue
        if wanted is not None and set(finding.get("groups") or ()) != wanted:
            continue
        cls = finding.get("class")
        if cls is not None and f"class {cls}" not in str(check.comparison or ""):
            continue
        out += [str(e.get("sentence")) for e in finding.get("evidence") or [] if e.get("metric") == check.metric]
    return out


def _check_scope(check: Any) -> str:
    return ", ".join(s for s in (check.attribute, check.comparison) if s and s != "all") or "all"


# ------------------------------------------------------------------------------------------------ comparison
def comparison_cases(doc: Mapping[str, Any], fail_on: str = "worse") -> list[Case]:
    """One case per finding change of a comparison document (failed: appeared or worse; skipped: not assessed in
    the run), and with ``fail_on="any"`` one per metric row and run (failed: worse; skipped: not comparable)."""
    cases = []
    for change in doc.get("findings") or []:
        scope = _scope(change.get("attribute"), change.get("groups"), change.get("class"))
        under = f" under {change.get('condition')!r}" if change.get("condition") else ""  # a red team's finding
        name = f"{change.get('risk')}{under} ({scope}): {change.get('run')} vs {change.get('baseline')}"
        sentence = str(change.get("sentence") or "")
        if change.get("direction") == "worse":
            after = str(change.get("after_sentence") or "")
            message = sentence + (f": {after}" if after else "")
            cases.append(Case("evenhand.compare.findings", name, "failed", message, "\n".join(filter(None, [
                sentence, after and f"in {change.get('run')}: {after}",
                change.get("before_sentence") and f"in {change.get('baseline')}: {change.get('before_sentence')}",
            ]))))  # fmt: skip
        elif change.get("change") == "not assessed":
            cases.append(Case("evenhand.compare.findings", name, "skipped", sentence))
        else:
            cases.append(Case("evenhand.compare.findings", name, "passed", details=sentence))
    if fail_on != "any":
        return cases
    baseline = doc.get("baseline")
    for row in doc.get("metrics") or []:
        scope = _scope(row.get("attribute"), None, None, row.get("comparison"))
        for diff in row.get("differences") or []:
            name = f"{row.get('metric')} ({scope}): {diff.get('run')} vs {baseline}"
            sentence = str(diff.get("sentence") or "")
            if diff.get("change") == "worse":
                details = f"{sentence}\n{diff.get('note') or ''}".strip()
                cases.append(Case("evenhand.compare.metrics", name, "failed", sentence, details))
            elif diff.get("change") == "not comparable":
                cases.append(Case("evenhand.compare.metrics", name, "skipped", sentence))
            else:
                cases.append(Case("evenhand.compare.metrics", name, "passed", details=sentence))
    return cases


# ------------------------------------------------------------------------------------------------ XML
def render(
    suite: str, cases: Iterable[Case], *, properties: Mapping[str, Any] | None = None, timestamp: str | None = None
) -> str:
    """``<testsuites>`` with one ``<testsuite>`` of ``cases``, as UTF-8 XML text with its declaration."""
    cases = list(cases)
    counts = {
        "tests": str(len(cases)),
        "failures": str(sum(c.outcome == "failed" for c in cases)),
        "errors": "0",
        "time": "0",
    }
    root = ET.Element("testsuites", {"name": "evenhand", **counts})
    attributes = {"name": _text(suite), **counts, "skipped": str(sum(c.outcome == "skipped" for c in cases))}
    if timestamp:
        attributes["timestamp"] = _text(timestamp)
    node = ET.SubElement(root, "testsuite", attributes)
    shown = {k: v for k, v in (properties or {}).items() if v is not None}
    if shown:
        props = ET.SubElement(node, "properties")
        for key, value in shown.items():
            ET.SubElement(props, "property", {"name": _text(key), "value": _text(value)})
    for case in cases:
        element = ET.SubElement(node, "testcase", {"classname": _text(case.classname), "name": _text(case.name),
                                                   "time": "0"})  # fmt: skip
        if case.outcome == "failed":
            failure = ET.SubElement(element, "failure", {"message": _text(case.message), "type": "evenhand"})
            failure.text = _text(case.details or case.message)
        elif case.outcome == "skipped":
            ET.SubElement(element, "skipped", {"message": _text(case.message)})
        elif case.details:
            ET.SubElement(element, "system-out").text = _text(case.details)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _text(value: Any) -> str:
    return _ILLEGAL.sub("", str(value))


def _scope(attribute: Any, groups: Any, cls: Any, comparison: Any = None) -> str:
    """``gender, female vs male`` / ``gender, class deny`` / ``all``."""
    parts = [str(attribute) if attribute else "", " vs ".join(map(str, groups)) if groups else ""]
    if cls:
        parts.append(f"class {cls}")
    if comparison and comparison != "all" and not groups and not cls:
        parts.append(str(comparison))
    return ", ".join(p for p in parts if p) or "all"


def _dotted(name: Any) -> str:
    """A name as one segment of a dotted class name (CI tools split class names on dots into packages)."""
    return re.sub(r"[.\s]+", "_", str(name)) or "all"
