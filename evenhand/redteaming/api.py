"""``evenhand.redteam``: the use case under its benign system prompt and under adversarial ones, each assessed as
``evenhand assess`` does, and each adversarial condition compared with the benign one (docs/redteam.md)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

from evenhand.config import AssessConfig, load_config, parse_config
from evenhand.errors import NoResponsesError
from evenhand.generation.cost import GenerationEstimate
from evenhand.pipeline.from_config import check_code_allowed
from evenhand.pipeline.results.assessment import Assessment
from evenhand.redteaming.conditions import Condition
from evenhand.redteaming.replies import explain_unscored, scored_replies, task_note
from evenhand.redteaming.result import RedTeam
from evenhand.redteaming.running import assess_conditions, conditions, estimate, probe_conditions
from evenhand.redteaming.shifts import adversarial_records


def redteam_config(
    config: AssessConfig,
    *,
    limit: int | None = None,
    progress: bool | None = None,
    allow_code: bool | None = None,
    on_estimate: Callable[[GenerationEstimate], None] | None = None,
    on_condition: Callable[[Condition], None] | None = None,
) -> RedTeam:
    """Run the red team a config describes (its ``redteam`` section; every other section as ``evenhand assess``
    reads it). ``on_estimate`` is called with what all conditions together will send, before anything is sent;
    ``on_condition`` as each condition starts."""
    allowed = check_code_allowed(config, allow_code)
    chosen = conditions(config, limit)
    started = time.perf_counter()
    total = estimate(config, chosen, limit, allow_code=allowed)
    if total is not None and on_estimate is not None:
        on_estimate(total)
    run = assess_conditions(
        config, chosen, limit=limit, progress=progress, allow_code=allowed, on_condition=on_condition
    )
    assessments = run.assessments
    benign = assessments.pop(chosen[0].name)
    settings = config.run_settings()
    t = time.perf_counter()
    # every condition's replies, a blocked one's failed requests included, with the scores the shifts read
    frames = {c.name: _frame(c.name, benign, assessments, run.blocked) for c in chosen}
    replies = scored_replies(frames, settings, benign.plan.use_case.task)
    adversarial = {c.name: replies[c.name] for c in chosen[1:]}
    task = benign.plan.use_case.task
    records = explain_unscored(adversarial_records(replies[chosen[0].name], adversarial, settings), task)
    timings = {"conditions": run.seconds, "comparison": round(time.perf_counter() - t, 3)}
    probes = None
    # model-level probes: a section of their own, never mixed with the use case's rows
    if config.redteam is not None and config.redteam.probes:
        t = time.perf_counter()
        probes = probe_conditions(config, chosen, progress=progress, allow_code=allowed).to_dict()
        timings["probes"] = round(time.perf_counter() - t, 3)
    timings["total"] = round(time.perf_counter() - started, 3)
    meta: dict[str, Any] = {"timings": timings}
    if total is not None:
        meta["generation_estimate"] = total.as_dict()
    note = task_note(task)
    if note is not None:
        meta["note"] = note
    blocked = {name: str(exc) for name, exc in run.blocked.items()}
    return RedTeam(benign, chosen, assessments, records, meta, probes=probes, thresholds=list(settings.thresholds),
                   replies=replies, blocked=blocked)  # fmt: skip


def _frame(name: str, benign: Assessment, assessments: dict[str, Assessment],
           blocked: dict[str, NoResponsesError]) -> pd.DataFrame:  # fmt: skip
    if name in blocked:
        frame = blocked[name].responses
        assert isinstance(frame, pd.DataFrame)  # assess_conditions keeps only an error that carries its frame
        return frame
    return assessments[name].responses if name in assessments else benign.responses


def redteam(
    config: AssessConfig | dict[str, Any] | str | os.PathLike[str],
    *,
    limit: int | None = None,
    progress: bool | None = None,
    allow_code: bool | None = None,
) -> RedTeam:
    """Red-team a use case: ``config`` is a config file (YAML or TOML), a parsed mapping or an
    :class:`~evenhand.config.AssessConfig`, with an optional ``redteam`` section (``benign``, ``builtin``,
    ``system_prompts``, and ``probes`` for the model-level template probes; docs/redteam.md). Returns a
    :class:`~evenhand.redteaming.result.RedTeam` with ``.verdict``, ``.to_json()`` and ``.to_html()``."""
    if isinstance(config, dict):
        config = parse_config(config)
    elif not isinstance(config, AssessConfig):
        config = load_config(config)
    return redteam_config(config, limit=limit, progress=progress, allow_code=allow_code)
