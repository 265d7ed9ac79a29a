"""``evenhand redteam``: the use case under its benign system prompt and under adversarial ones (docs/redteam.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evenhand.cli import redteaming
from evenhand.cli.options import (
    NO_SCORING_FLAGS,
    AllowCode,
    AllRows,
    BaseUrl,
    Count,
    Junit,
    Limit,
    ModelName,
    NoProgress,
    Out,
    scoring_options,
)
from evenhand.cli.scoring_flags import ScoringFlags
from evenhand.cli.translate import run_config_from


@scoring_options
def redteam(
    config: Annotated[Path, typer.Argument(help="Config file (.yaml, .yml or .toml); see docs/redteam.md.")],
    out: Out = None,
    limit: Limit = None,
    base_url: BaseUrl = None,
    model: ModelName = None,
    count: Count = None,
    no_progress: NoProgress = False,
    allow_code: AllowCode = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="State the requests, tokens and cost of every system prompt, send nothing."),
    ] = False,
    scoring: ScoringFlags = NO_SCORING_FLAGS,
    junit: Junit = None,
    all_rows: AllRows = False,
) -> None:
    """Run the use case under its own system prompt and under adversarial ones; compare each with the benign one;
    write results.json, metrics.csv, report.html and each system prompt's own assessment under conditions/."""
    cfg = run_config_from(config, base_url, model, count, scoring)
    shown = False if no_progress else None
    code_ok = True if allow_code else None
    if dry_run:
        raise typer.Exit(int(redteaming.dry_run_redteam(cfg, out, limit, code_ok)))
    raise typer.Exit(int(redteaming.run_redteam(cfg, out, limit, shown, code_ok, junit=junit, all_rows=all_rows)))
