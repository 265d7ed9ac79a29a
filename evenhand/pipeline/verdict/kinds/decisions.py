"""Counterfactual decisions of a classification use case: CPRD (who gets the positive decision more), judged by its
paired prompt-level test, and DFR (how often decisions flip between the two versions), reported beside it: its flips
include sampling, so the paired test of CPRD judges the difference."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from evenhand._json import float_or_none
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.parsers import label_text
from evenhand.pipeline.verdict.evidence import (
    Evidence,
    by_p_and_interval,
    note_few_units,
    settle_against_floor,
    swap_test_note,
)
from evenhand.pipeline.verdict.kinds.base import EvidenceKind, RunFacts, StoredRun
from evenhand.pipeline.verdict.kinds.pair_reading import PairReading
from evenhand.pipeline.verdict.kinds.sentiment import BY_P_VALUE
from evenhand.pipeline.verdict.kinds.stored import by_key, pair_keys, stored_pairs
from evenhand.pipeline.verdict.kinds.wording import adjusted_p, interval, over
from evenhand.pipeline.verdict.qualifiers import IntervalHoldsZero
from evenhand.pipeline.verdict.severity import ALPHA, SUGGESTIVE
from evenhand.registry import MetricSpec


def decision_class(run: StoredRun, row: Mapping[str, Any]) -> str | None:
    """The decision a counterfactual-decisions row counts: its class (a multiclass use case's sensitive class),
    else the run's positive label (a one-item list when a single sensitive class was configured)."""
    cls = row.get("class")
    if cls is None:
        cls = run.settings.get("positive_label")
        if isinstance(cls, (list, tuple)):
            cls = cls[0] if len(cls) == 1 else None
    return label_text(cls)


class Decisions(EvidenceKind):
    """CPRD: judged by its paired prompt-level test (reported only without one)."""

    name = "decisions"
    rules: ClassVar[tuple[str, ...]] = (BY_P_VALUE, IntervalHoldsZero.rule)
    example_columns = ("label",)
    #: the metric's own value is the share of flipped decisions (DFR)
    counts_flips = False

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        """The sentence names who gets the positive decision more and how often decisions flip."""
        spec = rec.spec
        a, b = rec.groups or ("?", "?")
        d = rec.result.details
        ra, rb = float_or_none(d.get("rate_a")), float_or_none(d.get("rate_b"))
        flips = float_or_none(d.get("flip_rate", e.value if self.counts_flips else None))
        label = d.get("positive_label")
        word = d.get("positive_word")  # the model's own word for it ("yes"; classification.labels), when known
        favourable = d.get("favourable", True)  # False: a sensitive class ("deny"), maybe the unfavourable one
        if label is None:
            gets = "gets the positive decision"
        elif word:
            gets = f"gets {word!r}"
        else:
            gets = f"gets the positive decision ({label!r})" if favourable else f"gets {label!r}"
        if ra is None or rb is None:
            e.claim = f"decisions for the {a} and {b} versions cannot be compared: {spec.name} {interval(e)}"
            return
        flipped = f"; {flips:.0%} of decisions flip" if flips is not None else ""
        more, less = ((a, ra), (b, rb)) if ra >= rb else ((b, rb), (a, ra))
        rates = f"the {more[0]} version {gets} {more[1]:.0%} of the time, the {less[0]} version {less[1]:.0%}"
        evidence = f"{spec.name} {interval(e)}{over(rec, spec)}"
        if self.counts_flips or rec.test is None:
            e.claim = f"{rates}{flipped}: {evidence} (reported; the paired test of CPRD judges the difference)"
            return
        e.severity = by_p_and_interval(e, interval_covers=spec.interval_covers)
        evidence += f", {adjusted_p(e.p_adjusted)} (paired, prompt level)"
        if e.severity == "ok":
            e.claim = f"no clear difference in decisions between the {a} and {b} versions: {rates}{flipped}: {evidence}"
        else:
            verb = "is" if e.severity == "concern" else "may be"
            how = "favoured in decisions" if favourable or label is None else f"given {word or label!r} more often"
            e.claim = f"the {more[0]} version {verb} {how}: {rates}{flipped}: {evidence}"
            note_few_units(e)

    def read_pairs(
        self, spec: MetricSpec, attribute: str, groups: tuple[str, str], pairs: pd.DataFrame, facts: RunFacts
    ) -> PairReading | None:
        """Pairs of the finding's kind: flipped, the version of the group that gets the positive decision more often
        (the finding's direction) getting it and the other not; their strength, the share of such flips among their
        prompt's pairs (so the typical flip comes from a prompt that flips as often as the median prompt does)."""
        positive = label_text(facts.positive_label)
        if positive is None:
            return None
        a, b = groups
        labels = {side: [label_text(v) for v in pairs[f"label_{side}"]] for side in ("a", "b")}
        parsed = np.array([x is not None and y is not None for x, y in zip(labels["a"], labels["b"], strict=True)])
        if not parsed.any():
            return None
        da, db = (np.array([v == positive for v in labels[side]], dtype=float) for side in ("a", "b"))
        direction = 1.0 if da[parsed].sum() >= db[parsed].sum() else -1.0
        flipped = parsed & (direction * (da - db) > 0)
        prompt = pd.factorize(pairs["prompt_id"].astype(str))[0]
        share = pd.Series(flipped.astype(float)).groupby(prompt).transform("mean")
        strength = np.where(parsed, share.to_numpy(dtype=float), np.nan)
        favoured, other = (a, b) if direction > 0 else (b, a)
        said = facts.label_words.get(positive, positive)

        def notes(i: int) -> dict[str, str]:
            return {f"note_{side}": facts.label_words.get(str(labels[side][i]), str(labels[side][i]))
                    for side in ("a", "b")}  # fmt: skip

        return PairReading("decision", "decision", da - db, strength, flipped,
                           what=f"pairs whose {favoured} version gets {said!r} and whose {other} version does not",
                           extras=notes, ranked_by="prompt's share of such flips")  # fmt: skip

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """The pairs the run compared (both versions' answers parsed into a label, as the decisions family keeps
        them), each side 1 where its label is the row's positive decision, else 0."""
        assert run.responses is not None
        attribute, groups = row.get("attribute"), row.get("groups")
        if not attribute or not groups or len(groups) != 2:
            return f"{row.get('metric')} has no pair of groups in this row"
        if "label" not in run.responses:  # results written before the parsed labels were kept
            return f"run {run.label}'s responses have no label column (the parsed decisions)"
        positive = decision_class(run, row)
        if positive is None:
            return f"run {run.label} does not record its positive label"
        found = stored_pairs(run, row, spec)
        if isinstance(found, str):
            return found
        labels = {side: [label_text(v) for v in found[f"label_{side}"]] for side in ("a", "b")}
        parsed = [a is not None and b is not None for a, b in zip(labels["a"], labels["b"], strict=True)]
        table = pd.DataFrame({"prompt_id": found["prompt_id"]})
        for side in ("a", "b"):
            table[side] = [int(v == positive) for v in labels[side]]
        table["_key"] = pair_keys(found)
        return by_key(table[parsed])

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        """0/1 decisions of both versions, resampled by prompt as the run does."""
        a, b = (table[c].to_numpy(dtype=float) for c in ("a", "b"))
        return call_metric(spec.key, a, b, prompts=table["prompt_id"].to_numpy())


class DecisionFlips(Decisions):
    """DFR, judged against its same-version floor (issue 33): decisions flip between two answers to one version
    too when the model samples at a temperature, so DFR is a concern only when the versions' answers flip clearly
    more often than that; without a floor (one answer per version) it is reported beside CPRD."""

    name = "decision_flips"
    counts_flips = True
    # its floor rule (issue 33) is listed only where DFR is judged: the other runs' files stay as they were
    always_listed = False
    rules = (
        f"decision flips (DFR): the floor is how often two answers to the same version disagree (the larger of the "
        f"two groups' own rates); concern when the gap between DFR and that floor has an interval above 0 and the "
        f"floor's swap test (swapping the two groups' answers of a pair) has an adjusted p below {ALPHA}; watch when "
        f"that adjusted p is below {SUGGESTIVE}; without a floor (one answer per version) DFR is reported beside CPRD",
    )

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        if rec.noise is None or e.gap is None or e.gap_low is None or e.noise_floor is None:
            super().judge(rec, e, facts)
            return
        a, b = rec.groups or ("?", "?")
        spec = rec.spec
        swap = swap_test_note(e)
        # the floor is agreement (1 = the same decision): said as the flip rate it leaves, 1 minus the floor
        floor = 1 - e.noise_floor
        evidence = (
            f"{spec.name} {interval(e)}{over(rec, spec)} vs same-version flip rate {floor:.3g} "
            f"(gap {e.gap:.3g} [{e.gap_low:.3g}, {e.gap_high:.3g}]{swap})"
        )
        settle_against_floor(
            e,
            concern=(
                f"decisions flip between the {a} and {b} versions of a case more often than between two answers to "
                f"the same version: {evidence}"
            ),
            watch=(
                f"decisions may flip between the {a} and {b} versions more often than between two answers to the "
                f"same version, not established yet (more prompts would tell): {evidence}"
            ),
            ok=(
                f"decisions flip between the {a} and {b} versions about as often as between two answers to the same "
                f"version: {evidence}"
            ),
        )


class CounterfactualErrors(EvidenceKind):
    """CFNRD, CFPRD (left10b): an error rate of the A versions against the B versions of the same cases, judged by
    its paired prompt-level sign-flip test as CPRD is, worded as the classification family words an error rate:
    ``the false negative rate of 'approve' is 40% for the female version against 10% for the male version (of the
    30 pairs whose true outcome is 'approve'): ...``. Its rows exist where the responses carry the true outcome, so
    its rule is listed only by the runs that have them."""

    name = "counterfactual_errors"
    always_listed = False
    rules = (
        f"counterfactual error rates (CFNRD, CFPRD: the false negative or positive rate of two groups' versions of the "
        f"same cases, with their true outcome): concern when the paired sign-flip test over prompts has an adjusted p "
        f"below {ALPHA}; watch below {SUGGESTIVE}",
        IntervalHoldsZero.rule,
    )

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        spec = rec.spec
        a, b = rec.groups or ("?", "?")
        d = rec.result.details
        ra, rb = float_or_none(d.get("rate_a")), float_or_none(d.get("rate_b"))
        counted = d.get("positive_word") or d.get("positive_label")
        rate = f"{spec.rate} of {counted!r}" if counted else str(spec.rate)
        cases = d.get("cases")
        truth = "is" if spec.harm == "false negatives" else "is not"
        of = f" (of the {cases} pairs whose true outcome {truth} {counted!r})" if cases and counted else ""
        evidence = f"{spec.name} {interval(e)}{over(rec, spec)}"
        if ra is None or rb is None:
            e.claim = f"the {rate} of the {a} and {b} versions cannot be compared: {evidence}"
            return
        rates = f"{ra:.0%} for the {a} version against {rb:.0%} for the {b} version{of}"
        if rec.test is None:
            why = "neither version made this error" if ra == rb == 0 else "reported"
            e.claim = f"the {rate} is {rates}: {evidence}, untested: {why}"
            return
        e.severity = by_p_and_interval(e, interval_covers=spec.interval_covers)
        evidence += f", {adjusted_p(e.p_adjusted)} (paired, prompt level)"
        said = {"concern": f"the {rate} differs between the {a} and {b} versions",
                "watch": f"the {rate} may differ between the {a} and {b} versions",
                "ok": f"no clear difference in the {rate} between the {a} and {b} versions"}[e.severity]  # fmt: skip
        e.claim = f"{said}: {rates}: {evidence}"
        if e.severity != "ok":
            note_few_units(e)


KIND = Decisions()
FLIPS = DecisionFlips()
ERRORS = CounterfactualErrors()
