"""What the command line prints as results: the FTU table of the demo and the plan (the verdict of an assessment
is :mod:`evenhand.report.console`'s). Every cell that comes from data is escaped: prompts are not rich markup."""

from __future__ import annotations

import textwrap
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from evenhand.registry import METRICS


def ftu_table(prompts: list[str], attributes: list[str]) -> Table:
    """Per attribute: is FTU satisfied, how many prompts mention it, and an example counterfactual pair."""
    from evenhand.text.counterfactual import counterfactual_prompts
    from evenhand.text.ftu import check_ftu

    table = Table(title="Fairness through unawareness (FTU) and counterfactual prompts")
    for name in ("attribute", "FTU satisfied", "prompts mentioning it", "groups", "example (first two groups)"):
        table.add_column(name, overflow="fold")
    for attribute in attributes:
        ftu = check_ftu(prompts, attribute=attribute)
        example = ""
        groups: tuple[str, ...] = ()
        if not ftu.satisfied:
            cf = counterfactual_prompts(prompts, attribute=attribute)
            groups = tuple(cf.groups)
            if len(cf):
                shown = [(g, str(cf[g][0])) for g in groups[:2]]
                example = " / ".join(f"{g}: {textwrap.shorten(text, 48, placeholder=' …')}" for g, text in shown)
        verdict = "not assessable" if not ftu.assessable else "yes" if ftu.satisfied else "no"
        cells = (attribute, verdict, f"{ftu.n_flagged} of {len(prompts)}", ", ".join(groups), example)
        table.add_row(*(escape(c) for c in cells))  # prompts and group names are data, not markup
    return table


def print_plan(console: Console, result: Any, task: str, estimate: Any = None) -> None:
    """The plan as the console shows it: FTU checks, the metrics table, what does not apply, notes, caveats and
    the generation estimate."""
    table = Table(title=f"Plan: {task.replace('_', ' ')}")
    for name in ("metric", "attribute", "reason"):
        table.add_column(name, overflow="fold")
    for m in result.metrics:
        table.add_row(escape(METRICS[m.key].title), escape(m.attribute or "-"), escape(m.reason))
    for f in result.ftu.values():
        console.print(f"- {escape(f.describe())}", highlight=False)
    console.print(table)
    for n in result.not_applicable:
        scope = f"{n.family} ({n.attribute or 'all'})"
        console.print(f"[dim]not applicable:[/] {escape(scope)}: {escape(n.reason)}", highlight=False)
    for note in result.notes:
        console.print(f"[dim]note:[/] {escape(note)}", highlight=False)
    for caveat in result.caveats:
        console.print(f"[yellow]caveat:[/] {escape(caveat)}", highlight=False)
    for line in estimate.lines() if estimate is not None else []:
        console.print(f"[bold]estimate:[/] {escape(line)}", highlight=False)
