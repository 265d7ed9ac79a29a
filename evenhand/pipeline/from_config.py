"""Running an assessment described by a config file (what ``evenhand assess`` and ``evenhand demo`` do).

The config's run sections go to the run unchanged (:meth:`AssessConfig.run_settings`); the prompts, responses and
model sections choose the response source.
"""

from __future__ import annotations

from typing import Any

from evenhand.config import AssessConfig
from evenhand.pipeline.assessment import Assessment
from evenhand.pipeline.io import column, read_table
from evenhand.pipeline.run import run
from evenhand.pipeline.sources import Generated, OwnTable, ResponseSource

#: Per-prompt columns of the prompts file -> the response frame's column (see ``evenhand.pipeline.run.run``).
_PER_PROMPT_COLUMNS = {
    "label_column": ("truth", "ground-truth labels"),
    "group_column": ("person_group", "person groups"),
    "id_column": ("prompt_key", "prompt ids"),
}


def load_prompts(config: AssessConfig, limit: int | None) -> tuple[list[str], dict[str, list[Any]]]:
    """The prompts, and the per-prompt columns configured (ground truth, the person's group, your prompt id)."""
    pc = config.prompts
    if pc is None:
        raise ValueError("the config has no prompts section (prompts.path or prompts.items)")
    per_prompt: dict[str, list[Any]] = {}
    if pc.path is None:
        prompts = list(pc.items)
    else:
        table = read_table(pc.path)
        source = str(pc.path)
        prompts = [str(p) for p in column(table, pc.column, source=source, role="prompts")]
        for key, (target, role) in _PER_PROMPT_COLUMNS.items():
            name = getattr(pc, key)
            if name:
                per_prompt[target] = column(table, name, source=source, role=role)
    n = min(len(prompts), limit or pc.limit or len(prompts))
    if n == 0:
        raise ValueError(f"{pc.path or 'prompts.items'} has no prompts")
    return prompts[:n], {k: v[:n] for k, v in per_prompt.items()}


def assess_config(config: AssessConfig, *, limit: int | None = None, progress: bool | None = None) -> Assessment:
    """Run an assessment with everything the config says (model or own responses, scoring, statistics)."""
    settings = config.run_settings()
    if progress is not None:
        generation = settings.generation.model_copy(update={"progress": progress})
        settings = settings.model_copy(update={"generation": generation})
    source, prompts, per_prompt = response_source(config, limit)
    return run(config.use_case_with(prompts), source, settings, per_prompt=per_prompt)


def response_source(config: AssessConfig, limit: int | None = None) -> tuple[ResponseSource, list[str], dict[str, Any]]:
    """The config's response source, its prompts and the per-prompt columns (own responses bring their prompts)."""
    if config.responses is not None:
        rc = config.responses
        table = read_table(rc.path)
        if limit:
            table = table.head(limit)
        extra = {k: v for k, v in (("truth", rc.label_column), ("person_group", rc.person_group_column)) if v}
        own = OwnTable(
            table,
            columns=rc.model_dump(include=_TABLE_COLUMNS),
            extra_columns=extra,
            source=str(rc.path),
            model_info={"provider": "user responses", "model": str(rc.path.name)},
        )
        return own, own.prompts(config.use_case_with([]).attribute_specs) or [], {}
    prompts, per_prompt = load_prompts(config, limit)
    mc = config.model
    generated = Generated(
        mc.client_spec(),
        system_prompt=mc.system_prompt,
        options={"temperature": mc.temperature, "max_tokens": mc.max_tokens, "seed": mc.seed,
                 "concurrency": mc.concurrency},
        model_info=_model_info(mc.client_spec()),
    )  # fmt: skip
    return generated, prompts, per_prompt


# the responses section's column names, as frame_from_table takes them
_TABLE_COLUMNS = {
    "prompt_column",
    "response_column",
    "prompt_id_column",
    "attribute_column",
    "group_column",
    "sample_column",
}


def _model_info(spec: dict[str, Any]) -> dict[str, Any]:
    """What the report says about the model: the client spec without secrets; the bundled model by its name."""
    info = {k: v for k, v in spec.items() if v is not None and "key" not in k}
    if info.get("provider") == "local" and not info.get("model"):
        info["model"] = "SmolLM2-135M-Instruct (bundled)"
    return info
