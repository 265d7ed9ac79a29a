"""Matching the metric rows of several runs and judging the difference of each run from the baseline (run 1).

A row is one metric for one attribute and pair of groups (or class); rows present in only some runs are kept and
say so. A difference is **worse** or **improved** only when its p, read off its interval and adjusted across the rows
of the comparison as a run adjusts its own tests (:func:`judge_rows`), is below ``1 - level``, in the direction the
registry gives the metric (``higher_is_fairer``); otherwise there is **no clear change**.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from evenhand.comparison.missing import backfill
from evenhand.comparison.pairing import (
    INDEPENDENT,
    MIN_SHARED_PROMPTS,
    NONE,
    PAIRED,
    Difference,
    SignedGap,
    independent_draws,
    interval_p_value,
    normal_difference,
    paired_draws,
    percentile_interval,
    same_units,
    stored_sizes,
    undefined_difference,
)
from evenhand.comparison.recompute import item_table, recompute, reproduces
from evenhand.comparison.runs import RESPONSE_COLUMNS, Run
from evenhand.comparison.signed import describe, own_signed_pair, recompute_signed, signed_gap, signed_pair
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.adjustment import rests_on_enough
from evenhand.pipeline.evidence.records import independent_units
from evenhand.pipeline.verdict.severity import MIN_UNITS
from evenhand.registry import METRICS
from evenhand.stats import COMPARE_SMALL_UNITS, run_difference_bounds, unmoved

RowKey = tuple[Any, ...]  # key, attribute, groups or comparison, class (and a red team's condition)
#: recomputes a row's metric on an item table: the metric itself, or its signed gap
Measure = Callable[[Run, dict[str, Any], pd.DataFrame], MetricResult]
WORSE, IMPROVED, NO_CLEAR_CHANGE, NOT_COMPARABLE = "worse", "improved", "no clear change", "not comparable"
PAIRINGS = ("auto", "independent")
#: how a row's word is decided (comparison.json ``verdict.rule``, the console and docs/compare.md)
RULE = (
    "a metric row is worse or better when its p, read off its interval, adjusted across the comparison's rows as a "
    "run adjusts its tests (per metric and attribute an omnibus test, Benjamini-Hochberg across them, Holm within), "
    "is below {alpha:g} and it rests on at least {units} prompts; else no clear change"
)
NO_INTERVAL = "; no interval: fewer than half of the bootstrap replicates are defined"


@dataclass
class MetricComparison:
    """One metric row across the runs: each run's stored value and interval, and each run's difference from the
    baseline (``differences[label]``), its judgement (``changes[label]``) and the sentence that says it."""

    key: str
    metric: str
    full_name: str
    attribute: str | None
    groups: tuple[str, ...] | None
    cls: str | None
    comparison: str
    #: None for a signed difference (closer to 0 is fairer), as in results.json
    higher_is_fairer: bool | None
    #: a signed difference whose fairest value is 0 (registry ``signed``): judged by its size
    signed: bool = False
    values: dict[str, float | None] = field(default_factory=dict)
    intervals: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    differences: dict[str, Difference] = field(default_factory=dict)
    changes: dict[str, str] = field(default_factory=dict)
    sentences: dict[str, str] = field(default_factory=dict)
    #: a gap between two groups compared with its sign (evenhand.comparison.signed): the groups, ``first − second``,
    #: and each run's signed gap
    signed_groups: tuple[str, str] | None = None
    signed_values: dict[str, float | None] = field(default_factory=dict)
    #: the signed difference each run stored beside a distance of two groups (results.json ``signed_difference``,
    #: ``signed_low``, ``signed_high``, ``signed_direction``; files written before them lack them): per run label,
    #: (value, low, high), and the direction ("female minus male")
    stored_signed: dict[str, tuple[float | None, float | None, float | None]] = field(default_factory=dict)
    stored_direction: str | None = None
    #: the row's family in the adjustment across rows (metric, attribute, class and a red team's condition), as the
    #: run's own adjustment groups its tests (evenhand.pipeline.evidence.adjustment.test_family)
    family: tuple[Any, ...] = ()
    #: per run label, the metric whose row decides where this one is described beside it (CED beside a CER row that
    #: has a test, ``MetricSpec.described_beside``): its word is never its own (est17b); "" where it is judged
    described_beside: dict[str, str] = field(default_factory=dict)
    #: per run label, the pairs the run's row rests on (its ``n``: "43 pairs"), None where it does not say: CED is
    #: described beside CER only where CER rests on at least half of CED's pairs, in both runs (``rests_on_enough``)
    pairs: dict[str, int | None] = field(default_factory=dict)

    @property
    def scope(self) -> str:
        """``gender CROUGE-L (female vs male)``: what the row is about, in a sentence."""
        where = f"{self.attribute} " if self.attribute else ""
        which = f" ({self.comparison})" if self.comparison and self.comparison != "all" else ""
        return f"{where}{self.metric}{which}"


def row_key(row: dict[str, Any]) -> RowKey:
    groups = row.get("groups")
    key = (
        str(row.get("key") or row["metric"]),
        row.get("attribute"),
        tuple(groups) if groups else row.get("comparison"),
        row.get("class"),
    )
    # a red team's row (evenhand redteam) is also about one adversarial system prompt: rows pair by it too
    return key if row.get("condition") is None else (*key, row.get("condition"))


def compare_rows(
    runs: Sequence[Run], *, level: float, n_resamples: int, seed: int, pairing: str = "auto"
) -> list[MetricComparison]:
    """Every metric row of every run, with each run's difference from ``runs[0]``."""
    rng = np.random.default_rng(seed)
    indexed = [{row_key(r): r for r in run.metric_rows} for run in runs]
    keys = list(dict.fromkeys(k for rows in indexed for k in rows))
    out = []
    base = runs[0]
    for key in keys:
        present = [rows.get(key) for rows in indexed]
        first = next(r for r in present if r is not None)
        # a row an older evenhand made only on a condition (NRD): rebuilt from the run's stored responses, or why not
        notes = [""] * len(present)
        for i, (run, row) in enumerate(zip(runs, present, strict=True)):
            if row is None:
                present[i], notes[i] = backfill(run, first)
        item = _new(first)
        for run, row in zip(runs, present, strict=True):
            item.values[run.label] = None if row is None else row.get("value")
            item.intervals[run.label] = (None, None) if row is None else (row.get("ci_low"), row.get("ci_high"))
            item.pairs[run.label] = stored_sizes(row).get("pairs")
            _read_stored_signed(item, run.label, row)
        for i, (run, row) in enumerate(zip(runs[1:], present[1:], strict=True), start=1):
            diff = _difference(base, run, present[0], row, level, n_resamples, rng, pairing)
            said = "; ".join(n for n in (notes[0], notes[i]) if n)
            if said:
                diff = replace(diff, note=f"{said}; {diff.note}" if diff.note else said)
            item.differences[run.label] = diff
            if diff.signed is not None:
                item.signed_groups = diff.signed.groups
                item.signed_values |= {base.label: diff.signed.baseline, run.label: diff.signed.run}
        spec = METRICS.get(key[0])  # CER and CED test one comparison: one family, as in the run (tested_with)
        item.family = (spec.adjustment_key if spec else key[0], key[1], key[3], *key[4:])
        out.append(item)
    judge_rows(out, [run.label for run in runs], level=level)
    return out


def judge_rows(rows: Sequence[MetricComparison], labels: Sequence[str], *, level: float) -> None:
    """Each row's word for each run after the baseline (``labels[0]``), on its p adjusted across the rows of that
    run's comparison: the raw p is read off the row's interval (:func:`~evenhand.comparison.pairing.interval_p_value`)
    and adjusted by the run's own adjustment (:func:`evenhand.stats.omnibus_then_pairs`: one family per metric,
    attribute and class, an omnibus test per family, Benjamini-Hochberg across the families, Holm within), so that
    "worse" somewhere among a comparison's many rows is as rare as a finding in one fair run. The difference, its
    interval and the raw p are kept as they are.

    A row that could not be worse or better at any p takes no part (as Tarone's rule for tests that cannot reach
    the level; its adjusted p is None): one on fewer than ``MIN_UNITS`` prompts, and one whose interval is exactly
    ``[0, 0]``, or paired runs in which no prompt moved (a run compared with itself, a rate neither run ever showed:
    its interval holds 0 with width, stats18)."""
    from evenhand.stats import omnibus_then_pairs

    for label in labels[1:]:
        present = [row for row in rows if label in row.differences]
        raw = []
        for row in present:
            diff = row.differences[label]
            p = interval_p_value(diff.estimate, diff.low, diff.high, level)
            row.differences[label] = replace(diff, p_value=p)
            raw.append(p if p is not None and _can_decide(diff) else math.nan)
        described = _described(present, raw, (labels[0], label))
        raw = [math.nan if id(row) in described else p for row, p in zip(present, raw, strict=True)]
        families = [row.family or (row.key, row.attribute, row.cls) for row in present]
        adjusted = omnibus_then_pairs(np.asarray(raw, dtype=float), families)
        for row, p_adjusted in zip(present, adjusted, strict=True):
            diff = replace(row.differences[label], p_adjusted=None if math.isnan(p_adjusted) else float(p_adjusted))
            row.differences[label] = diff
            row.described_beside[label] = described.get(id(row), "")
            if id(row) in described:  # CED beside a CER row that has a test: described, never judged (est17b)
                row.changes[label] = NOT_COMPARABLE if diff.estimate is None else NO_CLEAR_CHANGE
            elif row.signed:  # 0 is fairest: judged by how far from 0 each run is
                row.changes[label] = judge_signed(diff, row.values.get(labels[0]), row.values.get(label), level)
            else:
                row.changes[label] = judge(diff, bool(row.higher_is_fairer), level)
            row.sentences[label] = sentence(row, label, labels[0])


def _read_stored_signed(item: MetricComparison, label: str, row: dict[str, Any] | None) -> None:
    """The run's stored signed difference, when its row has one in the row's direction (older files have none)."""
    direction = None if row is None else row.get("signed_direction")
    if row is None or not direction or row.get("signed_difference") is None:
        return
    if item.stored_direction not in (None, direction):  # another order of the groups: not the same quantity
        return
    item.stored_direction = str(direction)
    item.stored_signed[label] = (row.get("signed_difference"), row.get("signed_low"), row.get("signed_high"))


def _new(row: dict[str, Any]) -> MetricComparison:
    key = str(row.get("key") or row["metric"])
    spec = METRICS.get(key)
    groups = row.get("groups")
    signed = bool(spec.signed) if spec else False
    stated = row.get("higher_is_fairer", spec.higher_is_fairer if spec else False)
    return MetricComparison(
        key=key,
        metric=str(row["metric"]),
        full_name=str(row.get("full_name") or (spec.full_name if spec else row["metric"])),
        attribute=row.get("attribute"),
        groups=tuple(groups) if groups else None,
        cls=row.get("class"),
        comparison=str(row.get("comparison") or "all"),
        higher_is_fairer=None if signed else bool(stated),
        signed=signed,
    )


def _difference(
    base: Run,
    run: Run,
    row_a: dict[str, Any] | None,
    row_b: dict[str, Any] | None,
    level: float,
    n_resamples: int,
    rng: np.random.Generator,
    pairing: str,
) -> Difference:
    if row_a is None or row_b is None:
        return Difference(None, None, None, NONE, f"only in run {run.label if row_a is None else base.label}")
    if row_a.get("value") is None or row_b.get("value") is None:
        return undefined_difference(row_a, row_b, (base.label, run.label))
    try:
        table_a, table_b = item_table(base, row_a), item_table(run, row_b)
        if isinstance(table_a, str) or isinstance(table_b, str):
            return normal_difference(row_a, row_b, level, str(table_a if isinstance(table_a, str) else table_b))
        full_a, full_b = recompute(base, row_a, table_a), recompute(run, row_b, table_b)
    except (ValueError, TypeError) as exc:  # stored responses the metric refuses (edited, another version's labels)
        return normal_difference(row_a, row_b, level, f"not recomputable from the stored responses: {exc}")
    for which, result, row in ((base, full_a, row_a), (run, full_b, row_b)):
        if not reproduces(result, row.get("value")):
            why = f"run {which.label}'s responses give {float(result.value):.6g}, not its stored {row.get('value')}"
            return normal_difference(row_a, row_b, level, why)
    pair = signed_pair(row_a.get("key"), full_a, full_b, row_a.get("signed_direction"))
    measure: Measure = recompute
    if pair is not None:  # a gap between two groups: compared with its sign (evenhand.comparison.signed)
        measure = functools.partial(recompute_signed, pair=pair)
        full_a, full_b = measure(base, row_a, table_a), measure(run, row_b, table_b)
    else:
        pair = own_signed_pair(row_a)  # a metric that is itself signed (RRD, RLD): compared by the size of its gap
    if full_a.resampler is None or full_b.resampler is None:
        return normal_difference(row_a, row_b, level, "the metric carries no units to resample")
    if pairing != "independent":
        paired = _paired(
            (base, run), (row_a, row_b), (table_a, table_b), (full_a, full_b), level, n_resamples, rng, measure, pair
        )
        if paired is not None:
            return paired
    draws = independent_draws(full_a, full_b, n_resamples, rng)
    bounds, small = _bounds(full_a, full_b, draws, level, paired=False, interval=_interval(row_a))
    why = "as asked" if pairing == "independent" else "the runs share too few prompts to pair, or differ in their units"
    note = f"independent bootstrap of each run's prompts ({why}){small}"
    estimate = float(full_b.value) - float(full_a.value)
    low, high = bounds or (None, None)
    note += "" if bounds else NO_INTERVAL
    units = [u for u in (independent_units(full_a.sizes), independent_units(full_b.sizes)) if u is not None]
    gap = None if pair is None else signed_gap(pair, full_a, full_b, draws, level)
    return Difference(estimate, low, high, INDEPENDENT, _signed_note(note, gap), min(units) if units else None, gap)


def _bounds(
    res_a: MetricResult,
    res_b: MetricResult,
    draws: tuple[Any, Any],
    level: float,
    *,
    paired: bool,
    interval: str,
    units: int = COMPARE_SMALL_UNITS,
) -> tuple[tuple[float, float] | None, str]:
    """The difference's interval and a note: the rule the runs' own intervals follow (the registry's
    ``MetricSpec.interval``, :func:`evenhand.stats.run_difference_bounds`): a rate's (each run's Clopper-Pearson on
    effective prompts, combined) where events are rare, a continuous metric's small-sample rule on fewer than
    ``units`` units (``COMPARE_SMALL_UNITS``: a percentile bootstrap over a handful of prompts, or of rare events,
    undercovers: a false "worse"; of paired differences it still does at 30 prompts, compare15); else the percentile
    interval of the bootstrap differences."""
    rule = run_difference_bounds(res_a, res_b, interval, paired=paired, ci=level, units=units)
    if rule is not None:
        low, high, method = rule
        return (low, high), f"; interval: {method}"
    return percentile_interval(draws[1] - draws[0], level), ""


def _interval(row: dict[str, Any]) -> str:
    """How the row's metric's own intervals are computed (the registry's ``MetricSpec.interval``)."""
    spec = METRICS.get(str(row.get("key")))
    return spec.interval if spec is not None else "bootstrap"


def _signed_note(note: str, gap: SignedGap | None) -> str:
    if gap is None:
        return note
    first, second = gap.groups
    return f"{note}; signed gap {first} − {second}" + ("" if gap.own else " (the metric is its absolute value)")


def _paired(
    runs: tuple[Run, Run],
    rows: tuple[dict[str, Any], dict[str, Any]],
    tables: tuple[pd.DataFrame, pd.DataFrame],
    full: tuple[MetricResult, MetricResult],
    level: float,
    n_resamples: int,
    rng: np.random.Generator,
    measure: Measure = recompute,
    pair: tuple[str, str] | None = None,
) -> Difference | None:
    """The paired difference on the items both runs hold (same prompt id, prompt text and sample), or None."""
    table_a, table_b = tables
    shared = set(table_a["_key"]) & set(table_b["_key"])
    part_a = table_a[[k in shared for k in table_a["_key"]]]
    part_b = table_b[[k in shared for k in table_b["_key"]]]
    n_prompts = int(part_a["prompt_id"].nunique())
    if n_prompts < MIN_SHARED_PROMPTS:
        return None
    everything = len(part_a) == len(table_a) and len(part_b) == len(table_b)
    if everything:  # the runs hold the same items: the full results are the paired ones (no second recomputation)
        res_a, res_b = full
    else:
        try:
            res_a, res_b = (measure(r, row, part) for r, row, part in zip(runs, rows, (part_a, part_b), strict=True))
        except ValueError:  # the shared part alone is not computable (e.g. a class absent from it): not paired
            return None
    if not same_units(res_a, res_b):  # e.g. a person's group differs between the runs: no common draw
        return None
    draws = paired_draws(res_a, res_b, n_resamples, rng)
    bounds, small = _bounds(res_a, res_b, draws, level, paired=True, interval=_interval(rows[0]))
    still = unmoved(res_a, res_b)
    if still and _same_answers(*runs):  # a run compared with itself: nothing to be uncertain about, exactly [0, 0]
        bounds, small = (0.0, 0.0), "; the same answers in both runs"
    total = max(table_a["prompt_id"].nunique(), table_b["prompt_id"].nunique())
    share = "" if everything else f" of {total} (only the shared ones)"
    note = f"paired by prompt and sample on {n_prompts} prompts{share}{small}"
    estimate = float(res_b.value) - float(res_a.value)
    low, high = bounds or (None, None)
    note += "" if bounds else NO_INTERVAL
    gap = None if pair is None else signed_gap(pair, res_a, res_b, draws, level)
    return Difference(estimate, low, high, PAIRED, _signed_note(note, gap), n_prompts, gap, unmoved=still)


def _same_answers(first: Run, second: Run) -> bool:
    """Whether two runs hold the same answers, row for row (a run compared with itself, or with its own results file):
    then no interval is owed where no prompt moved, where two runs whose answers differ but agree on the metric (both
    never toxic, both never refusing) get the none-off bound of "none of k prompts moved" (stats18). The runs'
    response tables are compared, not the metric's items (a refusal flag of 0 is the same in any two runs without a
    refusal)."""
    a, b = first.responses, second.responses
    if a is None or b is None or len(a) != len(b):
        return False
    columns = [c for c in RESPONSE_COLUMNS if c in a.columns and c in b.columns]
    order = [c for c in ("attribute", "group", "prompt_id", "sample") if c in columns]
    if "response" not in columns:
        return False

    def rows(frame: pd.DataFrame) -> pd.DataFrame:
        table = frame[columns].astype(str)
        return table.sort_values(order, kind="stable").reset_index(drop=True) if order else table

    return bool(rows(a).equals(rows(b)))


def _described(rows: Sequence[MetricComparison], raw: Sequence[float], labels: tuple[str, str]) -> dict[int, str]:
    """The rows described beside another metric's row that has a test (``MetricSpec.described_beside``: CED beside
    CER of the same attribute, groups and class), by ``id``, with the deciding metric's name: as in the run, they take
    no part in the adjustment and get no word of their own. As in the run, only where the deciding row rests on at
    least half of the row's pairs, in each of the two runs (``labels``: the baseline and the run; the one rule,
    :func:`~evenhand.pipeline.evidence.adjustment.rests_on_enough`)."""
    tested = {(row.key, row.attribute, row.groups, row.cls, row.family[3:]): row
              for row, p in zip(rows, raw, strict=True) if not math.isnan(p)}  # fmt: skip
    out = {}
    for row in rows:
        spec = METRICS.get(row.key)
        beside = spec.described_beside if spec else None
        if beside is None:
            continue
        deciding = tested.get((beside, row.attribute, row.groups, row.cls, row.family[3:]))
        if deciding is not None and all(
            rests_on_enough(deciding.pairs.get(label), row.pairs.get(label)) for label in labels
        ):
            out[id(row)] = METRICS[beside].name
    return out


def _can_decide(diff: Difference) -> bool:
    """Whether the row's p could ever give it a word: enough units, some prompt that moved between the runs, and an
    interval that is not exactly [0, 0]."""
    if diff.unmoved or (diff.n_units is not None and diff.n_units < MIN_UNITS):
        return False
    return not (diff.low == 0.0 and diff.high == 0.0)


#: why a row is not comparable, by what its note says (the summary counts each: "7 not comparable (7 undefined in
#: both runs)")
NOT_COMPARABLE_KINDS = (
    ("undefined in both runs", "undefined in both runs"),
    ("undefined in run ", "undefined in one run"),
    ("only in run ", "in one run only"),
)


def not_comparable_kind(diff: Difference) -> str:
    """``undefined in both runs``, ``undefined in one run``, ``in one run only`` or ``no estimate``: why a row that
    is not comparable is not, in a few words."""
    return next((kind for said, kind in NOT_COMPARABLE_KINDS if said in diff.note), "no estimate")


def judge(diff: Difference, higher_is_fairer: bool, level: float = 0.95) -> str:
    """worse / improved when the row's adjusted p (:func:`judge_rows`) is below ``1 - level`` (in the metric's fair
    direction, the side of 0 its interval lies on) and the difference rests on at least ``MIN_UNITS`` prompts (or
    persons), else no clear change. A difference not yet adjusted (a caller's own) is judged on its raw p."""
    if diff.estimate is None:
        return NOT_COMPARABLE
    if diff.low is None or diff.high is None:
        return NO_CLEAR_CHANGE
    if diff.n_units is not None and diff.n_units < MIN_UNITS:
        # as in the verdict: a bootstrap over a handful of prompts (one prompt: a zero-width interval) decides nothing
        return NO_CLEAR_CHANGE
    p = diff.p_adjusted if diff.p_adjusted is not None else diff.p_value
    if p is None:
        p = interval_p_value(diff.estimate, diff.low, diff.high, level)
    if p is not None and p < 1.0 - level:
        if diff.signed is not None:  # the gap clearly moved: better only if its size clearly shrank
            return IMPROVED if diff.signed.size_high is not None and diff.signed.size_high < 0 else WORSE
        went_up = min(max(diff.estimate, diff.low), diff.high) > 0
        return IMPROVED if went_up == higher_is_fairer else WORSE
    return NO_CLEAR_CHANGE


def judge_signed(diff: Difference, baseline: Any, run: Any, level: float = 0.95) -> str:
    """A signed metric whose fairest value is 0 (CPRD): worse / improved when the change is clear (as
    :func:`judge`) and moved the value away from / towards 0 (a gap that changed sides and grew is worse)."""
    clear = judge(diff, True, level)
    if clear in (NOT_COMPARABLE, NO_CLEAR_CHANGE):
        return clear
    try:
        before, after = abs(float(baseline)), abs(float(run))
    except (TypeError, ValueError):
        return NO_CLEAR_CHANGE
    return IMPROVED if after < before else WORSE


def _p_values(diff: Difference) -> str:
    """``, p 0.031, adjusted p 0.29``: the row's own p and the adjusted one its word rests on."""
    if diff.p_value is None:
        return ""
    adjusted = "" if diff.p_adjusted is None else f", adjusted p {_p(diff.p_adjusted)}"
    return f", p {_p(diff.p_value)}{adjusted}"


def _p(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.2g}"


def _signed(x: float | None) -> str:
    return "undefined" if x is None else f"{x:+.3g}"


def sentence(item: MetricComparison, label: str, baseline: str) -> str:
    """``B is worse than A on gender CROUGE-L (female vs male): difference -0.06 [-0.09, -0.03] (paired ...)``."""
    diff, change = item.differences[label], item.changes[label]
    if change == NOT_COMPARABLE:
        return f"{item.scope}: not comparable ({diff.note})"
    interval = "" if diff.low is None or diff.high is None else f" [{_signed(diff.low)}, {_signed(diff.high)}]"
    numbers = f"difference {_signed(diff.estimate)}{interval}{_p_values(diff)}"
    if diff.signed is not None:
        numbers = f"{describe(diff.signed)}, {numbers}"
    beside = item.described_beside.get(label)
    if beside:
        return f"{item.scope}, descriptive beside {beside} (whose row decides), {label} against {baseline}: {numbers}"
    if change == NO_CLEAR_CHANGE:
        return f"no clear change between {label} and {baseline} on {item.scope}: {numbers}"
    comparative = "worse" if change == WORSE else "better"
    return f"{label} is {comparative} than {baseline} on {item.scope}: {numbers}"
