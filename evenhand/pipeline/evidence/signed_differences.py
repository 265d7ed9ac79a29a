"""The signed difference behind a distance metric, group A minus group B, with its own interval (issue 27, item 6).

|DP| and the other classification rate gaps, SCSP and WCSP are distances: their value says how far apart two groups
are, not which group is ahead, and it is above 0 on almost any sample. Beside the value (which stays the paper's,
so every ``value`` threshold and the agreement with LangFair hold) a record of two groups carries the signed
difference whose size the distance measures, with the direction named ("female minus male"):

* a classification rate gap (DP, FNRD, FORD, FPRD, FDRD) over exactly two groups: ``rate(first) − rate(second)``
  (:func:`evenhand.metrics.rate_gap.signed_rate_gap`; with more groups the value is the widest of several gaps,
  chosen after the fact, so there is no one signed difference: every pair's is in the rate tests table);
* SCSP: the mean sentiment score of the replies to the first group's versions minus the second's (the Wasserstein
  distance itself has no sign; it is at least the absolute value of this mean difference);
* WCSP: the share of the first group's replies scored above the threshold minus the second's (LangFair's signed
  WCSP; its absolute value is the metric).

COBS and SA have none: COBS compares each word's co-occurrence with two groups through an absolute log ratio
averaged over words, and SA the distance of the group-mention distribution from uniform; neither is the size of
one group-A-minus-group-B quantity.

The groups are in the order the rate tests and findings name them (sorted as text for a classification gap, the
record's pair for counterfactual sentiment). The signed difference is resampled with the same units as the metric
(prompts with all their pairs; prompts or persons within groups for a classification gap), never single answers, so
its interval is an ordinary bootstrap interval of an unbiased difference and is centred where its null is. After
the tests ran it is joined with 0 unless the record's test rejects, as the distance's own interval is
(:mod:`evenhand.pipeline.verdict.intervals_agree_with_tests`), so the two never disagree.

Where the test rejects, the interval shown is the one of the variation the sample shows (``sampled``: without the
join with "none of the ``k`` units off the value", review11), the one the test agrees with, and the joined one
(``unseen``, which keeps review11's coverage when rare replies went unseen) is quoted beside it as what unseen replies
could add (interval18: "-0.0287 [-0.192, +0.145]" beside "adjusted p = 0.011" read as a contradiction).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from evenhand.metrics._result import MetricResult, paired_mean
from evenhand.pipeline.evidence.records import MetricRecord


@dataclass
class SignedDifference:
    """``first − second`` for a record's pair of groups: what is differenced (``measure``), the result (value and
    resampler, the record's units) and, after the statistics ran, the interval shown (``interval``)."""

    first: str
    second: str
    measure: str
    result: MetricResult
    interval: Any = None  # evenhand.stats.Interval: the shown interval (joined with 0 unless the test rejects)
    bootstrap: Any = None  # evenhand.stats.Interval: the interval before the rule (bootstrap or rate interval)
    # evenhand.stats.Interval: ``bootstrap`` without its join with the unseen-units bound (review11); None where the
    # join changed nothing. Shown instead of it where the test rejects (interval18)
    sampled: Any = None
    unseen: Any = None  # evenhand.stats.Interval: the joined interval, quoted beside the shown one when set
    remark: str = ""  # why the shown interval holds 0 although the test rejects (the two read the sample differently)

    @property
    def value(self) -> float:
        return float(self.result.value)

    @property
    def direction(self) -> str:
        """``"female minus male"``: which group's value is subtracted from which."""
        return f"{self.first} minus {self.second}"


def sentiment_signed(result: MetricResult, scores_a: Any, scores_b: Any, prompts: Any,
                     groups: tuple[str, str]) -> SignedDifference | None:  # fmt: skip
    """The signed difference behind SCSP (mean score) or WCSP (share above its threshold, ``result.params``) of a
    record's counterfactual pairs, resampled by prompt with all its pairs, as the metric is."""
    if not result.is_defined:
        return None
    a = np.asarray(scores_a, dtype=np.float64)
    b = np.asarray(scores_b, dtype=np.float64)
    threshold = result.params.get("threshold")
    if threshold is None:  # SCSP: the mean score
        per_pair, measure = a - b, "mean sentiment score"
    else:  # WCSP: the share above the threshold (the metric's strict ">")
        t = float(threshold)
        per_pair, measure = (a > t).astype(np.float64) - (b > t).astype(np.float64), f"share of sentiment above {t:g}"
    first, second = groups
    identity = {"name": f"{result.name} signed ({first} − {second})", "value_range": (-1.0, 1.0),
                "higher_is_fairer": False}  # fmt: skip
    signed = paired_mean(identity, per_pair, prompts, {"groups": [first, second]}, dict(result.params))
    return SignedDifference(first, second, measure, signed)


def rate_signed(
    key: str, args: tuple[Any, ...], groups: Any, pos_label: Any, prompts: Any, order: Sequence[str] = ()
) -> SignedDifference | None:
    """The signed gap ``rate(first) − rate(second)`` of a classification difference metric over exactly two groups
    (``groups``: each row's group, as the metric got them), in ``order`` (the attribute lexicon's group order, as the
    rate tests and the counterfactual rows name the pair; groups it does not name after those it does, as text);
    None with another number of groups."""
    from evenhand.metrics.rate_gap import signed_rate_gap
    from evenhand.registry import METRICS

    rank = {str(g).casefold(): i for i, g in enumerate(order)}
    present = sorted({str(g) for g in pd.Series(groups).dropna().tolist()},
                     key=lambda g: (rank.get(g.casefold(), len(rank)), g))  # fmt: skip
    spec = METRICS[key]
    if len(present) != 2 or spec.rate is None:
        return None
    first, second = present
    result = signed_rate_gap(key, *args, first=first, second=second, pos_label=pos_label, prompts=prompts)
    if not result.is_defined:
        return None
    return SignedDifference(first, second, spec.rate, result)


def signed_interval(rec: MetricRecord, st: Any) -> None:
    """The interval of the record's signed difference, by the method and with the settings of the metric's own (a
    gap of two group rates: the rate interval of their difference; a difference of means: the bootstrap)."""
    from evenhand.stats import metric_interval

    signed: SignedDifference | None = rec.signed
    if signed is None or signed.result.resampler is None:
        return
    try:
        iv = metric_interval(signed.result, rec.spec.interval, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed,
                             method=st.method)  # fmt: skip
    except ValueError as exc:
        rec.notes.append(f"no signed interval: {exc}")
        return
    if math.isnan(iv.low) or math.isnan(iv.high):
        rec.notes.append(f"no signed interval: {iv.reason or 'too few defined bootstrap replicates'}")
        return
    signed.bootstrap = signed.interval = iv
    sampled = metric_interval(signed.result, rec.spec.interval, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed,
                              method=st.method, unseen_units=False)  # fmt: skip
    if sampled.is_defined and (sampled.low, sampled.high) != (iv.low, iv.high):
        signed.sampled = sampled


def signed_columns(rec: MetricRecord) -> dict[str, Any]:
    """The metrics table's signed columns of a record (NaN and None where it has no signed difference)."""
    signed: SignedDifference | None = rec.signed
    if signed is None:
        return {name: math.nan for name in ("signed_difference", "signed_low", "signed_high")} | {
            "signed_direction": None,
            "signed_measure": None,
        }
    iv = signed.interval
    return {
        "signed_difference": signed.value,
        "signed_low": float(iv.low) if iv is not None else math.nan,
        "signed_high": float(iv.high) if iv is not None else math.nan,
        "signed_direction": signed.direction,
        "signed_measure": signed.measure,
    }


def signed_caveat(signed: SignedDifference | None) -> str:
    """What a sentence adds after the signed interval: the reach of the unseen-units bound where the shown
    interval left it out (``, up to [-0.192, +0.145] allowing for replies none of the 20 prompts showed``) and why
    the shown interval holds 0 where the test rejects; "" when neither applies."""
    if signed is None:
        return ""
    words = ""
    unseen, resampler = signed.unseen, signed.result.resampler
    if unseen is not None and resampler is not None:
        words = (f", up to [{unseen.low:+.3g}, {unseen.high:+.3g}] allowing for replies none of the "
                 f"{resampler.n_units} {resampler.unit}s showed")  # fmt: skip
    return f"{words}; {signed.remark}" if signed.remark else words


def signed_words(signed: SignedDifference | None) -> str:
    """``female minus male, mean sentiment score: +0.09 [+0.03, +0.15]`` for a finding's sentence ("" when none),
    with :func:`signed_caveat`."""
    if signed is None:
        return ""
    iv = signed.interval
    bounds = f" [{iv.low:+.3g}, {iv.high:+.3g}]" if iv is not None else ""
    return f"{signed.direction}, {signed.measure}: {signed.value:+.3g}{bounds}{signed_caveat(signed)}"
