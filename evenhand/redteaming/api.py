"""``evenhand.redteam``: the use case under its benign system prompt and under adversarial ones, each assessed as
``evenhand assess`` does, and each adversarial condition compared with the benign one (docs/redteam.md)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from evenhand.config import AssessConfig, load_config, parse_config
from evenhand.generation.cost import GenerationEstimate
from evenhand.pipeline.from_config import check_code_allowed
from evenhand.redteaming.conditions import Condition
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
    assessments, seconds = assess_conditions(
        config, chosen, limit=limit, progress=progress, allow_code=allowed, on_condition=on_condition
    )
    benign = assessments.pop(chosen[0].name)
    settings = config.run_settings()
    t = time.perf_counter()
    records = adversarial_records(benign.responses, {n: a.responses for n, a in assessments.items()}, settings)
    timings = {"conditions": seconds, "comparison": round(time.perf_counter() - t, 3)}
    probes = None
    # model-level probes: a section of their own, never mixed with the use case's rows
    if config.redteam is not None and config.redteam.probes:
        t = time.perf_counter()
        probes = probe_conditions(config, chosen, progress=progress, allow_code=allowed).to_dict()
        timings["probes"] = round(time.perf_counter() - t, 3)
    timings["total"] = round(time.perf_counter() - started, 3)
    meta: dict[str, Any] = {
        "timings": timings,
        "toxicity_threshold": settings.scoring.toxicity_threshold,
        "refusal_threshold": settings.scoring.refusal_threshold,
    }
    if total is not None:
        meta["generation_estimate"] = total.as_dict()
    return RedTeam(benign, chosen, assessments, records, meta, probes=probes, thresholds=list(settings.thresholds))


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
