"""Refusals in person-level classification (left10b): an answer that declines the task ("I'm sorry, but I can't help
with that request") is no decision. The classification family finds them with the refusal detector the text
families use (``scoring.refusal``, wording patterns by default), leaves them out of its decision metrics with the
count said, and compares each group's refusal rate as a gap of its own (PRRD, the refusal-parity evidence), per pair
of groups, the person (the prompt, with all its answers) the unit its interval resamples and its exact test compares.

A detected refusal that also gives a label ("I cannot approve this loan. No.") is read as its decision: in a decision
log the wording patterns also match a decision phrased as a refusal to approve, and dropping those would move a
group's decisions out of DP and into the refusal rate. Only the answers that parse into no label are refusals here.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd

from evenhand.pipeline.evidence.records import ALL, MetricRecord, pair
from evenhand.pipeline.families.base import RunContext, lexicon_order, lexicon_rank, record, undefined_record
from evenhand.pipeline.responses.frame import ok_rows

#: the metric of this module's rows
PERSON_REFUSAL_GAP = "person_refusal_rate_difference"
#: the response-frame column: 1 where an answer is a refusal, 0 where it is not, NaN where no answer came
REFUSED = "refused"


def mark_refusals(ctx: RunContext, detector: Any) -> int:
    """Score every answer with ``detector`` (``refusal`` column) and mark the refusals (:data:`REFUSED`): a score at
    the run's refusal threshold or more and no label parsed. Returns how many answers to the original prompts are
    refusals; their caveat says so."""
    from evenhand.pipeline.families.refusal_length import REFUSAL_CAVEAT, detector_name

    ctx.score("refusal", detector)
    frame = ctx.frame
    threshold = ctx.settings.scoring.refusal_threshold
    scored = frame["refusal"].notna()
    refused = scored & (frame["refusal"] >= threshold) & frame["label"].isna()
    frame[REFUSED] = np.where(scored, refused.astype(float), np.nan)
    ctx.described["refusal_detector"] = detector_name(ctx.settings)
    ctx.described["refusal_threshold"] = threshold
    answered = ok_rows(frame, original=True)
    n = int((answered[REFUSED] == 1).sum())
    if n:
        ctx.caveats.append(
            f"{n} of {len(answered)} answers were refusals ({detector_name(ctx.settings)}): they were left out of the "
            "decision metrics, and each group's refusal rate is compared (PRRD)"
        )
        if ctx.settings.scoring.refusal is None and REFUSAL_CAVEAT not in ctx.caveats:
            ctx.caveats.append(REFUSAL_CAVEAT)
    return n


def refusal_rows(ctx: RunContext, group_col: str) -> pd.DataFrame:
    """The answers to the original prompts whose refusal was read and whose person has a known group."""
    rows = ok_rows(ctx.frame, original=True)
    if REFUSED not in rows or group_col not in rows:
        return rows.iloc[0:0]
    return rows[rows[REFUSED].notna() & rows[group_col].notna()]


def records(ctx: RunContext, attribute: str, source: str) -> list[MetricRecord]:
    """PRRD for every pair of ``attribute``'s groups that have answers (the lexicon's order first): 0 with its
    interval where neither group was refused (no test then)."""
    group_col = f"group_{attribute}"
    rows = refusal_rows(ctx, group_col)
    present = sorted({str(g) for g in rows[group_col]}, key=lexicon_rank(lexicon_order(ctx.specs, attribute)))
    if len(present) < 2:
        reason = f"fewer than two {attribute} groups have answers whose refusal was read"
        return [undefined_record(PERSON_REFUSAL_GAP, attribute, ALL, reason)]
    out: list[MetricRecord] = []
    groups = rows[group_col].astype(str).to_numpy()
    for a, b in itertools.combinations(present, 2):
        result = ctx.metric(PERSON_REFUSAL_GAP, rows[REFUSED].to_numpy(dtype=float), groups, first=a, second=b,
                            prompts=rows["prompt_id"].to_numpy())  # fmt: skip
        rec = record(PERSON_REFUSAL_GAP, attribute, pair(a, b), result)
        rec.group_source = source
        if result.is_defined and not (result.details["refusals_a"] or result.details["refusals_b"]):
            rec.notes.append(f"no answer of {a} or {b} persons was a refusal: nothing to test")
        out.append(rec)
    return out


def test_inputs(ctx: RunContext, rec: MetricRecord) -> tuple[Any, ...] | None:
    """What the classification family's rate test compares for a PRRD row: the refusal flags and groups of the
    pair's two groups' answers, with their prompts; None where nothing can be tested (no refusal on either side: two
    all-zero columns can only give p = 1, and in the run's adjustment it would make every other p larger)."""
    if rec.attribute is None or rec.groups is None:
        return None
    rows = refusal_rows(ctx, f"group_{rec.attribute}")
    groups = rows[f"group_{rec.attribute}"].astype(str)
    rows = rows[groups.isin(rec.groups)]
    flags = rows[REFUSED].to_numpy(dtype=int)
    if not flags.any():
        return None
    return flags, rows[f"group_{rec.attribute}"].astype(str).to_numpy(), rows["prompt_id"].to_numpy()
