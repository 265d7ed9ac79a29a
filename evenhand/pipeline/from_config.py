"""Running an assessment described by a config file (what ``evenhand assess`` and ``evenhand demo`` do)."""

from __future__ import annotations

from typing import Any

from evenhand.config import AssessConfig
from evenhand.pipeline.assessment import Assessment
from evenhand.pipeline.io import column, read_table
from evenhand.pipeline.parsers import KeywordLabelParser
from evenhand.pipeline.run import assess


def load_prompts(config: AssessConfig, limit: int | None) -> tuple[list[str], list[Any] | None, list[Any] | None]:
    """The prompts, and per prompt the ground-truth label and the person's group when configured."""
    pc = config.prompts
    labels = groups = None
    if pc.path is None:
        prompts = list(pc.items)
    else:
        table = read_table(pc.path)
        source = str(pc.path)
        prompts = [str(p) for p in column(table, pc.column, source=source, role="prompts")]
        if pc.label_column:
            labels = column(table, pc.label_column, source=source, role="ground-truth labels")
        if pc.group_column:
            groups = column(table, pc.group_column, source=source, role="person groups")
    n = min(len(prompts), limit or pc.limit or len(prompts))
    if n == 0:
        raise ValueError(f"{pc.path or 'prompts.items'} has no prompts")
    return prompts[:n], (labels[:n] if labels is not None else None), (groups[:n] if groups is not None else None)


def assess_config(config: AssessConfig, *, limit: int | None = None, progress: bool | None = None) -> Assessment:
    """Run :func:`evenhand.assess` with everything the config says (model or own responses, scoring, stats)."""
    sc, st, gen, mc = config.scoring, config.statistics, config.generation, config.model
    common: dict[str, Any] = {
        "toxicity": sc.toxicity,
        "sentiment": sc.sentiment,
        "stereotype": sc.stereotype,
        "embedder": False if sc.embedder is False else sc.embedder,
        "toxicity_threshold": sc.toxicity_threshold,
        "stereotype_threshold": sc.stereotype_threshold,
        "sentiment_threshold": sc.sentiment_threshold,
        "ci": st.ci,
        "n_resamples": st.n_resamples,
        "seed": st.seed,
        "ci_method": st.method,
        "thresholds": config.thresholds,
        "k": config.recommendation.k,
        "positive_label": config.classification.sensitive_classes or config.classification.positive_label,
        "label_parser": KeywordLabelParser(config.classification.labels, config.classification.pattern),
        "progress": gen.progress if progress is None else progress,
    }
    if config.responses is not None:
        rc = config.responses
        table = read_table(rc.path)
        if limit:
            table = table.head(limit)
        from evenhand.pipeline.collect import frame_from_table

        use_case = config.use_case_with([])
        extra = {k: v for k, v in (("truth", rc.label_column), ("person_group", rc.person_group_column)) if v}
        prompts, frame = frame_from_table(
            table,
            use_case.attribute_specs,
            prompt_column=rc.prompt_column,
            response_column=rc.response_column,
            prompt_id_column=rc.prompt_id_column,
            attribute_column=rc.attribute_column,
            group_column=rc.group_column,
            sample_column=rc.sample_column,
            extra_columns=extra,
            source=str(rc.path),
        )
        labels = groups = None
        if "truth" in frame:
            labels = _per_prompt(frame, "truth", len(prompts))
        if "person_group" in frame:
            groups = _per_prompt(frame, "person_group", len(prompts))
        return assess(
            config.use_case_with(prompts),
            responses=frame,
            labels=labels,
            groups=groups,
            model_info={"provider": "user responses", "model": str(rc.path.name)},
            **common,
        )
    prompts, labels, groups = load_prompts(config, limit)
    return assess(
        config.use_case_with(prompts),
        mc.client_spec(),
        labels=labels,
        groups=groups,
        count=gen.count,
        counterfactual_count=gen.counterfactual_count,
        system_prompt=mc.system_prompt,
        store=gen.store if gen.store is not None else config.output.dir / "generations.sqlite",
        model_info=_model_info(mc.client_spec()),
        generation_options={
            "temperature": mc.temperature,
            "max_tokens": mc.max_tokens,
            "seed": mc.seed,
            "concurrency": mc.concurrency,
        },
        **common,
    )


def _per_prompt(frame: Any, col: str, n: int) -> list[Any]:
    originals = frame[frame["group"].isna()].drop_duplicates("prompt_id").set_index("prompt_id")[col]
    return [originals.get(i) for i in range(n)]


def _model_info(spec: dict[str, Any]) -> dict[str, Any]:
    """What the report says about the model: the client spec without secrets; the bundled model by its name."""
    info = {k: v for k, v in spec.items() if v is not None and "key" not in k}
    if info.get("provider") == "local" and not info.get("model"):
        info["model"] = "SmolLM2-135M-Instruct (bundled)"
    return info
