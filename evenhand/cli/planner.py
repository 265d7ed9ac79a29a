"""The interactive planner: the use case of ``evenhand plan`` from flags, asking what they leave open.

Each question is asked only on a terminal (or with ``--ask``) and only when no flag answered it; "skip" leaves the
answer open, which the plan then reports as a caveat instead of guessing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from evenhand.cli.exit_codes import ExitCode, fail
from evenhand.framework import TASKS as USE_CASE_TASKS

TASKS = list(USE_CASE_TASKS)  # the framework's own list (evenhand.framework.TASKS)


def ask_bool(question: str, given: bool | None, interactive: bool, default: bool | None) -> bool | None:
    """``given`` when a flag gave it; else the answer to ``question`` (y/n/skip) when interactive, else ``default``."""
    if given is not None or not interactive:
        return given if given is not None else default
    answer = typer.prompt(f"{question} [y/n/skip]", default="skip" if default is None else ("y" if default else "n"))
    return {"y": True, "yes": True, "n": False, "no": False}.get(str(answer).strip().lower())


def use_case_from_flags(
    *,
    task: str | None,
    prompts: Path | None,
    attribute: list[str] | None,
    mentions_groups: bool | None,
    invariance: bool | None,
    content_may_differ: bool | None,
    prevalence_parity: bool | None,
    intervention: str | None,
    person_level: bool | None,
    ask: bool,
) -> Any:
    """The :class:`~evenhand.framework.UseCase` the flags describe, with the open questions asked when ``ask``."""
    from evenhand.framework import UseCase

    if task is None:
        if not ask:
            raise fail("--task is required (or a config file, or --ask)", ExitCode.BAD_INPUT)
        task = typer.prompt(f"Task ({', '.join(TASKS)})", default="text_generation")
    fields: dict[str, Any] = {"task": task}
    if attribute:
        fields["attributes"] = list(attribute)
    if prompts is not None:
        from evenhand.pipeline.responses.tables import prompt_column, read_table

        rows = read_table(prompts)
        # the prompt (a text) or messages (a conversation) column, else the only one; of several, guessing could read
        # an id column as the prompts and find FTU to hold
        col = next((c for c in ("prompt", "messages") if c in rows.columns), None)
        if col is None and len(rows.columns) > 1:
            raise fail(
                f"{prompts} has no column 'prompt' (or 'messages'); its columns are: "
                f"{', '.join(map(str, rows.columns))}: name the prompts' column prompt, or use a config "
                "(prompts.column)",
                ExitCode.BAD_INPUT,
            )
        col = col or str(rows.columns[0])
        fields["prompts"] = prompt_column(rows, col, source=str(prompts))
        if not fields["prompts"]:
            raise fail(f"{prompts} has no prompts (only a header?)", ExitCode.BAD_INPUT)
    elif mentions_groups is None and ask:
        fields["mentions_protected_groups"] = ask_bool(
            "Do the prompts mention protected groups (e.g. she/he, race terms)?", None, True, True
        )
    elif mentions_groups is None:  # not asked: the flags that answer it (plan() would name its Python keyword)
        raise fail("give --prompts FILE (FTU reads them) or --mentions-groups/--no-mentions-groups", ExitCode.BAD_INPUT)
    else:
        fields["mentions_protected_groups"] = mentions_groups
    norm = UseCase.model_validate({"task": task}).task
    if norm in ("text_generation", "summarization", "recommendation", "estimation"):
        fields["counterfactual_invariance"] = ask_bool(
            "Should responses stay the same when only the group mentioned changes?", invariance, ask, True
        )
    if norm in ("text_generation", "summarization"):
        fields["content_may_differ"] = ask_bool(
            "Is content expected to differ across groups (e.g. clinical)?", content_may_differ, ask, False
        )
    if norm == "classification":
        fields["person_level"] = ask_bool("Does each input correspond to a person?", person_level, ask, None)
        fields["prevalence_parity"] = ask_bool(
            "Should predicted prevalence be equal across groups?", prevalence_parity, ask, None
        )
        if intervention is None and ask:
            intervention = typer.prompt("Interventions: assistive, punitive or skip", default="skip")
        fields["intervention"] = None if intervention in (None, "", "skip") else intervention
    return UseCase(**fields)
