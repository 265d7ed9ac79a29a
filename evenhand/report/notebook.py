"""Rich display in Jupyter: the HTML behind ``_repr_html_`` of
:class:`~evenhand.pipeline.results.assessment.Assessment`,
:class:`~evenhand.framework.Plan`, :class:`~evenhand.pipeline.verdict.findings.Verdict`,
:class:`~evenhand.metrics._result.MetricResult` and :class:`~evenhand.comparison.RunComparison`.

Each fragment renders the object's document (its ``to_dict()``), as the report renders results.json: the core
objects never render themselves. Their ``_repr_html_`` reaches :func:`notebook_html` through
:mod:`evenhand._display`, where the facade (``evenhand/__init__.py``) registers it.

Every fragment is self-contained (inline styles, no JavaScript, no external resources) and escapes all text that
comes from the user or the data (group names, prompts, reasons). A plan never shows its prompts, only their count;
an assessment shows the verdict first, then a compact metrics table; the full report is ``a.to_html(path)``.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from evenhand._json import float_or_none
from evenhand.framework import Plan
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.verdict.findings import SEVERITIES, Verdict
from evenhand.pipeline.verdict.thresholds import ThresholdCheck
from evenhand.registry import METRICS

#: A core object's document (``to_dict()``), or a results file's part that has the same keys.
Document = Mapping[str, Any]

_BOX = (
    "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;"
    "line-height:1.45;max-width:980px;border:1px solid #d0d7de;border-radius:6px;padding:10px 14px;margin:4px 0"
)
_H = "margin:2px 0 6px 0;font-size:15px;font-weight:600"
_H2 = "margin:10px 0 4px 0;font-size:13px;font-weight:600"
_MUTED = "color:#57606a"
_TABLE = "border-collapse:collapse;font-size:12px;margin:4px 0"
_TH = "text-align:left;padding:3px 8px;border-bottom:1px solid #d0d7de;background:#f6f8fa;font-weight:600"
_TD = "text-align:left;padding:2px 8px;border-bottom:1px solid #eaeef2;vertical-align:top"
_TDN = _TD.replace("text-align:left", "text-align:right") + ";font-variant-numeric:tabular-nums;white-space:nowrap"
_CODE = "font-family:SFMono-Regular,Consolas,Menlo,monospace;font-size:12px;background:#f6f8fa;padding:0 3px"
_COLOURS = {
    "concern": ("#cf222e", "#ffebe9"),
    "watch": ("#9a6700", "#fff8c5"),
    "ok": ("#1a7f37", "#dafbe1"),
    "not judged": ("#9a6700", "#fff8c5"),
}
_REPORT = html.escape('a.to_html("report.html")')
_WORDS = {"concern": "concern", "watch": "watch", "ok": "ok", "not judged": "not judged"}


def _e(value: Any) -> str:
    """Escaped text (quotes too: the value may land in an attribute)."""
    return html.escape(str(value), quote=True)


def _text(value: Any) -> str:
    """A table's text cell: "" for None and NaN (what pandas puts in an empty object column)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)


def _badge(severity: str, text: str | None = None) -> str:
    fg, bg = _COLOURS.get(severity, ("#57606a", "#eaeef2"))
    style = (
        f"display:inline-block;padding:1px 8px;border-radius:10px;font-size:11px;font-weight:600;"
        f"text-transform:uppercase;letter-spacing:.03em;color:{fg};background:{bg};border:1px solid {fg}"
    )
    return f'<span style="{style}">{_e(text or _WORDS.get(severity, severity))}</span>'


def _fmt(x: Any, digits: int = 3) -> str:
    """A number for a table cell: 3 significant digits, an em dash when missing or undefined."""
    f = float_or_none(x)
    if f is None:
        return "&mdash;"
    if math.isinf(f):
        return "&infin;" if f > 0 else "&minus;&infin;"
    return _e(f"{f:.{digits}g}")


def _p(x: Any) -> str:
    f = float_or_none(x)
    if f is None:
        return "&mdash;"
    return "&lt; 0.001" if f < 0.001 else _e(f"{f:.3f}")


def _interval(low: Any, high: Any) -> str:
    if _fmt(low) == "&mdash;" or _fmt(high) == "&mdash;":
        return "&mdash;"
    return f"[{_fmt(low)}, {_fmt(high)}]"


def _table(headers: Iterable[tuple[str, bool]], rows: Iterable[Iterable[str]]) -> str:
    """``headers``: (title, numeric); ``rows``: cells already escaped/formatted."""
    heads = list(headers)
    head = "".join(f'<th style="{_TH}">{_e(title)}</th>' for title, _ in heads)
    body = "".join(
        "<tr>"
        + "".join(f'<td style="{_TDN if num else _TD}">{cell}</td>' for (_, num), cell in zip(heads, row, strict=True))
        + "</tr>"
        for row in rows
    )
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _list(items: Iterable[str], style: str = "") -> str:
    lis = "".join(f"<li>{_e(item)}</li>" for item in items)
    return f'<ul style="margin:2px 0 4px 18px;padding:0;{style}">{lis}</ul>' if lis else ""


def _details(summary: str, body: str, *, open_: bool = False) -> str:
    flag = " open" if open_ else ""
    return (
        f'<details{flag} style="margin:3px 0"><summary style="cursor:pointer">{summary}</summary>'
        f'<div style="margin:3px 0 3px 16px">{body}</div></details>'
    )


# ---------------------------------------------------------------------------------------------------- dispatch
def notebook_html(obj: Any) -> str | None:
    """The notebook HTML of a core object (what its ``_repr_html_`` shows), rendered from its document; None for
    an object this module does not render (Jupyter then shows its ``repr``)."""
    for kind, render in _RENDERERS:
        if isinstance(obj, kind):
            return render(obj)
    return None


# ---------------------------------------------------------------------------------------------------- verdict
def _scope(finding: Document) -> str:
    parts = [finding["risk"]]
    if finding.get("attribute"):
        parts.append(finding["attribute"])
    if finding.get("groups"):
        parts.append(" vs ".join(finding["groups"]))
    if finding.get("class") is not None:
        parts.append(f"class {finding['class']}")
    return ", ".join(str(p) for p in parts)


def _verdict_body(verdict: Document) -> str:
    out = [
        f'<div style="margin:2px 0 6px 0">{_badge(verdict["status"])} <span style="font-weight:600;margin-left:6px">'
        f"{_e(verdict['summary'])}</span></div>"
    ]
    findings = list(verdict.get("findings") or [])
    ordered = sorted(findings, key=lambda f: SEVERITIES.index(f["severity"]))
    flagged = [f for f in ordered if f["severity"] != "ok"]
    if flagged:
        items = "".join(
            f'<li style="margin:2px 0">{_badge(f["severity"])} <b>{_e(_scope(f))}</b>: {_e(f["sentence"])}</li>'
            for f in flagged
        )
        out.append(f'<ul style="margin:2px 0 4px 0;padding:0;list-style:none">{items}</ul>')
    elif findings:
        out.append(f'<div style="{_MUTED}">No finding needs attention.</div>')
    fine = [f for f in ordered if f["severity"] == "ok"]
    if fine:
        items = "".join(f"<li><b>{_e(_scope(f))}</b>: {_e(f['sentence'])}</li>" for f in fine)
        out.append(
            _details(
                f'<span style="{_MUTED}">{len(fine)} ok</span>', f'<ul style="margin:0;padding-left:16px">{items}</ul>'
            )
        )
    if verdict.get("notes"):
        out.append(_list(verdict["notes"], _MUTED))
    return "".join(out)


def verdict_html(verdict: Document) -> str:
    """The verdict (``Verdict.to_dict()``): status badge, summary, the findings that are not ok in plain words, the
    ok ones collapsed."""
    return f'<div style="{_BOX}"><div style="{_H}">Verdict</div>{_verdict_body(verdict)}</div>'


# ---------------------------------------------------------------------------------------------------- assessment
def _metrics_table(metrics: Iterable[Document]) -> str:
    rows = []
    for r in metrics:
        name = f'{_e(r["full_name"])} <span style="{_MUTED}">({_e(r["metric"])})</span>'
        parts = (_text(r["attribute"]), _text(r["comparison"]))
        scope = ", ".join(_e(s) for s in parts if s and s != "all") or "&mdash;"
        mark = ""
        if r["passed"] in (True, False):  # None: no rule judged the row
            mark = "&#10003;" if r["passed"] else '<span style="color:#cf222e">&#10007;</span>'
        reason = _text(r["reason"])
        value = _fmt(r["value"])
        if reason and value == "&mdash;":
            value = f'<span title="{_e(reason)}">&mdash;</span>'
        rows.append(
            [
                name,
                scope,
                value,
                _interval(r["ci_low"], r["ci_high"]),
                _fmt(r["noise_floor"]),
                _p(r["p_adjusted"]),
                mark,
                f'<span style="{_MUTED}">{_e(reason)}</span>' if reason else "",
            ]
        )
    if not rows:
        return f'<div style="{_MUTED}">No metric was computed.</div>'
    headers = [
        ("metric", False),
        ("attribute / groups", False),
        ("value", True),
        ("interval", True),
        ("floor", True),
        ("adj. p", True),
        ("passed", False),
        ("note", False),
    ]
    if not any(row[6] for row in rows):
        headers.pop(6)
        rows = [row[:6] + row[7:] for row in rows]
    return _table(headers, rows)


def assessment_html(doc: Document) -> str:
    """The assessment (its results document, ``Assessment.to_dict(include_responses=False)``): the verdict first,
    then a compact metrics table, the caveats and how to get the report."""
    summary = doc["summary"]
    use_case = doc["plan"]["use_case"]
    task = str(use_case["task"]).replace("_", " ")
    facts = [
        f"{summary['n_prompts']} prompts",
        f"{summary['n_responses']} responses" + (f" ({summary['n_failed']} failed)" if summary["n_failed"] else ""),
        f"{len(doc['metrics'])} metric rows",
    ]
    passed = summary.get("passed")
    checks = [ThresholdCheck.from_dict(c) for c in doc.get("thresholds") or []]
    gate = ""
    if passed is not None:
        failed = sum(not c.passed for c in checks)
        gate = " &middot; " + (
            _badge("ok", "thresholds passed") if passed else _badge("concern", f"{failed} threshold(s) failed")
        )
    out = [
        f'<div style="{_BOX}">',
        f'<div style="{_H}">Assessment of {_e(use_case["name"])} '
        f'<span style="{_MUTED};font-weight:400">({_e(task)})</span></div>',
        f'<div style="{_MUTED};margin-bottom:6px">{_e(" · ".join(facts))}{gate}</div>',
        f'<div style="{_H2}">Verdict</div>',
        _verdict_body(doc["verdict"]),
    ]
    if passed is False:
        fails = [c.describe() + (f" ({c.reason})" if c.reason else "") for c in checks if not c.passed]
        out.append(_details(f"{len(fails)} failed threshold(s)", _list(fails), open_=True))
    out.append(f'<div style="{_H2}">Metrics</div>')
    out.append(_metrics_table(doc["metrics"]))
    audits = doc.get("scorer_audit") or {}
    if audits:  # what the scorers themselves make of identity statements (scoring.audit)
        lines = [f"{kind}: {finding}" for kind, audit in audits.items() for finding in audit["findings"]]
        out.append(f'<div style="{_H2}">Scorer audit</div>')
        out.append(_list(lines) if lines else f'<div style="{_MUTED}">no scorer scores one group apart</div>')
    if doc.get("caveats"):
        out.append(f'<div style="{_H2}">Caveats</div>')
        out.append(_list(doc["caveats"]))
    out.append(
        f'<div style="{_MUTED};margin-top:6px">The full report (figures, worst examples, response-level data): '
        f'<code style="{_CODE}">{_REPORT}</code>; the data: '
        f'<code style="{_CODE}">a.metrics</code>, <code style="{_CODE}">a.responses</code>, '
        f'<code style="{_CODE}">a.to_json(path)</code>.</div>'
    )
    out.append("</div>")
    return "".join(out)


# ---------------------------------------------------------------------------------------------------- plan
def _ftu_state(f: Document) -> tuple[str, str]:
    if not f["assessable"]:
        return "watch", "not assessable"
    if f["source"] == "answer":
        return ("ok", "stated: no mention") if f["satisfied"] else ("concern", "stated: mentioned")
    return ("ok", "holds") if f["satisfied"] else ("concern", "fails")


def plan_html(plan: Document) -> str:
    """The plan (``Plan.to_dict()``): FTU per attribute, the metrics per attribute with their reasons collapsed,
    what is not applicable; the prompts only as a count (the document never holds their text)."""
    uc = plan["use_case"]
    metrics = list(plan.get("metrics") or [])
    names = list(dict.fromkeys(m["name"] for m in metrics))
    facts = [f"{uc['n_prompts']} prompts", f"{len(metrics)} metrics ({len(names)} distinct)"]
    out = [
        f'<div style="{_BOX}">',
        f'<div style="{_H}">Plan for {_e(uc["name"])} <span style="{_MUTED};font-weight:400">'
        f"({_e(str(uc['task']).replace('_', ' '))})</span></div>",
        f'<div style="{_MUTED};margin-bottom:6px">{_e(" · ".join(facts))}</div>',
        f'<div style="{_H2}">Fairness through unawareness (FTU)</div>',
    ]
    rows = []
    for name, f in (plan.get("ftu") or {}).items():
        severity, word = _ftu_state(f)
        rows.append([_e(name), _badge(severity, word), _e(f["description"])])
    out.append(_table([("attribute", False), ("FTU", False), ("why", False)], rows) if rows else "")
    out.append(f'<div style="{_H2}">Metrics</div>')
    if not metrics:
        out.append(f'<div style="{_MUTED}">No metric applies to this use case.</div>')
    by_attribute: dict[str | None, list[Document]] = {}
    for m in metrics:
        by_attribute.setdefault(m["attribute"], []).append(m)
    for attribute, planned in by_attribute.items():
        label = attribute if attribute is not None else "whole use case"
        short = ", ".join(dict.fromkeys(m["name"] for m in planned))
        reasons: dict[str, list[str]] = {}
        for m in planned:
            spec = METRICS.get(m["key"])
            full = spec.full_name if spec is not None else m["name"]
            reasons.setdefault(m["reason"], []).append(f"{full} ({m['name']})")
        body = "".join(
            f'<div style="margin:2px 0"><b>{_e(", ".join(dict.fromkeys(shown)))}</b><br>'
            f'<span style="{_MUTED}">{_e(reason)}</span></div>'
            for reason, shown in reasons.items()
        )
        out.append(_details(f"<b>{_e(label)}</b>: {_e(short)}", body))
    skipped = list(plan.get("not_applicable") or [])
    if skipped:
        # each reason names the metrics it leaves out (framework.left_out)
        items = [
            f"{n['family']}{' (' + n['attribute'] + ')' if n['attribute'] else ''} — {n['reason']}" for n in skipped
        ]
        out.append(_details(f"Not applicable ({len(items)})", _list(items)))
    if plan.get("notes"):
        out.append(f'<div style="{_H2}">Notes</div>{_list(plan["notes"])}')
    if plan.get("caveats"):
        out.append(f'<div style="{_H2}">Caveats</div>{_list(plan["caveats"])}')
    out.append(
        f'<div style="{_MUTED};margin-top:6px">As a table: <code style="{_CODE}">plan.to_frame()</code>; '
        f'in plain text: <code style="{_CODE}">print(plan)</code>.</div></div>'
    )
    return "".join(out)


# ---------------------------------------------------------------------------------------------------- metric
def _sizes(sizes: Mapping[str, Any]) -> str:
    return ", ".join(f"{v} {k}" for k, v in sizes.items())


def metric_result_html(result: Document) -> str:
    """One metric value (``MetricResult.to_dict()``): name, value, range, direction, the reason when undefined,
    the input sizes."""
    name = result["name"]
    spec = next((s for s in METRICS.values() if s.name == name), None)
    full = spec.full_name if spec is not None else None
    low, high = result["value_range"]
    direction = "higher is fairer" if result["higher_is_fairer"] else "lower is fairer"
    if spec is not None and spec.signed:  # a signed difference (RRD, TSD, a red team's shift): 0 is fairest
        direction = "closer to 0 is fairer"
    title = _e(name) + (f' <span style="{_MUTED};font-weight:400">({_e(full)})</span>' if full else "")
    rows = [
        ["value", f"<b>{_fmt(result['value'], 4)}</b>"],
        ["range", f"[{_fmt(low)}, {_fmt(high)}], {_e(direction)}"],
    ]
    if result["reason"]:
        rows.append(["undefined because" if not result["is_defined"] else "note", _e(result["reason"])])
    if result["sizes"]:
        rows.append(["sizes", _e(_sizes(result["sizes"]))])
    if result["n_items"]:
        rows.append(["per item", _e(f"{result['n_items']} values (one per {result['item_unit']})")])
    body = "".join(f'<tr><td style="{_TD};{_MUTED}">{_e(k)}</td><td style="{_TD}">{v}</td></tr>' for k, v in rows)
    return f'<div style="{_BOX}"><div style="{_H}">{title}</div><table style="{_TABLE}">{body}</table></div>'


# ---------------------------------------------------------------------------------------------------- comparison
_CHANGE_COLOURS = {"worse": "concern", "mixed": "watch", "improved": "ok"}


def comparison_html(doc: Mapping[str, Any]) -> str:
    """A comparison of runs (``RunComparison.to_dict()``): the verdict on the difference first, then one line per
    metric row with each run's value and each run's difference from the baseline."""
    labels = [str(run["label"]) for run in doc["runs"]]
    verdict = doc["verdict"]
    status = str(verdict["status"])
    out = [
        f'<div style="{_BOX}">',
        f'<div style="{_H}">Comparison {_e(" vs ".join(labels))} '
        f'<span style="{_MUTED};font-weight:400">(baseline {_e(doc["baseline"])})</span></div>',
        f'<div style="{_H2}">Verdict on the difference: {_badge(_CHANGE_COLOURS.get(status, "na"), status)}</div>',
        _list(verdict["sentences"]),
        f'<div style="{_H2}">Metrics</div>',
    ]
    headers = [("metric", False), ("attribute", False), ("groups", False), *[(label, True) for label in labels]]
    for label in labels[1:]:
        headers += [(f"{label} − {doc['baseline']}", True), ("change", False)]
    rows = []
    for row in doc["metrics"]:
        signed = row.get("signed")  # a gap between two groups, compared with its sign: its signed values
        groups = f"{' − '.join(signed['groups'])} (signed)" if signed else row["comparison"]
        values = signed["values"] if signed else row["values"]
        cells = [_e(row["metric"]), _e(row["attribute"] or ""), _e(groups)]
        cells += [_fmt(values.get(label)) for label in labels]
        for diff in row["differences"]:
            cells.append(f"{_fmt(diff['difference'])} {_interval(diff['ci_low'], diff['ci_high'])}")
            cells.append(_badge(_CHANGE_COLOURS.get(diff["change"], "na"), diff["change"]))
        rows.append(cells)
    out.append(_table(headers, rows))
    out.append(
        f'<div style="{_MUTED};margin-top:6px">The full comparison: <code style="{_CODE}">'
        f'{_e("c.to_html(path)")}</code>, <code style="{_CODE}">c.metrics</code>, '
        f'<code style="{_CODE}">c.to_json(path)</code>.</div></div>'
    )
    return "".join(out)


#: Each core type and how its document becomes HTML (the assessment's without its responses: the view shows none).
_RENDERERS: tuple[tuple[type, Callable[[Any], str]], ...] = (
    (Assessment, lambda a: assessment_html(a.to_dict(include_responses=False))),
    (Plan, lambda p: plan_html(p.to_dict())),
    (Verdict, lambda v: verdict_html(v.to_dict())),
    (MetricResult, lambda r: metric_result_html(r.to_dict())),
)
