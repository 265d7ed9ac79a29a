"""Counterfactual fairness (paper 3.1.3): similarity (CROUGE-L, CBLEU, CCS) and sentiment parity (SCSP, WCSP) of
the responses to counterfactual prompts, for every pair of groups, with the same-prompt noise floor and paired
permutation tests. Several samples of one counterfactual prompt are correlated, so the unit of the intervals and of
the swap tests is the prompt (``prompt_id``) with all its pairs."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.config import RunSettings
from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import ALL, MetricRecord, pair
from evenhand.pipeline.evidence.signed_differences import sentiment_signed
from evenhand.pipeline.families.base import (
    NO_GROUPS,
    NO_PAIRS,
    Family,
    Needs,
    RunContext,
    audit_scorer_into,
    build_scorer,
    record,
    run_scorer,
    score_cache,
    undefined_record,
)
from evenhand.pipeline.families.calls import setting_arguments
from evenhand.pipeline.families.examples import ExampleSection, sentiment_gaps
from evenhand.pipeline.families.figures import GroupMean, Histogram, PairScatter
from evenhand.pipeline.families.reply_language import (
    other_language_groups,
    reader_language,
    unread_caveat,
    unread_record,
)
from evenhand.pipeline.responses.masked_replies import COMPARED, swapped_word_patterns, swapped_words_masked
from evenhand.pipeline.stages import counted
from evenhand.registry import METRICS
from evenhand.scorers.engine import ScoringEngine

UNREAD_SENTIMENT = unread_caveat("SCSP and WCSP", "sentiment scorer", "scoring.sentiment")
SENTIMENT_CAVEAT = (
    "Counterfactual sentiment uses VADER by default, a lexicon-based scorer: it misses sarcasm and context, "
    "and short responses give coarse scores."
)
SENTIMENT_MASKING_CAVEAT = (
    "Counterfactual sentiment was scored with the swapped group words masked ({attributes}), so that a reply that "
    "echoes its group word ('straight', 'poor') is not read as warmer or colder for it; replies are kept as written."
)
# random swaps of the noise floor's swap test: p resolves to 1 / 20,000, so that a real effect stays below 0.05
# after the Benjamini-Hochberg adjustment over hundreds of tests; a test without evidence stops after 20 swaps that
# reach the observed floor (usually within a few dozen swaps)
SWAP_PERMUTATIONS = 19_999
SWAP_STOP_AFTER = 20


class Counterfactual(Family):
    # similarity first: the records of each pair of groups read similarity, then sentiment
    metric_families = ("counterfactual_similarity", "counterfactual_sentiment")
    example_sections = (
        ExampleSection("sentiment_gap", "Largest counterfactual sentiment gaps", "reply_pair", sentiment_gaps,
                       measure=("sentiment gap", "gap"), side_score="sentiment"),
    )  # fmt: skip
    test_method = "paired swap ({method})"
    noise_floor_families = ("counterfactual_similarity",)
    group_means = (
        GroupMean("sentiment", order=1, scale_setting="sentiment_scorer", chart=(
            "Mean sentiment score by {attribute} group{direction}",
            "Counterfactual responses: same prompts, only the group mentioned changes. "
            "Bars of equal length mean sentiment parity. Score: {scale}. {axis_note}",
        )),
    )  # fmt: skip
    histograms = (Histogram("sentiment", order=2),)
    pair_scatter = PairScatter(
        "sentiment",
        title="Counterfactual pairs: sentiment ({attribute})",
        xlabel="sentiment, {group_a} version",
        ylabel="sentiment, {group_b} version",
        caption="Each dot is one counterfactual response pair; dots on the dashed diagonal have equal sentiment.",
    )

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def build(self, plan: Plan, settings: RunSettings) -> None:
        sc = settings.scoring
        self.sentiment: Any = None
        if any(METRICS[k].inputs == "sentiment_pairs" for k in self.planned(plan)):
            self.sentiment = run_scorer("sentiment", settings)
        self.embedding_model: Any = None
        if sc.embedder is not False and any(METRICS[k].pair_similarity == "cosine" for k in self.planned(plan)):
            self.embedding_model = _assessment_embedder(sc.embedder, sc.device, score_cache(sc.cache))

    def prepare(self, ctx: RunContext) -> None:
        scoring = ctx.settings.scoring
        if self.sentiment is not None:
            from evenhand.scorers.sentiment import sentiment_scale

            # a reply that echoes its version's group word ("straight", "poor") differs by that word alone, which a
            # lexical scorer reads as tone: the swapped attribute's words are masked before scoring (results.json
            # ``settings.sentiment_masking``), as names are; scoring.sentiment_masking: false scores them as written
            masked = ctx.score("sentiment", self.sentiment, mask_swapped_words=scoring.sentiment_masking)
            if masked:
                ctx.described["sentiment_masking"] = masked
                ctx.caveats.append(SENTIMENT_MASKING_CAVEAT.format(attributes=", ".join(masked["attributes"])))
            # what a score means, so that the report and the verdict can say which way is warmer
            named = f"{scoring.sentiment}: " if scoring.sentiment is not None else "offline default, "
            ctx.described["sentiment_scorer"] = named + sentiment_scale(self.sentiment)
            if scoring.sentiment is None:
                ctx.caveats.append(SENTIMENT_CAVEAT)
            audit_scorer_into(
                ctx,
                self.sentiment,
                kind="sentiment",
                attributes={a: ctx.specs[a] for a in self.attributes(ctx.plan)},
                threshold=scoring.sentiment_threshold,
                name=str(scoring.sentiment) if scoring.sentiment is not None else "VADER (offline default)",
            )
            if masked and "sentiment" in ctx.audits:  # its gaps on those words never reached the comparison
                ctx.audits["sentiment"]["masked_in_comparison"] = list(masked["attributes"])
        self.embedder: _EngineEmbedder | None = None
        if self.embedding_model is not None:
            self.embedder = _EngineEmbedder(ctx.engine, self.embedding_model)

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        from evenhand.metrics import neutralize_pairs

        out: list[MetricRecord] = []
        swapped = swapped_word_patterns(ctx.frame)
        reads = reader_language("sentiment", ctx.settings.scoring.sentiment)
        for attribute in self.attributes(ctx.plan):
            keys = sorted(self.planned(ctx.plan, attribute), key=_family_order)
            spec = ctx.specs[attribute]
            pairs = ctx.pairs(attribute)
            reads_sentiment = pairs and any(METRICS[k].inputs == "sentiment_pairs" for k in keys)
            unread = other_language_groups(ctx, attribute, reads, "sentiment scorer") if reads_sentiment else {}
            if not pairs:
                reason = NO_GROUPS
                out.extend(undefined_record(key, attribute, ALL, reason) for key in keys)
                continue
            for a, b, found in pairs:
                comparison = pair(a, b)
                if found.empty:
                    out.extend(undefined_record(key, attribute, comparison, NO_PAIRS) for key in keys)
                    continue
                ta, tb = _similarity_texts(swapped, attribute, found)
                prompts = found["prompt_id"].to_numpy()  # the resampling unit: a prompt with all its pairs
                neutralized = None  # CROUGE-L and CBLEU neutralize the same pairs: once, explicitly shared
                for key in keys:
                    m = METRICS[key]
                    if m.inputs == "sentiment_pairs" and (unread.get(a) or unread.get(b)):
                        why = unread.get(a) or unread[b]
                        out.append(unread_record(ctx, key, attribute, comparison, why, UNREAD_SENTIMENT))
                        continue
                    if m.inputs == "sentiment_pairs":
                        sa, sb = (found[c].to_numpy(dtype=float) for c in ("sentiment_a", "sentiment_b"))
                        result = ctx.metric(key, sa, sb, prompts=prompts)
                        rec = record(key, attribute, comparison, result)
                        rec.signed = sentiment_signed(result, sa, sb, prompts, (a, b))  # a minus b beside the distance
                        out.append(rec)
                        continue
                    elif m.pair_similarity == "cosine":
                        if self.embedder is None:
                            out.append(
                                undefined_record(key, attribute, comparison, "no embedder (scoring.embedder is false)")
                            )
                            continue
                        # the neutralized texts, as CROUGE-L and CBLEU compare: a fair reply that echoes its version's
                        # group words ("your wife" / "your husband") differs by them alone, and a raw comparison
                        # read that echo as a difference the same-version floor lacks (the floor neutralizes too)
                        neutralized = neutralized or neutralize_pairs(ta, tb, spec)
                        result = ctx.metric(
                            key, neutralized.neutral1, neutralized.neutral2, embedder=self.embedder, prompts=prompts
                        )
                    else:
                        neutralized = neutralized or neutralize_pairs(ta, tb, spec)
                        result = ctx.metric(key, ta, tb, attribute=spec, neutralized=neutralized, prompts=prompts)
                    out.append(record(key, attribute, comparison, result))
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """Paired permutation tests for sentiment parity; the same-prompt noise floor beside similarity."""
        from evenhand.stats import counterfactual_sentiment_test, noise_floor

        st = ctx.settings.statistics
        swapped = swapped_word_patterns(ctx.frame)
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            found = ctx.pairs_for(rec) if rec.family in self.metric_families and rec.result.is_defined else None
            if found is None or found.empty:
                continue
            m = rec.spec
            if m.inputs == "sentiment_pairs":
                rec.test = counterfactual_sentiment_test(
                    found["sentiment_a"].to_numpy(dtype=float),
                    found["sentiment_b"].to_numpy(dtype=float),
                    statistic=m.name.lower(),
                    **setting_arguments(rec.key, ctx.settings),
                    seed=st.seed,
                    prompts=found["prompt_id"].to_numpy(),  # one swap per prompt, for all its pairs
                )
                continue
            similarity = _similarity(m.pair_similarity, self.embedder)
            if similarity is None:
                continue
            if found.groupby("prompt_id").size().max() < 2:
                rec.notes.append("no noise floor: it needs two or more responses per counterfactual prompt")
                continue
            rec.noise = noise_floor(  # on the replies as compared, as the metric: the versions' names masked
                *_similarity_texts(swapped, str(rec.attribute), found),
                found["prompt_id"].to_numpy(),
                similarity,
                # the similarities neutralize attribute words first (CCS too, in a run); so does their floor
                attribute=ctx.specs[str(rec.attribute)],
                name=rec.name,
                ci=st.ci or 0.95,
                n_resamples=st.n_resamples,
                seed=st.seed,
                n_permutations=SWAP_PERMUTATIONS,  # the verdict's concern needs the exact swap test too
                stop_after=SWAP_STOP_AFTER,
            )


def compared(pairs: pd.DataFrame, side: str) -> str:
    """The column of a side's replies as compared (names masked, issue 33), else the replies themselves."""
    column = f"{COMPARED}_{side}"
    return column if column in pairs else f"response_{side}"


def _similarity_texts(
    swapped: Mapping[tuple[object, object], Any], attribute: str, found: pd.DataFrame
) -> tuple[list[str], list[str]]:
    """Both sides' replies of counterfactual pairs as the similarities compare them: names masked (``compared``),
    and the words in which the versions' prompts differ masked alike on both sides (``swapped_words_masked``)."""
    prompts = found["prompt_id"].tolist()
    a, b = (found[compared(found, side)].tolist() for side in ("a", "b"))
    return swapped_words_masked(swapped, attribute, prompts, a), swapped_words_masked(swapped, attribute, prompts, b)


def _family_order(key: str) -> int:
    return Counterfactual.metric_families.index(METRICS[key].family)


def _similarity(name: str | None, embedder: Any) -> Any:
    """The per-pair similarity behind a metric, for its noise floor: a name the stats layer knows, or a callable."""
    if name == "cosine":
        if embedder is None:
            return None
        from evenhand.metrics.counterfactual import cosine_scores

        return lambda a, b: cosine_scores(a, b, embedder=embedder)
    return name


class _EngineEmbedder:
    """An embedder whose texts go through the run's scoring engine (dedup, batching, cache)."""

    def __init__(self, engine: ScoringEngine, embedder: Any) -> None:
        self.engine, self.embedder = engine, embedder
        self.name = getattr(embedder, "name", type(embedder).__name__)

    def encode(self, texts: list[str]) -> npt.NDArray[np.float64]:
        return self.engine.map(self.embedder, texts)


def _assessment_embedder(spec: Any, device: str | None = None, persistent: Any = None) -> Any:
    """The assessment's embedder, built by the scorer layer with a cache: each group's responses enter several group
    pairs and the noise floor, and are encoded only once. The cache is the run's persistent one (``scoring.cache``)
    when set, else a private in-memory one."""
    from evenhand import scorers

    if spec is None or isinstance(spec, (str, os.PathLike, Mapping)):
        _quiet_model_loading()
        cache = persistent if persistent is not None else scorers.ScoreCache(":memory:")
        return build_scorer(scorers.get_embedder, spec, key="scoring.embedder", device=device, cache=cache)
    # A user's object (or an already-built Embedder, whose own cache settings stay as they are) is wrapped; the
    # name only labels entries of this run's in-memory cache, which the scorer layer caches by name.
    return scorers.CallableEmbedder(spec, name="assessment", cache=scorers.ScoreCache(":memory:"))


def _quiet_model_loading() -> None:
    """transformers draws a "Loading weights" bar on stderr for the bundled embedder; the pipeline has its own
    progress display, so that bar is noise (the local LLM client turns it off the same way)."""
    from evenhand._optional import require

    try:
        require("transformers", feature="sentence embeddings").utils.logging.disable_progress_bar()
    except ImportError:  # get_embedder raises the helpful error
        pass
