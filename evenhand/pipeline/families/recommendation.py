"""Recommendation fairness (paper 3.3): Jaccard-K, SERP-K and PRAG-K of counterfactual pairs of K-item lists."""

from __future__ import annotations

from dataclasses import replace

from evenhand.framework import Plan
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.collect import ok_rows
from evenhand.pipeline.families.base import Family, Needs, RunContext, record, undefined_record
from evenhand.pipeline.parsers import parse_list
from evenhand.pipeline.records import ALL, MetricRecord, pair


class Recommendation(Family):
    metric_families = ("recommendation",)

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def prepare(self, ctx: RunContext) -> None:
        k = ctx.settings.recommendation.k
        frame, parse = ctx.frame, ctx.list_parser or parse_list
        frame["items"] = [parse(r, k) if isinstance(r, str) else [] for r in frame["response"]]
        short = int((ok_rows(frame)["items"].map(len) < k).sum())
        if short:
            ctx.caveats.append(f"{short} answers parsed into fewer than K={k} items; their pairs were left out")
        ctx.described["k"] = k
        ctx.described["normalize"] = ctx.settings.recommendation.normalize

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        """Every planned metric for every pair of groups; lists with fewer than K items are left out."""
        k, normalize = ctx.settings.recommendation.k, ctx.settings.recommendation.normalize
        out: list[MetricRecord] = []
        for attribute in self.attributes(ctx.plan):
            keys = self.planned(ctx.plan, attribute)
            pairs = ctx.pairs(attribute)
            if not pairs:
                reason = "fewer than two groups have counterfactual responses"
                out.extend(undefined_record(key, attribute, ALL, reason) for key in keys)
            for a, b, found in pairs:
                full = found[(found["items_a"].map(len) >= k) & (found["items_b"].map(len) >= k)]
                dropped = len(found) - len(full)
                for key in keys:
                    if full.empty:
                        reason = f"no counterfactual pair where both answers parse into {k} items"
                        out.append(undefined_record(key, attribute, pair(a, b), reason))
                        continue
                    result = ctx.metric(
                        key,
                        full["items_a"].tolist(),
                        full["items_b"].tolist(),
                        k=k,
                        normalize=normalize,
                        duplicates="mask",
                    )
                    if dropped:
                        result = _with_note(result, f"{dropped} pair(s) with fewer than {k} parsed items left out")
                    out.append(record(key, attribute, pair(a, b), result))
        return out


def _with_note(result: MetricResult, note: str) -> MetricResult:
    return replace(result, details={**result.details, "note": note})
