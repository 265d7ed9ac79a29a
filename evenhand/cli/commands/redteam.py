"""``evenhand redteam``: the use case under its benign system prompt and under adversarial ones (docs/redteam.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from evenhand.cli import redteaming
from evenhand.cli.options import NO_SCORING_FLAGS, Junit, scoring_options
from evenhand.cli.scoring_flags import ScoringFlags
from evenhand.cli.translate import apply_scoring_flags, load_config, override_model
from evenhand.config import MAX_COUNT


@scoring_options
def redteam(
    config: Annotated[Path, typer.Argument(help="Config file (.yaml, .yml or .toml); see docs/redteam.md.")],
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
        typer.Option("--dry-run", help="State the requests, tokens and cost of every system prompt, send nothing."),
    ] = False,
    scoring: ScoringFlags = NO_SCORING_FLAGS,
    junit: Junit = None,
) -> None:
    """Run the use case under its own system prompt and under adversarial ones; compare each with the benign one;
    write results.json, metrics.csv, report.html and each system prompt's own assessment under conditions/."""
    cfg = load_config(config)
    override_model(cfg, base_url, model)
    if count is not None:
        cfg.generation.count = count
    cfg = apply_scoring_flags(cfg, scoring, model_device=True, mentioned=(base_url, model))
    shown = False if no_progress else None
    code_ok = True if allow_code else None
    if dry_run:
        raise typer.Exit(int(redteaming.dry_run_redteam(cfg, out, limit, code_ok)))
    raise typer.Exit(int(redteaming.run_redteam(cfg, out, limit, shown, code_ok, junit=junit)))
