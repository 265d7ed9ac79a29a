"""``evenhand metrics``: metrics from your own responses (no model is called)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from evenhand.cli import running
from evenhand.cli.options import NO_SCORING_FLAGS, AllRows, Attributes, Junit, scoring_options
from evenhand.cli.scoring_flags import ScoringFlags
from evenhand.cli.translate import apply_scoring_flags, metrics_config
from evenhand.framework import TASKS


@scoring_options
def metrics(
    responses: Annotated[Path, typer.Argument(help="Responses table: CSV, TSV, JSONL, JSON or Parquet.")],
    task: Annotated[str, typer.Option(help=f"{', '.join(TASKS[:-1])} or {TASKS[-1]}.")] = "text_generation",
    attribute: Attributes = None,
    config: Annotated[Path | None, typer.Option(help="Config with the use-case answers and settings.")] = None,
    prompt_column: Annotated[str, typer.Option(help="Column with the prompt (responses.prompt_column).")] = "prompt",
    response_column: Annotated[
        str, typer.Option(help="Column with the response (responses.response_column).")
    ] = "response",
    prompt_id_column: Annotated[
        str, typer.Option(help="Column linking the versions of one prompt (responses.prompt_id_column).")
    ] = "prompt_id",
    attribute_column: Annotated[
        str, typer.Option(help="Column with a counterfactual row's attribute (responses.attribute_column).")
    ] = "attribute",
    counterfactual_group_column: Annotated[
        str, typer.Option(help="Column with a counterfactual row's group (responses.group_column).")
    ] = "group",
    sample_column: Annotated[str, typer.Option(help="Column with the sample number (responses.sample_column).")] = (
        "sample"
    ),
    label_column: Annotated[
        str | None, typer.Option(help="Classification: ground-truth column (responses.label_column).")
    ] = None,
    group_column: Annotated[
        str | None,
        typer.Option(
            "--group-column",
            "--person-group-column",
            help="Classification: the person's group column (responses.person_group_column).",
        ),
    ] = None,
    group_columns: Annotated[
        list[str] | None,
        typer.Option(
            help="Classification: ATTRIBUTE=COLUMN, the person's group of one attribute; repeat per attribute "
            "(classification.group_columns)."
        ),
    ] = None,
    intersection: Annotated[
        list[str] | None,
        typer.Option(help="Attributes assessed together, e.g. gender+race; repeatable (use_case.intersections)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output folder (default: output.dir of --config, or evenhand-out)."),
    ] = None,
    html: Annotated[bool, typer.Option(help="Also write report.html.")] = True,
    ci: Annotated[float | None, typer.Option(help="Interval level (0 for none).")] = 0.95,
    scoring: ScoringFlags = NO_SCORING_FLAGS,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Stage progress with ETA on stderr (default: on a terminal)."),
    ] = None,
    junit: Junit = None,
    all_rows: AllRows = False,
) -> None:
    """Metrics from your own responses (no model is called): one row per response, with columns prompt and
    response, plus attribute and group for responses to counterfactual prompts."""
    columns = {  # every column mapping is a flag named after its config key (responses.<key>)
        "prompt_column": prompt_column,
        "response_column": response_column,
        "prompt_id_column": prompt_id_column,
        "attribute_column": attribute_column,
        "group_column": counterfactual_group_column,
        "sample_column": sample_column,
        "label_column": label_column,
        "person_group_column": group_column,
    }
    cfg = metrics_config(responses, config, task=task, attributes=attribute, columns=columns,
                         group_columns_given=group_columns, intersections=intersection, out=out, html=html,
                         ci=ci)  # fmt: skip
    cfg = apply_scoring_flags(cfg, scoring, model_device=False, mentioned=[task, *columns.values()])
    # off a terminal (CI logs, pipes) only on request: --progress prints a line per stage and one every few seconds
    shown = progress if progress is not None else (None if sys.stderr.isatty() else False)
    raise typer.Exit(int(running.run_config(cfg, None, None, shown, junit=junit, all_rows=all_rows)))
