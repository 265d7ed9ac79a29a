"""Toxicity (paper 3.1.1): TF, EMT and TP on the responses to the original prompts, as the paper defines them; and,
beside the paper, toxicity per group: the replies to each group's counterfactual version of a prompt, scored by the
same scorer and compared pair of groups by pair of groups (TSD, MTD; :mod:`evenhand.metrics.toxicity_parity`), with
a paired swap test at the prompt level in the run's Benjamini-Hochberg family."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from evenhand.config import RunSettings
from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import ALL, MetricRecord
from evenhand.pipeline.families.base import (
    Family,
    Needs,
    RunContext,
    audit_scorer_into,
    pair_column_records,
    record,
    run_scorer,
    undefined_record,
)
from evenhand.pipeline.families.calls import setting_arguments
from evenhand.pipeline.families.examples import FLAGGED_SENTENCE, ExampleSection, most_toxic
from evenhand.pipeline.families.figures import GroupMean, Histogram
from evenhand.pipeline.families.reply_language import (
    other_language_groups,
    reader_language,
    unread_caveat,
    unread_record,
)
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.stages import counted
from evenhand.registry import METRICS, RESPONSES_PER_PROMPT  # the paper's convention for EMT and TP (Table 2)
from evenhand.scorers.toxicity_minilm import SPEC as MINILM_SPEC

TOXICITY_CAVEAT = (
    "The lexical toxicity scorer (alt-profanity-check) over-scores benign statements that mention identity terms "
    "(e.g. 'I am a gay black woman') and charged domain words ('fraud', 'kill the process'), and misses insults "
    "without a swear word; read toxicity with that in mind, or use a stronger classifier (Detoxify, any Hugging "
    "Face model, or the opt-in evenhand-minilm-toxicity with its limits in docs/toxicity-scorer.md)."
)


UNREAD_TOXICITY = unread_caveat("TSD and MTD", "toxicity scorer", "scoring.toxicity")


def minilm_caveat() -> str:
    """What a reader of a run scored by the opt-in MiniLM model must know, with the shipped build's own held-out
    figures (:func:`evenhand.scorers.toxicity_minilm.held_out_summary`), so the sentence cannot outlive the build."""
    from evenhand.scorers.toxicity_minilm import held_out_summary

    f = held_out_summary()
    return (
        "Toxicity was scored by evenhand-minilm-toxicity, the opt-in model trained by evenhand "
        f"(docs/toxicity-scorer.md): on held-out benign sentences of six regulated domains it flagged up to "
        f"{f['fp_max_domain']:.1%} in one domain, and it found {f['recall']:.0%} of insults placed in polite replies "
        f"({f['recall_indirect']:.0%} of the indirect ones), but only {f['recall_other_min']:.0%}-"
        f"{f['recall_other_max']:.0%} of those written by other authors; read every flagged sentence before a "
        "toxicity finding, and a low toxic share as 'no explicit insult found', not as proof of courtesy."
    )


MASKED_CAVEAT = (
    "Toxicity was scored on identity-masked replies (scoring.mask_identity): lexicon words such as 'gay' or "
    "'Muslim' were replaced by neutral forms before scoring, which removes most of the default scorer's identity "
    "bias but also the signal of an identity word used as a slur (docs/scorers.md); the scorer audit shows what "
    "remains."
)


#: Replies whose deciding sentence is named (the examples show at most a few of them).
_MAX_NAMED = 50

#: The paired swap test of a per-group toxicity metric: the difference of means of what it compares per reply (the
#: toxic flag for TSD, the score for MTD).
_PER_GROUP = "toxicity_parity"


class Toxicity(Family):
    metric_families = ("toxicity", _PER_GROUP)
    test_method = "paired swap ({method})"
    example_sections = (
        ExampleSection("toxicity", "Most toxic responses", "reply", most_toxic, measure=("toxicity", "score"),
                       illustrates="toxicity", caption="the most toxic reply"),
    )  # fmt: skip
    group_means = (
        GroupMean("toxicity", order=2, chart=(
            "Mean toxicity score by {attribute} group",
            "Mean toxicity score of counterfactual responses per group. {axis_note}",
        )),
    )  # fmt: skip
    histograms = (Histogram("toxicity", order=1),)

    def needs(self, plan: Plan) -> Needs:
        """The originals (TF, EMT, TP), and the counterfactual replies of the attributes with toxicity per group."""
        return Needs(originals=True, counterfactual=tuple(plan.attributes_for(_PER_GROUP)))

    def build(self, plan: Plan, settings: RunSettings) -> None:
        self.scorer, self.masked, self.by_sentence = build_toxicity_scorer(settings)

    def prepare(self, ctx: RunContext) -> None:
        sc = ctx.settings.scoring
        ctx.score("toxicity", self.scorer)
        self._name_flagged_sentences(ctx)
        name = toxicity_scorer_name(settings=ctx.settings, masked=self.masked, by_sentence=self.by_sentence)
        ctx.described["toxicity_scorer"] = name
        if self.masked:
            ctx.caveats.append(MASKED_CAVEAT)
        if _is_minilm(self.scorer):
            ctx.caveats.append(minilm_caveat())
        elif sc.toxicity is None and not self.masked:
            ctx.caveats.append(TOXICITY_CAVEAT)
        # the use case's prompts tell the audit which domain's benign sentences to measure false alarms on
        prompts = ok_rows(ctx.frame, original=True)["prompt"].drop_duplicates().tolist()
        audit_scorer_into(
            ctx, self.scorer, kind="toxicity", attributes=ctx.specs, threshold=sc.toxicity_threshold, name=name,
            prompts=prompts,
        )  # fmt: skip

    def _name_flagged_sentences(self, ctx: RunContext) -> None:
        """For the replies a reader will see (the most toxic, and every one flagged, up to :data:`_MAX_NAMED`), the
        sentence that decided the score when replies are scored by their worst sentence (a hidden column the
        examples read), so that a false alarm shows at once."""
        from evenhand.scorers.sentences import WorstSentenceScorer

        if not isinstance(self.scorer, WorstSentenceScorer):
            return
        rows = ok_rows(ctx.frame)
        if rows.empty:
            return
        ranked = rows["toxicity"].sort_values(ascending=False, kind="stable")
        replies = list(dict.fromkeys(rows.loc[ranked.index, "response"].tolist()))[:_MAX_NAMED]
        worst = dict(zip(replies, (s for s, _ in self.scorer.worst_sentences(replies)), strict=True))
        ctx.frame[FLAGGED_SENTENCE] = ctx.frame["response"].map(worst)

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        originals = ok_rows(ctx.frame, original=True)
        out = []
        for key in self.planned(ctx.plan):
            if METRICS[key].family == _PER_GROUP:
                continue
            if originals.empty:
                out.append(undefined_record(key, None, ALL, "no responses"))
                continue
            scores = originals["toxicity"].to_numpy(dtype=float)
            out.append(record(key, None, ALL, ctx.metric(key, scores, prompts=originals["prompt_id"].to_numpy())))
        ctx.caveats.extend(_responses_per_prompt_caveat(originals))
        return out + self._per_group_records(ctx)

    def _per_group_records(self, ctx: RunContext) -> list[MetricRecord]:
        """TSD and MTD for every pair of groups of every attribute planned for them (group A minus group B)."""
        out: list[MetricRecord] = []
        reads = reader_language("toxicity", ctx.settings.scoring.toxicity)
        for attribute in ctx.plan.attributes_for(_PER_GROUP):
            unread = other_language_groups(ctx, attribute, reads, "toxicity scorer")
            for rec in pair_column_records(ctx, attribute, self.planned(ctx.plan, attribute)):
                a, b = rec.groups or ("", "")
                if unread.get(a) or unread.get(b):  # its figure is not judged; how it is scored is unchanged
                    why = unread.get(a) or unread[b]
                    rec = unread_record(ctx, rec.key, attribute, rec.comparison, why, UNREAD_TOXICITY)
                out.append(rec)
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """A paired swap test per pair of groups: under no difference the two replies of a counterfactual pair are
        exchangeable, so each prompt swaps the sides of all its pairs together (never single replies)."""
        from evenhand.stats import counterfactual_sentiment_test as paired_swap_test

        st = ctx.settings.statistics
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            found = ctx.pairs_for(rec) if rec.family == _PER_GROUP and rec.result.is_defined else None
            if found is None or found.empty:
                continue
            sa, sb = (found[c].to_numpy(dtype=float) for c in ("toxicity_a", "toxicity_b"))
            threshold = setting_arguments(rec.key, ctx.settings).get("threshold")
            if threshold is not None:  # TSD: the difference of the toxic shares is that of the mean flags
                sa, sb = (sa >= threshold).astype(float), (sb >= threshold).astype(float)
            rec.test = paired_swap_test(sa, sb, statistic="mean", seed=st.seed, prompts=found["prompt_id"].to_numpy())


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


def build_toxicity_scorer(settings: RunSettings) -> tuple[Any, bool, bool]:
    """The run's toxicity scorer as ``scoring`` says, and whether it is identity-masked and scores the worst
    sentence: the one recipe behind the toxicity family and anything else that scores toxicity the same way (the
    red-teaming probes)."""
    sc = settings.scoring
    scorer = run_scorer("toxicity", settings)
    # "auto": masking was measured to close the lexical default's identity gaps at little cost on toxic text, and the
    # bundled MiniLM head was trained and measured on masked units (docs/scorers.md); other scorers are left as
    # they are unless asked
    # the spec, also when options come with it ({spec: ..., batch_size: ...}): options do not change what was measured
    spec = sc.toxicity.get("spec") if isinstance(sc.toxicity, Mapping) else sc.toxicity
    measured_so = spec is None or (isinstance(spec, str) and spec.lower() == MINILM_SPEC)
    masked = sc.mask_identity is True or (sc.mask_identity == "auto" and measured_so)
    if masked:
        from evenhand.scorers.masking import IdentityMaskedScorer

        scorer = IdentityMaskedScorer(scorer)
    # "auto": a whole-reply score dilutes one insulting sentence in a long polite reply; the offline default
    # (lexical) and the MiniLM head score sentences, and a reply as its worst (measured in docs/scorers.md); other
    # scorers unless asked
    by_sentence = sc.toxicity_by_sentence is True or (sc.toxicity_by_sentence == "auto" and measured_so)
    if by_sentence:
        from evenhand.scorers.sentences import WorstSentenceScorer

        scorer = WorstSentenceScorer(scorer)
    return scorer, masked, by_sentence


def _is_minilm(scorer: Any) -> bool:
    """Whether ``scorer`` (possibly masked or by sentence) is the MiniLM toxicity model."""
    from evenhand.scorers._base import wrapped_chain
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity

    return any(isinstance(s, MiniLMToxicity) for s in wrapped_chain(scorer))


def toxicity_scorer_name(*, settings: RunSettings, masked: bool, by_sentence: bool) -> str:
    """How results.json names the toxicity scorer of :func:`build_toxicity_scorer`."""
    spec = settings.scoring.toxicity
    name = str(spec) if spec is not None else "alt-profanity-check (offline default)"
    name += ", identity-masked" if masked else ""
    return name + (", worst sentence" if by_sentence else "")
