"""Running an assessment described by a config file (what ``evenhand assess`` and ``evenhand demo`` do).

The config's run sections go to the run unchanged (:meth:`AssessConfig.run_settings`); the prompts, responses and
model sections choose the response source, whose generation settings the config gives by their names
(:meth:`AssessConfig.generation_settings`).

A config file is data: code it names (``model.options.function: "package.module:name"``) is imported only when
allowed from outside the file (``assess_config(config, allow_code=True)``, ``evenhand assess --allow-code`` or
``EVENHAND_ALLOW_CODE=1``). What the results say about the model never holds a secret (:mod:`evenhand._redact`).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from evenhand._redact import redact_mapping
from evenhand.config import AssessConfig, ModelConfig, load_config
from evenhand.conversation import Prompt
from evenhand.errors import InputError, InputFileNotFoundError
from evenhand.framework import UseCase, plan
from evenhand.generation.cost import GenerationEstimate, Prices
from evenhand.pipeline.families import FAMILY_TYPES, Needs
from evenhand.pipeline.responses.sources import Generated, OwnTable, ResponseSource
from evenhand.pipeline.responses.tables import column, is_missing, prompt_column, read_table
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.run import run

#: Per-prompt columns of the prompts file -> the response frame's column (see ``evenhand.pipeline.run.run``).
_PER_PROMPT_COLUMNS = {
    "label_column": ("truth", "ground-truth labels"),
    "group_column": ("person_group", "person groups"),
    "id_column": ("prompt_key", "prompt ids"),
}


#: The key of :func:`load_prompts`'s per-prompt values that holds each prompt's subject (``prompts.subject_column``):
#: a setting of the use case (:func:`use_case_of`), not a column of the response frame
SUBJECTS = "name_subject"


def _read_configured(path: Path, key: str, ids: str | None) -> pd.DataFrame:
    """The table a config key names, its column of ``ids`` read as text ("007" is not "7"); a missing file names
    the key too (a copied config's relative path is read from the copy's folder, which a reader of "no such file"
    alone would not guess)."""
    if not path.exists():
        raise InputFileNotFoundError(
            f"{key}: no such file: {path} (a relative path is read from the config file's folder)"
        )
    return read_table(path, text_columns=[ids] if ids else ())


def load_prompts(config: AssessConfig, limit: int | None) -> tuple[list[Prompt], dict[str, list[Any]]]:
    """The prompts (texts or conversations, with their documents and system prompts), and the per-prompt columns
    configured (ground truth, the person's group, your prompt id; and under :data:`SUBJECTS` each prompt's subject,
    as written anywhere in its conversation). With ``prompts.templates`` they are the templates, and ``limit``
    counts templates."""
    pc = config.prompts
    if pc is None:
        raise InputError("the config has no prompts section (prompts.path or prompts.items)")
    per_prompt: dict[str, list[Any]] = {}
    if pc.path is None:
        prompts = list(pc.items)
    else:
        table = _read_configured(pc.path, "prompts.path", pc.id_column)
        source = str(pc.path)
        prompts = prompt_column(
            table, pc.column, source=source, context_column=pc.context_column,
            system_prompt_column=pc.system_prompt_column,
        )  # fmt: skip
        for key, (target, role) in _PER_PROMPT_COLUMNS.items():
            name = getattr(pc, key)
            if name:
                per_prompt[target] = column(table, name, source=source, role=role, named_by=f"prompts.{key}")
        if pc.subject_column:
            subjects = column(table, pc.subject_column, source=source, role="the subject of each prompt")
            per_prompt[SUBJECTS] = [None if is_missing(v) else str(v) for v in subjects]
    n = min(len(prompts), limit or pc.limit or len(prompts))
    if n == 0:
        raise InputError(f"{pc.path or 'prompts.items'} has no prompts")
    return prompts[:n], {k: v[:n] for k, v in per_prompt.items()}


def use_case_of(
    config: AssessConfig, prompts: list[Prompt], per_prompt: dict[str, Any]
) -> tuple[UseCase, dict[str, Any]]:
    """The config's use case with ``prompts`` (and their subjects, from :func:`load_prompts`), and the per-prompt
    columns that go to the response frame."""
    subjects = per_prompt.get(SUBJECTS)
    use_case = config.use_case_with(prompts, subjects=subjects)
    grouped = bool(config.prompts and config.prompts.group_column) or bool(config.classification.group_columns)
    grouped = grouped or bool(config.responses and config.responses.person_group_column)
    return use_case.with_person_groups(grouped), {k: v for k, v in per_prompt.items() if k != SUBJECTS}


def code_keys(config: AssessConfig) -> dict[str, str]:
    """The config keys that name Python code to import (``{"model.options.function": "package.module:name"}``); the
    assistants' (``ftu.reader``, ``judge``) too, which run whatever the responses are."""
    models: dict[str, ModelConfig | None] = {"ftu.reader": config.ftu.reader, "judge": config.judge}
    if config.responses is None:  # own responses: the model is not called
        models = {"model": config.model, **models}
    found = {f"{key}.options.function": m.client_spec().get("function") for key, m in models.items() if m is not None}
    return {key: function for key, function in found.items() if isinstance(function, str)}


def check_code_allowed(config: AssessConfig, allow_code: bool | None = None) -> bool:
    """Raise ``ValueError`` naming the key when the config names code and running it is not allowed (``allow_code``
    or, when it is None, ``EVENHAND_ALLOW_CODE=1``); return whether code is allowed."""
    from evenhand.generation.clients.callable import code_allowed, code_refusal

    allowed = code_allowed(allow_code)
    if not allowed:
        for key, target in code_keys(config).items():
            raise InputError(code_refusal(key, target))
    return allowed


def assess_config(
    config: AssessConfig,
    *,
    limit: int | None = None,
    progress: bool | None = None,
    allow_code: bool | None = None,
    on_estimate: Callable[[GenerationEstimate], None] | None = None,
) -> Assessment:
    """Run an assessment with everything the config says (model or own responses, scoring, statistics).

    ``allow_code``: whether the config may name Python code to import and run (``model: {provider: callable,
    options: {function: "package.module:name"}}``). ``None`` (default) reads the environment variable
    ``EVENHAND_ALLOW_CODE`` ("1" allows), ``False`` refuses even when it is set; the config itself cannot allow it.
    A refused config raises ``ValueError`` before anything runs. ``on_estimate`` is called with what generation
    will send (:class:`~evenhand.generation.cost.GenerationEstimate`) just before it starts.
    """
    allowed = check_code_allowed(config, allow_code)
    check_model_device(config)
    check_local_model(config)
    settings = config.run_settings()
    if progress is not None:
        generation = settings.generation.model_copy(update={"progress": progress})
        settings = settings.model_copy(update={"generation": generation})
    if allowed:
        settings = _assistants_code_loaded(settings)
    source, prompts, per_prompt = response_source(config, limit, allow_code=allowed)
    if isinstance(source, Generated):
        source.on_estimate = on_estimate
    use_case, per_prompt = use_case_of(config, prompts, per_prompt)
    return run(use_case, source, settings, per_prompt=per_prompt)


def _assistants_code_loaded(settings: Any) -> Any:
    """``settings`` with the function an assistant names (``options.function: "package.module:name"``) imported,
    where code is allowed: the assistant is built later, from the settings alone."""
    from evenhand.generation.clients.callable import load_function

    def loaded(model: Any, key: str) -> Any:
        target = model.options.get("function") if model is not None else None
        if not isinstance(target, str):
            return model
        function = load_function(target, allow_code=True, key=f"{key}.options.function")
        return model.model_copy(update={"options": {**model.options, "function": function}})

    ftu = settings.ftu.model_copy(update={"reader": loaded(settings.ftu.reader, "ftu.reader")})
    return settings.model_copy(update={"ftu": ftu, "judge": loaded(settings.judge, "judge")})


def estimate_config(
    config: AssessConfig, limit: int | None = None, *, allow_code: bool | None = None
) -> GenerationEstimate | None:
    """What ``evenhand assess`` on ``config`` will send to the model, before anything is sent: requests, prompt
    tokens, at most how many completion tokens, and the cost when ``model.prices`` is given (None: the config
    brings its own responses). Nothing is generated and the store is only read."""
    if config.responses is not None:
        return None
    from evenhand.generation.clients.callable import code_allowed

    # code the config names is imported only where allowed; else a callable counts as one sample per request
    source, prompts, per_prompt = response_source(config, limit, allow_code=code_allowed(allow_code))
    assert isinstance(source, Generated)
    use_case, _ = use_case_of(config, prompts, per_prompt)
    the_plan = plan(use_case, judge=config.judge is not None)
    needs = Needs.merge(f.needs(the_plan) for f in (t() for t in FAMILY_TYPES) if f.applies(the_plan))
    settings = config.run_settings()
    estimate = source.plan_estimate(use_case, needs, settings)
    assistants = assistant_estimates(config, use_case, the_plan, settings, allow_code=code_allowed(allow_code))
    return dataclasses.replace(estimate, assistants=assistants) if assistants else estimate


def assistant_estimates(
    config: AssessConfig, use_case: Any, the_plan: Any, settings: Any, *, allow_code: bool
) -> tuple[tuple[str, GenerationEstimate], ...]:
    """What the second reader and the judge will send (:mod:`evenhand.generation.assistant_cost`), audits included:
    the reader reads every prompt for the attributes a plan checks; the judge is asked both orders of every
    counterfactual pair of replies and of the same-version pairs. The reader's rewrites are known only after it
    reads: not counted."""
    from evenhand.conversation import prompt_text
    from evenhand.generation.assistant_cost import estimate_judge, estimate_reader
    from evenhand.generation.clients.factory import get_client, on_cpu_unless_torch_loaded
    from evenhand.pipeline.responses.frame import counterfactual_requests
    from evenhand.text.counterfactual import attribute_groups
    from evenhand.text.turns import layout

    def client(spec: dict[str, Any]) -> Any:  # a callable named in the config is counted, never imported unasked
        if spec.get("provider") == "callable" and not allow_code:
            return spec
        return get_client(on_cpu_unless_torch_loaded(spec), allow_code=allow_code)

    out: list[tuple[str, GenerationEstimate]] = []
    specs = use_case.attribute_specs
    reader = config.ftu.reader
    if reader is not None:
        groups = {a: attribute_groups(spec) for a, spec in specs.items() if not isinstance(spec, tuple)}
        chosen = reader.assistant_settings(settings.generation)
        texts = [layout(p).text for p in use_case.prompts]  # what the reader reads: a conversation as one text
        out.append(("reader", estimate_reader(texts, groups, client(reader.client_spec()),
                                              settings=chosen, prices=reader.prices_given())))  # fmt: skip
    judge = config.judge
    judged = the_plan.attributes_for("judged_treatment")
    if judge is not None and judged:
        rows = counterfactual_requests(
            use_case.prompts,
            {a: specs[a] for a in judged},
            names=use_case.names,
            subject=use_case.subjects,
            change_system_prompt=use_case.change_system_prompt,
        )
        pairs: list[tuple[str, str]] = []
        versions = 0
        for _, per in rows.groupby(["attribute", "prompt_id"], sort=False):
            texts = [prompt_text(p) for p in per["prompt"]]  # as the judge is shown them: a conversation readable
            versions += len(texts)
            pairs.extend((x, y) for i, x in enumerate(texts) for y in texts[i + 1 :])
        count = settings.generation.counterfactual_count or settings.generation.count
        same = versions * (count // 2) if judge.same_version else 0
        out.append(("judge", estimate_judge(
            pairs, client(judge.client_spec()), samples=count, same_version=same,
            reply_max_tokens=config.model.max_tokens, settings=judge.assistant_settings(settings.generation),
            prices=judge.prices_given(),
        )))  # fmt: skip
    return tuple(out)


def estimate_cost(
    config: AssessConfig | str | os.PathLike[str], *, limit: int | None = None, allow_code: bool | None = None
) -> GenerationEstimate | None:
    """``evenhand.estimate_cost``: :func:`estimate_config` for a config object or file (YAML or TOML)."""
    if not isinstance(config, AssessConfig):
        config = load_config(config)
    return estimate_config(config, limit, allow_code=allow_code)


def check_model_device(config: AssessConfig) -> None:
    """Raise ``ValueError`` naming ``model.device`` when the local model's device is not on this machine (checked
    before the scorers are built and long before generation)."""
    device = config.model.device
    if device is None or device == "cpu" or config.responses is not None:
        return
    from evenhand.scorers._base import resolve_device

    try:
        resolve_device(device)
    except (ValueError, ImportError) as exc:  # ImportError: no torch, so no device to choose
        raise InputError(f"model.device: {exc}") from None


def check_local_model(config: AssessConfig) -> None:
    """Raise ``ValueError`` naming ``model.model`` when the local model folder the config names is not there (else
    every request would fail inside the Hugging Face loader and the run end as a runtime failure). Checked when the
    model is about to be used, not when a config is read: ``evenhand plan`` needs no model. A path in a config file
    is relative to the file's folder (:meth:`AssessConfig.resolve_paths`); one given with ``--model``, to the
    working directory."""
    models: dict[str, ModelConfig | None] = {"ftu.reader": config.ftu.reader, "judge": config.judge}
    if config.responses is None:  # the model answers only when the config brings no responses
        models = {"model": config.model, **models}
    for key, model in models.items():
        folder = model.local_folder() if model is not None else None
        if folder is not None and not folder.exists():
            raise InputError(
                f"{key}.model: no such local model folder {folder} (a path in a config is relative to the config "
                "file's folder; or give a Hugging Face id)"
            )
        if model is not None and folder is None and model.provider == "local" and model.model is not None:
            _check_cached_offline(key, model.model, model.options.get("gguf_file"))


def _check_cached_offline(key: str, model_id: str, gguf_file: str | None) -> None:
    """With downloads off (``HF_HUB_OFFLINE``, ``TRANSFORMERS_OFFLINE``), a local model given as a Hugging Face id
    must be a folder or in the local cache: else every request would fail in the loader, a runtime failure of a
    name that was wrong from the start. Online, the loader downloads it (and says so if it cannot)."""
    offline = any(_truthy(os.environ.get(name)) for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))
    if not offline or Path(model_id).is_dir():
        return
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:  # without it no local model loads: the loader says what to install
        return
    try:
        cached = try_to_load_from_cache(model_id, gguf_file or "config.json")
    except ValueError:  # not even a valid repo id ("my model", "a/b/c")
        cached = None
    if not isinstance(cached, str):
        raise InputError(
            f"{key}.model: {model_id!r} is not a folder and not in the Hugging Face cache on this machine, and "
            "downloads are off (HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE): check the name, give a local folder "
            "(./models/m), or leave model.model out for the bundled SmolLM2"
        )


def _truthy(value: str | None) -> bool:
    """An environment flag as huggingface_hub reads it: 1, true, yes or on."""
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def response_source(
    config: AssessConfig, limit: int | None = None, *, allow_code: bool = False
) -> tuple[ResponseSource, list[Prompt], dict[str, Any]]:
    """The config's response source, its prompts and the per-prompt columns (own responses bring their prompts).

    Nothing named in the config is imported here unless ``allow_code`` is True (then the callable client is built
    at once); otherwise the client spec stays a dict, and building the client later refuses code unless
    ``EVENHAND_ALLOW_CODE=1`` (so ``evenhand plan CONFIG``, which only reads the prompts, never runs code)."""
    if config.responses is not None:
        rc = config.responses
        table = _read_configured(rc.path, "responses.path", rc.prompt_id_column)
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
        use_case = config.use_case_with([])
        return own, own.prompts(
            use_case.attribute_specs,
            names=use_case.names,
            change_system_prompt=use_case.change_system_prompt,
            subject=use_case.subjects,
        ) or [], {}
    prompts, per_prompt = load_prompts(config, limit)
    mc = config.model
    generated = Generated(
        config_client(config, allow_code=allow_code),
        settings=config.generation_settings(),
        model_info=_model_info(mc.client_spec()),
        prices=Prices(**mc.prices.model_dump()) if mc.prices is not None else None,
    )
    return generated, prompts, per_prompt


def config_client(config: AssessConfig, *, allow_code: bool = False) -> Any:
    """The model the config names, as :func:`evenhand.generation.get_client` takes it: the client spec, or the
    callable client built at once where code is allowed (see :func:`response_source`)."""
    client: Any = config.model.client_spec()
    if allow_code and code_keys(config):
        from evenhand.generation import get_client

        client = get_client(client, allow_code=True)
    return client


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
    """What the report says about the model: the client spec without secrets (:func:`evenhand._redact.
    redact_mapping`: header and extra_body values, credentials, URL user:password; the API key's variable name is
    left out as before); the bundled model by its name."""
    info: dict[str, Any] = redact_mapping({k: v for k, v in spec.items() if v is not None and k != "api_key_env"})
    if info.get("provider") == "local" and not info.get("model"):
        info["model"] = "SmolLM2-135M-Instruct (bundled)"
    return info
