"""Running the use case under each condition: the same config, assessed with the same machinery
(:func:`evenhand.pipeline.from_config.assess_config`), with only the model's system prompt changed.

The generation store's job key hashes the system prompt (:mod:`evenhand.generation.runner`), so every condition
shares one store file (``generation.store``, by default ``generations.sqlite`` in the output folder) without
mixing: a rerun resumes each condition where it stopped, and a finished one sends nothing.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from evenhand.config import AssessConfig
from evenhand.conversation import Conversation
from evenhand.errors import InputError, NoResponsesError
from evenhand.generation.cost import GenerationEstimate, Prices
from evenhand.pipeline.from_config import (
    assess_config,
    config_client,
    estimate_config,
    load_prompts,
    response_source,
    use_case_of,
)
from evenhand.pipeline.results.assessment import Assessment
from evenhand.redteaming.conditions import Condition, conditions_for
from evenhand.redteaming.probes import ProbeResults, probe_estimate, run_probes

_SUMMED = ("samples", "already_stored", "requests", "requests_max", "prompt_tokens", "prompt_tokens_max")


def under(config: AssessConfig, condition: Condition) -> AssessConfig:
    """``config`` with the condition's system prompt as the model's, and the same store file for every condition."""
    copy = config.model_copy(deep=True)
    copy.model.system_prompt = condition.system_prompt
    copy.generation.store = config.run_settings().generation.store
    return copy


def conditions(config: AssessConfig, limit: int | None = None) -> list[Condition]:
    """The conditions the config asks for (the benign one first)."""
    if config.responses is not None:
        raise InputError(
            "responses: a red team generates the replies under each system prompt; give prompts and a model, not "
            "your own responses"
        )
    prompts, per_prompt = load_prompts(config, limit)
    own = sum(isinstance(p, Conversation) and p.system_prompt is not None for p in prompts)
    if own:
        raise InputError(
            f"prompts: {own} of {len(prompts)} prompts carry their own system prompt (a system turn, or "
            "prompts.system_prompt_column); a red team runs the use case under each condition's system prompt "
            "(model.system_prompt): put the system prompt there and leave it out of the prompts"
        )
    return conditions_for(config, use_case_of(config, prompts, per_prompt)[0])


def estimate(
    config: AssessConfig, chosen: Sequence[Condition], limit: int | None = None, *, allow_code: bool | None = None
) -> GenerationEstimate | None:
    """What the red team will send, summed over its conditions (each one's store-held samples not counted), and
    over the template probes under each condition when the config asks for them."""
    found = [estimate_config(under(config, c), limit, allow_code=allow_code) for c in chosen]
    if config.redteam is not None and config.redteam.probes:
        from evenhand.generation.clients.callable import code_allowed

        found.extend(_probe_estimates(config, chosen, allow_code=code_allowed(allow_code)).values())
    known = [e for e in found if e is not None]
    return sum_estimates(known) if known else None


def sum_estimates(estimates: Sequence[GenerationEstimate]) -> GenerationEstimate:
    first = estimates[0]
    summed: dict[str, Any] = {name: sum(getattr(e, name) for e in estimates) for name in _SUMMED}
    bounds = [e.completion_tokens_max for e in estimates]
    summed["completion_tokens_max"] = None if None in bounds else sum(b for b in bounds if b is not None)
    return dataclasses.replace(first, **summed)


@dataclasses.dataclass
class Assessed:
    """What running the conditions gave: each assessed condition's assessment by name, the seconds each took, and
    each adversarial condition that got no reply at all (name -> the error, with its response frame)."""

    assessments: dict[str, Assessment]
    seconds: dict[str, float]
    blocked: dict[str, NoResponsesError]


def assess_conditions(
    config: AssessConfig,
    chosen: Sequence[Condition],
    *,
    limit: int | None = None,
    progress: bool | None = None,
    allow_code: bool | None = None,
    on_condition: Callable[[Condition], None] | None = None,
) -> Assessed:
    """Each condition's assessment, and the seconds each took. An adversarial condition whose every request failed
    (a content filter that blocks every jailbreak, say) is a result, kept in ``blocked``; the benign one failing is
    still a run failure, since there is nothing to compare with."""
    out = Assessed({}, {}, {})
    for condition in chosen:
        if on_condition is not None:
            on_condition(condition)
        started = time.perf_counter()
        try:
            out.assessments[condition.name] = assess_config(
                under(config, condition), limit=limit, progress=progress, allow_code=allow_code
            )
        except NoResponsesError as exc:
            if condition.kind == "benign" or not isinstance(exc.responses, pd.DataFrame):
                raise
            out.blocked[condition.name] = exc
        out.seconds[condition.name] = round(time.perf_counter() - started, 3)
    return out


def _probe_arguments(config: AssessConfig, chosen: Sequence[Condition], allow_code: bool) -> dict[str, Any]:
    """What :func:`run_probes` and :func:`probe_estimate` take from a config: the model, every condition's system
    prompt, the run's settings and the probe keys of the redteam section (one store file with the use case's)."""
    rc = config.redteam
    assert rc is not None  # only called for a config whose redteam section asks for probes
    settings = config.run_settings()
    return {
        "client": config_client(config, allow_code=allow_code),
        "conditions": {c.name: c.system_prompt for c in chosen},
        "settings": settings,
        "generation": config.generation_settings(),
        "attributes": rc.probe_attributes,
        "continuations": rc.probe_continuations,
        "seed": settings.statistics.seed,
    }


def _probe_estimates(
    config: AssessConfig, chosen: Sequence[Condition], *, allow_code: bool
) -> dict[str, GenerationEstimate]:
    mc = config.model
    prices = Prices(**mc.prices.model_dump()) if mc.prices is not None else None
    return probe_estimate(**_probe_arguments(config, chosen, allow_code), prices=prices)


def probe_conditions(
    config: AssessConfig, chosen: Sequence[Condition], *, progress: bool | None = None, allow_code: bool = False
) -> ProbeResults:
    """The model-level template probes under every condition's system prompt, compared with the benign one."""
    arguments = _probe_arguments(config, chosen, allow_code)
    if progress is not None:
        settings = arguments["settings"]
        generation = settings.generation.model_copy(update={"progress": progress})
        arguments["settings"] = settings.model_copy(update={"generation": generation})
    return run_probes(**arguments, reference=chosen[0].name)


__all__ = [
    "Assessed",
    "assess_conditions",
    "conditions",
    "estimate",
    "probe_conditions",
    "response_source",
    "sum_estimates",
    "under",
]
