"""``evenhand plan``: which metrics fit a use case, and why (the paper's decision framework, section 4)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from evenhand.cli.consoles import console
from evenhand.cli.exit_codes import ExitCode, fail, is_bad_input
from evenhand.cli.options import Attributes
from evenhand.cli.planner import TASKS, use_case_from_flags
from evenhand.cli.rendering import print_plan
from evenhand.cli.translate import load_config


def plan(
    config: Annotated[Path | None, typer.Argument(help="Config file to read the answers from.")] = None,
    task: Annotated[str | None, typer.Option(help="|".join(TASKS))] = None,
    prompts: Annotated[
        Path | None, typer.Option(help="Prompts file, to check FTU (CSV, TSV, JSONL, JSON, Parquet or .txt).")
    ] = None,
    attribute: Attributes = None,
    mentions_groups: Annotated[
        bool | None, typer.Option("--mentions-groups/--no-mentions-groups", help="Prompts mention groups (no file).")
    ] = None,
    invariance: Annotated[
        bool | None, typer.Option("--invariance/--no-invariance", help="Counterfactual invariance is desired.")
    ] = None,
    content_may_differ: Annotated[
        bool | None, typer.Option("--content-may-differ/--same-content", help="Content ought to differ by group.")
    ] = None,
    prevalence_parity: Annotated[
        bool | None, typer.Option("--prevalence-parity/--no-prevalence-parity", help="Equal predicted prevalence.")
    ] = None,
    intervention: Annotated[str | None, typer.Option(help="assistive or punitive (classification).")] = None,
    person_level: Annotated[
        bool | None, typer.Option("--person-level/--not-person-level", help="Each input is a person.")
    ] = None,
    interactive: Annotated[
        bool | None, typer.Option("--ask/--no-ask", help="Ask the questions (default: when on a terminal).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the plan as JSON.")] = False,
) -> None:
    """Which metrics fit your use case, and why (the paper's decision framework, section 4)."""
    from pydantic import ValidationError

    from evenhand.framework import plan as make_plan

    ask = sys.stdin.isatty() if interactive is None else interactive
    estimate = None
    judged = False  # a judge configured: its metric is planned (the reader reads when the assessment runs)
    try:
        if config is not None:
            flags = {"--task": task, "--prompts": prompts, "--attribute": attribute or None,
                     "--mentions-groups": mentions_groups, "--invariance": invariance,
                     "--content-may-differ": content_may_differ, "--prevalence-parity": prevalence_parity,
                     "--intervention": intervention, "--person-level": person_level}  # fmt: skip
            given = [flag for flag, value in flags.items() if value is not None]
            if given:  # silently preferring the file would answer a question the user asked differently
                raise fail(
                    f"{given[0]}: the use case comes from {config}; edit the file, or leave the config out to "
                    "describe the use case with flags",
                    ExitCode.BAD_INPUT,
                )
            cfg = load_config(config)
            from evenhand.pipeline.from_config import estimate_config, response_source, use_case_of

            _, texts, per_prompt = response_source(cfg)
            use_case = use_case_of(cfg, texts, per_prompt)[0]
            # what assess would send to the model; plan imports no code the config names
            estimate = estimate_config(cfg, allow_code=False)
            judged = cfg.judge is not None
        else:
            use_case = use_case_from_flags(
                task=task, prompts=prompts, attribute=attribute, mentions_groups=mentions_groups,
                invariance=invariance, content_may_differ=content_may_differ, prevalence_parity=prevalence_parity,
                intervention=intervention, person_level=person_level, ask=ask,
            )  # fmt: skip
        result = make_plan(use_case, judge=judged)
    except ValidationError as exc:
        from evenhand.config import format_errors

        raise fail(format_errors("use case", exc), ExitCode.BAD_INPUT) from None
    except Exception as exc:
        if not is_bad_input(exc):
            raise
        raise fail(str(exc), ExitCode.BAD_INPUT) from None
    if as_json:
        doc: dict[str, Any] = result.to_dict()
        doc |= {"generation_estimate": estimate.as_dict()} if estimate is not None else {}
        console.print_json(json.dumps(doc, default=str))
        return
    print_plan(console, result, use_case.task, estimate)
