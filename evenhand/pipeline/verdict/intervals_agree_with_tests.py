"""Intervals that agree with their tests: a distance's interval includes 0 unless its test rejects (issue 27).

The metrics table and the verdict show each metric's bootstrap interval. For a metric whose "no difference" value
is 0 and that is a distance (|DP| and the other classification gaps, SCSP, WCSP, COBS, SA: the kinds of evidence
whose ``distance`` is true), that interval sits above 0 on almost any sample, so it would read as a difference on
data with none. After the tests ran, such a record's
interval is joined with 0 unless its test rejects at the interval's level
(:func:`evenhand.stats.joined_with_zero_unless_rejected`); so is the interval of the signed difference behind it
(:mod:`evenhand.pipeline.evidence.signed_differences`). The value, and so every ``value`` threshold, is unchanged.

Where the test rejects, the signed interval shown is the one without review11's join with the unseen-units bound
(the test does not make it either), and the joined one is quoted beside it (interval18, :func:`signed_follows_test`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.verdict.kinds import kind_of


def record_p_value(rec: MetricRecord) -> float:
    """The p-value that says whether the record's distance differs from 0: its own test, or, for a classification
    gap over several pairs of groups, the smallest pair p times the number of pairs (Bonferroni: the largest gap's
    own p would be chosen after the fact)."""
    if rec.pair_tests is not None and rec.comparison.groups is None:
        ps = [float(p) for p in rec.pair_tests["p_value"] if not math.isnan(float(p))]  # the record's own metric
        return min(1.0, min(ps) * len(ps)) if ps else math.nan
    if rec.test is not None:
        return float(rec.test.p_value)
    return math.nan


def signed_follows_test(rec: MetricRecord, p: float) -> None:
    """The record's signed interval after its test (interval18). The test does not reject: joined with 0. It
    rejects: the interval of the variation the sample shows (``sampled``, without review11's join with the
    unseen-units bound, which a test on the same units does not make either), the joined one kept as ``unseen`` for
    the sentence to quote beside it; and where even that holds 0 (the test reads whole distributions or counts, the
    interval one difference of means) a remark says so: no sentence shows "holds 0" beside "rejects" unexplained."""
    from evenhand.stats import joined_with_zero_unless_rejected

    signed = rec.signed
    assert signed is not None and signed.interval is not None
    alpha = round(1.0 - signed.interval.level, 12)
    rejects = not math.isnan(p) and p < alpha
    if not rejects:
        signed.interval = joined_with_zero_unless_rejected(signed.interval, p)
        return
    if signed.sampled is not None and signed.unseen is None:  # once: a second pass keeps the joined one it kept
        signed.unseen, signed.interval = signed.interval, signed.sampled
        rec.notes.append(
            f"signed interval shown without its join with the unseen-units bound, as the test (p = {p:.3g}) reads "
            f"the same units; joined: [{signed.unseen.low:.4g}, {signed.unseen.high:.4g}]"
        )
    if signed.interval.low <= 0.0 <= signed.interval.high:
        name, unit = rec.spec.name, signed.interval.unit or "unit"
        signed.remark = (f"this interval holds 0 although {name}'s test rejects: the test permutes the groups and "
                         f"reads {name}, this interval resamples the {unit}s and reads the difference in "
                         f"{signed.measure}, so the direction is less certain than the test")  # fmt: skip


def make_intervals_test_consistent(records: Sequence[MetricRecord]) -> None:
    """Join each distance record's interval with 0 where its test does not reject (a note says so)."""
    from evenhand.stats import joined_with_zero_unless_rejected

    for rec in records:
        if not kind_of(rec.spec).distance:  # the kind of evidence says whether its value is a distance from 0
            continue
        p = record_p_value(rec)
        # the signed difference behind the distance (group A minus group B) follows the same rule, so that the two
        # intervals of a row never disagree about whether there is a difference
        signed = rec.signed
        if signed is not None and signed.interval is not None:
            signed_follows_test(rec, p)
        if rec.interval is None:
            continue
        shown = joined_with_zero_unless_rejected(rec.interval, p)
        if shown is not rec.interval:
            rec.notes.append(
                f"interval joined with 0: its test does not reject at the {rec.interval.level:.0%} level (p = {p:.3g})"
            )
            rec.interval = shown
