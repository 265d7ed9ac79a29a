"""``evenhand report``: a results.json turned into the self-contained HTML report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from evenhand._files import check_outputs, write_text
from evenhand.cli.consoles import console, err_console
from evenhand.cli.exit_codes import ExitCode, fail, is_bad_input


def report(
    results: Annotated[Path, typer.Argument(help="results.json written by evenhand assess / metrics.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="HTML file (default: next to the JSON).")] = None,
) -> None:
    """Turn a results.json into the self-contained HTML report."""
    from evenhand.pipeline.results.document import load_results
    from evenhand.report import render_html

    target = out or results.with_name("report.html")
    if results.is_dir():  # "no such file" would mislead: it is there, but a folder
        raise fail(f"{results} is a folder; give its results.json", ExitCode.BAD_INPUT)
    try:
        check_outputs([target], [results])
        doc = load_results(results)
        html = render_html(doc)
    except Exception as exc:
        if is_bad_input(exc):
            raise fail(str(exc), ExitCode.BAD_INPUT) from None
        if isinstance(exc, (KeyError, TypeError)):  # a results file edited by hand: JSON, not what the report reads
            raise fail(f"{results}: {exc!r}", ExitCode.BAD_INPUT) from None
        raise
    try:
        path = write_text(target, html)
    except OSError as exc:  # --out is a folder, inside a file, or not writable: bad input, one line
        message = f"--out {target}: cannot write the report there ({exc.strerror or exc})"
        raise fail(message, ExitCode.BAD_INPUT) from None
    from evenhand.report.console import print_assistants, print_verdict

    print_assistants(console, doc)  # an assistant's audit comes before the results it qualifies (when there is one)
    print_verdict(console, doc)  # what the report leads with: the headlines, concerns, watches, ok per attribute
    err_console.print(f"wrote {escape(str(path))}")  # status: stderr (stdout carries results only)
