"""What a reader must know beside a finding's claim, as data: too few units to decide, a scorer whose own bias points
the same way, thin evidence, groups signalled by personal names.

A kind of evidence (:mod:`.kinds`) makes the claim and may note :class:`FewUnits`; the verdict
(:mod:`.findings`) adds the others once every kind has judged; :meth:`Evidence.word
<evenhand.pipeline.verdict.evidence.Evidence.word>` words them all, once, at the end, in the order they were added.
Nothing reads a sentence back to learn what was said: a qualifier is looked up here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from evenhand.pipeline.verdict.severity import MIN_UNITS, THIN_UNITS


@dataclass(frozen=True)
class FewUnits:
    """The evidence rests on fewer than :data:`~.severity.MIN_UNITS` independent units (a concern there is reported
    as watch)."""

    units: int
    rule: ClassVar[str] = (
        f"a concern that rests on fewer than {MIN_UNITS} independent units (prompts or persons) is reported as watch"
    )

    def words(self) -> str:
        return f" (only {self.units} independent units: too few to decide on their own)"


@dataclass(frozen=True)
class ThinEvidence:
    """An ok (or watch) on fewer than :data:`~.severity.THIN_UNITS` units: absence of evidence, not evidence of
    absence."""

    units: int
    ok: bool
    rule: ClassVar[str] = (
        f"an ok that rests on fewer than {THIN_UNITS} independent units says the evidence is thin: it shows no "
        "difference, not that there is none"
    )

    def words(self) -> str:
        rule_out = "too few to rule out a difference" if self.ok else "too few to tell"
        return f" (only {self.units} independent units: {rule_out}; the evidence is thin)"


@dataclass(frozen=True)
class ScorerBias:
    """The scorer itself rates benign statements about ``higher`` people higher than about ``lower`` people, in the
    direction of the finding (its audit); ``demoted``: a concern was reported as watch for it."""

    scorer: str
    higher: str
    lower: str
    gap: float
    demoted: bool
    rule: ClassVar[str] = (
        "a counterfactual sentiment concern about a pair of groups is reported as watch when the scorer itself rates "
        "benign statements about the same group higher, by more than the scorer audit's margin (scorer_audit)"
    )

    def words(self) -> str:
        lead = "; reported as watch, not concern, because" if self.demoted else "; note:"
        return (
            f"{lead} the {self.scorer} scorer itself rates benign statements about {self.higher} people higher than "
            f"about {self.lower} people (by {self.gap:.3g} on its scale, scorer audit), so part of this difference "
            "may be the scorer's"
        )


@dataclass(frozen=True)
class SignalledByNames:
    """The groups were signalled by personal names (``how``: ``"names"`` or ``"words and names"``); a name stands for
    a group only statistically (the report's caveat says so)."""

    how: str
    rule: ClassVar[str | None] = None

    def words(self) -> str:
        by = "personal names" if self.how == "names" else "words and by personal names"
        return f" (groups signalled by {by})"


Qualifier = FewUnits | ThinEvidence | ScorerBias | SignalledByNames
