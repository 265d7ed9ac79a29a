"""The comparison as a self-contained HTML page (``compare.html.j2`` with the report's stylesheet) and as a rich
table for the terminal. Both read the JSON document (``RunComparison.to_dict()``), so a comparison.json renders
the same page as the object that wrote it."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from markupsafe import Markup

from evenhand.comparison.schema import SCHEMA
from evenhand.errors import InputError

#: change -> CSS badge class of the report's stylesheet
BADGES = {"worse": "fail", "improved": "ok", "mixed": "warn", "no clear change": "na", "not comparable": "na"}
FINDING_BADGES = {"concern": "fail", "watch": "warn", "ok": "ok"}


def fmt(value: Any, digits: int = 3) -> str:
    """A number with ``digits`` decimals, "–" when undefined."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:.{digits}f}"
    return str(value)


def fmt_signed(value: Any, digits: int = 3) -> str:
    text = fmt(value, digits)
    return text if text == "–" or text.startswith("-") else f"+{text}"


def interval(bounds: Any, signed: bool = False) -> str:
    """``[0.120, 0.310]`` or "" when either bound is missing."""
    if not bounds or any(b is None for b in bounds):
        return ""
    f = fmt_signed if signed else fmt
    return f"[{f(bounds[0])}, {f(bounds[1])}]"


def _check(doc: Any) -> None:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(f"render_comparison_html needs a comparison document (schema {SCHEMA!r})")


def render_comparison_html(doc: dict[str, Any]) -> str:
    """The comparison page: verdict on the difference first, then findings, then every metric row."""
    _check(doc)
    from evenhand.report import template_environment

    env = template_environment()
    env.filters["num"] = fmt
    env.filters["signed"] = fmt_signed
    env.filters["interval"] = interval
    css = Markup((Path(__file__).parent.parent / "report" / "templates" / "report.css").read_text(encoding="utf-8"))
    labels = [run["label"] for run in doc["runs"]]
    return env.get_template("compare.html.j2").render(
        doc=doc, labels=labels, others=labels[1:], css=css, badges=BADGES, finding_badges=FINDING_BADGES
    )


def terminal_table(doc: dict[str, Any]) -> Any:
    """A rich Table: one line per metric row, each run's value, then each run's difference from the baseline."""
    from rich import box
    from rich.table import Table

    labels = [run["label"] for run in doc["runs"]]
    table = Table(box=box.SIMPLE_HEAD, show_edge=False)
    for name in ("metric", "attribute", "groups", *labels):
        table.add_column(name, justify="right" if name in labels else "left", overflow="fold")
    for label in labels[1:]:  # cells fold to the console's width (issue 37): nothing is cut
        table.add_column(f"{label} - {labels[0]} [{doc['settings']['ci']:.0%}]", justify="right", overflow="fold")
        table.add_column(f"{label}: change / method", overflow="fold")
    for row in doc["metrics"]:
        signed = row.get("signed")  # a gap between two groups, shown with its sign (docs/compare.md)
        groups = f"{' − '.join(signed['groups'])} (signed)" if signed else row["comparison"]
        cells = [row["metric"], row["attribute"] or "–", groups]
        if signed:
            cells += [fmt_signed(signed["values"].get(label, row["values"].get(label))) for label in labels]
        else:
            stored = (row.get("signed_stored") or {}).get("values") or {}  # absent from comparisons of older files
            cells += [_with_stored(fmt(row["values"].get(label)), stored.get(label)) for label in labels]
        for diff in row["differences"]:
            bounds = interval([diff["ci_low"], diff["ci_high"]], signed=True)
            cells.append(f"{fmt_signed(diff['difference'])} {bounds}".strip())
            cells.append(_change_cell(diff))
        table.add_row(*cells)
    return table


def _change_cell(diff: dict[str, Any]) -> str:
    """``no clear change (paired)``; a row that is not comparable says why instead of its method ("none"):
    ``not comparable: undefined in both runs (no target word co-occurs with words of both groups)``."""
    if diff["change"] == "not comparable" and diff.get("note"):
        return f"not comparable: {diff['note']}"
    return f"{diff['change']} ({diff['method']})"


def _with_stored(value: str, stored: Any) -> str:
    """A run's value and, when its results stored one, the signed difference behind it: ``0.295 (−0.295 signed)``."""
    return value if not stored else f"{value} ({fmt_signed(stored[0])} signed)"
