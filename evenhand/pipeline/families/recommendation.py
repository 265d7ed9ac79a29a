"""Recommendation fairness (paper 3.3): Jaccard-K, SERP-K and PRAG-K of counterfactual pairs of K-item lists.

Several samples of one prompt give several pairs; the intervals resample prompts (``prompt_id``) with all their
pairs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from evenhand.framework import Plan
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import ALL, MetricRecord, pair
from evenhand.pipeline.families.base import NO_GROUPS, Family, Needs, RunContext, record, undefined_record
from evenhand.pipeline.families.examples import ExampleSection, least_similar_lists
from evenhand.pipeline.families.figures import GroupMean
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.responses.parsers import k_slots, parse_list
from evenhand.pipeline.stages import counted


class Recommendation(Family):
    metric_families = ("recommendation",)
    example_sections = (
        ExampleSection("recommendation_gap", "Least similar counterfactual recommendation lists", "list_pair",
                       least_similar_lists, measure=("Jaccard", "jaccard")),
    )  # fmt: skip
    pair_value_chart = (
        "Counterfactual recommendation similarity ({attribute})",
        "How alike the K-item lists for two groups are (1 = the same items in the same order for SERP-K and PRAG-K). "
        "Short bars point at the pairs of groups whose recommendations differ.",
    )
    group_means = (GroupMean("items", order=3, of_lengths=True),)  # the lists' lengths; no chart

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def prepare(self, ctx: RunContext) -> None:
        k = ctx.settings.recommendation.k
        frame, parse = ctx.frame, ctx.list_parser or parse_list
        frame["items"] = [parse(r, k) if isinstance(r, str) else [] for r in frame["response"]]
        short = int((ok_rows(frame)["items"].map(len) < k).sum())
        if short:
            ctx.caveats.append(
                f"{short} answers parsed into fewer than K={k} items; each item they lack counts as a slot that "
                "matches nothing (a pair where neither answer gave an item is left out)"
            )
        ctx.described["k"] = k
        ctx.described["normalize"] = ctx.settings.recommendation.normalize

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        """Every planned metric for every pair of groups; a list with fewer than K items has empty slots that match
        nothing (:func:`k_slots`), and a pair of two empty lists is left out."""
        k, normalize = ctx.settings.recommendation.k, ctx.settings.recommendation.normalize
        out: list[MetricRecord] = []
        for attribute in self.attributes(ctx.plan):
            keys = self.planned(ctx.plan, attribute)
            pairs = ctx.pairs(attribute)
            if not pairs:
                reason = NO_GROUPS
                out.extend(undefined_record(key, attribute, ALL, reason) for key in keys)
            for a, b, found in pairs:
                full = _in_k_slots(found, k)
                dropped = len(found) - len(full)
                short = int(((found["items_a"].map(len) < k) | (found["items_b"].map(len) < k)).sum()) - dropped
                for key in keys:
                    if full.empty:
                        reason = "no counterfactual pair where either answer parses into an item"
                        out.append(undefined_record(key, attribute, pair(a, b), reason, unread=True))
                        continue
                    result = ctx.metric(
                        key,
                        full["items_a"].tolist(),
                        full["items_b"].tolist(),
                        k=k,
                        normalize=normalize,
                        duplicates="mask",
                        prompts=full["prompt_id"].to_numpy(),
                    )
                    notes = [f"{short} pair(s) with a list of fewer than {k} items, its missing items counted as "
                             "slots that match nothing"] if short else []  # fmt: skip
                    if dropped:
                        notes.append(f"{dropped} pair(s) where neither answer parsed into an item left out")
                    if notes:
                        result = _with_note(result, "; ".join(notes))
                    out.append(record(key, attribute, pair(a, b), result))
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """The same-prompt noise floor beside each list similarity, with its swap test: two answers to the very same
        prompt already differ, so counterfactual lists are only evidence of unfairness where they are less alike than
        that. The floor is the larger of the two groups' own floors, which sampling alone pushes up; without the swap
        test (which uses that same statistic) a fair model's lists got a concern in 6 of 20 null runs."""
        from evenhand.pipeline.families.counterfactual import SWAP_PERMUTATIONS, SWAP_STOP_AFTER
        from evenhand.stats import noise_floor

        rs, st = ctx.settings.recommendation, ctx.settings.statistics
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            found = ctx.pairs_for(rec) if rec.family in self.metric_families and rec.result.is_defined else None
            if found is None or rec.groups is None:
                continue
            full = _in_k_slots(found, rs.k)
            if full.empty or full.groupby("prompt_id").size().max() < 2:
                rec.notes.append("no noise floor: it needs two or more responses per counterfactual prompt")
                continue
            rec.noise = noise_floor(  # on the lists of the pairs, each side's consecutive samples (s_j, s_j+1)
                [_joined(items) for items in full["items_a"]],
                [_joined(items) for items in full["items_b"]],
                full["prompt_id"].to_numpy(),
                _list_similarity(ctx, rec.key),
                name=rec.name,
                ci=st.ci or 0.95,
                n_resamples=st.n_resamples,
                seed=st.seed,
                method=st.method,
                n_permutations=SWAP_PERMUTATIONS,
                stop_after=SWAP_STOP_AFTER,
            )


def _list_similarity(ctx: RunContext, key: str) -> Any:
    """The per-pair similarity behind metric ``key`` on joined lists (:func:`_joined`), as the run computes it."""
    rs = ctx.settings.recommendation
    options = {"k": rs.k, "normalize": rs.normalize, "duplicates": "mask"}

    def similarity(left: Sequence[str], right: Sequence[str]) -> Any:
        return ctx.metric(key, [_split(t) for t in left], [_split(t) for t in right], **options).per_item

    return similarity


#: Joins a list's items into one text for the floor's machinery, which pairs texts (no item holds it).
_ITEM_SEPARATOR = "\x1f"


def _joined(items: Sequence[str]) -> str:
    return _ITEM_SEPARATOR.join(str(item) for item in items)


def _split(text: str) -> list[str]:
    return text.split(_ITEM_SEPARATOR)


def _in_k_slots(pairs: pd.DataFrame, k: int) -> pd.DataFrame:
    """The pairs where either answer gave an item, each list as its K slots (:func:`k_slots`)."""
    kept = pairs[(pairs["items_a"].map(len) > 0) | (pairs["items_b"].map(len) > 0)]
    return kept.assign(**{side: [k_slots(items, k) for items in kept[side]] for side in ("items_a", "items_b")})


def _with_note(result: MetricResult, note: str) -> MetricResult:
    return replace(result, details={**result.details, "note": note})
