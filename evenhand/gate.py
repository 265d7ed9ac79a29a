"""What a CI gate says, passed or failed: every check it judged, bounded, with a pointer to the file that has them all.

``evenhand assess`` / ``metrics`` gate on the config's ``thresholds:`` and ``evenhand compare --fail-on`` on the
findings (and metric rows) that got worse. A passing gate says what passed; a failing one lists every failed check
(and, for a verdict rule, every finding it counted), at most :data:`MAX_LINES` detail lines, then how many more
there are and where to read them. Both read the documents the commands write (results.json ``thresholds``,
comparison.json ``findings`` and ``metrics``), as the JUnit writer (:mod:`evenhand.junit`) does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Detail lines a gate prints at most (each failed check, each finding of a verdict rule); the rest are counted.
MAX_LINES = 20
FAILED = "threshold failed:"  # the prefix of a failed check's line (scripts grep for it)


def threshold_checks(doc: Mapping[str, Any]) -> list[Any]:
    """The threshold checks of a results document as
    :class:`~evenhand.pipeline.verdict.thresholds.ThresholdCheck` (keys a results file of another version lacks take
    their defaults; unknown keys are ignored)."""
    from evenhand.pipeline.verdict.thresholds import ThresholdCheck

    return [ThresholdCheck.from_dict(item) for item in doc.get("thresholds") or []]


def check_line(check: Any) -> str:
    """``FNRD (gender) = 0.21 not in [-inf, 0.1]`` and the reason, when it adds to that (undefined, no row matches)."""
    reason = check.reason or ""
    if reason == "outside the allowed range" or (check.findings and reason.split(":")[0].endswith("finding(s)")):
        reason = ""  # said by the range itself, or by the findings listed under it
    return check.describe() + (f" ({reason})" if reason else "")


def threshold_lines(checks: Sequence[Any], where: str, limit: int = MAX_LINES) -> list[str]:
    """The gate's lines: a failed gate lists every failed check (a verdict rule with each finding it counted under
    it), then a count of what passed; a passed gate says how many checks passed, then each. ``where`` names the file
    that holds every check (``out/results.json``); no lines when no threshold was set."""
    if not checks:
        return []
    failed = [c for c in checks if not c.passed]
    if not failed:
        head = f"thresholds passed: all {len(checks)} check(s)"
        return [head, *_bounded([[f"  passed: {check_line(c)}"] for c in checks], limit, where)]
    blocks = [[f"{FAILED} {check_line(c)}", *(f"  - {f}" for f in c.findings)] for c in failed]
    passed = len(checks) - len(failed)
    tail = f"thresholds failed: {len(failed)} of {len(checks)} check(s), {passed} passed; every check is in {where}"
    return [*_bounded(blocks, limit, where), tail]


def print_gate(console: Any, checks: Sequence[Any], where: str) -> None:
    """:func:`threshold_lines` on a rich console (stderr), a failed check's prefix in red."""
    from rich.markup import escape

    for line in threshold_lines(checks, where):
        failed = line.startswith(FAILED)
        text = f"[red]{FAILED}[/]{escape(line[len(FAILED) :])}" if failed else escape(line)
        console.print(text, highlight=False)


def compare_lines(doc: Mapping[str, Any], fail_on: str, where: str, limit: int = MAX_LINES) -> list[str]:
    """``evenhand compare --fail-on``: what got worse (each finding, and with ``any`` each metric row), or that
    nothing did; no lines with ``never``. ``doc`` is the comparison document (comparison.json)."""
    if fail_on == "never":
        return []
    findings = [f for f in doc.get("findings") or [] if f.get("direction") == "worse"]
    rows = [
        d
        for row in (doc.get("metrics") or [])
        for d in row.get("differences") or []
        if fail_on == "any" and d.get("change") == "worse"
    ]
    judged = "finding" if fail_on == "worse" else "finding or metric row"
    gate = f"--fail-on {fail_on}"
    if not findings and not rows:
        n_findings = len(doc.get("findings") or [])
        n_rows = sum(len(r.get("differences") or []) for r in doc.get("metrics") or [])
        counted = f"{n_findings} finding(s)" + (f" and {n_rows} metric difference(s)" if fail_on == "any" else "")
        return [f"compare passed ({gate}): no {judged} got worse ({counted} compared)"]
    blocks = [[f"  {_finding_line(f)}"] for f in findings] + [[f"  {d.get('sentence', '')}"] for d in rows]
    what = [f"{len(findings)} finding(s)"] + ([f"{len(rows)} metric row(s)"] if fail_on == "any" else [])
    head = f"compare failed ({gate}): {' and '.join(what)} got worse"
    return [head, *_bounded(blocks, limit, where)]


def _finding_line(change: Mapping[str, Any]) -> str:
    """``finding appeared in B: allocational, gender, female vs male (ok -> concern): the ... rate is ...``."""
    after = change.get("after_sentence") or ""
    return str(change.get("sentence", "")) + (f": {after}" if after else "")


def _bounded(blocks: Iterable[Sequence[str]], limit: int, where: str) -> list[str]:
    """The blocks' lines up to ``limit`` lines (a block is cut between its lines, never inside one), then one line
    counting what was left out and naming ``where`` to read it."""
    out: list[str] = []
    left = 0
    for block in blocks:
        for line in block:
            if len(out) < limit:
                out.append(line)
            else:
                left += 1
    if left:
        out.append(f"  ... and {left} more line(s); see {where}")
    return out
