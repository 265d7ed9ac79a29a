"""The self-contained HTML report, rendered from an assessment's JSON document (schema ``evenhand/assessment``).

One file, no JavaScript, no CDN: CSS and SVG charts are inline, and all text (LLM responses included) goes
through Jinja2's autoescaping, so a ``<script>`` inside a response is shown, never run.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup

from evenhand._redact import redact_mapping
from evenhand.errors import InputError
from evenhand.registry import FAMILIES, METRICS
from evenhand.registry import metric as registry_metric
from evenhand.report import plots
from evenhand.report.digest import digest, evidence_line, example_caption, undefined_lines
from evenhand.report.numbers import impact_part, numbers_part
from evenhand.report.probes import probes_html

__all__ = ["render_html", "write_html"]


def _family_title(family: str) -> str:
    spec = FAMILIES.get(family)
    return f"{spec.title} (§{spec.section})" if spec is not None else family


def _title(metric: str) -> str:
    try:
        return registry_metric(metric).title
    except KeyError:  # a results file from another version
        return metric


def _signed(metric: str) -> bool:
    try:
        return registry_metric(metric).signed
    except KeyError:  # a results file from another version
        return False


def _rate_name(metric: str) -> str:
    try:
        return registry_metric(metric).rate or "rate"
    except KeyError:  # a results file from another version
        return "rate"


def template_environment() -> Environment:
    """The jinja2 environment of every evenhand page (autoescaped; the report's number filters)."""
    env = Environment(
        loader=PackageLoader("evenhand.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True, default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _fmt
    env.filters["pval"] = _fmt_p
    return env


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    if isinstance(value, (int, float)):
        return f"{value:.{digits}f}"
    return str(value)


def _fmt_p(value: Any) -> str:
    """p-values: three decimals, and "<0.001" rather than a misleading 0.000."""
    if isinstance(value, (int, float)) and math.isfinite(value) and 0 <= value < 0.001:
        return "<0.001"
    return _fmt(value)


def _or(value: Any, default: float) -> float:
    return default if value is None else float(value)


def _axis_max(items: list[tuple[str, Any]]) -> float:
    """Bar axis zoomed to the data (scores of a few hundredths would otherwise be invisible on [0, 1])."""
    top = max([float(v) for _, v in items if v is not None and math.isfinite(float(v))] + [0.05])
    return min(1.0, top * 1.15)


def _axis_note(items: list[tuple[str, Any]]) -> str:
    top = _axis_max(items)
    return "" if top >= 1.0 else f"The axis runs from 0 to {top:.2g} (of 1)."


def _figures(doc: dict[str, Any]) -> list[dict[str, Any]]:
    from evenhand.pipeline.families import GROUP_MEANS  # what each family summarises per group, and how it is drawn

    figures: list[dict[str, Any]] = []
    groups = doc.get("groups") or []
    settings = doc.get("settings") or {}
    by_attr: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for g in groups:
        if g.get("kind") == "counterfactual":
            by_attr[str(g["attribute"])].append(g)
    for attribute, entries in by_attr.items():
        for mean in GROUP_MEANS:
            if mean.chart is None or all(e.get(mean.key) is None for e in entries):
                continue
            items = [(str(e["group"]), e.get(mean.key)) for e in entries]
            scale = (settings.get(mean.scale_setting) if mean.scale_setting else None) or "as scored"
            words = {"attribute": attribute, "scale": scale, "direction": _scale_direction(scale),
                     "axis_note": _axis_note(items)}  # fmt: skip
            title, caption = mean.chart
            figures.append(
                {
                    "svg": plots.bar_chart(items, title=title.format(**words), xmax=_axis_max(items)),
                    "caption": caption.format(**words),
                }
            )
    rates: dict[tuple[str, str, str], list[tuple[str, float | None]]] = defaultdict(list)
    for g in groups:
        if g.get("kind") == "rate":
            key = (str(g["metric"]), str(g["attribute"]), str(g.get("comparison") or "all"))
            rates[key].append((str(g["group"]), g.get("rate")))
    for (metric, attribute, comparison), items in rates.items():
        scope = attribute if comparison == "all" else f"{attribute}, {comparison}"
        figures.append(
            {
                "svg": plots.bar_chart(items, title=f"{_title(metric)}: {_rate_name(metric)} by group ({scope})"),
                "caption": f"{metric} is the largest difference between these rates; a group without the rows a "
                "rate needs shows n/a.",
            }
        )
    charts = _pair_value_charts()  # registry family -> (title, caption), as the families declare them
    similar: dict[tuple[tuple[str, str], str], list[tuple[str, float | None]]] = defaultdict(list)
    colours: dict[tuple[tuple[str, str], str], list[str]] = defaultdict(list)
    for row in doc.get("metrics") or []:
        chart = charts.get(str(row.get("family")))
        if chart is not None and row.get("comparison") != "all":
            chart_key = (chart, str(row.get("attribute")))
            similar[chart_key].append((f"{row['metric']} · {row['comparison']}", row.get("value")))
            colours[chart_key].append(str(row["metric"]))
    for (chart, attribute), items in similar.items():
        title, caption = chart
        figures.append(
            {
                "svg": plots.bar_chart(
                    items,
                    title=title.format(attribute=attribute),
                    color_by=colours[(chart, attribute)],  # one colour per metric
                ),
                "caption": caption,
            }
        )
    bins = doc.get("bins") or [i / 10 for i in range(11)]
    dists: dict[str, list[tuple[str, list[int]]]] = defaultdict(list)
    for d in doc.get("distributions") or []:
        label = str(d["group"]) if d.get("attribute") is None else f"{d['attribute']}: {d['group']}"
        dists[str(d["score"])].append((label, list(d["counts"])))
    for score, series in dists.items():
        figures.append(
            {
                "svg": plots.histograms(series, title=f"Distribution of {score} scores", bins=bins),
                "caption": f"Share of responses per {score} score bin, for the original prompts and each "
                "counterfactual group.",
            }
        )
    figures.extend(_pair_scatters(doc.get("pairs") or []))
    return figures


def _pair_scatters(pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The scatter of results.json ``pairs``, drawn as the family that declares it says (``Family.pair_scatter``)."""
    from evenhand.pipeline.families import PAIR_SCATTER

    if PAIR_SCATTER is None:
        return []
    scatter, figures = PAIR_SCATTER, []
    for p in pairs:
        points = p.get("points") or []
        if points:
            words = {"attribute": p["attribute"], "group_a": p["group_a"], "group_b": p["group_b"]}
            figures.append(
                {
                    "svg": plots.scatter(
                        points,
                        title=scatter.title.format(**words),
                        xlabel=scatter.xlabel.format(**words),
                        ylabel=scatter.ylabel.format(**words),
                    ),
                    "caption": scatter.caption,
                }
            )
    return figures


def _metric_sections(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One table per family, of the rows with a value; its undefined (NaN) rows as one line per attribute under
    it (dozens of NaN rows of one metric would bury the rest; results.json keeps each row)."""
    sections: dict[str, list[dict[str, Any]]] = defaultdict(list)
    undefined: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in doc.get("metrics") or []:
        if row.get("value") is None:
            undefined[str(row.get("family"))].append(row)
            sections.setdefault(str(row.get("family")), [])
            continue
        row = dict(row)
        lo, hi = _or(row.get("range_low"), 0.0), _or(row.get("range_high"), 1.0)
        if row.get("range_low") is None and row.get("range_high") is None:  # a difference in the answers' unit
            seen = [float(v) for v in (row.get("value"), row.get("ci_low"), row.get("ci_high"), 0.0) if v is not None]
            lo, hi = min(seen), max(seen)
        row["strip"] = plots.interval_strip(
            row.get("value"),
            row.get("ci_low"),
            row.get("ci_high"),
            lo=lo,
            hi=hi,
            # a signed gap's floor is a spread, not a point of its axis: only a similarity's floor is drawn on it
            baseline=row.get("noise_floor") if not _signed(str(row.get("metric"))) else None,
            label=str(row.get("metric")),
        )
        sections[str(row.get("family"))].append(row)
    return [
        {
            "title": _family_title(f),
            "rows": rows,
            # only the columns this family can fill: a wide table hides the notes that explain NaNs
            "noise": f in _always_noise_floor() or any(r.get("noise_floor") is not None for r in rows),
            "tests": any(r.get("p_value") is not None for r in rows),
            # group A minus group B behind a distance of two groups (evenhand.pipeline.evidence.signed_differences)
            "signed": any(r.get("signed_difference") is not None for r in rows),
            # a gap corrected for the scorer's per-group error (evenhand.pipeline.evidence.scorer_error), beside it
            "corrected": any(r.get("corrected_value") is not None for r in rows),
            "undefined": undefined_lines(undefined[f]),
        }
        for f, rows in sections.items()
    ]


def _pair_value_charts() -> dict[str, tuple[str, str]]:
    """Registry family -> the bar chart of its pairwise values (title, caption), for the families that declare one."""
    from evenhand.pipeline.families import FAMILY_TYPES

    return {
        name: family.pair_value_chart
        for family in FAMILY_TYPES
        if family.pair_value_chart is not None
        for name in family.metric_families
    }


def _always_noise_floor() -> set[str]:
    """The registry families whose table shows the noise-floor columns even without a floor (the families say)."""
    from evenhand.pipeline.families import FAMILY_TYPES

    return {name for family in FAMILY_TYPES for name in family.noise_floor_families}


def _example_sections(worst: dict[str, Any]) -> list[dict[str, Any]]:
    """The worst examples of the document, one part per kind the families declare
    (:class:`~evenhand.pipeline.families.examples.ExampleSection`), in the families' order; kinds this version does
    not know (a results file from another one) are left out."""
    from evenhand.pipeline.families import FAMILY_TYPES

    parts = []
    for family in FAMILY_TYPES:
        for section in family.example_sections:
            examples = worst.get(section.key)
            if examples:
                intro = Markup(section.intro.format(n=len(examples)))  # the families' own text, not data
                parts.append({"section": section, "examples": examples, "intro": intro})
    return parts


def _plan_lines(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan as one expandable line per attribute (the use case's own metrics, such as toxicity, first)."""
    ftu = plan.get("ftu") or {}
    names: list[str | None] = [None, *ftu]
    for item in [*(plan.get("metrics") or []), *(plan.get("not_applicable") or [])]:
        if item.get("attribute") not in names:
            names.append(item.get("attribute"))
    lines = []
    for name in names:
        metrics = [m for m in plan.get("metrics") or [] if m.get("attribute") == name]
        skipped = [n for n in plan.get("not_applicable") or [] if n.get("attribute") == name]
        if metrics or skipped or name in ftu:
            lines.append({"attribute": name, "ftu": ftu.get(name) if name else None, "metrics": metrics,
                          "skipped": skipped})  # fmt: skip
    return lines


def _named_people(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """results.json ``names``: per attribute whose counterfactual prompts named people, the names found and each
    group's names used (at most 12 shown per group); empty for a results file without them."""
    names = doc.get("names")
    entries = names.get("attributes") if isinstance(names, dict) else None
    if not isinstance(entries, dict):
        return []
    out = []
    for attribute, entry in entries.items():
        if not isinstance(entry, dict):
            continue
        given = entry.get("groups")
        groups: dict[str, Any] = given if isinstance(given, dict) else {}
        shown = [(str(g), [str(n) for n in used[:12]] + ([f"and {len(used) - 12} more"] if len(used) > 12 else []))
                 for g, used in groups.items() if isinstance(used, list)]  # fmt: skip
        signals = {"names": "by personal names", "words and names": "by words and by personal names"}
        out.append(
            {
                "attribute": str(attribute),
                "signals": "groups signalled " + signals.get(str(entry.get("signals")), "by personal names"),
                "n_prompts": int(entry.get("n_prompts") or 0),
                "found": [str(n) for n in (entry.get("found") or [])[:12]],
                "groups": shown,
            }
        )
    return out


def _scale_direction(scale: str) -> str:
    """Which way a chart's bars point, from the scorer's own description of its scale (empty when it says not)."""
    if "1 = most positive" in scale:
        return " (higher = more positive)"
    if "1 = most negative" in scale:
        return " (higher = more negative)"
    return ""


def render_html(doc: dict[str, Any]) -> str:
    """Render the report from an assessment document (``Assessment.to_dict()`` or a loaded results JSON)."""
    if not isinstance(doc, dict) or "metrics" not in doc or "plan" not in doc:
        raise InputError("render_html needs an evenhand assessment document (with 'plan' and 'metrics')")
    # a results file written by an older version (or by hand) may carry credentials in its model description
    doc = {**doc, "model": redact_mapping(doc.get("model") or {})}
    template = template_environment().get_template("report.html.j2")
    css = Markup((Path(__file__).parent / "templates" / "report.css").read_text(encoding="utf-8"))
    return template.render(
        doc=doc,
        plan=doc["plan"],
        use_case=doc["plan"].get("use_case", {}),
        sections=_metric_sections(doc),
        figures=_figures(doc),
        # the metrics table already carries the tests that are one per row (sentiment swaps, noise-floor swaps,
        # co-occurrence shuffles); list the rate tests, several per metric row (one per pair of groups, with rates)
        tests=[t for t in doc.get("tests") or [] if t.get("rate_a") is not None or t.get("rate_b") is not None],
        worst=doc.get("worst_examples") or {},
        example_sections=_example_sections(doc.get("worst_examples") or {}),
        verdict=doc.get("verdict"),  # absent in results of schema 1
        digest=digest(doc),  # the headlines, the findings that need attention, the ok ones folded per attribute
        evidence_line=evidence_line,
        example_caption=example_caption,
        plan_lines=_plan_lines(doc["plan"]),
        named_people=_named_people,
        severity_badge={"concern": "fail", "watch": "warn", "ok": "ok", "not judged": "warn"},
        full_names={key: spec.title for key, spec in METRICS.items()},
        titles={spec.name: spec.title for spec in METRICS.values()},
        probes_section=Markup(probes_html(doc["probes"])) if doc.get("probes") else None,  # evenhand redteam
        numbers=numbers_part(doc),  # numeric outcomes (task estimation)
        impact=impact_part(doc),  # the NYC Local Law 144 table
        css=css,
    )


def write_html(doc: dict[str, Any], path: str | os.PathLike[str]) -> Path:
    """Render and write the report; returns the path."""
    from evenhand._files import write_text

    return write_text(path, render_html(doc))
