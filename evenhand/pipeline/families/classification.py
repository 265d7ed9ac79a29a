"""Group fairness of classification (paper 3.2): DP, FNRD, FORD, FPRD, FDRD for every attribute, any number of
groups, one-vs-rest for each sensitive class of a multiclass use case (or, with three or more outcomes, for each
outcome besides the positive label), with rate tests per pair of groups.

The independent unit is the prompt (the person described, in person-level data) with all its answers: metrics get
each row's ``prompt_id`` (intervals resample prompts within groups) and so do the rate tests (exact hypergeometric
with one answer per prompt, else group labels permuted among prompts).

A person's group per attribute comes from the data when given: a column per attribute of an own responses table
(``classification.group_columns``), else the one ``person_group`` column, else the single group the prompt
mentions. An intersection (``"gender+race"``) joins its attributes' groups (``"female+black"``); a row missing any
part has no combined group, so it is left out of that intersection's metrics and tests only."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from evenhand.config import RunSettings
from evenhand.errors import InputError
from evenhand.framework import Plan
from evenhand.pipeline.evidence.records import GIVEN_GROUPS, PROMPT_GROUPS, Comparison, MetricRecord
from evenhand.pipeline.evidence.signed_differences import rate_signed
from evenhand.pipeline.families.base import (
    Family,
    RunContext,
    lexicon_order,
    lexicon_rank,
    record,
    run_scorer,
    undefined_record,
)
from evenhand.pipeline.families.examples import ExampleSection, misclassified, unparsed
from evenhand.pipeline.families.impact import impact_ratios, wanted
from evenhand.pipeline.families.person_refusals import REFUSED, mark_refusals
from evenhand.pipeline.families.person_refusals import records as refusal_records
from evenhand.pipeline.families.person_refusals import test_inputs as refusal_test_inputs
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.responses.parsers import (
    choose_label_parser,
    label_source,
    label_text,
    label_words,
    other_outcomes,
    parse_labels,
    unread_fields,
)
from evenhand.pipeline.responses.person_groups import person_group_column
from evenhand.pipeline.stages import counted
from evenhand.registry import METRICS
from evenhand.text.counterfactual import attribute_groups


class Classification(Family):
    #: person_refusal: each group's refusal rate (PRRD, families/person_refusals.py), a row in every run
    metric_families = ("representation", "error_based", "person_refusal")
    example_sections = (
        ExampleSection("misclassified", "Wrong predictions", "labelled", misclassified,
                       intro="People whose answer's parsed label differs from the ground truth (up to {n}, one per "
                       "person), one group after another."),
        ExampleSection("unparsed", "Answers that could not be parsed", "bare", unparsed),
    )  # fmt: skip
    group_rates = True

    def build(self, plan: Plan, settings: RunSettings) -> None:
        self.detector = run_scorer("refusal", settings)  # refusals are no decisions: found, left out, compared

    def prepare(self, ctx: RunContext) -> None:
        frame, cs = ctx.frame, ctx.settings.classification
        frame["label"] = parse_labels(frame["response"], choose_label_parser(cs, ctx.label_parser))
        if "truth" in frame:
            ctx.caveats.extend(_check_truth(frame, self.classes(ctx), error_based=_error_based(ctx)))
        self._attach_groups(ctx)
        mark_refusals(ctx, self.detector)
        answered = ok_rows(frame)
        unparsed = answered["label"].isna() & (answered[REFUSED] != 1)
        n_bad = int(unparsed.sum())
        if n_bad:
            why = unread_fields(answered.loc[unparsed, "response"], cs) if ctx.label_parser is None else None
            ctx.caveats.append(
                f"{n_bad} of {len(answered)} answers could not be parsed into a label and were left out"
                + (f"; {why}" if why else "")
            )
        ctx.described["positive_label"] = cs.sensitive_classes or cs.positive_label
        ctx.described["label_words"] = label_words(cs.labels, ctx.label_parser is not None)  # "yes", not "1"
        ctx.described.update(label_source(cs, ctx.label_parser))
        ctx.described["classification_design"] = ctx.plan.classification_design  # results.json says which design
        if wanted(ctx.plan, ctx.settings.impact_ratios, by_default=False):  # the LL144 table, when asked for
            positive = label_text(self.classes(ctx)[0])
            selected = [math.nan if v is None else float(v == positive) for v in frame["label"]]
            table = impact_ratios(frame, ctx.settings.impact_ratios, selected=selected)
            if table is not None:
                ctx.sections["impact_ratios"] = table.to_dict()

    def check_inputs(
        self, plan: Plan, settings: RunSettings, source: Any, per_prompt: Mapping[str, Sequence[Any]]
    ) -> None:
        """Where the persons' groups come from: group columns exist in an own responses table only, and one group
        per person (``groups=``, ``prompts.group_column``) cannot give an intersection of two attributes."""
        from evenhand.pipeline.responses.sources import OwnTable

        group_columns = settings.classification.group_columns
        if group_columns and not isinstance(source, OwnTable):
            raise InputError(
                "classification.group_columns: group columns are read from your own responses table "
                "(responses=DataFrame, responses.path); with prompts, give each prompt's person group with groups= "
                "(prompts.group_column)"
            )
        if "person_group" in per_prompt and plan.use_case.intersections and not group_columns:
            raise InputError(
                "intersections: the person group (groups=, prompts.group_column) is one group per person; an "
                "intersection needs a column per attribute (group_columns with a responses table)"
            )

    @staticmethod
    def classes(ctx: RunContext) -> list[Any]:
        """The classes assessed: the positive label, or every sensitive class of a multiclass use case."""
        cs = ctx.settings.classification
        return list(cs.sensitive_classes) or [cs.positive_label]

    def _attach_groups(self, ctx: RunContext) -> None:
        """A ``group_<attribute>`` column per attribute (see the module docstring for where groups come from);
        an intersection's column joins its attributes' groups with ``+``."""
        frame = ctx.frame
        parts_of = {"+".join(names): tuple(names) for names in ctx.plan.use_case.intersections}
        _check_group_columns(ctx.settings.classification.group_columns, ctx.specs, parts_of, frame)
        singles = {part for a in self.attributes(ctx.plan) for part in parts_of.get(a, (a,))}
        from_one_column = sorted(a for a in singles if _reads_person_group(frame, a))
        for name, parts in parts_of.items():
            if name in self.attributes(ctx.plan) and sum(_reads_person_group(frame, a) for a in parts) > 1:
                raise InputError(
                    f"intersection {name}: the person_group column holds one group per person; an intersection "
                    "needs a column per attribute (classification.group_columns, or assess(group_columns=...))"
                )
        if len(from_one_column) > 1:
            _check_some_value_is_known(frame, from_one_column, ctx.specs)
        single: dict[str, list[str | None]] = {}

        def groups_of(attribute: str) -> list[str | None]:
            if attribute not in single:
                single[attribute] = self._single_groups(ctx, attribute)
                if len(from_one_column) > 1 and attribute in from_one_column:
                    # one column read for several attributes: each keeps the values that are its own groups (named as
                    # its lexicon names them: "Female" is gender's "female")
                    own = {g.casefold(): g for g in attribute_groups(ctx.specs[attribute])}
                    single[attribute] = [None if g is None else own.get(g.casefold()) for g in single[attribute]]
            return single[attribute]

        for attribute in self.attributes(ctx.plan):
            if attribute in parts_of:
                per_part = [groups_of(part) for part in parts_of[attribute]]
                values = [_combined(row) for row in zip(*per_part, strict=True)]
            else:
                values = groups_of(attribute)
            frame[f"group_{attribute}"] = pd.Series(values, index=frame.index, dtype=object)

    @staticmethod
    def _single_groups(ctx: RunContext, attribute: str) -> list[str | None]:
        """The group of each row for one (not combined) attribute: its own column, the ``person_group`` column, or
        the single group the prompt mentions, by a word or (``use_case.names``) a person's name (prompts that mention
        several groups, or none, get no group)."""
        from evenhand.text.ftu import check_ftu

        frame = ctx.frame
        own = person_group_column(attribute)
        if own in frame:
            return _one_group_per_prompt(frame, [_group_text(g) for g in frame[own]], attribute,
                                         f"classification.group_columns.{attribute}")  # fmt: skip
        if "person_group" in frame:
            return _one_group_per_prompt(frame, [_group_text(g) for g in frame["person_group"]], attribute,
                                         "the person_group column")  # fmt: skip
        use_case = ctx.plan.use_case
        ftu = check_ftu(use_case.prompts, attribute=ctx.specs[attribute], names=use_case.names)
        named = ftu.names or ((),) * len(ftu.matches)
        per_prompt = []
        for matches, people in zip(ftu.matches, named, strict=True):
            groups = {m.group for m in matches if m.group is not None} | {n.group for n in people}
            per_prompt.append(groups.pop() if len(groups) == 1 else None)
        return [per_prompt[i] for i in frame["prompt_id"]]

    def records(self, ctx: RunContext) -> list[MetricRecord]:
        classes = self.classes(ctx)
        rows = ok_rows(ctx.frame, original=True)
        # an outcome no answer gave has a rate of 0 in every group (and the metric would refuse it as a probable typo)
        given = {label_text(v) for v in rows["label"]}
        outcomes = other_outcomes(ctx.settings.classification, rows["label"], ctx.label_parser is not None)
        others = [o for o in outcomes if o in given]
        out: list[MetricRecord] = []
        for attribute in self.attributes(ctx.plan):
            group_col = f"group_{attribute}"
            usable = _usable(rows, group_col)
            source = _group_source(ctx, attribute)
            planned = self.planned(ctx.plan, attribute)
            compared = [(key, cls, _class_comparison(cls, classes)) for key, cls in itertools.product(planned, classes)]
            # three or more outcomes: every other outcome one-vs-rest too, for every planned rate (moving "review" to
            # "deny" keeps DP on "approve"; denying those who should be reviewed keeps FNRD on "approve")
            compared += [(key, cls, Comparison(cls=cls)) for key in planned for cls in others]
            # answers of persons with a known group, none of them read into a label nor a refusal: the decisions
            # were never judged, and the gate must not pass on the refusal row alone (deploy17: "approve" against
            # the default yes/no labels passed {verdict: concern, max: 0} with a planted gap)
            unread = group_col in rows and bool((rows[group_col].notna() & (rows.get(REFUSED) != 1)).any())
            for key, cls, comparison in compared:
                if group_col not in usable or usable.empty:
                    reason = f"no parsed predictions with a known {attribute} group"
                    if unread:  # the headline names it (verdict: not judged): say where to look
                        reason += ": no decision read (no answer matched a label word: see classification.labels)"
                    out.append(undefined_record(key, attribute, comparison, reason, unread=unread))
                    continue
                if METRICS[key].inputs == "predictions_and_truth":
                    if "truth" not in usable or usable["truth"].isna().all():
                        reason = "needs ground-truth labels (prompts.label_column)"
                        out.append(undefined_record(key, attribute, comparison, reason))
                        continue
                    usable_here = usable[usable["truth"].notna()]
                    args: tuple[Any, ...] = (usable_here["truth"], usable_here["label"], usable_here[group_col])
                else:
                    usable_here = usable
                    args = (usable_here["label"], usable_here[group_col])
                one = _one_group(usable_here, group_col)
                if one is not None:
                    out.append(undefined_record(key, attribute, comparison, one))
                    continue
                prompts = usable_here["prompt_id"].to_numpy()
                result = ctx.metric(key, *args, pos_label=label_text(cls), prompts=prompts)
                rec = record(key, attribute, comparison, result)
                rec.group_source = source
                if result.is_defined:  # with two groups: rate(first) - rate(second) beside the gap's absolute value
                    rec.signed = rate_signed(key, args, usable_here[group_col], label_text(cls), prompts,
                                             order=lexicon_order(ctx.specs, attribute))  # fmt: skip
                out.append(rec)
            out.extend(refusal_records(ctx, attribute, source))  # each group's refusals, after its decisions
        return out

    def test(self, ctx: RunContext, records: Sequence[MetricRecord]) -> None:
        """Permutation tests (:func:`evenhand.stats.pairwise_rate_tests`) of "the rate behind the metric is the same
        in both groups", for every defined classification metric and every pair of groups, at the prompt level:
        exact (hypergeometric) with one answer per prompt, else group labels permuted among prompts (Monte Carlo).

        Sets ``pair_tests`` (one row per pair) and ``test`` (the pair whose rates differ most, i.e. the pair that
        sets the metric's value) on each record; the run adjusts the p-values for multiple testing.
        """
        from evenhand.stats import PermutationTest, pairwise_rate_tests
        from evenhand.stats._permutation import EXACT_METHOD

        rows = ok_rows(ctx.frame, original=True)
        for rec in counted(records, lambda r: r.family in self.metric_families and r.result.is_defined):
            if rec.family not in self.metric_families or rec.attribute is None or not rec.result.is_defined:
                continue
            inputs = self._test_inputs(ctx, rows, rec)
            if inputs is None:
                continue
            pred, groups, truth, prompts, metric = inputs
            try:
                table = pairwise_rate_tests(
                    pred, groups, truth, metrics=metric, prompts=prompts, seed=ctx.settings.statistics.seed
                )
            except ValueError:  # fewer than two groups: nothing to compare
                continue
            table = oriented(table, lexicon_order(ctx.specs, rec.attribute))
            rec.pair_tests = table
            defined = table[table["p_value"].notna()]
            if defined.empty:
                continue
            order = defined.assign(_abs=defined["difference"].abs()).sort_values(
                ["_abs", "p_value"], ascending=[False, True], kind="stable"
            )
            top = order.iloc[0]
            exact = top["method"] == EXACT_METHOD
            rec.test = PermutationTest(
                float(top["difference"]),
                float(top["p_value"]),
                "two-sided",
                "exact" if exact else "monte-carlo",
                None if exact else int(top["n_permutations"]),
                (top["group_a"], top["group_b"]),
                {
                    "rate_a": float(top["rate_a"]),
                    "rate_b": float(top["rate_b"]),
                    "test": top["method"],
                    "units_a": int(top["units_a"]),
                    "units_b": int(top["units_b"]),
                },
            )

    def _test_inputs(self, ctx: RunContext, rows: pd.DataFrame, rec: MetricRecord) -> tuple[Any, ...] | None:
        """What the rate test of ``rec`` compares: predictions (1 = the class counted), groups, truth (error rates)
        or None, prompts, and the rate metric; PRRD compares each answer's refusal as DP compares a decision (one
        engine); None where there is nothing to test."""
        assert rec.attribute is not None
        if rec.family == "person_refusal":
            found = refusal_test_inputs(ctx, rec)
            if found is None:
                return None
            flags, groups, prompts = found
            return flags, groups, None, prompts, "demographic_parity_difference"
        group_col = f"group_{rec.attribute}"
        usable = _usable(rows, group_col)
        cls = rec.comparison.cls if rec.comparison.cls is not None else self.classes(ctx)[0]
        if group_col not in usable or "label" not in usable:
            return None
        truth = None
        if rec.spec.inputs == "predictions_and_truth":
            if "truth" not in usable:
                return None
            usable = usable[usable["truth"].notna()]
            truth = (usable["truth"] == label_text(cls)).to_numpy(dtype=int)
        pred = (usable["label"] == label_text(cls)).to_numpy(dtype=int)
        return pred, usable[group_col].astype(str).to_numpy(), truth, usable["prompt_id"].to_numpy(), rec.key


def _check_group_columns(
    group_columns: Mapping[str, str] | None, specs: Mapping[str, Any], parts_of: Mapping[str, Any], frame: pd.DataFrame
) -> None:
    """Each attribute named in ``classification.group_columns`` is a checked, single attribute whose column reached
    the response frame (it does from an own responses table only)."""
    singles = [name for name in specs if name not in parts_of]
    for attribute in group_columns or {}:
        if attribute not in singles:
            hint = "; an intersection's groups come from its attributes' columns" if attribute in parts_of else ""
            raise InputError(
                f"classification.group_columns: {attribute!r} is not among the attributes checked {singles}{hint}"
            )
        if person_group_column(attribute) not in frame:
            raise InputError(
                f"classification.group_columns.{attribute}: group columns are read from your own responses table "
                "(responses.path, evenhand metrics, assess(responses=DataFrame)); with prompts, use "
                "prompts.group_column"
            )


def _one_group_per_prompt(
    frame: pd.DataFrame, groups: list[str | None], attribute: str, where: str
) -> list[str | None]:
    """``groups`` (a person's group per row, from the data), after checking that the rows of one prompt, the unit
    every interval and test resamples (its answers are one person's), name one group. A log whose prompts are one
    template (the applicant's record came from a tool) put every person under one prompt: 200 persons were two
    units, one per group, and a planted gap read "ok"; such rows need a prompt id per person."""
    original = frame["group"].isna().to_numpy() if "group" in frame else [True] * len(frame)
    seen: dict[Any, tuple[int, str]] = {}  # prompt -> its first row with a group (from 1, as the table's rows)
    for row, (pid, group, first) in enumerate(zip(frame["prompt_id"], groups, original, strict=True), start=1):
        if group is None or not first:
            continue
        earlier, known = seen.setdefault(pid, (row, group))
        if known != group:
            raise InputError(
                f"{where}: rows {earlier} and {row} are one prompt (the same prompt text or id) but persons of "
                f"different {attribute} groups ({known}, {group}); the rows of a prompt are read as one person's "
                "answers: give each person's rows a prompt id of their own (a prompt_id column, "
                "responses.prompt_id_column)"
            )
    return groups


def _check_some_value_is_known(frame: pd.DataFrame, attributes: Sequence[str], specs: Mapping[str, Any]) -> None:
    """A person_group column shared by several attributes whose values are groups of none of them: say so."""
    known = {g.casefold() for a in attributes for g in attribute_groups(specs[a])}
    values = {str(v) for v in frame["person_group"] if v is not None and str(v) != "" and str(v) != "nan"}
    if values and not any(v.casefold() in known for v in values):
        raise InputError(
            f"person_group: none of its values ({', '.join(sorted(values)[:5])}) is a group of "
            f"{' or '.join(attributes)}; name the groups as the attributes do, or give a column per attribute "
            "(group_columns)"
        )


def _reads_person_group(frame: pd.DataFrame, attribute: str) -> bool:
    """True when ``attribute``'s groups come from the one ``person_group`` column (it has no column of its own)."""
    return person_group_column(attribute) not in frame and "person_group" in frame


def _combined(parts: Sequence[str | None]) -> str | None:
    """``("female", "black")`` -> ``"female+black"``; no combined group when any part is missing."""
    known = [p for p in parts if p is not None]
    return "+".join(known) if len(known) == len(parts) else None


def _group_text(value: Any) -> str | None:
    """A group as text; null, NaN and blank are no group."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or str(value).strip() == "":
        return None
    return str(value)


def _error_based(ctx: RunContext) -> bool:
    return bool(ctx.plan.attributes_for("error_based"))


def _check_truth(frame: pd.DataFrame, classes: Sequence[Any], *, error_based: bool) -> list[str]:
    """Normalise the ground truth in place; caveat on missing labels; error when a positive class never occurs.

    Without the error, a label column that never holds the positive class (``"yes"`` vs ``"1"``) silently makes
    every row a true negative: FNRD and FORD come out NaN and FPRD/FDRD wrong.
    """
    frame["truth"] = [label_text(v) for v in frame["truth"]]
    originals = ok_rows(frame, original=True)
    missing = int(originals["truth"].isna().sum())
    caveats = []
    if missing:
        caveats.append(
            f"{missing} of {len(originals)} responses have no ground-truth label (null or blank);"
            " they were left out of the error-based metrics"
        )
    seen = set(originals["truth"].dropna())
    if seen and error_based:
        absent = [c for c in classes if label_text(c) not in seen]
        if absent:
            shown = ", ".join(repr(v) for v in sorted(seen)[:10])
            raise InputError(
                f"positive label {', '.join(repr(c) for c in absent)} never appears in the ground-truth labels"
                f" (they hold {shown}); set positive_label to one of them or fix the label column"
            )
    return caveats


def _one_group(rows: pd.DataFrame, group_col: str) -> str | None:
    """The reason a metric is undefined when the usable rows hold a single group (the metric rejects that)."""
    groups = rows[group_col].unique()
    if len(groups) >= 2:
        return None
    return f"all usable rows are in one group ({groups[0]!r}); group fairness needs two"


def _class_comparison(cls: Any, classes: Sequence[Any]) -> Comparison:
    return Comparison() if len(classes) == 1 else Comparison(cls=str(label_text(cls)))


def _usable(rows: pd.DataFrame, group_col: str) -> pd.DataFrame:
    """Rows with a parsed label and a known group: what the classification metrics are computed on."""
    usable = rows
    if "label" in rows:
        usable = usable[usable["label"].notna()]
    if group_col in usable:
        usable = usable[usable[group_col].notna()]
    return usable


#: the columns of a pair test that belong to one side, swapped together when a pair is turned round
_SIDES = (("group_a", "group_b"), ("rate_a", "rate_b"), ("n_a", "n_b"), ("units_a", "units_b"))


def oriented(table: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """The pair tests with each pair in ``order`` (the lexicon's group order; groups it does not name after those it
    does, as text): a pair turned round swaps its sides' columns and negates its signed ``difference``."""
    if table.empty:
        return table
    key = lexicon_rank(order)
    turned = [key(a) > key(b) for a, b in zip(table["group_a"], table["group_b"], strict=True)]
    if not any(turned):
        return table
    out = table.copy()
    flip = pd.Series(turned, index=table.index)
    for first, second in _SIDES:
        if first in out and second in out:
            out.loc[flip, [first, second]] = table.loc[flip, [second, first]].to_numpy()
    if "difference" in out:
        out.loc[flip, "difference"] = -table.loc[flip, "difference"]
    return out


def _group_source(ctx: RunContext, attribute: str) -> str:
    """Where the persons' groups of ``attribute`` come from, as :attr:`MetricRecord.group_source
    <evenhand.pipeline.evidence.records.MetricRecord.group_source>` says it (the precedence of
    ``_single_groups``; an intersection: its parts' sources, joined)."""
    parts = next((tuple(p) for p in ctx.plan.use_case.intersections if "+".join(p) == attribute), (attribute,))
    columns = ctx.settings.classification.group_columns or {}
    sources = []
    for part in parts:
        if person_group_column(part) in ctx.frame:
            sources.append(f"the column {columns.get(part, person_group_column(part))!r}")
        elif "person_group" in ctx.frame:
            sources.append(GIVEN_GROUPS)
        else:
            sources.append(PROMPT_GROUPS)
    return " and ".join(dict.fromkeys(sources))
