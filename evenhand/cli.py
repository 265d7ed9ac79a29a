"""The ``evenhand`` command line: plan, assess, metrics, report and demo.

Exit codes (scripts can rely on them):

* 0 - success;
* 1 - the assessment ran but a fairness threshold from the config (``thresholds:``) was not met;
* 2 - bad input: unreadable or invalid config, missing file or column, bad option;
* 3 - runtime failure: a model, scorer or server failed while the assessment ran.
"""

from __future__ import annotations

import enum
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from evenhand import __version__


class ExitCode(enum.IntEnum):
    OK = 0
    THRESHOLD_FAILED = 1
    BAD_INPUT = 2
    RUNTIME_FAILURE = 3


app = typer.Typer(
    name="evenhand",
    help="Use-case-level bias and fairness assessment of LLMs (plan, assess, metrics, report, demo).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console()
err_console = Console(stderr=True)


def _fail(message: str, code: ExitCode) -> typer.Exit:
    err_console.print(f"[bold red]error:[/] {message}", highlight=False)
    return typer.Exit(int(code))


def _version(value: bool) -> None:
    if value:
        console.print(f"evenhand {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Use-case-level bias and fairness assessment of LLMs, following the paper's decision framework."""


def _ftu_table(prompts: list[str], attributes: list[str]) -> Table:
    from evenhand.text.counterfactual import counterfactual_prompts
    from evenhand.text.ftu import check_ftu

    table = Table(title="Fairness through unawareness (FTU) and counterfactual prompts")
    for name in ("attribute", "FTU satisfied", "prompts mentioning it", "groups", "example counterfactual"):
        table.add_column(name, overflow="fold")
    for attribute in attributes:
        ftu = check_ftu(prompts, attribute=attribute)
        example = ""
        groups: tuple[str, ...] = ()
        if not ftu.satisfied:
            cf = counterfactual_prompts(prompts, attribute=attribute)
            groups = tuple(cf.groups)
            if cf.source_index is not None and len(cf.source_index):
                example = " / ".join(f"{g}: {cf[g][0]}" for g in groups)
        verdict = "yes" if ftu.satisfied else "no"
        table.add_row(attribute, verdict, f"{ftu.n_flagged} of {len(prompts)}", ", ".join(groups), example)
    return table


@app.command()
def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and report.html.")] = Path(
        "evenhand-out"
    ),
    ftu_only: Annotated[
        bool, typer.Option("--ftu-only", help="Only run the FTU check and build counterfactual prompts (seconds).")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Use only the first N demo prompts.", min=1)] = None,
    count: Annotated[int | None, typer.Option(help="Responses per prompt (and per group).", min=1)] = None,
) -> None:
    """Assess the bundled customer-outreach demo use case offline with the embedded SmolLM2 model."""
    from evenhand.pipeline.io import demo_prompts

    prompts = [str(p) for p in demo_prompts()["prompt"].tolist()][:limit]
    console.print(f"evenhand demo: {len(prompts)} customer-outreach prompts (bundled)")
    try:
        console.print(_ftu_table(prompts, ["gender", "race"]))
    except ImportError as exc:
        raise _fail(f"the text core is not available: {exc}", ExitCode.RUNTIME_FAILURE) from exc
    if ftu_only:
        return
    raise typer.Exit(int(_run_demo(out=out, limit=limit, count=count)))


def _run_demo(out: Path, limit: int | None, count: int | None) -> ExitCode:
    console.print("[yellow]the end-to-end demo assessment is not wired yet; ran the FTU step only[/]")
    return ExitCode.OK


def main(argv: list[str] | None = None) -> Any:
    """Entry point of the ``evenhand`` console script."""
    return app(args=argv if argv is not None else sys.argv[1:], prog_name="evenhand")


if __name__ == "__main__":  # pragma: no cover
    main()
