"""Judged treatment (beyond the paper; issue 38): an LLM judge (the run's ``judge`` section) compares the replies to
two groups' counterfactual versions of each prompt, pair by pair, in both orders (docs/assistants.md).

The judge is audited on the shipped labelled pairs before the first response is generated (a judge that cannot be
reached fails then, not after generation); below the audit's agreement its results are reported and decide nothing
(the kind of evidence, :mod:`evenhand.pipeline.verdict.kinds.judged`). For every pair of groups: JWD, the share of
pairs judged worse for the first group minus for the second, over the pairs whose two orders agree, with the prompt
as the resampling unit and a paired sign-flip test over prompts; beside it the same-version floor (two replies to the
same version, judged the same way: how often the judge calls them unequal) and the judge's reason for a typical pair.
Every question goes through the generation runner at once (concurrent, paced, stored: a re-run asks nothing twice).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.errors import InputError
from evenhand.framework import Plan
from evenhand.metrics.judged_pairs import judged_unequal_share
from evenhand.pipeline.evidence.records import ALL, MetricRecord, pair
from evenhand.pipeline.families.base import NO_GROUPS, NO_PAIRS, Family, Needs, RunContext, record, undefined_record
from evenhand.pipeline.families.refusal_length import SIGN_FLIPS
from evenhand.pipeline.responses.frame import group_pairs, ok_rows
from evenhand.pipeline.stages import counted

#: results.json's key for what the judge found, its audit and what it cost (present only when a judge was used)
JUDGE_KEY = "judge"
#: results.json's key for what the second reader of identity cues cost (its audit and cues are the plan's)
READER_KEY = "reader"
#: the columns a judged pair gets: the verdict both orders agree on ("a", "b", "neither", "disagree"), the judge's
#: reason and the harm it named (with group A's reply shown first)
_COLUMNS = ("judged", "judged_reason", "judged_harm")


@dataclass
class _Judged:
    """One attribute's judged pairs: per pair of groups its counterfactual pairs with the judge's verdict, reason and
    harm (columns ``judged``, ``judged_reason``, ``judged_harm``), and per group its same-version verdicts."""

    pairs: list[tuple[str, str, pd.DataFrame]] = field(default_factory=list)
    same_version: dict[str, list[str]] = field(default_factory=dict)


class JudgedTreatment(Family):
    metric_families = ("judged_treatment",)
    test_method = "paired sign-flip over prompts ({method})"

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def check_reachable(self, plan: Plan, settings: RunSettings) -> None:
        """An OpenAI-compatible judge is probed (a TCP connection and its model list, never a completion) when its
        audit will ask it anything: a dead judge used to be found after every scorer had loaded (faults18). With
        the audit's answers all in the store the judge is not probed (a resume needs no server to start)."""
        if settings.judge is None or settings.judge.provider != "openai":
            return  # a local judge or a callable: nothing to reach (and building one may load a model)
        from evenhand.generation.assistant_cost import estimate_judge
        from evenhand.generation.preflight import check_reachable

        self.judge = settings.judge.build(settings.generation)
        if estimate_judge([], self.judge.client, settings=self.judge.settings).requests_max > 0:
            check_reachable(self.judge.client, key="judge")

    def build(self, plan: Plan, settings: RunSettings) -> None:
        from evenhand.generation.judge_audit import audit_judge

        if settings.judge is None:
            raise InputError("judge: the plan has the judge's metric (JWD) but no judge is configured")
        self.config = settings.judge
        if getattr(self, "judge", None) is None:  # built by check_reachable, or now
            self.judge = settings.judge.build(settings.generation)
        self.audit = audit_judge(self.judge)  # audit before trust, and before the first response is generated
        self.judged: dict[str, _Judged] = {}

    def prepare(self, ctx: RunContext) -> None:
        from evenhand.generation.pair_judge import JudgeItem

        ctx.described["judge"] = self.judge.describe()
        items: list[JudgeItem] = []
        places: list[tuple[dict[str, list[Any]], int] | list[str]] = []  # where each answer goes: a pair's row, a floor
        filled: list[tuple[pd.DataFrame, dict[str, list[Any]]]] = []
        for attribute in self.attributes(ctx.plan):
            judged = self.judged[attribute] = _Judged()
            # the pairs of the frame as it is now, not ctx.pairs: its cache must see every family's columns
            for a, b, found in group_pairs(ctx.frame, attribute):
                found = found[["prompt_id", "sample", "prompt_a", "response_a", "prompt_b", "response_b"]].copy()
                columns: dict[str, list[Any]] = {c: [None] * len(found) for c in _COLUMNS}
                judged.pairs.append((a, b, found))
                filled.append((found, columns))
                for i, row in enumerate(found.itertuples(index=False)):
                    items.append(JudgeItem(row.prompt_a, row.response_a, row.prompt_b, row.response_b))
                    places.append((columns, i))
            if self.config.same_version:
                for group, item in _same_version(ctx.frame, attribute):
                    items.append(item)
                    places.append(judged.same_version.setdefault(group, []))
        answers = self.judge.judge_pairs(items) if items else []  # one call: every question at once
        for where, answer in zip(places, answers, strict=True):
            if isinstance(where, list):
                where.append(answer.verdict)
                continue
            columns, i = where
            for column, value in zip(_COLUMNS, (answer.verdict, answer.reason, answer.harm), strict=True):
                columns[column][i] = value
        for found, columns in filled:
            for column, values in columns.items():
                found[column] = pd.Series(values, index=found.index, dtype=object)
        ctx.assistants[JUDGE_KEY] = {"audit": self.audit.to_dict(), "usage": self.judge.usage(), "pairs": []}
        if not self.audit.trusted:
            ctx.caveats.append(
                f"The judge of paired replies agreed with {self.audit.agreement:.0%} of the labelled pairs, below the "
                f"{self.audit.min_agreement:.0%} it needs: its results (JWD) are reported and decide no verdict."
            )

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        out: list[MetricRecord] = []
        key = next(iter(self.planned(ctx.plan)))
        summary = ctx.assistants[JUDGE_KEY]["pairs"]
        for attribute in self.attributes(ctx.plan):
            judged = self.judged.get(attribute, _Judged())
            if not judged.pairs:
                out.append(undefined_record(key, attribute, ALL, NO_GROUPS))
                continue
            for a, b, found in judged.pairs:
                if found.empty:
                    out.append(undefined_record(key, attribute, pair(a, b), NO_PAIRS))
                    continue
                result = ctx.metric(key, found["judged"], prompts=found["prompt_id"].to_numpy())
                floor = [*judged.same_version.get(a, []), *judged.same_version.get(b, [])]
                details = _details(found, result.details, floor, self.audit)
                result = dataclasses.replace(result, details={**result.details, **details})
                out.append(record(key, attribute, pair(a, b), result))
                summary.append({"attribute": attribute, "group_a": a, "group_b": b, **details})
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """A paired sign-flip permutation test over prompts for every pair of groups (two-sided), on the pairs whose
        two orders agree."""
        from evenhand.stats import paired_prompt_test

        own = [r for r in records if r.family in self.metric_families and r.result.is_defined]
        for rec in counted(own, lambda r: True):
            found = next((f for a, b, f in self.judged[rec.attribute or ""].pairs if (a, b) == rec.groups), None)
            if found is None:
                continue
            agreed = found[found["judged"] != "disagree"]
            rec.test = paired_prompt_test(
                (agreed["judged"] == "a").to_numpy(dtype=float),
                (agreed["judged"] == "b").to_numpy(dtype=float),
                agreed["prompt_id"].to_numpy(),
                n_permutations=SIGN_FLIPS,
                seed=ctx.settings.statistics.seed,
            )


def _same_version(frame: pd.DataFrame, attribute: str) -> list[tuple[str, Any]]:
    """Pairs of two replies to the same version (samples 0 and 1, 2 and 3, ... of one prompt and group), each as
    ``(group, JudgeItem)``: the judge's floor, since no group differs between them."""
    from evenhand.generation.pair_judge import JudgeItem

    rows = ok_rows(frame, original=False, attribute=attribute).sort_values(["prompt_id", "sample"], kind="stable")
    out: list[tuple[str, Any]] = []
    for (_, group), per in rows.groupby(["prompt_id", "group"], sort=False):
        texts, prompt = per["response"].tolist(), str(per["prompt"].iloc[0])
        out.extend((str(group), JudgeItem(prompt, texts[k], prompt, texts[k + 1])) for k in range(0, len(texts) - 1, 2))
    return out


def _details(found: pd.DataFrame, details: Mapping[str, Any], floor: list[str], audit: Any) -> dict[str, Any]:
    """What the kind of evidence and results.json say beside JWD: the judge's standing, the same-version floor and
    the typical pair (the commonest harm on the side judged worse more often, its first pair in prompt order)."""
    out: dict[str, Any] = {
        "judge_trusted": audit.trusted,
        "judge_agreement": audit.agreement,
        "n_pairs": len(found),
        "share_a": details.get("share_a"),
        "share_b": details.get("share_b"),
        "n_disagree": details.get("n_disagree"),
        "same_version_pairs": len(floor),
        "same_version_unequal": float(judged_unequal_share(floor)) if floor else None,
    }
    side = "a" if (details.get("share_a") or 0) >= (details.get("share_b") or 0) else "b"
    worse = found[found["judged"] == side]
    if worse.empty:
        return out
    harm = Counter(h for h in worse["judged_harm"] if isinstance(h, str)).most_common(1)
    chosen = worse[worse["judged_harm"] == harm[0][0]] if harm else worse
    row = chosen.sort_values(["prompt_id", "sample"], kind="stable").iloc[0]
    out["typical_side"] = side
    out["typical_harm"] = harm[0][0] if harm else None
    out["typical_reason"] = str(row["judged_reason"]) or None
    out["typical"] = {
        "prompt_id": _plain(row["prompt_id"]), "sample": _plain(row["sample"]), "prompt_a": row["prompt_a"],
        "response_a": row["response_a"], "prompt_b": row["prompt_b"], "response_b": row["response_b"],
    }  # fmt: skip
    return out


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
