"""``evenhand compare``: runs side by side, differences with intervals, findings that changed."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evenhand.cli.consoles import console, err_console
from evenhand.cli.exit_codes import ExitCode, fail, is_bad_input
from evenhand.cli.options import Junit
from evenhand.config import MAX_RESAMPLES, MAX_SEED


def compare(
    results: Annotated[list[Path], typer.Argument(help="Two or more results.json files; the first is the baseline.")],
    label: Annotated[list[str] | None, typer.Option("--label", "-l", help="A name per run, in order.")] = None,
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Folder for comparison.json/.html (default: evenhand-compare).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON instead of tables.")] = False,
    ci: Annotated[float, typer.Option(help="Level of the intervals of the differences.", min=0.5, max=0.999)] = 0.95,
    n_resamples: Annotated[
        int, typer.Option(help="Bootstrap replicates per difference.", min=10, max=MAX_RESAMPLES)
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap (0 to 2**63-1).", min=0, max=MAX_SEED)] = 0,
    fail_on: Annotated[
        str, typer.Option(help="never|worse|any: exit 1 when a finding got worse (any: or a metric did).")
    ] = "never",
    junit: Junit = None,
) -> None:
    """Compare runs side by side: each metric per run, differences with intervals, findings that changed."""
    from evenhand.comparison.cli import run_compare

    for path in results:
        if path.is_dir():  # "no such file" would mislead: it is there, but a folder
            raise fail(f"{path} is a folder; give its results.json", ExitCode.BAD_INPUT)
    blocking = next((p for p in [out, *(out.parents if out else ())] if p is not None and p.exists()), None)
    if blocking is not None and not blocking.is_dir():  # found before the bootstrap, not after the tables
        raise fail(f"--out {out}: cannot write the comparison there ({blocking} is a file)", ExitCode.BAD_INPUT)
    try:
        code = run_compare(results, labels=label, out=out, as_json=as_json, ci=ci, n_resamples=n_resamples, seed=seed,
                           fail_on=fail_on, console=console, err_console=err_console, junit=junit)  # fmt: skip
    except Exception as exc:
        if not is_bad_input(exc):
            raise
        raise fail(str(exc), ExitCode.BAD_INPUT) from None
    raise typer.Exit(code)
