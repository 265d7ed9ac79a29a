"""One metric's evidence for a finding (:class:`Evidence`), the numbers it starts from (:func:`base_evidence`) and
the severity rules every kind of evidence shares (:func:`by_p`, :func:`few`, :func:`note_few_units`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evenhand._json import float_or_none
from evenhand.pipeline.evidence.records import MetricRecord, independent_units
from evenhand.pipeline.verdict.qualifiers import FewUnits, IntervalHoldsZero, IntervalMayUndercover, Qualifier
from evenhand.pipeline.verdict.severity import ALPHA, MIN_UNITS, SUGGESTIVE, Severity

#: The fields of :class:`Evidence` that results.json holds (``verdict.findings[].evidence[]``), in its order.
DOCUMENT_FIELDS = (
    "metric", "full_name", "value", "ci_low", "ci_high", "noise_floor", "gap", "gap_low", "gap_high", "p_value",
    "p_adjusted", "units", "severity", "sentence", "scorer_gap",
)  # fmt: skip


@dataclass
class Evidence:
    """One metric's evidence for a finding: its numbers, its severity, and in words its ``claim`` (the kind's, plain
    words first and numbers after) and its ``qualifiers`` (:mod:`.qualifiers`, as data), which :meth:`word` makes
    into the ``sentence`` once judging is done."""

    metric: str
    full_name: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    noise_floor: float | None = None
    gap: float | None = None
    gap_low: float | None = None
    gap_high: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    units: int | None = None
    severity: Severity = "ok"
    sentence: str = ""
    scorer_gap: float | None = None  # the scorer's own benign-statement gap in the same direction (its audit)
    claim: str = ""
    qualifiers: list[Qualifier] = field(default_factory=list)
    # set where the metric is described beside another's test and decides nothing (CED beside CER): its value and
    # interval in words, which the finding's sentence lists after the deciding metric's ("also CED ... (descriptive)")
    described: str = ""

    def qualified(self, kind: type[Any]) -> bool:
        """Whether a qualifier of ``kind`` (e.g. :class:`~.qualifiers.FewUnits`) was added."""
        return any(isinstance(q, kind) for q in self.qualifiers)

    def word(self) -> None:
        """The sentence: the claim, then each qualifier's words in the order they were added (once, at the end)."""
        self.sentence = self.claim + "".join(q.words() for q in self.qualifiers)

    def to_dict(self) -> dict[str, Any]:
        """The evidence as results.json holds it."""
        return {name: getattr(self, name) for name in DOCUMENT_FIELDS}


def base_evidence(rec: MetricRecord) -> Evidence:
    """The record's numbers (:meth:`MetricRecord.numbers`, the metrics table's) as evidence (severity ok, no words
    yet); a similarity record's p-value is its noise floor's swap test (it has no test of its own)."""
    spec, nf = rec.spec, rec.noise
    n = {name: float_or_none(value) for name, value in rec.numbers().items()}
    return Evidence(
        metric=spec.name,
        full_name=spec.full_name,
        value=n["value"],
        ci_low=n["ci_low"],
        ci_high=n["ci_high"],
        noise_floor=n["noise_floor"],
        gap=n["gap"],
        gap_low=n["gap_low"],
        gap_high=n["gap_high"],
        p_value=n["p_value"],
        p_adjusted=n["p_adjusted"],
        # the noise floor knows the prompts behind the pairs: the independent units
        units=int(nf.n_prompts) if nf is not None else independent_units(rec.result.sizes),
    )


def few(e: Evidence, severity: Severity) -> Severity:
    """A concern on fewer than :data:`~.severity.MIN_UNITS` independent units is only worth watching."""
    return "watch" if severity == "concern" and e.units is not None and e.units < MIN_UNITS else severity


def by_p(e: Evidence) -> Severity:
    """The severity its adjusted p-value (else its p-value) gives, with :func:`few` applied."""
    p = e.p_adjusted if e.p_adjusted is not None else e.p_value
    if p is None:
        return "ok"
    return few(e, "concern" if p < ALPHA else "watch" if p < SUGGESTIVE else "ok")


def by_p_and_interval(e: Evidence, *, interval_covers: bool = True) -> Severity:
    """:func:`by_p`, but a concern whose own interval holds 0 is a watch (:class:`~.qualifiers.IntervalHoldsZero`):
    the paired rate gaps (RRD, NRD, CPRD) are concerns only when their adjusted test rejects and their interval
    excludes 0. On few prompts the exact sign-flip test can reject where the clustered interval still holds 0; the
    verdict then says no more than both support.

    ``interval_covers`` false (``MetricSpec.interval_covers``: RLD): the interval is measured to undercover, so it
    can neither gate a concern nor stand beside the test as its equal; the severity is the test's alone
    (:func:`by_p`) and the interval is noted as a description that may undercover
    (:class:`~.qualifiers.IntervalMayUndercover`)."""
    severity = by_p(e)
    if not interval_covers:
        if e.ci_low is not None and e.ci_high is not None:
            e.qualifiers.append(IntervalMayUndercover(e.ci_low, e.ci_high))
        return severity
    if severity == "concern" and e.ci_low is not None and e.ci_high is not None and e.ci_low <= 0 <= e.ci_high:
        e.qualifiers.append(IntervalHoldsZero(e.ci_low, e.ci_high))
        return "watch"
    return severity


def note_few_units(e: Evidence) -> None:
    """Say, after the claim, that the evidence rests on too few units to decide on its own (when it does)."""
    if e.units is not None and e.units < MIN_UNITS:
        e.qualifiers.append(FewUnits(e.units))


def swap_test_note(e: Evidence) -> str:
    """The floor's swap test as a floor sentence ends: ", swap test adjusted p = 0.0123" (the adjusted p where the run
    adjusted it, else the plain one), or nothing where no swap test ran."""
    swap_p = e.p_adjusted if e.p_adjusted is not None else e.p_value
    named = "swap test adjusted p" if e.p_adjusted is not None else "swap test p"
    return "" if swap_p is None else f", {named} = {swap_p:.3g}"


def settle_against_floor(e: Evidence, *, concern: str, watch: str, ok: str) -> None:
    """The one rule of a gap to a same-prompt noise floor (similarity, decision flips): a concern when the gap's
    interval lies above 0 and the floor's swap test (adjusted with the run's other tests) is below ALPHA or did not
    run; a watch when that swap test is below SUGGESTIVE and the gap above 0; otherwise ok. The caller words each
    outcome; the evidence must have a gap interval."""
    # the gap's bootstrap interval can exclude 0 by chance with few, skewed prompts; the exact swap test guards it,
    # and the watch tier rests on it too, so its rate under no bias is known
    swap_p = e.p_adjusted if e.p_adjusted is not None else e.p_value
    if e.gap_low is not None and e.gap_low > 0 and (swap_p is None or swap_p < ALPHA):
        e.severity = few(e, "concern")
        e.claim = concern
        note_few_units(e)
    elif swap_p is not None and swap_p < SUGGESTIVE and e.gap is not None and e.gap > 0:
        # the swap test reads the floor against cross-group pairs, the gap the counterfactual pairs: a gap at or
        # below 0 (counterfactual replies as alike as the floor, or more) is no sign of less alike, whatever p says
        e.severity = "watch"
        e.claim = watch
        note_few_units(e)
    else:
        e.claim = ok
