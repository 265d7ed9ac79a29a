"""``evenhand.assess``: FTU check -> responses (generated or the user's own) -> scores -> metrics with intervals
and noise floors -> :class:`~evenhand.pipeline.assessment.Assessment`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pandas as pd

from evenhand.framework import Plan, UseCase, plan
from evenhand.pipeline.assessment import Assessment, check_thresholds
from evenhand.pipeline.collect import (
    FRAME_COLUMNS,
    counterfactual_requests,
    frame_from_lists,
    frame_from_table,
    generate_frame,
    ok_rows,
    original_requests,
    resolve_client,
)
from evenhand.pipeline.compute import (
    MetricRecord,
    classification_records,
    classification_tests,
    group_pairs,
    positive_classes,
    recommendation_records,
    similarity_function,
    text_metrics,
)
from evenhand.pipeline.parsers import KeywordLabelParser, LabelParser, ListParser, label_text, parse_list

TOXICITY_CAVEAT = (
    "The offline default toxicity scorer (alt-profanity-check) over-scores benign statements that mention "
    "identity terms (e.g. 'I am a gay black woman'); read toxicity differences between groups with that in "
    "mind, or configure a stronger classifier (Detoxify, any Hugging Face model)."
)
SENTIMENT_CAVEAT = (
    "Counterfactual sentiment uses VADER by default, a lexicon-based scorer: it misses sarcasm and context, "
    "and short responses give coarse scores."
)


def _needs_counterfactual(p: Plan) -> dict[str, Any]:
    specs = p.use_case.attribute_specs
    names = dict.fromkeys(
        p.attributes_for("counterfactual_sentiment")
        + p.attributes_for("counterfactual_similarity")
        + p.attributes_for("recommendation")
    )
    return {name: specs[name] for name in names}


def _score(frame: pd.DataFrame, column: str, scorer: Callable[[list[str]], Any] | None) -> None:
    if scorer is None:
        return
    rows = ok_rows(frame)
    values = np.full(len(frame), np.nan)
    if len(rows):
        values[frame.index.get_indexer(rows.index)] = np.asarray(scorer(rows["response"].tolist()), dtype=float)
    frame[column] = values


def _attach_groups(frame: pd.DataFrame, p: Plan, person_groups: Sequence[Any] | None) -> None:
    """A ``group_<attribute>`` column per classification attribute: the person's group when given, otherwise the
    single group the prompt mentions (prompts that mention several groups, or none, get no group)."""
    from evenhand.text.ftu import check_ftu

    attributes = p.attributes_for("representation") + p.attributes_for("error_based")
    prompts = p.use_case.prompts
    for attribute in dict.fromkeys(attributes):
        if person_groups is not None:
            per_prompt = [None if g is None or str(g) == "" else str(g) for g in person_groups]
        else:
            ftu = check_ftu(prompts, attribute=p.use_case.attribute_specs[attribute])
            per_prompt = []
            for matches in ftu.matches:
                groups = {m.group for m in matches if m.group is not None}
                per_prompt.append(groups.pop() if len(groups) == 1 else None)
        values = [per_prompt[i] for i in frame["prompt_id"]]
        frame[f"group_{attribute}"] = pd.Series(values, index=frame.index, dtype=object)


def _assessment_embedder(spec: Any) -> Any:
    """The assessment's embedder, built by the scorer layer (de-duplication, batching) with a private in-memory
    cache: each group's responses enter several group pairs and the noise floor, and are encoded only once."""
    from evenhand import scorers

    memory = scorers.ScoreCache(":memory:")
    if spec is None or isinstance(spec, (str, os.PathLike)):
        _quiet_model_loading()
        return scorers.get_embedder(spec, cache=memory)
    # A user's object (or an already-built Embedder, whose own cache settings stay as they are) is wrapped; the
    # name only labels entries of this run's in-memory cache, which the scorer layer caches by name.
    return scorers.CallableEmbedder(spec, name="assessment", cache=memory)


def _responses_per_prompt_caveat(frame: pd.DataFrame) -> list[str]:
    """EMT and TP depend on how many responses each prompt has: count them (own responses ignore ``count``)."""
    per_prompt = ok_rows(frame, original=True).groupby("prompt_id").size()
    if per_prompt.empty or per_prompt.min() >= 25:
        return []
    low, mid, high = int(per_prompt.min()), float(per_prompt.median()), int(per_prompt.max())
    if low == high:
        per = "1 response" if low == 1 else f"{low} responses"
    else:
        per = f"{low} to {high} responses (median {mid:g})"
    return [f"EMT and TP use {per} per prompt; the paper's convention is 25"]


def _check_truth(frame: pd.DataFrame, the_plan: Plan, positive_label: Any) -> list[str]:
    """Normalise the ground truth in place; caveat on missing labels; error when a positive class never occurs.

    Without the error, a label column that never holds the positive class (``"yes"`` vs ``"1"``) silently makes
    every row a true negative: FNRD and FORD come out NaN and FPRD/FDRD wrong.
    """
    frame["truth"] = [label_text(v) for v in frame["truth"]]
    originals = ok_rows(frame, original=True)
    missing = int(originals["truth"].isna().sum())
    caveats = []
    if missing:
        caveats.append(
            f"{missing} of {len(originals)} responses have no ground-truth label (null or blank);"
            " they were left out of the error-based metrics"
        )
    seen = set(originals["truth"].dropna())
    if seen and the_plan.attributes_for("error_based"):
        absent = [c for c in positive_classes(positive_label) if label_text(c) not in seen]
        if absent:
            shown = ", ".join(repr(v) for v in sorted(seen)[:10])
            raise ValueError(
                f"positive label {', '.join(repr(c) for c in absent)} never appears in the ground-truth labels"
                f" (they hold {shown}); set positive_label to one of them or fix the label column"
            )
    return caveats


def _stereotype_scorer(spec: Any, attribute: str) -> Callable[[list[str]], Any]:
    """A model spec scores the attribute's own category (gender, race); a callable or scorer is used as is."""
    from evenhand.scorers import get_stereotype_scorer

    if isinstance(spec, (str, os.PathLike)) and attribute in ("gender", "race"):
        return get_stereotype_scorer(spec, category=attribute)
    return get_stereotype_scorer(spec)


def assess(
    use_case: UseCase | None = None,
    client: Any = None,
    *,
    responses: Sequence[str] | pd.DataFrame | None = None,
    counterfactual_responses: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
    count: int = 5,
    counterfactual_count: int | None = None,
    system_prompt: str | None = None,
    labels: Sequence[Any] | None = None,
    groups: Sequence[Any] | None = None,
    label_parser: LabelParser | Mapping[str, Sequence[str]] | None = None,
    positive_label: Any = "1",
    list_parser: ListParser | None = None,
    k: int = 5,
    toxicity: Any = None,
    sentiment: Any = None,
    stereotype: Any = None,
    embedder: Any = None,
    toxicity_threshold: float = 0.5,
    stereotype_threshold: float = 0.5,
    sentiment_threshold: float = 0.5,
    ci: float | None = 0.95,
    n_resamples: int = 1000,
    seed: int = 0,
    ci_method: str = "percentile",
    thresholds: Sequence[Any] = (),
    store: Any = "evenhand_generations.sqlite",
    progress: bool = True,
    model_info: Mapping[str, Any] | None = None,
    generation_options: Mapping[str, Any] | None = None,
    **use_case_fields: Any,
) -> Assessment:
    """Run the decision framework's plan on a use case, end to end.

    1. FTU check and plan (:func:`evenhand.plan`); 2. responses: generated with ``client`` (``None`` = the
    bundled SmolLM2; a callable ``prompt -> text``; an ``evenhand.generation`` client or spec dict), ``count``
    per prompt and per counterfactual group, or the user's own (``responses`` and ``counterfactual_responses``);
    3. scores (toxicity, sentiment, optional stereotype classifier), parsed labels (classification) or K-item
    lists (recommendation); 4. every planned metric, counterfactual metrics for every pair of groups, with
    bootstrap intervals at level ``ci`` and the same-prompt noise floor for counterfactual similarity.

    Classification needs ``labels`` (ground truth per prompt) for error-based metrics and ``groups`` (the group of
    the person behind each prompt) for person-level use cases; ``label_parser`` maps an answer to a label
    (a callable or ``{label: [keywords]}``), ``positive_label`` names the positive class (a list of
    sensitive classes assesses a multiclass use case one-vs-rest, paper 3.2.3). Recommendation parses
    each answer into ``k`` items with ``list_parser(text, k)``.
    ``toxicity_threshold``, ``stereotype_threshold`` and ``sentiment_threshold`` are the score cut-offs of TF/TP,
    SF/SP and WCSP.

    Bring your own responses with ``responses``: a list of ``len(prompts) * m`` texts (prompt-major), or a
    table with columns ``prompt, response`` and, for counterfactual responses, ``attribute, group`` (and
    optionally ``sample``); ``counterfactual_responses={attribute: {group: texts}}`` aligned with
    :func:`evenhand.counterfactual_prompts`. ``store`` is the SQLite file that makes generation resumable (None
    keeps nothing on disk); ``generation_options`` go to :func:`evenhand.generation.generate` (temperature,
    max_tokens, seed, concurrency, rate limits). ``thresholds`` are pass/fail rules (objects with ``metric``,
    ``attribute``, ``min``, ``max``) reported in ``Assessment.threshold_checks``.

    Returns:
        :class:`Assessment` with ``.metrics`` (DataFrame), ``.responses`` (response-level data),
        ``.to_json()`` and ``.to_html()``.
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    if use_case is None:
        use_case = UseCase(**use_case_fields)
    elif use_case_fields:
        use_case = UseCase.model_validate(use_case.model_dump() | use_case_fields)
    if stereotype is not None and not use_case.stereotype_classifier:
        use_case = use_case.model_copy(update={"stereotype_classifier": True})

    byo_table = responses if isinstance(responses, pd.DataFrame) else None
    if byo_table is not None:
        if set(FRAME_COLUMNS) <= set(byo_table.columns):  # already a response frame (e.g. from a config)
            frame = byo_table
        else:
            table_prompts, frame = frame_from_table(byo_table, use_case.attribute_specs)
            if not use_case.prompts:
                use_case = use_case.model_copy(update={"prompts": table_prompts})
    if not use_case.prompts:
        raise ValueError("the use case has no prompts: pass UseCase(prompts=...) or a responses table with prompts")
    prompts = use_case.prompts
    if labels is not None and len(labels) != len(prompts):
        raise ValueError(f"labels has {len(labels)} entries for {len(prompts)} prompts; give one per prompt")
    if groups is not None and len(groups) != len(prompts):
        raise ValueError(f"groups has {len(groups)} entries for {len(prompts)} prompts; give one per prompt")

    t = time.perf_counter()
    the_plan = plan(use_case)
    timings["plan"] = time.perf_counter() - t
    cf_attributes = _needs_counterfactual(the_plan)
    task = use_case.task

    t = time.perf_counter()
    if byo_table is None and (responses is not None or counterfactual_responses is not None):
        own = None if responses is None or isinstance(responses, pd.DataFrame) else responses
        frame = frame_from_lists(prompts, own, counterfactual_responses, use_case.attribute_specs)
    elif byo_table is None:
        requests = []
        if task != "recommendation":
            requests.append(original_requests(prompts))
        cf_requests = counterfactual_requests(prompts, cf_attributes) if cf_attributes else None
        gen_client = resolve_client(client)
        opts = dict(generation_options or {})
        frames = []
        if requests:
            frames.append(
                generate_frame(
                    requests[0],
                    gen_client,
                    count=count,
                    system_prompt=system_prompt,
                    store=store,
                    progress=progress,
                    **opts,
                )
            )
        if cf_requests is not None and len(cf_requests):
            frames.append(
                generate_frame(
                    cf_requests,
                    gen_client,
                    count=counterfactual_count or count,
                    system_prompt=system_prompt,
                    store=store,
                    progress=progress,
                    **opts,
                )
            )
        frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    timings["responses"] = time.perf_counter() - t
    if frame.empty:
        raise ValueError("no responses to assess (no prompt needed a response for the planned metrics)")
    frame = frame.reset_index(drop=True)
    if not (frame["status"] == "ok").any():
        errors = [e for e in frame["error"].tolist() if isinstance(e, str) and e]
        first = f"; first error: {errors[0]}" if errors else ""
        raise RuntimeError(f"none of the {len(frame)} requests produced a response{first}")

    t = time.perf_counter()
    caveats: list[str] = []
    records: list[MetricRecord] = []
    emb: Any = None
    if task in ("text_generation", "summarization"):
        from evenhand import scorers

        _score(frame, "toxicity", scorers.get_toxicity_scorer(toxicity))
        if cf_attributes:
            _score(frame, "sentiment", scorers.get_sentiment_scorer(sentiment))
        if stereotype is not None:  # one score column per attribute: the classifier's category when it has one
            for attribute in the_plan.attributes_for("stereotype"):
                _score(frame, f"stereotype_{attribute}", _stereotype_scorer(stereotype, attribute))
        if toxicity is None:
            caveats.append(TOXICITY_CAVEAT)
        if cf_attributes and sentiment is None:
            caveats.append(SENTIMENT_CAVEAT)
        emb = embedder
        if emb is not False and "counterfactual_cosine" in the_plan.keys():
            emb = _assessment_embedder(emb)
        timings["scoring"] = time.perf_counter() - t
        t = time.perf_counter()
        records = text_metrics(
            the_plan,
            frame,
            toxicity_threshold=toxicity_threshold,
            stereotype_threshold=stereotype_threshold,
            sentiment_threshold=sentiment_threshold,
            embedder=emb,
        )
    elif task == "classification":
        parser = label_parser
        if parser is None or isinstance(parser, Mapping):
            parser = KeywordLabelParser(parser or {"1": ["yes", "true"], "0": ["no", "false"]})
        parsed = [parser(r) if isinstance(r, str) else None for r in frame["response"]]
        frame["label"] = [label_text(v) for v in parsed]
        if labels is not None:
            truth = [label_text(v) for v in labels]
            frame["truth"] = [truth[i] for i in frame["prompt_id"]]
        if "truth" in frame:
            caveats.extend(_check_truth(frame, the_plan, positive_label))
        _attach_groups(frame, the_plan, groups)
        n_bad = int(ok_rows(frame)["label"].isna().sum())
        if n_bad:
            caveats.append(
                f"{n_bad} of {len(ok_rows(frame))} answers could not be parsed into a label and were left out"
            )
        timings["scoring"] = time.perf_counter() - t
        t = time.perf_counter()
        records = classification_records(the_plan, frame, positive_label=positive_label)
    else:
        parse = list_parser or parse_list
        frame["items"] = [parse(r, k) if isinstance(r, str) else [] for r in frame["response"]]
        short = int((ok_rows(frame)["items"].map(len) < k).sum())
        if short:
            caveats.append(f"{short} answers parsed into fewer than K={k} items; their pairs were left out")
        timings["scoring"] = time.perf_counter() - t
        t = time.perf_counter()
        records = recommendation_records(the_plan, frame, k=k)
    timings["metrics"] = time.perf_counter() - t

    t = time.perf_counter()
    if ci is not None:
        _add_statistics(
            records,
            the_plan,
            frame,
            embedder=emb,
            ci=ci,
            n_resamples=n_resamples,
            seed=seed,
            method=ci_method,
            sentiment_threshold=sentiment_threshold,
            positive_label=positive_label if task == "classification" else None,
        )
    timings["statistics"] = time.perf_counter() - t
    failed = frame["status"] != "ok"
    if failed.any():
        caveats.append(f"{int(failed.sum())} of {len(frame)} requests produced no response (see the status column)")
    if any(r.key in ("expected_maximum_toxicity", "toxicity_probability") for r in records):
        caveats.extend(_responses_per_prompt_caveat(frame))
    small = [r for r in records if 0 < sum(r.result.sizes.values()) < 30 and r.result.is_defined]
    if small:
        caveats.append("some metrics rest on fewer than 30 units; their intervals are wide and approximate")
    timings["total"] = time.perf_counter() - started
    meta = {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "model": dict(model_info or _describe_client(client, responses is not None or byo_table is not None)),
        "settings": {
            "count": count,
            "counterfactual_count": counterfactual_count or count,
            "toxicity_scorer": str(toxicity) if toxicity is not None else "alt-profanity-check (offline default)",
            "sentiment_scorer": str(sentiment)
            if sentiment is not None
            else "VADER negative share (offline default): 1 = most negative",
            "toxicity_threshold": toxicity_threshold,
            "stereotype_threshold": stereotype_threshold,
            "sentiment_threshold": sentiment_threshold,
            "ci": ci,
            "n_resamples": n_resamples,
            "seed": seed,
            "ci_method": ci_method,
            "k": k if task == "recommendation" else None,
            "positive_label": positive_label if task == "classification" else None,
        },
        "timings": {key: round(v, 3) for key, v in timings.items()},
    }
    checks = check_thresholds(records, thresholds)
    return Assessment(the_plan, records, frame, meta, caveats, checks)


def _quiet_model_loading() -> None:
    """transformers draws a "Loading weights" bar on stderr for the bundled embedder; the pipeline has its own
    progress display, so that bar is noise (the local LLM client turns it off the same way)."""
    from evenhand._optional import require

    try:
        require("transformers", feature="sentence embeddings").utils.logging.disable_progress_bar()
    except ImportError:  # get_embedder raises the helpful error
        pass


def _describe_client(client: Any, own: bool) -> dict[str, Any]:
    if own:
        return {"provider": "user responses"}
    if client is None:
        return {"provider": "local", "model": "SmolLM2-135M-Instruct (bundled)"}
    if isinstance(client, Mapping):
        return {k: v for k, v in client.items() if "key" not in k.lower()}
    return {"provider": type(client).__name__, "model": str(getattr(client, "model", "") or "")}


def _add_statistics(
    records: list[MetricRecord],
    the_plan: Plan,
    frame: pd.DataFrame,
    *,
    embedder: Any,
    ci: float,
    n_resamples: int,
    seed: int,
    method: str,
    sentiment_threshold: float = 0.5,
    positive_label: Any = None,
) -> None:
    """Bootstrap intervals for every metric; permutation tests for counterfactual sentiment (paired swaps) and
    classification rates (exact, every pair of groups), Benjamini-Hochberg adjusted together; the same-prompt
    noise floor beside counterfactual similarity."""
    from evenhand.stats import confidence_interval, counterfactual_sentiment_test, noise_floor

    for rec in records:
        if not rec.result.is_defined:
            continue
        if rec.result.resampler is None:
            rec.notes.append("no interval: the result carries no units to resample")
            continue
        try:
            rec.interval = confidence_interval(rec.result, ci=ci, n_resamples=n_resamples, seed=seed, method=method)
        except ValueError as exc:
            rec.interval = None
            rec.notes.append(f"no interval: {exc}")
            continue
        if rec.interval.reason:
            rec.notes.append(f"interval: {rec.interval.reason}")
    pairs_cache: dict[tuple[str, str], pd.DataFrame] = {}

    def pairs_of(rec: MetricRecord) -> pd.DataFrame | None:
        assert rec.attribute is not None
        key = (rec.attribute, rec.comparison)
        if key not in pairs_cache:
            for a, b, pairs in group_pairs(frame, rec.attribute):
                pairs_cache[(rec.attribute, f"{a} vs {b}")] = pairs
        return pairs_cache.get(key)

    tested: list[MetricRecord] = []
    for rec in records:  # paired permutation test: does the group mentioned change sentiment at all?
        if rec.family != "counterfactual_sentiment" or rec.attribute is None or not rec.result.is_defined:
            continue
        found = pairs_of(rec)
        if found is None or found.empty:
            continue
        rec.test = counterfactual_sentiment_test(
            found["sentiment_a"].to_numpy(dtype=float),
            found["sentiment_b"].to_numpy(dtype=float),
            statistic="scsp" if rec.key == "strict_sentiment_parity" else "wcsp",
            threshold=sentiment_threshold,
            seed=seed,
        )
        tested.append(rec)
    if positive_label is not None:
        classification_tests(records, frame, positive_label=positive_label)
    _adjust(records, tested)
    for rec in records:
        if rec.family != "counterfactual_similarity" or rec.attribute is None or " vs " not in rec.comparison:
            continue
        chosen = similarity_function(rec.key, the_plan.use_case.attribute_specs[rec.attribute], embedder)
        if chosen is None or not rec.result.is_defined:
            continue
        similarity, neutralize_for = chosen
        found = pairs_of(rec)
        if found is None or found.empty:
            continue
        if found.groupby("prompt_id").size().max() < 2:
            rec.notes.append("no noise floor: it needs two or more responses per counterfactual prompt")
            continue
        rec.noise = noise_floor(
            found["response_a"].tolist(),
            found["response_b"].tolist(),
            found["prompt_id"].to_numpy(),
            similarity,
            attribute=neutralize_for,
            name=rec.name,
            ci=ci,
            n_resamples=n_resamples,
            seed=seed,
        )


def _adjust(records: Sequence[MetricRecord], tested: Sequence[MetricRecord]) -> None:
    """Benjamini-Hochberg over every test of the assessment (all group pairs, attributes, metrics and classes), so
    that the adjusted p-values control the false discovery rate of the whole report."""
    from evenhand.stats import benjamini_hochberg

    tables = [r for r in records if r.pair_tests is not None]
    raw = [r.test.p_value for r in tested]
    for rec in tables:
        assert rec.pair_tests is not None
        raw.extend(rec.pair_tests["p_value"].tolist())
    if not raw:
        return
    adjusted = benjamini_hochberg(np.asarray(raw, dtype=float)).tolist()
    for rec in tested:
        rec.p_adjusted = float(adjusted.pop(0))
    for rec in tables:
        assert rec.pair_tests is not None
        n = len(rec.pair_tests)
        rec.pair_tests["p_adjusted"] = adjusted[:n]
        del adjusted[:n]
        if rec.test is not None:
            a, b = rec.test.groups
            hit = rec.pair_tests[(rec.pair_tests["group_a"] == a) & (rec.pair_tests["group_b"] == b)]
            rec.p_adjusted = float(hit["p_adjusted"].iloc[0])
