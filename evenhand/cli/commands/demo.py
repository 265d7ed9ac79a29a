"""``evenhand demo``: the bundled customer-outreach use case, assessed offline with the embedded SmolLM2 model."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from evenhand.cli import running
from evenhand.cli.consoles import console, err_console
from evenhand.cli.options import AllRows
from evenhand.cli.rendering import ftu_table
from evenhand.cli.translate import load_config
from evenhand.config import MAX_COUNT
from evenhand.text.lexicon import DEFAULT_ATTRIBUTES


def demo(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for results.json and report.html.")] = Path(
        "evenhand-out"
    ),
    ftu_only: Annotated[
        bool, typer.Option("--ftu-only", help="Only run the FTU check and build counterfactual prompts (seconds).")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Use only the first N demo prompts.", min=1)] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Responses per original prompt (each counterfactual prompt keeps 2).", min=1, max=MAX_COUNT),
    ] = None,
    all_rows: AllRows = False,
) -> None:
    """Assess the bundled customer-outreach demo use case offline with the embedded SmolLM2 model."""
    from evenhand.pipeline.responses.tables import demo_dir, demo_prompts

    prompts = [str(p) for p in demo_prompts()["prompt"].tolist()][:limit]
    console.print(f"evenhand demo: {len(prompts)} customer-outreach prompts (bundled in {escape(str(demo_dir()))})")
    console.print(ftu_table(prompts, list(DEFAULT_ATTRIBUTES)))
    if ftu_only:
        return
    cfg = load_config(demo_dir() / "demo.yaml")
    if count is not None:
        cfg.generation.count = count
    err_console.print(  # status, not results: stderr
        "generating responses with SmolLM2-135M-Instruct (offline, CPU); to assess your own model, copy "
        f"{demo_dir() / 'demo.yaml'}, point prompts.path at your prompts and set model.provider/base_url/model "
        "(see README: Assess your own model)"
    )
    raise typer.Exit(int(running.run_config(cfg, out, limit, None, all_rows=all_rows)))
