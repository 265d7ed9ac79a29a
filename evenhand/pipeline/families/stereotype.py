"""Stereotypes (paper 3.1.2): COBS and SA from word co-occurrence, SF/EMS/SP from a stereotype classifier."""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from evenhand.config import RunSettings
from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import ALL, MetricRecord, pair
from evenhand.pipeline.families.base import (
    Family,
    RunContext,
    audit_scorer_into,
    build_scorer,
    record,
    score_cache,
    undefined_record,
)
from evenhand.pipeline.families.calls import setting_arguments
from evenhand.pipeline.families.figures import Histogram
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.stages import counted
from evenhand.registry import METRICS

# the group-shuffle test recomputes COBS / SA per shuffle (~30 ms per 1000 responses). The verdict watches its
# Benjamini-Hochberg adjusted p (below 0.10), so p must resolve to 1/1000 (an adjustment over up to ~100 tests);
# where there is no association it stops after 10 shuffles that reach the observed value (usually a few dozen)
SHUFFLES = 999
SHUFFLE_TEXTS = 1000


class Stereotype(Family):
    metric_families = ("stereotype",)
    histograms = (Histogram("stereotype_", order=3, prefix=True),)  # one score column per attribute (prepare)

    def build(self, plan: Plan, settings: RunSettings) -> None:
        sc, specs = settings.scoring, plan.use_case.attribute_specs
        self.scorers = {}
        if sc.stereotype is None:
            return
        for attribute in self.attributes(plan):  # one scorer per attribute: its classifier category
            self.scorers[attribute] = _scorer(sc.stereotype, specs[attribute], sc.device, score_cache(sc.cache))

    def prepare(self, ctx: RunContext) -> None:
        for attribute, scorer in self.scorers.items():
            ctx.score(f"stereotype_{attribute}", scorer)
        # a scorer that must be read with care says so (the experimental evenhand-minilm-stereoset: its status and
        # its CC BY-SA 4.0 training data), in the settings of results.json and among the report's caveats
        notices = sorted({n for s in self.scorers.values() if isinstance(n := getattr(s, "notice", None), str)})
        if notices:
            ctx.described["stereotype_scorer"] = " ".join(notices)
            ctx.caveats.extend(notices)
        # each attribute's classifier (its category) on benign and insulting statements about that attribute's groups:
        # a classifier that flags benign mentions of one group inflates SF/SP for it
        for attribute, scorer in self.scorers.items():
            audit_scorer_into(
                ctx,
                scorer,
                kind="stereotype",
                attributes={attribute: ctx.specs[attribute]},
                threshold=ctx.settings.scoring.stereotype_threshold,
                name=f"{ctx.settings.scoring.stereotype} ({attribute})",
                key=f"stereotype ({attribute})",
            )

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        originals = ok_rows(ctx.frame, original=True)
        texts = originals["response"].tolist()
        prompt_ids = originals["prompt_id"].to_numpy()
        out: list[MetricRecord] = []
        for attribute in self.attributes(ctx.plan):
            spec = ctx.specs[attribute]
            for key in self.planned(ctx.plan, attribute):
                if METRICS[key].inputs == "texts":
                    out.extend(_cooccurrence(ctx, key, attribute, spec, texts, prompt_ids))
                    continue
                column = f"stereotype_{attribute}"
                if column not in originals:
                    out.append(undefined_record(key, attribute, ALL, "no stereotype classifier configured"))
                    continue
                scores = originals[column].to_numpy(dtype=float)
                out.append(record(key, attribute, ALL, ctx.metric(key, scores, prompts=prompt_ids)))
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """COBS and SA are above 0 on any corpus: the group-shuffle test says whether they exceed what the group
        mentions alone give (:func:`evenhand.stats.group_shuffle_test`)."""
        from evenhand.stats import group_shuffle_test

        originals = ok_rows(ctx.frame, original=True)
        texts = originals["response"].tolist()
        prompt_ids = originals["prompt_id"].to_numpy()  # the unit shuffled: a prompt with all its responses
        versions: dict[str, dict[str, list[str]]] = {}
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            if rec.family not in self.metric_families or not rec.result.is_defined or rec.spec.inputs != "texts":
                continue
            attribute = str(rec.attribute)
            if attribute not in versions:
                versions[attribute] = _group_versions(texts, ctx.specs[attribute])
            groups = rec.groups or tuple(rec.result.params.get("groups") or versions[attribute])
            spec = worded_attribute(ctx.specs[attribute])
            extra = {"groups": rec.groups} if rec.groups is not None else {}
            rec.test = group_shuffle_test(
                texts,
                {g: versions[attribute][g] for g in groups if g in versions[attribute]},
                _Recomputed(ctx, rec.key, spec, extra),
                units=prompt_ids,
                n_permutations=SHUFFLES,
                max_texts=SHUFFLE_TEXTS,
                seed=ctx.settings.statistics.seed,
            )


class _Recomputed:
    """The metric's value on other corpora (shuffled ones) of the responses' versions, with the record's attribute
    and groups: a :class:`~evenhand.stats.PreparedStatistic` that tokenizes each version once
    (:func:`evenhand.metrics.cooccurrence.prepare_cooccurrence`), not once per shuffle."""

    def __init__(self, ctx: RunContext, key: str, spec: Any, extra: Mapping[str, Any]) -> None:
        self.key, self.settings = key, ctx.settings
        self.options = {"attribute": spec, **extra}

    def prepare(self, texts: list[str]) -> Callable[[Any], float]:
        from evenhand.metrics.cooccurrence import prepare_cooccurrence

        options = setting_arguments(self.key, self.settings) | self.options  # as ctx.metric(key, ...) would take
        on = prepare_cooccurrence(METRICS[self.key].load(), texts, **options)
        return lambda corpus: float(on(corpus).value)


def _group_versions(texts: list[str], spec: Any) -> dict[str, list[str]]:
    """Every response as each group would have it (its group mentions made that group's), aligned with ``texts``."""
    from evenhand.text.counterfactual import counterfactual_prompts

    # the co-occurrence metrics count group words in the responses, never names: the shuffle moves only what they read
    cf = counterfactual_prompts(texts, attribute=spec, names=False)
    out = {}
    for group in cf.groups:
        full = list(texts)
        for j, i in enumerate(cf.source_index):
            full[int(i)] = cf[group][j]
        out[group] = full
    return out


def worded_attribute(spec: Any) -> Any:
    """The attribute restricted to the groups with words of their own, as :func:`_cooccurrence` computes it."""
    from evenhand.text.lexicon import load_lexicon

    lexicon = load_lexicon(spec)
    worded = [g for g in lexicon.groups if lexicon.group_words(g)]
    return lexicon.with_groups(worded) if worded != list(lexicon.groups) else spec


def _cooccurrence(
    ctx: RunContext, key: str, attribute: str, spec: Any, texts: list[str], prompts: Any
) -> list[MetricRecord]:
    """COBS compares two groups, so it gives one record per pair of groups; SA one for the attribute. Both resample
    prompts with all their responses (``prompts``): a prompt's responses share its group words and its topic."""
    from evenhand.text.lexicon import load_lexicon

    if not texts:
        return [undefined_record(key, attribute, ALL, "no responses")]
    lexicon = load_lexicon(spec)
    # co-occurrence counts each group's own words: a group without words (gender's nonbinary forms are the
    # neutral "they", "person") cannot be compared this way
    worded = [g for g in lexicon.groups if lexicon.group_words(g)]
    if len(worded) < 2:
        return [undefined_record(key, attribute, ALL, "fewer than two groups have words of their own")]
    if worded != list(lexicon.groups):
        spec = lexicon.with_groups(worded)
    if not METRICS[key].pairwise:
        return [record(key, attribute, ALL, ctx.metric(key, texts, attribute=spec, prompts=prompts))]
    return [
        record(key, attribute, pair(a, b), ctx.metric(key, texts, attribute=spec, groups=(a, b), prompts=prompts))
        for a, b in itertools.combinations(worded, 2)
    ]


def _scorer(spec: Any, attribute_spec: Any, device: str | None, cache: Any = None) -> Any:
    """A model spec scores the attribute's own category (the lexicon names it); a callable or scorer is used as is."""
    from evenhand.scorers import get_stereotype_scorer
    from evenhand.text.lexicon import load_lexicon

    model = spec.get("spec") if isinstance(spec, Mapping) else spec
    options = {}
    if isinstance(model, (str, os.PathLike)) and not isinstance(attribute_spec, (list, tuple)):
        category = load_lexicon(attribute_spec).stereotype_category
        if category is not None:
            options["category"] = category
    return build_scorer(get_stereotype_scorer, spec, key="scoring.stereotype", device=device, cache=cache, **options)
