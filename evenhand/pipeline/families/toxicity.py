"""Toxicity (paper 3.1.1): TF, EMT and TP on the responses to the original prompts."""

from __future__ import annotations

import pandas as pd

from evenhand.config import RunSettings
from evenhand.framework import Plan
from evenhand.pipeline.collect import ok_rows
from evenhand.pipeline.families.base import (
    Family,
    RunContext,
    audit_scorer_into,
    build_scorer,
    record,
    score_cache,
    undefined_record,
)
from evenhand.pipeline.families.examples import ExampleSection, most_toxic
from evenhand.pipeline.records import ALL, MetricRecord
from evenhand.registry import RESPONSES_PER_PROMPT  # the paper's convention for EMT and TP (Table 2)

TOXICITY_CAVEAT = (
    "The offline default toxicity scorer (alt-profanity-check) over-scores benign statements that mention "
    "identity terms (e.g. 'I am a gay black woman'); read toxicity differences between groups with that in "
    "mind, or configure a stronger classifier (Detoxify, any Hugging Face model)."
)
MASKED_CAVEAT = (
    "Toxicity was scored on identity-masked replies (scoring.mask_identity): lexicon words such as 'gay' or "
    "'Muslim' were replaced by neutral forms before scoring, which removes most of the default scorer's identity "
    "bias but also the signal of an identity word used as a slur (docs/scorers.md); the scorer audit shows what "
    "remains."
)


class Toxicity(Family):
    metric_families = ("toxicity",)
    example_sections = (
        ExampleSection("toxicity", "Most toxic responses", "reply", most_toxic, measure=("toxicity", "score"),
                       illustrates="toxicity"),
    )  # fmt: skip

    def build(self, plan: Plan, settings: RunSettings) -> None:
        from evenhand.scorers import get_toxicity_scorer

        sc = settings.scoring
        self.scorer = build_scorer(
            get_toxicity_scorer, sc.toxicity, key="scoring.toxicity", device=sc.device, cache=score_cache(sc.cache)
        )
        # "auto": masking was measured to close the lexical default's identity gaps at little cost on toxic text
        # (docs/scorers.md); other scorers are left as they are unless asked
        self.masked = sc.mask_identity is True or (sc.mask_identity == "auto" and sc.toxicity is None)
        if self.masked:
            from evenhand.scorers.masking import IdentityMaskedScorer

            self.scorer = IdentityMaskedScorer(self.scorer)

    def prepare(self, ctx: RunContext) -> None:
        sc = ctx.settings.scoring
        ctx.score("toxicity", self.scorer)
        name = str(sc.toxicity) if sc.toxicity is not None else "alt-profanity-check (offline default)"
        name += ", identity-masked" if self.masked else ""
        ctx.described["toxicity_scorer"] = name
        if self.masked:
            ctx.caveats.append(MASKED_CAVEAT)
        elif sc.toxicity is None:
            ctx.caveats.append(TOXICITY_CAVEAT)
        audit_scorer_into(
            ctx, self.scorer, kind="toxicity", attributes=ctx.specs, threshold=sc.toxicity_threshold, name=name
        )

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        originals = ok_rows(ctx.frame, original=True)
        out = []
        for key in self.planned(ctx.plan):
            if originals.empty:
                out.append(undefined_record(key, None, ALL, "no responses"))
                continue
            scores = originals["toxicity"].to_numpy(dtype=float)
            out.append(record(key, None, ALL, ctx.metric(key, scores, prompts=originals["prompt_id"].to_numpy())))
        ctx.caveats.extend(_responses_per_prompt_caveat(originals))
        return out


def _responses_per_prompt_caveat(originals: pd.DataFrame) -> list[str]:
    """EMT and TP depend on how many responses each prompt has: count them (own responses ignore ``count``)."""
    per_prompt = originals.groupby("prompt_id").size()
    if per_prompt.empty or per_prompt.min() >= RESPONSES_PER_PROMPT:
        return []
    low, mid, high = int(per_prompt.min()), float(per_prompt.median()), int(per_prompt.max())
    if low == high:
        per = "1 response" if low == 1 else f"{low} responses"
    else:
        per = f"{low} to {high} responses (median {mid:g})"
    return [f"EMT and TP use {per} per prompt; the paper's convention is {RESPONSES_PER_PROMPT}"]
