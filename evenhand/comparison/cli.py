"""What ``evenhand compare`` does once its arguments are parsed: compare, print the verdict on the difference
first, then the table, and write comparison.json and comparison.html (atomically) into the output folder.

Bad input (a missing or invalid results file, fewer than two files, runs of different tasks, bad labels) raises
ValueError / FileNotFoundError with one line naming the file or option; the command turns it into exit code 2.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evenhand.comparison.result import RunComparison
from evenhand.comparison.rows import WORSE
from evenhand.errors import InputError

#: --fail-on values (CI gates): ``worse`` exits 1 when a finding appeared or got worse; ``any`` also when a metric
#: row is worse (its p adjusted across the comparison's rows below 1 - ci)
FAIL_ON = ("never", "worse", "any")
DEFAULT_OUT = Path("evenhand-compare")
_STYLES = {"worse": "bold red", "improved": "bold green", "mixed": "bold yellow", "no clear change": "bold"}


def run_compare(
    files: Sequence[Path],
    *,
    labels: Sequence[str] | None,
    out: Path | None,
    as_json: bool,
    ci: float,
    n_resamples: int,
    seed: int,
    fail_on: str,
    console: Any,
    err_console: Any,
    junit: Path | None = None,
) -> int:
    """Run the command; returns the exit code: 0, or 1 when ``fail_on`` says the difference fails the gate. The
    gate says on stderr what passed or failed (:func:`evenhand.gate.compare_lines`); ``junit`` also writes a JUnit
    file of the same checks (:mod:`evenhand.junit`)."""
    from rich.markup import escape

    from evenhand._files import check_outputs, write_text
    from evenhand.comparison import compare
    from evenhand.comparison.render import render_comparison_html, terminal_table

    if fail_on not in FAIL_ON:
        raise InputError(f"--fail-on must be one of {', '.join(FAIL_ON)}, got {fail_on!r}")
    if len(files) < 2:
        raise InputError(f"compare needs at least two results files, got {len(files)}")
    folder = out or DEFAULT_OUT
    targets = [folder / "comparison.json", folder / "comparison.html"]
    check_outputs(targets, files)
    if junit is not None:
        from evenhand.junit import check_junit_path

        check_junit_path(junit, files, targets)
    result = compare(*files, labels=list(labels) if labels else None, ci=ci, n_resamples=n_resamples, seed=seed)
    doc = result.to_dict()
    if as_json:
        console.print_json(data=doc)
    else:
        print_verdict(result, console)
        console.print(terminal_table(doc))
    try:
        write_text(targets[0], json.dumps(doc, indent=1, ensure_ascii=False))
        write_text(targets[1], render_comparison_html(doc))
    except OSError as exc:  # --out names a file, or a folder that cannot be written: bad input, not a crash
        raise InputError(f"--out {folder}: cannot write the comparison there ({exc.strerror or exc})") from None
    # status, not results: stderr, as every command's `wrote ...` lines (stdout carries the verdict and the table)
    err_console.print(f"wrote {escape(str(targets[0]))} and {escape(str(targets[1]))}")
    if junit is not None:
        from evenhand.junit import write_junit

        try:
            written = write_junit(junit, doc, fail_on=fail_on)
        except OSError as exc:
            raise InputError(f"--junit {junit}: cannot write it there ({exc.strerror or exc})") from None
        err_console.print(f"wrote {escape(str(written))}")  # status: stderr (stdout carries results only)
    from evenhand.gate import compare_lines

    for line in compare_lines(doc, fail_on, str(targets[0])):  # passed or failed, what the gate judged
        err_console.print(escape(line), highlight=False)
    worse_metrics = any(WORSE in row.changes.values() for row in result.rows)
    failed = bool(result.worse_findings) or (fail_on == "any" and worse_metrics)
    return 1 if fail_on != "never" and failed else 0


def print_verdict(result: RunComparison, console: Any) -> None:
    """The verdict on the difference: the overall status, then per run what got worse and what improved."""
    from rich.markup import escape

    style = _STYLES.get(result.status, "bold")
    console.print(f"[{style}]verdict on the difference: {result.status.upper()}[/] ({' vs '.join(result.labels)})",
                  highlight=False)  # fmt: skip
    for line in result.sentences():
        console.print(f"  {escape(line)}", highlight=False)
    console.print(f"  [dim]rule: {escape(result.rule)}[/]", highlight=False)
