"""The report's parts for results.json sections that only some runs have: ``numbers`` (numeric outcomes: each group's
numbers and their distribution) and ``impact_ratios`` (the NYC Local Law 144 table). Each part is None for a
document without its section, so a report without them is what it always was."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from evenhand.report import plots
from evenhand.text.numbers import format_amount


def numbers_part(doc: dict[str, Any]) -> dict[str, Any] | None:
    """Per attribute: each group's replies, numbers, refusals and non-numbers, mean and median in the answers'
    currency or unit, and one histogram per group of each reply's number relative to its prompt's mean."""
    numbers = doc.get("numbers")
    if not isinstance(numbers, dict):
        return None
    currency, unit = numbers.get("currency"), numbers.get("unit")
    bins = numbers.get("bins") or []

    def show(x: Any) -> str:
        return "–" if x is None else format_amount(float(x), currency=currency, unit=unit)

    attributes = []
    for entry in numbers.get("attributes") or []:
        groups = entry.get("groups") or []
        rows = [{**g, **{f"{k}_shown": show(g.get(k)) for k in ("mean", "median", "sd")}} for g in groups]
        series = [(str(g["group"]), list(g.get("counts") or [])) for g in groups]
        svg = plots.histograms(series, title=f"Numbers relative to their prompt's mean ({entry['attribute']})",
                               bins=bins) if series and bins else None  # fmt: skip
        attributes.append({"attribute": entry["attribute"], "rows": rows, "svg": svg})
    read = []
    if numbers.get("json_field"):
        read.append(f"from the JSON field {numbers['json_field']!r}")
    if currency or unit:
        read.append(f"in {' '.join(str(x) for x in (currency, unit) if x)}")
    better = numbers.get("better")
    return {
        "attributes": attributes,
        "read": ", ".join(read),
        "better": f"a {better} number favours the person" if better else "",
        "low": bins[0] if bins else None,
        "high": bins[-1] if bins else None,
    }


def impact_part(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The impact-ratio table with its counts, the categories left out (2% rule), the unknown counts and the caveat."""
    table = doc.get("impact_ratios")
    if not isinstance(table, dict):
        return None
    return {
        "rate": table.get("rate", "rate"),
        "kind": table.get("kind"),
        "median": table.get("median"),
        "rows": table.get("rows") or [],
        "assessed": table.get("assessed"),
        "no_outcome": table.get("no_outcome"),
        "unknown": table.get("unknown") or {},
        "min_share": table.get("min_share"),
        "caveat": Markup.escape(table.get("caveat") or ""),
    }
