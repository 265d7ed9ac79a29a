"""``evenhand assess``: run the assessment a config file describes."""

from __future__ import annotations

from typing import Annotated

import typer

from evenhand.cli import running
from evenhand.cli.options import (
    NO_SCORING_FLAGS,
    AllowCode,
    AllRows,
    BaseUrl,
    ConfigFile,
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
def assess(
    config: ConfigFile,
    out: Out = None,
    limit: Limit = None,
    base_url: BaseUrl = None,
    model: ModelName = None,
    count: Count = None,
    no_progress: NoProgress = False,
    allow_code: AllowCode = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="State the requests, tokens and cost the run would take, send nothing, stop."),
    ] = False,
    scoring: ScoringFlags = NO_SCORING_FLAGS,
    junit: Junit = None,
    all_rows: AllRows = False,
) -> None:
    """Run the assessment a config file describes; write results.json, metrics.csv and report.html."""
    cfg = run_config_from(config, base_url, model, count, scoring)
    # None (not False) lets EVENHAND_ALLOW_CODE=1 allow it too; the config itself never can
    shown = False if no_progress else None
    if dry_run:
        raise typer.Exit(int(running.dry_run(cfg, out, limit, True if allow_code else None)))
    code = running.run_config(cfg, out, limit, shown, True if allow_code else None, junit=junit, announce=True,
                              all_rows=all_rows)  # fmt: skip
    raise typer.Exit(int(code))
