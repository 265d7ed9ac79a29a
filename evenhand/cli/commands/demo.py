"""``evenhand demo``: the bundled customer-outreach use case, assessed offline with the embedded SmolLM2 model."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from evenhand.cli import running
from evenhand.cli.consoles import console, err_console
from evenhand.cli.options import AllRows, NoProgress
from evenhand.cli.rendering import ftu_table
from evenhand.cli.translate import load_config
from evenhand.config import MAX_COUNT
from evenhand.text.lexicon import DEFAULT_ATTRIBUTES


def demo(
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output folder (results.json, metrics.csv, responses.csv, report.html).")
    ] = Path("evenhand-out"),
    ftu_only: Annotated[
        bool, typer.Option("--ftu-only", help="Only run the FTU check and build counterfactual prompts (seconds).")
    ] = False,
    limit: Annotated[int | None, typer.Option(help="Use only the first N demo prompts.", min=1)] = None,
    count: Annotated[
        int | None,
        typer.Option(help="Responses per original prompt (each counterfactual prompt keeps 2).", min=1, max=MAX_COUNT),
    ] = None,
    no_progress: NoProgress = False,
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
    progress = False if no_progress else None  # None: shown on a terminal, as every command does
    more = partial(cut_replies_caveat, max_tokens=cfg.model.max_tokens)
    raise typer.Exit(int(running.run_config(cfg, out, limit, progress, all_rows=all_rows, more_caveats=more)))


def cut_replies_caveat(caveats: list[str], *, max_tokens: int) -> list[str]:
    """Why the demo's replies are cut, beside the run's own caveat that answer length is not judged on cut replies
    (nothing when the run did not need it): the newcomer sees the demo's choice, not a fault of the model."""
    from evenhand.config.model import ModelConfig
    from evenhand.pipeline.families.refusal_length import CUT_CAVEAT

    if CUT_CAVEAT not in caveats:
        return []
    default = ModelConfig.model_fields["max_tokens"].default
    return [
        f"The demo cuts replies at {max_tokens} tokens (model.max_tokens in evenhand/data/demo/demo.yaml) so that "
        "it runs in about a minute on a CPU; that is why its answer-length rows (RLD) are undefined. An assessment of "
        f"your own model should let it finish its replies: raise model.max_tokens in your config (default {default})."
    ]
