"""``evenhand.assess``: FTU check and plan -> responses (generated or the user's own) -> each metric family prepares
its inputs and computes its records -> intervals, tests and noise floors -> :class:`Assessment`.

:func:`run` is the loop; it walks the metric families (:mod:`evenhand.pipeline.families`) and never branches on a
task or a metric. :func:`assess` is the documented facade: it turns keyword arguments into a use case, a response
source and :class:`~evenhand.config.RunSettings`, and calls :func:`run`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import pandas as pd
from pydantic import BaseModel, ValidationError

from evenhand._redact import redact_text
from evenhand.config import JudgeConfig, RunSettings, check_threshold_scope
from evenhand.config.schema import TASK_SECTIONS
from evenhand.errors import InputError, InputTypeError, NoResponsesError
from evenhand.framework import UseCase, plan
from evenhand.pipeline.evidence.adjustment import adjust_p_values
from evenhand.pipeline.evidence.records import MetricRecord, independent_units
from evenhand.pipeline.evidence.scorer_error import correct_for_scorer_error
from evenhand.pipeline.evidence.signed_differences import signed_interval
from evenhand.pipeline.families import FAMILY_TYPES, Needs, RunContext
from evenhand.pipeline.families.base import Family
from evenhand.pipeline.families.judged import READER_KEY
from evenhand.pipeline.responses.masked_replies import add_compared
from evenhand.pipeline.responses.parsers import check_label_reading
from evenhand.pipeline.responses.personal_names import NAMES_CAVEAT, names_used
from evenhand.pipeline.responses.scratch_store import TEMPORARY_STORE, scratch_store
from evenhand.pipeline.responses.sources import Generated, OwnLists, OwnTable, ResponseSource
from evenhand.pipeline.results.assessment import Assessment
from evenhand.pipeline.stages import Stages, advance_stage
from evenhand.pipeline.verdict.intervals_agree_with_tests import make_intervals_test_consistent
from evenhand.pipeline.verdict.severity import MIN_UNITS
from evenhand.scorers.engine import ScoringEngine
from evenhand.stats import SMALL_UNITS

# keyword arguments of assess() whose settings field has another name
_KEYWORD_ALIASES = {"ci_method": "method"}
# fewer independent units than this: a caveat says the intervals are wide (Student's t on few units, stats5)
SMALL_SAMPLE = SMALL_UNITS
# the sections assess()'s keywords fill field by field (the judge, a section that may be null, is one keyword)
_SECTIONS = tuple(name for name in RunSettings.model_fields if name not in ("thresholds", "judge"))


def run(
    use_case: UseCase,
    source: ResponseSource,
    settings: RunSettings | None = None,
    *,
    per_prompt: Mapping[str, Sequence[Any]] | None = None,
    label_parser: Callable[[str], Any] | None = None,
    list_parser: Callable[[str, int], list[str]] | None = None,
    engine: str | Mapping[str, Any] | ScoringEngine | None = None,
) -> Assessment:
    """Run the decision framework's plan on a use case with responses from ``source``.

    Args:
        use_case: the use case (its prompts may come from ``source`` instead).
        source: a :class:`~evenhand.pipeline.responses.sources.ResponseSource`.
        settings: the run settings (the config file's run sections); ``None`` = every default.
        per_prompt: columns given once per prompt, e.g. ``{"truth": labels, "person_group": groups}``.
        label_parser, list_parser: how a classification answer becomes a label, a recommendation answer K items.
        engine: the scoring engine (``None`` = ``settings.scoring.engine``, local by default; ``"ray"``; see
            :func:`evenhand.scorers.get_engine`).
    """
    from evenhand.scorers import get_engine

    started = time.perf_counter()
    settings = settings or RunSettings()
    timings: dict[str, float] = {}
    brought = source.prompts(
        use_case.attribute_specs,
        names=use_case.names,
        change_system_prompt=use_case.change_system_prompt,
        subject=use_case.subjects,
    )
    if brought is not None and not use_case.prompts:
        use_case = use_case.model_copy(update={"prompts": brought})
    if not use_case.prompts:
        raise InputError("the use case has no prompts: pass UseCase(prompts=...) or a responses table with prompts")
    grouped = "person_group" in (per_prompt or {}) or "person_group" in getattr(source, "extra_columns", {})
    use_case = use_case.with_person_groups(grouped or bool(settings.classification.group_columns))
    check_threshold_scope(settings.thresholds, use_case)
    if use_case.answers_are_labels and label_parser is None:  # before anything is generated
        check_label_reading(settings.classification)
    if use_case.templates is not None:  # a label or group given once per template holds for each of its fills
        templates = use_case.templates
        per_prompt = {k: templates.per_prompt(v, len(use_case.prompts)) for k, v in (per_prompt or {}).items()}
    for column, values in (per_prompt or {}).items():
        if len(values) != len(use_case.prompts):
            raise InputError(
                f"{_PER_PROMPT_NAMES.get(column, column)} has {len(values)} entries for {len(use_case.prompts)} "
                "prompts; give one per prompt"
            )

    t = time.perf_counter()
    reader = settings.ftu.build_reader(settings.generation)  # opt-in: a second reader of identity cues
    the_plan = plan(use_case, reader=reader, judge=settings.judge is not None)
    timings["plan"] = time.perf_counter() - t
    # Building the scorers is timed (and shown) as its own step: it imports torch, transformers and
    # sentence-transformers and loads the models, ~5 s of a first run that used to be counted as "plan"
    t = time.perf_counter()
    families = [f for f in (t() for t in FAMILY_TYPES) if f.applies(the_plan)]
    # a reader's counterfactual versions of the prompts only it flags are generated with the lexicon's
    needs = Needs.merge(f.needs(the_plan) for f in families).with_versions(the_plan.reader_versions())
    # a server that cannot be reached, or refuses the key, fails now, not after the scorers have loaded (preflight17)
    source.check_reachable(use_case, needs, settings)
    for family in families:  # and so does an assistant the run asks, the judge (faults18)
        family.check_reachable(the_plan, settings)
    with Stages(1, settings.generation.progress) as loading, loading.stage("loading scorers"):
        for family in families:  # every scorer is built (and checked) before the first response is generated
            family.build(the_plan, settings)
            family.check_inputs(the_plan, settings, source, per_prompt or {})
    # so is the engine: a missing Ray or a bad engine option fails before generation, not after
    if engine is not None:
        scoring_engine = get_engine(engine)
    else:
        try:
            scoring_engine = get_engine(settings.scoring.engine_spec())
        except ImportError as exc:  # engine: ray in the settings, Ray not installed: a setting that cannot be met
            raise InputError(f"scoring.engine: {exc}") from None
    # an engine built here from a spec (e.g. a local Ray it started) is closed here; an engine object passed in
    # stays the caller's to reuse
    owned = engine is None or isinstance(engine, (str, Mapping))
    try:
        start = getattr(scoring_engine, "start", None)
        if callable(start):  # an engine that needs a cluster joins it now, not after the responses are generated
            start()
        timings["scorers"] = time.perf_counter() - t

        t = time.perf_counter()
        frame = source.frame(use_case, needs, settings)
        timings["responses"] = time.perf_counter() - t
        frame = _checked(frame)
        for column, values in (per_prompt or {}).items():
            frame[column] = pd.Series([values[i] for i in frame["prompt_id"]], index=frame.index, dtype=object)

        ctx = RunContext(the_plan, frame, settings, scoring_engine, label_parser=label_parser, list_parser=list_parser)
        masked = add_compared(frame, the_plan)  # the replies as compared: the versions' names masked (issue 33)
        with_statistics = settings.statistics.ci is not None
        records: list[MetricRecord] = []
        # preparing and metrics per family; intervals, then the tests of each family that has any
        n_stages = 2 * len(families) + with_statistics * (1 + len(_tested(families)))
        with Stages(n_stages, settings.generation.progress) as stages:
            t = time.perf_counter()
            for family in families:
                with stages.stage(f"preparing: {family.name}"):
                    family.prepare(ctx)
            ctx.described.update(_scorer_precision(families))
            timings["scoring"] = time.perf_counter() - t
            t = time.perf_counter()
            for family in families:
                with stages.stage(f"metrics: {family.name}"):
                    records.extend(family.records(ctx))
            timings["metrics"] = time.perf_counter() - t
            t = time.perf_counter()
            if with_statistics:
                _statistics(ctx, families, records, stages)
            timings["statistics"] = time.perf_counter() - t
    finally:
        close = getattr(scoring_engine, "close", None)
        if owned and callable(close):
            close()
    names = names_used(the_plan, frame)  # the personal names the counterfactual prompts used, per attribute and group
    if masked:  # results.json says the replies were compared with those names masked
        names["masked"] = masked
    caveats = list(the_plan.caveats) + ctx.caveats + _general_caveats(frame, records)
    if names["attributes"]:
        caveats.append(NAMES_CAVEAT)
    timings["total"] = time.perf_counter() - started
    meta = {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": source.describe(),
        "timings": {key: round(v, 3) for key, v in timings.items()},
        **ctx.assistants,  # the judge's audit and findings, when a judge was used
        **({READER_KEY: {"usage": reader.usage()}} if reader is not None else {}),  # its audit is the plan's
    }
    estimate = getattr(source, "estimate", None)  # what generation was estimated to send, before it started
    if estimate is not None:
        meta["generation_estimate"] = estimate.as_dict()
    # what the run knows travels whole, as fields: results.json's settings block is written from them, once
    return Assessment(the_plan, records, frame, meta, caveats, rules=settings.thresholds, settings=settings,
                      described=dict(ctx.described), scorer_audit=dict(ctx.audits), names=names,
                      sections=dict(ctx.sections))  # fmt: skip


_PER_PROMPT_NAMES = {"truth": "labels", "person_group": "groups", "prompt_key": "prompt ids"}


def _checked(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        raise InputError("no responses to assess (no prompt needed a response for the planned metrics)")
    frame = frame.reset_index(drop=True)
    if not (frame["status"] == "ok").any():
        errors = [e for e in frame["error"].tolist() if isinstance(e, str) and e]
        first = f"; first error: {errors[0]}" if errors else ""
        filtered = int((frame["status"] == "filtered").sum())
        if filtered and not errors:  # no error text to quote: say what happened instead
            first = f"; {filtered} of them were refused by a content filter (status filtered)"
        # the frame travels with the error: a red team records a condition blocked every time as a result
        raise NoResponsesError(f"none of the {len(frame)} requests produced a response{first}", frame)
    return frame


def _statistics(ctx: RunContext, families: Sequence[Family], records: list[MetricRecord], stages: Stages) -> None:
    """Intervals for every metric; each family's tests and baselines; Benjamini-Hochberg over all tests.
    Each is a stage of ``stages`` that counts its records (a family's test counts its own defined records)."""
    st = ctx.settings.statistics
    assert st.ci is not None
    with stages.stage("statistics: intervals", total=len(records)):
        for rec in records:
            _interval(rec, st)
            signed_interval(rec, st)  # the signed difference behind a distance, with the same units and settings
            advance_stage()
    for family in _tested(families):
        own = sum(rec.family in family.metric_families and rec.result.is_defined for rec in records)
        with stages.stage(f"statistics: tests, noise floors: {family.name}", total=own):
            family.test(ctx, records)
    adjust_p_values(records)
    make_intervals_test_consistent(records)  # a distance's interval includes 0 unless its test rejects
    correct_for_scorer_error(records, ctx.audits, st)  # beside the raw gap: the gap corrected for the scorer's error


def _tested(families: Sequence[Family]) -> list[Family]:
    """The families that add tests or baselines (override :meth:`Family.test`)."""
    return [f for f in families if type(f).test is not Family.test]


def _interval(rec: MetricRecord, st: Any) -> None:
    """The record's interval by the method its metric declares (``MetricSpec.interval``: the bootstrap, or for a rate
    or a difference of rates an interval that keeps its coverage at 0% and 100%), or a note saying why it has none."""
    from evenhand.stats import metric_interval

    if not rec.result.is_defined:
        return
    if rec.result.resampler is None:
        rec.notes.append("no interval: the result carries no units to resample")
        return
    try:
        rec.interval = metric_interval(
            rec.result, rec.spec.interval, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed, method=st.method
        )
    except ValueError as exc:
        rec.notes.append(f"no interval: {exc}")
        return
    if rec.interval.reason:
        rec.notes.append(f"interval: {rec.interval.reason}")


def _general_caveats(frame: pd.DataFrame, records: Sequence[MetricRecord]) -> list[str]:
    caveats = []
    failed = frame["status"] != "ok"
    if failed.any():
        caveats.append(f"{int(failed.sum())} of {len(frame)} requests produced no response (see the status column)")
    small: dict[int, list[str]] = {}
    for rec in records:  # the independent units: prompts (or persons), else what the metric counted
        units = independent_units(rec.result.sizes)
        if rec.result.is_defined and units is not None and 0 < units < SMALL_SAMPLE:
            small.setdefault(units, []).append(rec.name)
    if small:
        fewest = min(small)
        names = ", ".join(dict.fromkeys(small[fewest]))
        caveats.append(
            f"some metrics rest on fewer than {SMALL_SAMPLE} independent units (prompts or persons), the fewest on "
            f"{fewest} ({names}); their intervals are wide and approximate, and the verdict does not call a concern "
            f"on fewer than {MIN_UNITS}"
        )
    return caveats


def _scorer_precision(families: Sequence[Family]) -> dict[str, str]:
    """``{"toxicity_scorer_precision": "int8 (...), agreement with fp32: ..."}`` for every scorer a family built with
    ``quantize: int8``, so that results.json and the report say the scores are not full precision."""
    from evenhand.scorers._onnx import quantization_notes

    return {key: note for family in families for key, note in quantization_notes(vars(family)).items()}


def settings_from_keywords(
    base: RunSettings | None = None, /, *, task: str | None = None, **keywords: Any
) -> RunSettings:
    """Run settings from :func:`assess`'s keywords: each goes to the one settings section that has a field of that
    name (``toxicity_threshold`` -> ``scoring``, ``k`` -> ``recommendation``, ...); ``ci_method`` is
    ``statistics.method`` and a list ``positive_label`` is ``classification.sensitive_classes``. A keyword that names
    a section (``estimation={"currency": "$"}``, ``impact_ratios=...``) gives that section's fields at once. A
    keyword two sections have (``json_field``: the JSON field a label, or a number, is read from) goes to the
    section named as the use case's ``task`` (estimation), else to the first of them in the settings' order
    (classification).

    With ``base`` (``assess(settings=...)``) a setting is given once: a keyword for a field ``base`` gives a value
    other than its default must equal it, else an :class:`InputError` names both; a field ``base`` leaves at its
    default is the keyword's to set."""
    if base is not None:
        for keyword, value in keywords.items():
            _check_given_once(base, task, keyword, value)
    return _with_keywords(base or RunSettings(), task, keywords)


def _leaves(settings: RunSettings) -> dict[str, Any]:
    """Every field of ``settings`` by its dotted name (``"recommendation.k"``; ``"thresholds"``)."""
    out: dict[str, Any] = {}
    for name in type(settings).model_fields:
        value = getattr(settings, name)
        if isinstance(value, BaseModel):
            out |= {f"{name}.{field}": getattr(value, field) for field in type(value).model_fields}
        else:
            out[name] = value
    return out


def _check_given_once(base: RunSettings, task: str | None, keyword: str, value: Any) -> None:
    """A keyword that changes a field ``base`` gives a value other than the field's default conflicts with it."""
    given = _leaves(base)
    defaults = _leaves(RunSettings())
    changed = _leaves(_with_keywords(base, task, {keyword: value}))
    for name, setting in given.items():
        if changed.get(name) != setting and setting != defaults.get(name):
            raise InputError(
                redact_text(
                    f"{keyword}={value!r:.80} conflicts with settings.{name} = {setting!r:.80}: give each setting "
                    "once (leave the keyword out, or change the settings object: settings.model_copy(update=...))"
                )
            )


def _with_keywords(base: RunSettings, task: str | None, keywords: Mapping[str, Any]) -> RunSettings:
    sections: dict[str, dict[str, Any]] = {}
    for keyword, value in keywords.items():
        if keyword in _SECTIONS:  # a whole section (a mapping or the section itself); None leaves it as it is
            if value is not None:
                given = value.model_dump(exclude_unset=True) if hasattr(value, "model_dump") else dict(value)
                default = getattr(RunSettings(), keyword)  # a section left at its defaults: nothing to read
                if type(default).model_validate(default.model_dump() | given) != default:
                    _check_task_reads(keyword, (keyword,), task)
                sections.setdefault(keyword, {}).update(given)
            continue
        if keyword == "thresholds":
            sections["thresholds"] = {"rules": list(value)}
            continue
        if keyword == "judge":  # the whole section, or None
            sections["judge"] = {"section": value}
            continue
        field = _KEYWORD_ALIASES.get(keyword, keyword)
        if keyword == "positive_label" and not isinstance(value, (str, int, bool)):
            field, value = "sensitive_classes", [str(v) for v in value]
        owners = [name for name in _SECTIONS if field in type(getattr(base, name)).model_fields]
        if owners and value != getattr(getattr(RunSettings(), owners[0]), field):  # at its default: nothing to read
            _check_task_reads(keyword, owners, task)
        if len(owners) > 1:
            owners = [task] if task in owners else owners[:1]
        if len(owners) != 1:
            raise InputTypeError(f"assess() got an unexpected keyword argument {keyword!r}")
        sections.setdefault(owners[0], {})[field] = value
    update: dict[str, Any] = {}
    for name, fields in sections.items():
        if name == "thresholds":
            update[name] = [_threshold(rule) for rule in fields["rules"]]
            continue
        if name == "judge":
            given = fields["section"]
            update[name] = None if given is None else JudgeConfig.model_validate(given)
            continue
        current = getattr(base, name)
        update[name] = type(current).model_validate(current.model_dump() | fields)
    return base.model_copy(update=update)


def _check_task_reads(keyword: str, sections: Sequence[str], task: str | None) -> None:
    """A keyword that sets a field of task sections only (``k``: recommendation) with a use case of another task is
    an error naming both, as a config file's section for another task is (``TASK_SECTIONS``)."""
    if task is None or any(name not in TASK_SECTIONS for name in sections):  # a section every task reads
        return
    tasks = [t for name in sections for t in TASK_SECTIONS[name]]
    if task in tasks:
        return
    raise InputError(
        f"{keyword}: this keyword is for task {' or '.join(dict.fromkeys(tasks))}; the use case's task is {task}, "
        "which never reads it: remove it"
    )


def _threshold(rule: Any) -> Any:
    from evenhand.config import Threshold

    if isinstance(rule, Threshold):
        return rule
    if isinstance(rule, Mapping):
        return Threshold.model_validate(rule)
    fields = ("metric", "attribute", "min", "max")
    return Threshold.model_validate({f: getattr(rule, f, None) for f in fields})


def assess(
    use_case: UseCase | None = None,
    client: Any = None,
    *,
    responses: Sequence[str] | pd.DataFrame | None = None,
    counterfactual_responses: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    labels: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    label_parser: Callable[[str], Any] | Mapping[str, Sequence[str]] | None = None,
    list_parser: Callable[[str, int], list[str]] | None = None,
    system_prompt: str | None = None,
    generation_options: Mapping[str, Any] | None = None,
    model_info: Mapping[str, Any] | None = None,
    settings: RunSettings | None = None,
    engine: str | Mapping[str, Any] | ScoringEngine | None = None,
    count: int = 5,
    counterfactual_count: int | None = None,
    store: Any = TEMPORARY_STORE,
    progress: bool = True,
    toxicity: Any = None,
    sentiment: Any = None,
    stereotype: Any = None,
    embedder: Any = None,
    cache: Any = None,
    toxicity_threshold: float = 0.5,
    stereotype_threshold: float = 0.5,
    sentiment_threshold: float = 0.5,
    positive_label: Any = "1",
    json_field: str | None = None,
    tool: Mapping[str, Any] | None = None,
    group_columns: Mapping[str, str] | None = None,
    k: int = 5,
    normalize: bool = True,
    ci: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    ci_method: str = "percentile",
    thresholds: Sequence[Any] = (),
    estimation: Mapping[str, Any] | None = None,
    impact_ratios: Mapping[str, Any] | None = None,
    reader: Any = None,
    judge: Any = None,
    **use_case_fields: Any,
) -> Assessment:
    """Run the decision framework's plan on a use case, end to end.

    1. FTU check and plan (:func:`evenhand.plan`); 2. responses: generated with ``client`` (``None`` = the
    bundled SmolLM2; a callable ``prompt -> text``; an ``evenhand.generation`` client or spec dict), ``count``
    per prompt and per counterfactual group, or the user's own (``responses`` and ``counterfactual_responses``);
    3. each metric family prepares its inputs: toxicity and sentiment scores (and a stereotype classifier's),
    parsed labels (classification) or K-item lists (recommendation); 4. every planned metric, counterfactual
    metrics for every pair of groups, with bootstrap intervals at level ``ci``, permutation tests and the
    same-prompt noise floor for counterfactual similarity.

    Classification needs ``labels`` (ground truth per prompt) for error-based metrics and ``groups`` (the group of
    the person behind each prompt) for person-level use cases; ``label_parser`` maps an answer to a label
    (a callable or ``{label: [keywords]}``); ``json_field`` (a dotted path: ``"decision"``) reads it from a JSON
    reply (with ``task="estimation"``: the field the number is read from, ``estimation.json_field``) and ``tool``
    (``{"functions": {"advance_candidate": "1", ...}}`` or ``{"function": ..., "argument": ...}``) from a tool call
    instead (docs/conversations.md; send the tools with ``generation_options={"tools": [...], "tool_choice":
    "required"}`` or a ``response_format`` likewise); ``positive_label`` names the positive class (a list of
    sensitive classes assesses a multiclass use case one-vs-rest, paper 3.2.3). With a ``responses`` table,
    ``group_columns={"gender": "applicant_gender", "race": "applicant_race"}`` names the column holding the
    person's group of each attribute (``intersections`` then combine them). Recommendation parses
    each answer into ``k`` items with ``list_parser(text, k)``; ``normalize`` compares items case-folded.
    ``toxicity_threshold``, ``stereotype_threshold`` and ``sentiment_threshold`` are the score cut-offs of TF/TP,
    SF/SP and WCSP.

    Bring your own responses with ``responses``: a list of ``len(prompts) * m`` texts (prompt-major), or a
    table with columns ``prompt, response`` and, for counterfactual responses, ``attribute, group`` (and
    optionally ``sample``, ``prompt_id``); ``counterfactual_responses={attribute: {group: texts}}`` aligned with
    :func:`evenhand.counterfactual_prompts`. A table brings its prompts: the use case needs none. ``store`` is the
    SQLite file that makes generation resumable: by default a temporary file, removed after the run (kept, and named
    on stderr, when the run fails, so that ``store=that_path`` resumes it); a path keeps the responses there for
    good; None keeps them in memory only. Nothing is written to the working directory. ``cache`` is a persistent
    score cache for the scorers and the embedder (``True``: the default file; a path: that file), so that scoring
    resumes too; ``generation_options`` go to :func:`evenhand.generation.generate` (temperature, max_tokens, seed,
    concurrency, rate limits). ``thresholds`` are pass/fail rules (objects with ``metric``, ``attribute``, ``min``,
    ``max``) reported in ``Assessment.threshold_checks``. ``reader`` (the config's ``ftu.reader``) and ``judge``
    (``judge``) are opt-in LLM assistants, each a model section as a mapping (``{"provider": "openai", "base_url":
    ..., "model": ...}``): a second reader of identity cues for the FTU check, and a judge of counterfactual reply
    pairs (JWD), each audited on labelled sets evenhand ships before it is trusted (docs/assistants.md).

    Every keyword from ``count`` on is a field of :class:`~evenhand.config.RunSettings` (the config file's
    sections ``generation``, ``scoring``, ``classification``, ``recommendation``, ``statistics``, ``thresholds``);
    ``estimation`` (how a numeric answer is read: ``{"currency": "$", "json_field": "offer.salary", "better":
    "higher"}``; docs/estimation.md) and ``impact_ratios`` (the NYC Local Law 144 table; docs/regulation.md) are
    whole sections. ``settings`` gives them all at once, and then a setting is given once: a keyword for a field the
    settings object gives a value other than its default must equal that value (else an :class:`InputError` naming
    both, e.g. "count=3 conflicts with settings.generation.count = 2"); a field it leaves at its default is the
    keyword's to set; a keyword at its own default is the same as leaving it out.

    Returns:
        :class:`Assessment` with ``.metrics`` (DataFrame), ``.responses`` (response-level data),
        ``.to_json()`` and ``.to_html()``.
    """
    given = locals()  # with settings, a keyword at its default is one left out (Python cannot tell them apart)
    explicit = {n: given[n] for n in _DEFAULTS if settings is None or not _at_default(n, given[n])}  # in order
    if isinstance(label_parser, Mapping):
        explicit["labels"], label_parser = {str(k): list(v) for k, v in label_parser.items()}, None
    generating = not isinstance(responses, pd.DataFrame) and responses is None and counterfactual_responses is None
    # the default store is a temporary file, not one in the working directory (evenhand/pipeline/scratch_store.py)
    with scratch_store(explicit.get("store"), generating) as chosen_store:
        if "store" in explicit:
            explicit["store"] = chosen_store
        try:  # a bad keyword is one line naming it, as a bad config key is, not pydantic's report
            if use_case is None:
                use_case = UseCase(**use_case_fields)
            elif use_case_fields:
                use_case = UseCase.model_validate(use_case.model_dump() | use_case_fields)
            run_settings = settings_from_keywords(settings, task=use_case.task, **explicit)
        except ValidationError as exc:
            from evenhand.config import format_errors

            raise InputError(format_errors("assess()", exc)) from None
        if run_settings.scoring.stereotype is not None and not use_case.stereotype_classifier:
            use_case = use_case.model_copy(update={"stereotype_classifier": True})
        source: ResponseSource
        if isinstance(responses, pd.DataFrame):
            source = OwnTable(responses, model_info=model_info)
        elif not generating:
            source = OwnLists(responses, counterfactual_responses, model_info=model_info)
        else:
            options = dict(generation_options or {})  # and the tools a tool decision (tool=) reads, unless given
            options |= run_settings.classification.tools_to_send(options.get("tools"), options.get("tool_choice"))
            source = Generated(client, system_prompt=system_prompt, options=options, model_info=model_info)
        per_prompt = {k: v for k, v in (("truth", labels), ("person_group", groups)) if v is not None}
        return run(
            use_case,
            source,
            run_settings,
            per_prompt=per_prompt,
            label_parser=label_parser,
            list_parser=list_parser,
            engine=engine,
        )


def _keyword_defaults() -> dict[str, Any]:
    import inspect

    params = inspect.signature(assess).parameters
    names = list(params)
    first = names.index("count")
    return {n: params[n].default for n in names[first:] if params[n].kind is inspect.Parameter.KEYWORD_ONLY}


_DEFAULTS = _keyword_defaults()


def _at_default(keyword: str, value: Any) -> bool:
    """Whether ``keyword=value`` sets the settings as the keyword's default does (``thresholds=[]`` as ``()``)."""
    if value is _DEFAULTS[keyword]:
        return True
    try:
        return bool(_with_keywords(RunSettings(), None, {keyword: value}) == _with_keywords(
            RunSettings(), None, {keyword: _DEFAULTS[keyword]}
        ))  # fmt: skip
    except (ValueError, TypeError):  # a value the settings refuse: given (assess reports it)
        return False
