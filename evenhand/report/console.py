"""What the command line prints after an assessment, in the report's order (:mod:`evenhand.report.digest`).

0. the LLM assistants' audits (a run with a second reader or a judge only);
1. ``verdict: CONCERN (...) — name``, then the headline per attribute;
2. each concern, then each watch, in plain words, with the pairs of replies that show it (a typical pair, then the
   most extreme one);
3. one line per attribute for its ok findings, the verdict's notes, the scorer audits' worst findings;
4. the metrics table: the rows behind the concerns and watches (every defined row with ``--all``), one ``NaN``
   line per attribute with the reasons, the caveats.

Everything is read from the results document, so ``evenhand assess`` and ``evenhand report`` print the same.
Data (group names, reasons, replies) is escaped: rich must never read it as markup.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from evenhand.report.digest import Digest, digest, example_caption, scope, undefined_lines

__all__ = ["print_assessment", "print_assistants", "print_undefined", "print_verdict", "summary_table"]

SEVERITY_STYLE = {"concern": "bold red", "watch": "yellow", "ok": "green", "not judged": "yellow"}
_REPLY_WIDTH = 160  # characters of a reply shown in a pair: enough to see the difference, short enough to scan


def _say(console: Console, text: str) -> None:
    """Print a line of markup; an indented line keeps its indent where the console wraps it, so a long headline
    or finding still reads as part of the block above it."""
    body = text.lstrip(" ")
    indent = len(text) - len(body)
    if not indent:
        console.print(text, highlight=False)
        return
    margin = Text(" " * indent)
    for line in Text.from_markup(body).wrap(console, max(console.width - indent, 20)):
        line.rstrip()  # no trailing blanks in a log or a file
        console.print(margin + line, soft_wrap=True, highlight=False)  # wrapped here already


def _short(text: Any) -> str:
    return textwrap.shorten(" ".join(str(text).split()), _REPLY_WIDTH, placeholder=" …")


def _print_example(console: Console, example: Mapping[str, Any]) -> None:
    """The pair of replies (or lists, or the one reply) behind a finding, one line each, then why it was picked."""
    if example.get("kind") == "reply":
        sides = [(str(example.get("group") or "reply"), example.get("response"), None)]
    else:
        sides = [(str(example.get(f"group_{s}")), example.get(f"response_{s}"), example.get(f"score_{s}"))
                 for s in ("a", "b")]  # fmt: skip
        if example.get("kind") == "lists":
            sides = [(g, " | ".join(map(str, example.get(f"items_{s}") or [])), None)
                     for (g, _, _), s in zip(sides, ("a", "b"), strict=True)]  # fmt: skip
    if example.get("label"):
        _say(console, f"    [dim]{escape(str(example['label']))} pair:[/]")
    width = max(len(name) for name, _, _ in sides)
    notes = [example.get(f"note_{s}") for s in ("a", "b")]  # what each reply is ("refused", "42 words")
    for (name, text, score), note in zip(sides, notes, strict=False):
        scored = f" (sentiment {score:.3g})" if isinstance(score, (int, float)) else ""
        scored += f" ({note})" if note else ""
        _say(console, f"      [dim]{escape(name.ljust(width))}:[/] “{escape(_short(text))}”{scored}")
    if example.get("flagged_sentence"):  # the sentence that decided a reply's toxicity score
        _say(console, f"      [dim]flagged sentence:[/] “{escape(_short(example['flagged_sentence']))}”")
    caption = example_caption(example)
    if caption:
        _say(console, f"      [dim]({escape(caption)})[/]")


def print_verdict(console: Console, doc: Mapping[str, Any], found: Digest | None = None) -> None:
    """The verdict first: status, the headline per attribute, each concern and watch with its example, one line per
    attribute for the ok findings, the notes, and each scorer audit's worst finding (the report has all)."""
    found = found or digest(doc)
    if found is None:
        return
    name = escape(str(((doc.get("plan") or {}).get("use_case") or {}).get("name") or "LLM use case"))
    style = SEVERITY_STYLE.get(found.status, "")
    _say(console, f"[{style}]verdict: {found.status.upper()}[/] ({escape(found.summary)}) — {name}")
    if found.attributes:
        _say(console, f"  {escape(found.headline)}")
    for f in found.attention:
        severity = str(f.get("severity"))
        where = escape(", ".join(s for s in (f.get("attribute"), scope(f) if f.get("groups") else None) if s) or "all")
        _say(console, f"  [{SEVERITY_STYLE[severity]}]{severity}[/] {escape(str(f.get('risk')))} ({where}): "
                      f"{escape(str(f.get('sentence')))}")  # fmt: skip
        for key in ("example", "extreme_example"):  # the typical pair, then the most extreme one (issue 37)
            if isinstance(f.get(key), Mapping):
                _print_example(console, f[key])
    for line in found.ok_lines:
        _say(console, f"  [green]ok[/] {escape(line.ok_line)}")
    for note in found.notes:
        _say(console, f"  [dim]note:[/] {escape(note)}")
    for kind, audit in (doc.get("scorer_audit") or {}).items():
        findings = (audit.get("findings") or []) if isinstance(audit, Mapping) else []
        if findings:
            more = f" (+{len(findings) - 1} more in the report)" if len(findings) > 1 else ""
            _say(console, f"  [dim]scorer audit ({escape(str(kind))}):[/] {escape(str(findings[0]))}{more}")


#: the rows the console shows after the verdict by default: those behind its concerns and watches (issue 37)
ATTENTION = ("concern", "watch")


def attention_rows(doc: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The metric rows with a value whose evidence the verdict judged a concern or watch."""
    return [r for r in doc.get("metrics") or [] if r.get("value") is not None and r.get("severity") in ATTENTION]


def summary_table(doc: Mapping[str, Any], *, all_rows: bool = True) -> Table:
    """The metrics with a value (undefined rows are :func:`print_undefined`'s lines), interval, floor and p: every
    one, or (``all_rows=False``) the rows behind the verdict's concerns and watches."""
    num = "{:.3f}".format
    name = ((doc.get("plan") or {}).get("use_case") or {}).get("name") or "LLM use case"
    defined = [r for r in doc.get("metrics") or [] if r.get("value") is not None]  # JSON form: None, never NaN
    rows = defined if all_rows else attention_rows(doc)
    shown = "" if all_rows else (
        f"; the {len(rows)} rows behind concerns and watches of {len(defined)} (--all: every row; metrics.csv and the "
        "report have them all)"
    )  # fmt: skip
    table = Table(
        title=f"evenhand: {escape(str(name))}",
        caption="floor: same-prompt noise floor; p: permutation test, Benjamini-Hochberg adjusted" + shown,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    level = (doc.get("settings") or {}).get("ci") or 0.95
    for header in ("metric", "attribute", "groups", "value", f"{level:.0%} CI", "floor", "p"):
        table.add_column(header, overflow="fold")  # wraps to the console's width: nothing is cut
    for row in rows:
        # "to", not "-": signed metrics have negative bounds ("-0.375 to 0.000", never "-0.375-0.000")
        interval = f"{num(row['ci_low'])} to {num(row['ci_high'])}" if row.get("ci_low") is not None else "-"
        floor = num(row["noise_floor"]) if row.get("noise_floor") is not None else "-"
        value = num(row["value"]) + (" (fail)" if row.get("passed") is False else "")
        p = row.get("p_adjusted")
        p_adj = "-" if p is None else ("<0.001" if p < 0.001 else num(p))
        full = row.get("full_name") or row["metric"]
        label = f"{full} ({row['metric']})" if full != row["metric"] else row["metric"]
        cells = (label, row.get("attribute") or "-", row.get("comparison") or "all", value, interval, floor, p_adj)
        table.add_row(*(escape(str(c)) for c in cells))  # attribute and group names are data, not markup
    return table


def print_undefined(console: Console, doc: Mapping[str, Any]) -> None:
    """Why some metrics are NaN: one line per attribute, each metric once with its reason (results.json keeps
    every row)."""
    for line in undefined_lines(doc.get("metrics") or []):
        _say(console, f"[dim]NaN ({escape(line.label)}):[/] {escape(line.text)}")


def print_names(console: Console, doc: Mapping[str, Any]) -> None:
    """One line per attribute whose counterfactual prompts named people: how many, and a few names used per group
    (results.json ``names`` has them all)."""
    names = doc.get("names")
    entries = names.get("attributes") if isinstance(names, Mapping) else None
    for attribute, entry in (entries or {}).items() if isinstance(entries, Mapping) else ():
        if not isinstance(entry, Mapping):
            continue
        given = entry.get("groups")
        groups: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        shown = "; ".join(f"{g}: {', '.join(str(n) for n in used[:3])}" for g, used in groups.items() if used)
        n = int(entry.get("n_prompts") or 0)
        text = f"{n} counterfactual prompt{'' if n == 1 else 's'} name a person; names used: {shown}"
        _say(console, f"[dim]names ({escape(str(attribute))}):[/] {escape(text)}")


def print_assistants(console: Console, doc: Mapping[str, Any]) -> None:
    """The LLM assistants' audits, before the results they qualify: one line each (only when a run used one)."""
    reader = (doc.get("plan") or {}).get("reader_audit")
    judge = (doc.get("judge") or {}).get("audit")
    for name, audit in (("reader", reader), ("judge", judge)):
        if isinstance(audit, Mapping):
            style = "green" if audit.get("trusted") else "yellow"
            _say(console, f"[{style}]{name} audit:[/] {escape(str(audit.get('summary')))}")


def print_assessment(console: Console, doc: Mapping[str, Any], *, all_rows: bool = False) -> None:
    """Everything ``evenhand assess`` prints about the results, in the report's order: after the verdict, the metric
    rows behind its concerns and watches (``all_rows``, ``--all``: every row; metrics.csv and the report always
    have every row)."""
    print_assistants(console, doc)
    print_verdict(console, doc)
    defined = sum(row.get("value") is not None for row in doc.get("metrics") or [])
    if defined and (all_rows or attention_rows(doc)):  # no empty table
        console.print(summary_table(doc, all_rows=all_rows))
    elif defined:
        _say(console, f"[dim]metrics:[/] no row behind a concern or watch; {defined} rows in metrics.csv and the "
                      "report (--all prints them)")  # fmt: skip
    print_undefined(console, doc)
    print_names(console, doc)
    for caveat in doc.get("caveats") or []:
        _say(console, f"[yellow]caveat:[/] {escape(str(caveat))}")
