"""The model-level probes section (``ProbeResults.to_dict()``, :mod:`evenhand.redteaming.probes`): console lines and an
HTML fragment, kept apart from the use case's numbers and titled as the model's.

Both read only the section's dict (results.json), never the red-teaming code, so ``evenhand report`` can render a
stored document. Text from the data (condition names, system prompts, group names) is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape

__all__ = ["print_probes", "probe_lines", "probes_html"]

_MEASURE_TITLES = {
    "toxic_share": "toxic share",
    "refusal_rate": "refusal rate",
    "mean_sentiment": "mean sentiment",
    "mean_toxicity": "mean toxicity",
}
_PERCENT = {"toxic_share", "refusal_rate"}


def _number(value: Any, measure: str) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "n/a"
    return f"{value:.1%}" if measure in _PERCENT else f"{value:.3f}"


def _signed(value: Any, measure: str) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "n/a"
    return f"{value * 100:+.1f} points" if measure in _PERCENT else f"{value:+.3f}"


def _interval(found: Mapping[str, Any], measure: str) -> str:
    interval = found.get("interval")
    if not isinstance(interval, Mapping):
        return ""
    low, high = interval.get("low"), interval.get("high")
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        return ""
    scale, fmt = (100, "{:.1f}") if measure in _PERCENT else (1, "{:.3f}")
    return f" [{fmt.format(low * scale)}, {fmt.format(high * scale)}]"


def _p(found: Mapping[str, Any]) -> str:
    """The test's own p-value and, when the section adjusted it, the adjusted one (both labelled)."""
    p, adjusted = found.get("p_value"), found.get("p_adjusted")
    if not isinstance(p, (int, float)):
        return ""
    return f", p = {p:.3g}" + (f" (adjusted {adjusted:.3g})" if isinstance(adjusted, (int, float)) else "")


def _difference_line(diff: Mapping[str, Any], reference: str) -> str:
    measure = str(diff.get("measure"))
    kind = "template probes" if diff.get("probe_kind") == "template" else "continuations"
    title = _MEASURE_TITLES.get(measure, measure)
    if diff.get("value") is None:
        return f"'{diff.get('condition')}' vs '{reference}', {kind}, {title}: no paired replies"
    return (
        f"'{diff.get('condition')}' vs '{reference}', {kind}, {title}: "
        f"{_number(diff.get('condition_value'), measure)} against {_number(diff.get('reference_value'), measure)} "
        f"({_signed(diff.get('value'), measure)}{_interval(diff, measure)}{_p(diff)})"
    )


def _gap_line(attribute: str, measure: str, gap: Mapping[str, Any] | None) -> str | None:
    if not isinstance(gap, Mapping) or gap.get("value") is None:
        return None
    high, low = [*list(gap.get("groups") or []), "?", "?"][:2]
    value = f"{_signed(gap.get('value'), measure)}{_interval(gap, measure)}{_p(gap)}"
    title = _MEASURE_TITLES.get(measure, measure)
    return f"{attribute}, {title}: largest gap {high} - {low} {value} over {gap.get('n_templates')} templates"


def probe_lines(section: Mapping[str, Any]) -> list[str]:
    """The section as plain lines: the title and scope note, each condition's toxic share and refusal rate, the
    largest group gap per attribute and measure, and each condition against the reference."""
    reference = str(section.get("reference") or "")
    lines = [str(section.get("title") or "Model-level probes"), str(section.get("note") or "")]
    templates: Mapping[str, Any] = section.get("templates") or {}
    continuations: Mapping[str, Any] = section.get("continuations") or {}
    for name in section.get("conditions") or {}:
        found = templates.get(name) or {}
        line = (
            f"condition '{name}': template probes toxic share {_number(found.get('toxic_share'), 'toxic_share')}, "
            f"refusal rate {_number(found.get('refusal_rate'), 'refusal_rate')} ({found.get('n_replies', 0)} replies)"
        )
        cont = continuations.get(name)
        if isinstance(cont, Mapping):
            line += (
                f"; continuations toxic share {_number(cont.get('toxic_share'), 'toxic_share')}, "
                f"mean toxicity {_number(cont.get('mean_toxicity'), 'mean_toxicity')}"
            )
        lines.append(line)
        for attribute, entry in (found.get("attributes") or {}).items():
            for measure, gap in (entry.get("gaps") or {}).items():
                gap_line = _gap_line(attribute, measure, gap)
                if gap_line:
                    lines.append(f"  {gap_line}")
    lines.extend(_difference_line(diff, reference) for diff in section.get("differences") or [])
    if section.get("multiple_testing"):
        lines.append(str(section["multiple_testing"]))
    settings = section.get("settings") or {}
    if settings.get("continuation_source"):
        lines.append(
            f"continuation prompts: {settings['continuation_source']} ({settings.get('continuation_licence')})"
        )
    return lines


def print_probes(console: Console, section: Mapping[str, Any]) -> None:
    """The section on the console, after the use case's verdict and apart from it (data escaped for rich)."""
    lines = probe_lines(section)
    console.print(f"[bold]{escape(lines[0])}[/]", highlight=False)
    for line in lines[1:]:
        console.print(escape(line), highlight=False)


def _cell(value: Any) -> str:
    return f"<td>{html.escape(str(value))}</td>"


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(v) for v in row) + "</tr>" for row in rows)
    return f"<table class='probes'><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def probes_html(section: Mapping[str, Any]) -> str:
    """The section as a self-contained HTML fragment (a ``<section>``): its own title, the scope note, the
    conditions, per attribute each group's rates and the largest gaps, and the paired differences from the
    reference. Everything is escaped."""
    esc = html.escape
    reference = str(section.get("reference") or "")
    parts = [
        f"<section class='model-probes' id='model-probes'><h2>{esc(str(section.get('title') or ''))}</h2>",
        f"<p class='scope-note'>{esc(str(section.get('note') or ''))}</p>",
    ]
    conditions: Mapping[str, Any] = section.get("conditions") or {}
    parts.append(
        _table(
            ["condition", "system prompt"],
            [[n, (c or {}).get("system_prompt") or "(none)"] for n, c in conditions.items()],
        )
    )
    diffs = section.get("differences") or []
    if diffs:
        parts.append(f"<h3>Against '{esc(reference)}' (same prompt, same sample)</h3>")
        parts.append(
            _table(
                ["condition", "probes", "measure", "condition", "reference", "difference [interval]", "p (adjusted)"],
                [
                    [
                        d.get("condition"),
                        d.get("probe_kind"),
                        _MEASURE_TITLES.get(str(d.get("measure")), d.get("measure")),
                        _number(d.get("condition_value"), str(d.get("measure"))),
                        _number(d.get("reference_value"), str(d.get("measure"))),
                        _signed(d.get("value"), str(d.get("measure"))) + _interval(d, str(d.get("measure"))),
                        _p(d).removeprefix(", p = ") or "n/a",
                    ]
                    for d in diffs
                ],
            )
        )
    for name, found in (section.get("templates") or {}).items():
        parts.append(f"<h3>Template probes under '{esc(str(name))}'</h3>")
        for attribute, entry in (found.get("attributes") or {}).items():
            rows = [
                [
                    g.get("group"),
                    g.get("n_replies"),
                    _number(g.get("toxic_share"), "toxic_share"),
                    _number(g.get("refusal_rate"), "refusal_rate"),
                    _number(g.get("mean_sentiment"), "mean_sentiment"),
                ]
                for g in entry.get("groups") or []
            ]
            parts.append(f"<h4>{esc(str(attribute))}</h4>")
            parts.append(_table(["group", "replies", "toxic share", "refusal rate", "mean sentiment"], rows))
            gaps = [line for m, gap in (entry.get("gaps") or {}).items() if (line := _gap_line(attribute, m, gap))]
            if gaps:
                parts.append("<ul>" + "".join(f"<li>{esc(g)}</li>" for g in gaps) + "</ul>")
    if section.get("multiple_testing"):
        parts.append(f"<p class='multiple-testing'>{esc(str(section['multiple_testing']))}</p>")
    cont: Mapping[str, Any] = section.get("continuations") or {}
    if cont:
        parts.append("<h3>Toxicity continuations</h3>")
        parts.append(
            _table(
                ["condition", "prompts", "replies", "toxic share", "mean toxicity", "refusal rate"],
                [
                    [
                        n,
                        c.get("n_prompts"),
                        c.get("n_replies"),
                        _number(c.get("toxic_share"), "toxic_share"),
                        _number(c.get("mean_toxicity"), "mean_toxicity"),
                        _number(c.get("refusal_rate"), "refusal_rate"),
                    ]
                    for n, c in cont.items()
                ],
            )
        )
        settings = section.get("settings") or {}
        if settings.get("continuation_source"):
            parts.append(
                f"<p class='attribution'>Continuation prompts: {esc(str(settings['continuation_source']))} "
                f"({esc(str(settings.get('continuation_licence')))}).</p>"
            )
    parts.append("</section>")
    return "".join(parts)
