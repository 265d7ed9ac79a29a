"""``evenhand assess``: run the assessment a config file describes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evenhand.cli import running
from evenhand.cli.options import NO_SCORING_FLAGS, Junit, scoring_options
from evenhand.cli.scoring_flags import ScoringFlags
from evenhand.cli.translate import apply_scoring_flags, load_config, override_model
from evenhand.config import MAX_COUNT


@scoring_options
def assess(
    config: Annotated[Path, typer.Argument(help="Config file (.yaml, .yml or .toml); see docs/cli.md.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output folder (overrides output.dir).")] = None,
    limit: Annotated[int | None, typer.Option(help="Use only the first N prompts (a quick trial run).", min=1)] = None,
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL (overrides model).")] = None,
    model: Annotated[str | None, typer.Option(help="Model name (with --base-url) or local model path.")] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Responses per prompt (overrides generation.count).", min=1, max=MAX_COUNT),
    ] = None,
    no_progress: Annotated[bool, typer.Option("--no-progress", help="Hide progress bars.")] = False,
    allow_code: Annotated[
        bool,
        typer.Option(
            "--allow-code",
            help="Allow the config to import and run Python code (model.provider callable with options.function).",
        ),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="State the requests, tokens and cost the run would take, send nothing, stop."),
    ] = False,
    scoring: ScoringFlags = NO_SCORING_FLAGS,
    junit: Junit = None,
) -> None:
    """Run the assessment a config file describes; write results.json, metrics.csv and report.html."""
    cfg = load_config(config)
    override_model(cfg, base_url, model)
    if count is not None:
        cfg.generation.count = count
    # --device also reaches the local model
    cfg = apply_scoring_flags(cfg, scoring, model_device=True, mentioned=(base_url, model))
    # None (not False) lets EVENHAND_ALLOW_CODE=1 allow it too; the config itself never can
    shown = False if no_progress else None
    if dry_run:
        raise typer.Exit(int(running.dry_run(cfg, out, limit, True if allow_code else None)))
    code = running.run_config(cfg, out, limit, shown, True if allow_code else None, junit=junit, announce=True)
    raise typer.Exit(int(code))
