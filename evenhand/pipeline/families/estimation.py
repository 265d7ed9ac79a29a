"""Numeric outcomes (task estimation, beyond the paper; issue 36): the number each reply gives (a salary, a price, a
credit limit), compared between the counterfactual versions of each prompt.

Each reply's number is read once (:func:`evenhand.text.numbers.parse_numbers`, as the ``estimation`` section says:
a JSON field, the currency or unit read first) into the response frame's ``estimate`` column, with how it was read
in ``estimate_status``; a reply without a number is NaN there, and the refusal detector (``scoring.refusal``) says
which of those decline. For every pair of groups, CER and CED over the pairs where both replies hold a number, each
with a paired sign-flip permutation test over prompts (the log numbers for CER, the numbers for CED) in the run's one
adjustment, and the same-version noise floor (two samples of one version; two or more answers per prompt) beside
them. results.json ``numbers`` has each group's numbers (replies, refusals, non-numbers, mean, median, spread) and
their distribution relative to each prompt's mean; ``impact_ratios`` the scoring-rate table of NYC Local Law 144.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.conversation import Conversation, prompt_text
from evenhand.framework import Plan
from evenhand.metrics.estimation import estimate_summary
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.families.base import Family, Needs, RunContext, pair_column_records, run_scorer
from evenhand.pipeline.families.examples import ExampleSection, estimate_gaps
from evenhand.pipeline.families.impact import impact_ratios, wanted
from evenhand.pipeline.families.refusal_length import SIGN_FLIPS
from evenhand.pipeline.stages import counted
from evenhand.text.amounts import currency_of
from evenhand.text.numbers import NO_NUMBER, NO_REPLY, OTHER_PERIOD, ParsedNumbers, parse_numbers, stated_in_request

#: results.json ``numbers``: the bins of each reply's number relative to its prompt's mean over every version
RELATIVE_BINS = [round(x, 2) for x in np.arange(0.70, 1.301, 0.05)]


class Estimation(Family):
    metric_families = ("estimation",)
    test_method = "paired sign-flip over prompts ({method})"
    noise_floor_families = ("estimation",)
    example_sections = (
        ExampleSection("estimate_gap", "Largest gaps between the numbers given to two groups' versions", "reply_pair",
                       estimate_gaps, measure=("gap", "gap"), side_score="estimate",
                       intro="Beside each group: the number read from its reply."),
    )  # fmt: skip

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def build(self, plan: Plan, settings: RunSettings) -> None:
        # replies without a number: the refusal detector tells a refusal from another non-answer
        self.detector: Any = run_scorer("refusal", settings)

    def prepare(self, ctx: RunContext) -> None:
        frame, es = ctx.frame, ctx.settings.estimation
        answered = (frame["status"] == "ok") & frame["response"].notna()
        replies = frame["response"].where(answered, None)
        parsed = parse_numbers(replies, json_field=es.json_field, currency=es.currency, unit=es.unit, period=es.period)
        ctx.score("refusal", self.detector)
        # a refusal's number not marked as asked repeats the request ("... someone with 5 years of experience"): a
        # fair model's CER moved by log(5/70000) per such pair; an amount in a partial refusal is still read. With
        # nothing that marks an answer (no currency, unit or JSON field), the request tells: a number it states
        refused = frame["refusal"].to_numpy(dtype=float) >= ctx.settings.scoring.refusal_threshold
        echoed = refused & parsed.unmarked()
        if es.currency is None and es.unit is None and es.json_field is None:
            requests = [prompt_text(p) if r and isinstance(p, (str, Conversation)) else None
                        for p, r in zip(frame["prompt"], refused, strict=True)]  # fmt: skip
            echoed |= refused & stated_in_request(parsed, requests)
        frame["estimate"] = np.where(echoed, np.nan, parsed.values)
        frame["estimate_status"] = np.where(echoed, NO_NUMBER, parsed.status)
        ctx.described["estimation"] = es.model_dump()
        ctx.caveats.extend(period_caveats(parsed, es.period))
        ctx.caveats.extend(currency_caveats(frame, parsed))
        missing = int((answered & frame["estimate"].isna()).sum())
        if missing:
            read = f"number in the JSON field {es.json_field!r}" if es.json_field else "number"
            ctx.caveats.append(
                f"{missing} of {int(answered.sum())} replies held no {read} and were left out of the numeric metrics "
                "(results.json numbers: refusals and other non-numbers per group)"
            )
        ctx.sections["numbers"] = numbers_section(ctx, self.attributes(ctx.plan), compared_per=parsed.period)
        if wanted(ctx.plan, ctx.settings.impact_ratios, by_default=True):
            table = impact_ratios(frame, ctx.settings.impact_ratios, scores="estimate")
            if table is not None:
                ctx.sections["impact_ratios"] = table.to_dict()

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        out: list[MetricRecord] = []
        es = ctx.settings.estimation
        shown = {"currency": es.currency, "unit": es.unit, "better": es.better}  # how the kind words its findings
        for attribute in self.attributes(ctx.plan):
            for rec in pair_column_records(ctx, attribute, self.planned(ctx.plan, attribute)):
                rec.result = replace(rec.result, details={**rec.result.details, **shown})
                details = rec.result.details
                unparsed_a, unparsed_b = details.get("unparsed_a", 0), details.get("unparsed_b", 0)
                if rec.groups is not None and (unparsed_a or unparsed_b):
                    a, b = rec.groups
                    rec.notes.append(
                        f"{details.get('left_out_pairs', 0)} pair(s) left out: {unparsed_a} of the {a} versions' "
                        f"replies and {unparsed_b} of the {b} versions' held no number (of {details['total_pairs']} "
                        "pairs)"
                    )
                # every pair left out for a reply without a number (not for a number of 0 or less): nothing was read
                unread = details.get("left_out_pairs", 0) - details.get("nonpositive_pairs", 0)
                rec.unread = not rec.result.is_defined and 0 < details.get("total_pairs", 0) <= unread
                out.append(rec)
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """A paired sign-flip test over prompts for every pair of groups (two-sided; on the log numbers for a ratio),
        and the same-version noise floor of the numbers, on the pairs each metric compares."""
        from evenhand.stats import estimate_noise_floor, paired_prompt_test

        st = ctx.settings.statistics
        own = [r for r in records if r.family in self.metric_families and r.result.is_defined]
        for rec in counted(own, lambda r: True):
            found = ctx.pairs_for(rec)
            if found is None or found.empty:
                continue
            a, b = (found[f"estimate_{s}"].to_numpy(dtype=float) for s in ("a", "b"))
            ratio = rec.spec.words.get("scale") == "ratio"
            with np.errstate(invalid="ignore"):
                used = ~np.isnan(a) & ~np.isnan(b) & ((a > 0) & (b > 0) if ratio else True)
            if used.sum() < 1:
                continue
            prompts = found["prompt_id"].to_numpy()[used]
            sides = (np.log(a[used]), np.log(b[used])) if ratio else (a[used], b[used])
            rec.test = paired_prompt_test(*sides, prompts, n_permutations=SIGN_FLIPS, seed=st.seed)
            # the floor is said beside the paired test, which judges: its interval, no swap test of its own
            floor = estimate_noise_floor(
                a[used], b[used], prompts, scale="log" if ratio else "linear", ci=st.ci or 0.95,
                n_resamples=st.n_resamples, seed=st.seed, method=st.method,
            )  # fmt: skip
            if floor.n_prompts:  # two or more answers per prompt: a floor to read the spread against
                rec.noise = floor
            else:
                rec.notes.append("no same-version noise floor: it needs two or more answers per prompt and group")


def period_caveats(parsed: ParsedNumbers, period: str | None) -> list[str]:
    """What the run says about the periods its replies stated amounts per: the period it compared them per, when
    it chose it (``estimation.period`` unset), and the replies left out because their period does not convert."""
    out = []
    stated = sorted({s for s in parsed.stated or [] if s})
    if parsed.period is not None and period is None:
        out.append(
            f"the replies state amounts per {', per '.join(stated)}: compared per {parsed.period}, the period they "
            "state most often (estimation.period sets it)"
        )
    other = parsed.status == OTHER_PERIOD
    if other.any():
        per = sorted({s for s, o in zip(parsed.stated or [], other, strict=True) if o})
        out.append(
            f"{int(other.sum())} replies stated their amount per {' or '.join(per)}, which does not convert to per "
            f"{parsed.period} (it depends on the hours or days worked): left out of the numeric metrics (status "
            f"'{OTHER_PERIOD}')"
        )
    return out


def currency_caveats(frame: Any, parsed: ParsedNumbers) -> list[str]:
    """The run's caveat where the numbers read are amounts in several currencies (deploy17: yen for the prompts about
    Tokyo, dollars for the others): each is read as written, none converted, so CED, a mean of raw differences,
    averages unlike amounts; CER, a ratio within each pair, is comparable where a prompt's versions answer in one."""
    read = ~np.isnan(frame["estimate"].to_numpy(dtype=float))
    currencies = pd.Series([currency_of(m) if r else None for m, r in zip(parsed.matched, read, strict=True)],
                           index=frame.index, dtype=object)  # fmt: skip
    counts = currencies.value_counts()
    if len(counts) < 2:
        return []
    mixed = int((currencies.dropna().groupby(frame.loc[currencies.notna(), "prompt_id"]).nunique() > 1).sum())
    named = ", ".join(f"{code}: {n} replies" for code, n in counts.items())
    within = f"; {mixed} prompt(s) whose replies mix currencies compare unlike amounts in CER too" if mixed else ""
    return [
        f"the replies give amounts in {len(counts)} currencies ({named}), each read as written and none converted: "
        f"CED averages the differences of unlike amounts (a mean of {' and '.join(map(str, counts.index))} "
        f"differences has no unit); CER, a ratio within each pair, is comparable where a prompt's replies keep one "
        f"currency{within}. Ask for one currency in the prompts, or assess each currency's prompts apart"
    ]


def numbers_section(ctx: RunContext, attributes: Sequence[str], *, compared_per: str | None) -> dict[str, Any]:
    """results.json ``numbers``: how numbers were read (the settings, and ``compared_per``: the period the amounts
    were compared per, the setting's or the one inferred from the replies; null: as written), and per attribute each
    group's numbers
    (:func:`~evenhand.metrics.estimation.estimate_summary`) with the distribution of each reply's number relative to
    its prompt's mean over every version (``counts`` per :data:`RELATIVE_BINS`; a ratio, so prompts of any size
    share one axis)."""
    frame, es = ctx.frame, ctx.settings.estimation
    out: dict[str, Any] = {**es.model_dump(), "compared_per": compared_per, "bins": RELATIVE_BINS, "attributes": []}
    answered = frame["group"].notna() & (frame["estimate_status"] != NO_REPLY)  # the versions' replies
    for attribute in attributes:
        rows = frame[(frame["attribute"] == attribute) & answered]
        if rows.empty:
            continue
        refused = (rows["refusal"].to_numpy(dtype=float) >= ctx.settings.scoring.refusal_threshold).astype(float)
        summary = estimate_summary(rows["estimate"], rows["group"].astype(str), refusals=refused)
        values = rows["estimate"].to_numpy(dtype=float)
        prompt_mean = rows.groupby("prompt_id")["estimate"].transform("mean").to_numpy(dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            relative = np.where((values > 0) & (prompt_mean > 0), values / prompt_mean, np.nan)
        groups = []
        for record in summary.to_dict(orient="records"):
            mine = relative[(rows["group"].astype(str) == record["group"]).to_numpy()]
            mine = mine[~np.isnan(mine)]
            counts, _ = np.histogram(np.clip(mine, RELATIVE_BINS[0], RELATIVE_BINS[-1]), bins=RELATIVE_BINS)
            groups.append({k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in record.items()}
                          | {"counts": counts.tolist()})  # fmt: skip
        out["attributes"].append({"attribute": attribute, "groups": groups})
    return out
