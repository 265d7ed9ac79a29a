"""Counterfactual decisions (classification, paired design): the decision flip rate (DFR) and the signed
difference in positive rate (CPRD) between the counterfactual versions of each prompt, per pair of groups.

The same case is asked once per group with only the group words changed (generated with the run's generation
settings, as for text and recommendations; or read from an own responses table whose prompt ids link the
versions), and each answer is parsed into a label as the classification family does. A pair is one (prompt,
sample); 1 means the positive decision. The test is paired and at the prompt level: a sign-flip permutation of the
per-prompt differences (one random swap of the two versions per prompt, for all its samples), in the run's
Benjamini-Hochberg family. Person-level rates (DP and the error-based metrics) stay for data with group labels.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import ALL, Comparison, MetricRecord
from evenhand.pipeline.families.base import Family, Needs, RunContext, record, undefined_record
from evenhand.pipeline.responses.parsers import (
    choose_label_parser,
    label_source,
    label_text,
    label_words,
    other_outcomes,
    parse_labels,
)
from evenhand.pipeline.stages import counted
from evenhand.registry import INTERVENTION_HARM, METRICS

UNREAD = "no counterfactual pair where both answers parse into a label"


class CounterfactualDecisions(Family):
    #: counterfactual_errors: the error rates of the versions, where the responses carry the true outcome (left10b)
    metric_families = ("counterfactual_decisions", "counterfactual_errors")
    pair_value_chart = (
        "Counterfactual decisions ({attribute})",
        "Decision flip rate (share of the same cases whose decision changes with the group words alone) and the "
        "signed difference in positive rate (the first group minus the second) per pair of groups.",
    )

    @property
    def name(self) -> str:
        return "counterfactual decisions"

    def needs(self, plan: Plan) -> Needs:
        return Needs(counterfactual=self.attributes(plan))

    def prepare(self, ctx: RunContext) -> None:
        frame, cs = ctx.frame, ctx.settings.classification
        if "label" not in frame:  # the classification family parses them when it runs too: the same parser
            frame["label"] = parse_labels(frame["response"], choose_label_parser(cs, ctx.label_parser))
        ctx.described["positive_label"] = cs.sensitive_classes or cs.positive_label
        ctx.described["label_words"] = label_words(cs.labels, ctx.label_parser is not None)  # "yes", not "1"
        ctx.described.update(label_source(cs, ctx.label_parser))
        ctx.described["classification_design"] = ctx.plan.classification_design

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        """DFR and CPRD for every pair of groups (and every sensitive class of a multiclass use case); pairs where
        either answer could not be parsed are left out, with a note. With three or more outcomes and one positive
        label, CPRD is also computed for every other outcome, so that a model that moves one group's answers from
        "review" to "deny" at the same approval rate is found, and the finding names the outcome that moved."""
        classes = _classes(ctx)
        others = other_outcomes(ctx.settings.classification, ctx.frame["label"], ctx.label_parser is not None)
        out: list[MetricRecord] = []
        for attribute in self.attributes(ctx.plan):
            keys = self.planned(ctx.plan, attribute)
            pairs = ctx.pairs(attribute)
            if not pairs:
                reason = "fewer than two groups have counterfactual answers"
                out.extend(undefined_record(key, attribute, ALL, reason, unread=True) for key in keys)
            for (a, b, found), cls, key in itertools.product(pairs, classes, keys):
                comparison = Comparison(groups=(str(a), str(b)), cls=None if len(classes) == 1 else label_text(cls))
                # a sensitive class ("deny") is the decision counted, not necessarily a favourable one: only the
                # configured positive label lets the sentence say who is favoured
                favourable = not ctx.settings.classification.sensitive_classes
                out.append(self._record(ctx, key, attribute, comparison, found, cls, favourable=favourable))
            rates = [k for k in keys if k == "counterfactual_positive_rate_difference"]
            for (a, b, found), cls, key in itertools.product(pairs, others, rates):
                comparison = Comparison(groups=(str(a), str(b)), cls=label_text(cls))
                out.append(self._record(ctx, key, attribute, comparison, found, cls, favourable=False))
            out.extend(self._error_records(ctx, attribute, pairs, classes, others))
        return out

    def _error_records(
        self, ctx: RunContext, attribute: str, pairs: Sequence[tuple[str, str, pd.DataFrame]],
        classes: Sequence[object], others: Sequence[object],
    ) -> list[MetricRecord]:  # fmt: skip
        """The error-based view of the paired design (left10b), where the responses carry each case's true outcome
        (``labels=``, ``prompts.label_column``, a responses table's label column): the error rates the plan's
        intervention makes the harm (both without one), CFNRD and CFPRD, of the positive decision (or each sensitive
        class) and, with three or more outcomes, of every other outcome, per pair of groups. The false omission and
        discovery rates are left out: they condition on the decision, which is what differs between the versions,
        so they would compare different cases."""
        if "truth" not in ctx.frame or ctx.frame["truth"].isna().all():
            return []
        harm = INTERVENTION_HARM.get(ctx.plan.use_case.intervention) if ctx.plan.use_case.intervention else None
        keys = [k for k, s in METRICS.items() if s.family == "counterfactual_errors" and harm in (None, s.harm)]
        out: list[MetricRecord] = []
        with_truth = [((a, b), _with_truth(_parsed(found))) for a, b, found in pairs]  # once per pair of groups
        for ((a, b), parsed), cls, key in itertools.product(with_truth, [*classes, *others], keys):
            own = len(classes) > 1 or cls not in classes  # a sensitive class or another outcome: named in the row
            comparison = Comparison(groups=(str(a), str(b)), cls=label_text(cls) if own else None)
            if parsed.empty:
                reason = "no counterfactual pair where both answers parse into a label and the true outcome is known"
                out.append(undefined_record(key, attribute, comparison, reason))
                continue
            first, second = _decisions(parsed, cls)
            result = ctx.metric(key, _truth(parsed, cls), first, second, prompts=parsed["prompt_id"].to_numpy())
            word = ctx.described.get("label_words", {}).get(str(label_text(cls)))
            details = {**result.details, "positive_label": str(label_text(cls)), "positive_word": word}
            out.append(record(key, attribute, comparison, replace(result, details=details)))
        return out

    def _record(
        self, ctx: RunContext, key: str, attribute: str, comparison: Comparison, found: pd.DataFrame, cls: object,
        *, favourable: bool,
    ) -> MetricRecord:  # fmt: skip
        """One row: ``key`` on the pairs ``found`` of one pair of groups, the decision counted being ``cls``."""
        a, b = comparison.groups or ("", "")
        parsed = _parsed(found)
        if parsed.empty:
            return undefined_record(key, attribute, comparison, UNREAD, unread=True)
        first, second = _decisions(parsed, cls)
        result = ctx.metric(key, first, second, prompts=parsed["prompt_id"].to_numpy())
        # the verdict's sentence names the decision ("the male version gets 'approve' 56% of the time")
        # answers that parse into no label, per side: a model that dodges one group's version is a signal
        unparsed = {side: int(_unparsed(found, side)) for side in ("a", "b")}
        # the model's own word for that decision ("yes"), from classification.labels (issue 37)
        word = ctx.described.get("label_words", {}).get(str(label_text(cls)))
        details = {**result.details, "positive_label": str(label_text(cls)), "positive_word": word,
                   "favourable": favourable, "unparsed_a": unparsed["a"], "unparsed_b": unparsed["b"]}  # fmt: skip
        rec = record(key, attribute, comparison, replace(result, details=details))
        if len(parsed) < len(found):
            rec.notes.append(
                f"{len(found) - len(parsed)} pair(s) with an unparsed answer left out: {unparsed['a']} of "
                f"the {a} versions' answers and {unparsed['b']} of the {b} versions' did not parse into a "
                f"label (of {len(found)} pairs)"
            )
        return rec

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """A prompt-level sign-flip permutation test of "the positive rate is the same for both versions" on CPRD
        (:func:`evenhand.stats.counterfactual_sentiment_test` with the mean statistic on 0/1 decisions: one swap
        per prompt for all its samples; exact when it can enumerate every swap). DFR is reported beside it: samples
        drawn at a temperature flip decisions even between two answers to the same prompt, so its size is read
        with the test of CPRD, not on its own."""
        from evenhand.stats import counterfactual_sentiment_test

        st = ctx.settings.statistics
        tested = [r for r in records if r.key == "counterfactual_positive_rate_difference" and r.result.is_defined]
        errors = [r for r in records if r.family == "counterfactual_errors" and r.result.is_defined]
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            if rec in errors:
                self._error_test(ctx, rec)
                continue
            if rec not in tested:
                if rec.spec.judge == "decision_flips":
                    self._flip_floor(ctx, rec)
                continue
            found = ctx.pairs_for(rec)
            if found is None:
                continue
            parsed = _parsed(found)
            cls = rec.comparison.cls if rec.comparison.cls is not None else _classes(ctx)[0]
            first, second = _decisions(parsed, cls)
            test = counterfactual_sentiment_test(
                first, second, statistic="mean", seed=st.seed, prompts=parsed["prompt_id"].to_numpy()
            )
            details = {**test.details, "test": "prompt-level sign-flip permutation (paired)"}
            rec.test = replace(test, groups=rec.groups or ("a", "b"), details=details)

    def _error_test(self, ctx: RunContext, rec: MetricRecord) -> None:
        """CFNRD, CFPRD: the paired prompt-level sign-flip test of CPRD on the cases in the rate's denominator (true
        outcome the counted class for CFNRD, another for CFPRD), each side 1 where its version's answer is an error."""
        from evenhand.stats import counterfactual_sentiment_test

        found = ctx.pairs_for(rec)
        if found is None:
            return
        parsed = _with_truth(_parsed(found))
        cls = rec.comparison.cls if rec.comparison.cls is not None else _classes(ctx)[0]
        truth = np.asarray(_truth(parsed, cls), dtype=bool)
        cases = truth if rec.spec.harm == "false negatives" else ~truth
        first, second = (np.asarray(d, dtype=float)[cases] for d in _decisions(parsed, cls))
        if rec.spec.harm == "false negatives":  # an error is a miss: the counted class not given
            first, second = 1.0 - first, 1.0 - second
        if not (first.any() or second.any()):
            return  # no error on either side: the test could only give p = 1 and dilute the others
        test = counterfactual_sentiment_test(first.tolist(), second.tolist(), statistic="mean",
                                             seed=ctx.settings.statistics.seed,
                                             prompts=parsed["prompt_id"].to_numpy()[cases])  # fmt: skip
        details = {**test.details, "test": "prompt-level sign-flip permutation (paired)"}
        rec.test = replace(test, groups=rec.groups or ("a", "b"), details=details)

    def _flip_floor(self, ctx: RunContext, rec: MetricRecord) -> None:
        """The same-version floor of DFR (issue 33): how often two answers to the same version disagree, beside how
        often the two versions' answers do, with the swap test of the gap (the similarity floors' machinery, the
        similarity being agreement: 1 where two decisions are the same). Sampling at a temperature flips decisions
        between two answers to one version too; DFR is judged against that."""
        from evenhand.pipeline.families.counterfactual import SWAP_PERMUTATIONS, SWAP_STOP_AFTER
        from evenhand.stats import noise_floor

        found = ctx.pairs_for(rec)
        if found is None:
            return
        parsed = _parsed(found)
        if parsed.empty or parsed.groupby("prompt_id").size().max() < 2:
            rec.notes.append("no same-version floor: it needs two or more answers per counterfactual version")
            return
        cls = rec.comparison.cls if rec.comparison.cls is not None else _classes(ctx)[0]
        first, second = _decisions(parsed, cls)
        st = ctx.settings.statistics
        rec.noise = noise_floor(
            [str(v) for v in first],
            [str(v) for v in second],
            parsed["prompt_id"].to_numpy(),
            _agreement,
            name=rec.name,
            ci=st.ci or 0.95,
            n_resamples=st.n_resamples,
            seed=st.seed,
            n_permutations=SWAP_PERMUTATIONS,
            stop_after=SWAP_STOP_AFTER,
        )


def _agreement(left: Sequence[str], right: Sequence[str]) -> npt.NDArray[np.float64]:
    """1 where two decisions are the same, else 0 (the similarity behind DFR's floor: 1 minus a flip)."""
    return np.fromiter((float(a == b) for a, b in zip(left, right, strict=True)), dtype=float, count=len(left))


def _classes(ctx: RunContext) -> list[object]:
    """The positive decision, or every sensitive class of a multiclass use case (each compared one-vs-rest)."""
    cs = ctx.settings.classification
    return list(cs.sensitive_classes) or [cs.positive_label]


def _parsed(pairs: pd.DataFrame) -> pd.DataFrame:
    """The counterfactual pairs where both answers parsed into a label."""
    if "label_a" not in pairs:
        return pairs.iloc[0:0]
    return pairs[pairs["label_a"].notna() & pairs["label_b"].notna()]


def _with_truth(parsed: pd.DataFrame) -> pd.DataFrame:
    """The parsed pairs whose case has a known true outcome (the same for both versions: the prompt's)."""
    if "truth_a" not in parsed:
        return parsed.iloc[0:0]
    return parsed[[label_text(v) is not None for v in parsed["truth_a"]]]


def _truth(parsed: pd.DataFrame, cls: object) -> list[int]:
    """1 where each pair's true outcome is the class ``cls``, else 0."""
    wanted = label_text(cls)
    return [int(label_text(v) == wanted) for v in parsed["truth_a"]]


def _unparsed(pairs: pd.DataFrame, side: str) -> int:
    """How many of the pairs' answers on ``side`` ("a" or "b") parsed into no label."""
    column = f"label_{side}"
    return int(pairs[column].isna().sum()) if column in pairs else len(pairs)


def _decisions(parsed: pd.DataFrame, cls: object) -> tuple[list[int], list[int]]:
    """1 where each side's parsed label is the positive class ``cls``, else 0."""
    wanted = label_text(cls)
    return (
        [int(v == wanted) for v in parsed["label_a"]],
        [int(v == wanted) for v in parsed["label_b"]],
    )
