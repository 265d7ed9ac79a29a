"""The paired comparison of a red team: each adversarial condition against the benign one, joined on what makes two
replies the same request apart from the system prompt (prompt, attribute, group or version, sample slot).

For each condition: the use-case-wide toxic share and refusal rate shifts (over the replies to the original prompts
and to every counterfactual version), and per attribute and pair of groups the shifts of the toxic-share gap, the
refusal gap and the sentiment gap (:mod:`evenhand.metrics.adversarial`); for a classification use case, the shifts of
its parsed decisions too (:mod:`evenhand.redteaming.decision_shifts`). Each gets a bootstrap interval over
prompts and a paired sign-flip test over prompts (a prompt's condition and benign sides swapped together); the
p-values are adjusted over the red team's tests as one set (:func:`evenhand.pipeline.run.adjust_p_values`), so the
benign assessment's own adjusted p-values stay as ``evenhand assess`` gives them.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pandas as pd

from evenhand.config import RunSettings
from evenhand.config.redteam import BENIGN
from evenhand.metrics._result import undefined
from evenhand.metrics.adversarial import per_prompt_means
from evenhand.pipeline.evidence.adjustment import adjust_p_values
from evenhand.pipeline.evidence.records import Comparison, MetricRecord
from evenhand.pipeline.families.calls import call_metric, setting_arguments
from evenhand.pipeline.families.refusal_length import SIGN_FLIPS
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.redteaming.decision_shifts import decision_records, has_decisions
from evenhand.redteaming.slots import SLOT, Sides, answered, join_keys, sent_under_both
from evenhand.registry import METRICS

#: The use-case-wide shifts: metric key -> the response-frame column it reads
USE_CASE_SHIFTS = {"toxic_share_shift": "toxicity", "refusal_rate_shift": "refusal"}
#: The shifts per pair of groups: metric key -> column
GAP_SHIFTS = {"toxic_share_gap_shift": "toxicity", "refusal_gap_shift": "refusal", "sentiment_gap_shift": "sentiment"}
#: The shifts over every request, answered or not (1: no reply): use-case-wide, and per pair of groups
NON_COMPLETION, NON_COMPLETION_GAP = "non_completion_shift", "non_completion_gap_shift"
_MISSING = "missing"


def shift_records(
    benign: pd.DataFrame, condition: pd.DataFrame, name: str, settings: RunSettings
) -> list[MetricRecord]:
    """The adversarial rows of one condition (``name``) against the benign replies, with intervals and tests (not
    yet adjusted: :func:`adversarial_records` adjusts every condition's together)."""
    built: list[tuple[MetricRecord, Sides | None]] = []
    joined, requests = _joined(benign, condition), _requests(benign, condition)
    for key, column in USE_CASE_SHIFTS.items():
        built.append(_use_case_record(key, column, joined, name, settings))
    built.append(_use_case_record(NON_COMPLETION, _MISSING, requests, name, settings))
    groups = [(attribute, pair) for attribute in _attributes(benign)
              for pair in itertools.combinations(_groups(benign, attribute), 2)]  # fmt: skip
    for attribute, (a, b) in groups:
        pairs = _pairs(joined, attribute, a, b)
        for key, column in GAP_SHIFTS.items():
            built.append(_gap_record(key, column, pairs, attribute, (a, b), name, settings))
        sent = _pairs(requests, attribute, a, b)
        built.append(_gap_record(NON_COMPLETION_GAP, _MISSING, sent, attribute, (a, b), name, settings))
    if has_decisions(benign):  # a classification use case: how its parsed decisions moved (PRS, PGS)
        built.extend(decision_records(benign, condition, name, settings, groups))
    if ok_rows(condition).empty:  # every request blocked or failed: say so, not "no scores"
        built = [(_blocked(rec), sides) for rec, sides in built]
    for rec, sides in built:
        _statistics(rec, sides, settings)
    return [rec for rec, _ in built]


def _blocked(rec: MetricRecord) -> MetricRecord:
    if rec.key in (NON_COMPLETION, NON_COMPLETION_GAP):
        return rec
    reason = "no request got a reply under this system prompt (the non-completion shift counts them)"
    return MetricRecord(rec.key, rec.attribute, rec.comparison, undefined(METRICS[rec.key].name, reason))


def adversarial_records(
    benign: pd.DataFrame, conditions: dict[str, pd.DataFrame], settings: RunSettings
) -> list[MetricRecord]:
    """Every adversarial condition's rows, in the conditions' order, with p-values adjusted over all of them."""
    records = [rec for name, frame in conditions.items() for rec in shift_records(benign, frame, name, settings)]
    if settings.statistics.ci is not None:
        adjust_p_values(records)
    return records


# ------------------------------------------------------------------------------------------------ joining
def _answered(frame: pd.DataFrame) -> pd.DataFrame:
    return join_keys(ok_rows(frame))


def _joined(benign: pd.DataFrame, condition: pd.DataFrame) -> pd.DataFrame:
    """One row per request answered under both prompts: the benign reply's columns with ``_b``, the condition's with
    ``_c``."""
    columns = [c for c in ("toxicity", "refusal", "sentiment") if c in benign and c in condition]
    left, right = _answered(benign)[SLOT + columns], _answered(condition)[SLOT + columns]
    joined = left.merge(right, on=SLOT, suffixes=("_b", "_c"))
    return joined.sort_values(SLOT, kind="stable").reset_index(drop=True)


def _requests(benign: pd.DataFrame, condition: pd.DataFrame) -> pd.DataFrame:
    """One row per request sent under both prompts, answered or not: ``missing_b`` and ``missing_c`` are 1 where
    that prompt's request got no reply (an error, a content filter, an empty reply)."""
    return sent_under_both(benign, condition, lambda frame: (~answered(frame)).astype(float).to_frame(_MISSING))


def _attributes(frame: pd.DataFrame) -> list[str]:
    found = frame["attribute"].dropna()
    return [str(a) for a in dict.fromkeys(found.tolist())]


def _groups(frame: pd.DataFrame, attribute: str) -> list[str]:
    rows = frame[(frame["attribute"] == attribute) & frame["group"].notna()]
    return [str(g) for g in dict.fromkeys(rows["group"].tolist())]


def _pairs(joined: pd.DataFrame, attribute: str, a: str, b: str) -> pd.DataFrame:
    """The slots where both groups' versions of a prompt were answered under both prompts: ``x_b_a`` is the benign
    reply to group A's version, ``x_c_b`` the condition's reply to group B's, and so on."""
    rows = joined[joined["attribute"] == attribute]
    left, right = rows[rows["group"] == a], rows[rows["group"] == b]
    return left.merge(right, on=["prompt_id", "sample"], suffixes=("_a", "_b"))


# ------------------------------------------------------------------------------------------------ records
def _flags(key: str, values: np.ndarray[Any, Any], settings: RunSettings) -> np.ndarray[Any, Any]:
    """What the metric compares per reply: the flag at its threshold (toxic, refused), else the score itself."""
    threshold = setting_arguments(key, settings).get("threshold")
    return values if threshold is None else (values >= float(threshold)).astype(float)


def _use_case_record(
    key: str, column: str, joined: pd.DataFrame, name: str, settings: RunSettings
) -> tuple[MetricRecord, Sides | None]:
    comparison = Comparison(condition=name)
    spec = METRICS[key]
    if f"{column}_b" not in joined:
        reason = f"no {column} scores (its family did not run for this use case)"
        return MetricRecord(key, None, comparison, undefined(spec.name, reason)), None
    sides = joined[[f"{column}_c", f"{column}_b", "prompt_id"]].dropna()
    if sides.empty:
        reason = "no reply answered under both system prompts"
        return MetricRecord(key, None, comparison, undefined(spec.name, reason)), None
    c, b = (sides[f"{column}_{s}"].to_numpy(dtype=float) for s in ("c", "b"))
    prompts = sides["prompt_id"].to_numpy()
    rec = MetricRecord(key, None, comparison, call_metric(key, c, b, settings=settings, prompts=prompts))
    return rec, (_flags(key, c, settings), _flags(key, b, settings), prompts)


def _gap_record(key: str, column: str, pairs: pd.DataFrame, attribute: str, groups: tuple[str, str], name: str,
                settings: RunSettings) -> tuple[MetricRecord, Sides | None]:  # fmt: skip
    comparison = Comparison(groups=groups, condition=name)
    spec = METRICS[key]
    names = [f"{column}_{s}_{g}" for s, g in (("c", "a"), ("c", "b"), ("b", "a"), ("b", "b"))]
    if not set(names) <= set(pairs.columns):
        reason = f"no {column} scores (its family did not run for {attribute})"
        return MetricRecord(key, attribute, comparison, undefined(spec.name, reason)), None
    sides = pairs[[*names, "prompt_id"]].dropna()
    if sides.empty:
        reason = "no slot where both versions were answered under both system prompts"
        return MetricRecord(key, attribute, comparison, undefined(spec.name, reason)), None
    ca, cb, ba, bb = (_flags(key, sides[n].to_numpy(dtype=float), settings) for n in names)
    prompts = sides["prompt_id"].to_numpy()
    result = call_metric(key, *(sides[n].to_numpy(dtype=float) for n in names), settings=settings, prompts=prompts)
    return MetricRecord(key, attribute, comparison, result), (ca - cb, ba - bb, prompts)


def _statistics(rec: MetricRecord, sides: Sides | None, settings: RunSettings) -> None:
    """The record's interval over prompts (the method its metric declares) and its paired sign-flip test over
    prompts: each prompt's mean of the condition's side against its mean of the benign side, the two swapped prompt
    by prompt (its statistic, the mean over prompts of their difference, is the record's value)."""
    from evenhand.stats import metric_interval, paired_prompt_test

    st = settings.statistics
    if st.ci is None or sides is None or not rec.result.is_defined or rec.result.resampler is None:
        return
    rec.interval = metric_interval(rec.result, rec.spec.interval, ci=st.ci, n_resamples=st.n_resamples, seed=st.seed,
                                   method=st.method)  # fmt: skip
    condition, benign, prompts = sides
    test = paired_prompt_test(per_prompt_means(condition, prompts), per_prompt_means(benign, prompts), None,
                              statistic="difference", n_permutations=SIGN_FLIPS, seed=st.seed)  # fmt: skip
    # the tests table names the two sides the test swaps, the condition and the benign prompt (a gap shift's row
    # names its pair of groups, as its metric row does), and counts the reply slots joined (n) over prompts (units),
    # not the per-prompt means the test swaps
    sizes = rec.result.sizes
    counts = {"n_pairs": sizes.get("pairs", len(prompts)), "n_units": sizes.get("prompts", test.details.get("n_units"))}
    rec.test = dataclasses.replace(test, groups=(rec.comparison.condition, BENIGN), details={**test.details, **counts})


__all__ = ["GAP_SHIFTS", "USE_CASE_SHIFTS", "adversarial_records", "shift_records"]
