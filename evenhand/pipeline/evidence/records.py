"""Metric records: one row of an assessment's metrics table, with a typed comparison.

A :class:`Comparison` says what a row compares, as data: the pair of groups (``("female", "male")``) and, for a
multiclass classification use case, the class assessed one-vs-rest. Its :attr:`~Comparison.label` is only for
display ("female vs male", "class fraud vs rest"); nothing parses it back, so any group name works.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS, MetricSpec


@dataclass(frozen=True)
class Comparison:
    """What a metric row compares: a pair of groups, a class (one-vs-rest), both, or the whole use case; a red-team
    row (:mod:`evenhand.redteaming`) also names the adversarial system prompt (``condition``) it compares with the
    benign one."""

    groups: tuple[str, str] | None = None
    cls: str | None = None
    condition: str | None = None

    @property
    def label(self) -> str:
        parts = [f"under {self.condition!r} vs benign"] if self.condition is not None else []
        if self.cls is not None:
            parts.append(f"class {self.cls} vs rest")
        if self.groups is not None:
            parts.append(f"{self.groups[0]} vs {self.groups[1]}")
        return ": ".join(parts) if parts else "all"

    def __str__(self) -> str:
        return self.label

    def matches(self, wanted: Any) -> bool:
        """True for ``None``, this comparison, its label, or its pair of groups (as a tuple or list)."""
        if wanted is None or wanted == self or wanted == self.label:
            return True
        return isinstance(wanted, (tuple, list)) and self.groups is not None and tuple(wanted) == self.groups


ALL = Comparison()

#: :attr:`MetricRecord.group_source` of a group-rate row whose persons' groups are the one group each prompt mentions
#: (by a word, or by a person's name: the verdict says which, from the run's names signals)
PROMPT_GROUPS = "the group each prompt mentions"
#: ... whose groups were given, one per prompt or row (``groups=``, ``prompts.group_column``,
#: ``responses.person_group_column``)
GIVEN_GROUPS = "each person's group as given (the group column)"


def pair(a: Any, b: Any) -> Comparison:
    return Comparison(groups=(str(a), str(b)))


@dataclass
class MetricRecord:
    """One row of the metrics table: a metric for an attribute (and a pair of groups), with its statistics."""

    key: str
    attribute: str | None
    comparison: Comparison
    result: MetricResult
    interval: Any = None  # evenhand.stats.Interval
    noise: Any = None  # evenhand.stats.NoiseFloor
    test: Any = None  # evenhand.stats.PermutationTest (counterfactual sentiment; classification: the metric's pair)
    p_adjusted: float | None = None  # Benjamini-Hochberg across the assessment's tests
    pair_tests: pd.DataFrame | None = None  # classification: exact rate test for every pair of groups
    notes: list[str] = field(default_factory=list)  # why an interval or noise floor is missing, what was left out
    # evenhand.pipeline.evidence.signed_differences.SignedDifference: group A minus group B behind a distance of
    # two groups
    signed: Any = None
    # evenhand.stats.CorrectedRate: the gap corrected for the scorer's per-group error (evidence/scorer_error.py)
    corrected: Any = None
    # a group-rate row (families/classification.py): where its persons' groups come from, in words ("the column
    # 'applicant_race'", GIVEN_GROUPS, PROMPT_GROUPS); a finding says it (issue 37)
    group_source: str | None = None
    # undefined because the replies behind it were there but none could be read (no label, number or item): a
    # verdict gate whose scope holds such a row fails, as what it would judge was never judged (thresholds.py)
    unread: bool = False
    # described beside another metric's test, which decides (``MetricSpec.described_beside``: CED beside a defined
    # CER): its test joins no adjustment and sets no severity (evidence/adjustment.py marks it)
    descriptive: bool = False

    @property
    def spec(self) -> MetricSpec:
        return METRICS[self.key]

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def groups(self) -> tuple[str, str] | None:
        return self.comparison.groups

    def numbers(self) -> dict[str, float]:
        """The row's numbers, NaN where it has none: the value, its interval, the noise floor and the gap to it, the
        p-value (its own test's, else its noise floor's swap test) and the adjusted p (what the metrics table shows
        and the verdict judges)."""
        iv, nf, nan = self.interval, self.noise, math.nan
        if self.test is not None:
            p_value = float(self.test.p_value)
        else:
            p_value = float(nf.p_value) if nf is not None else nan
        return {
            "value": float(self.result.value),
            "ci_low": float(iv.low) if iv is not None else nan,
            "ci_high": float(iv.high) if iv is not None else nan,
            "ci_level": float(iv.level) if iv is not None else nan,
            "noise_floor": float(nf.baseline) if nf is not None else nan,
            "gap": float(nf.gap) if nf is not None else nan,
            "gap_low": float(nf.gap_interval.low) if nf is not None else nan,
            "gap_high": float(nf.gap_interval.high) if nf is not None else nan,
            "p_value": p_value,
            "p_adjusted": self.p_adjusted if self.p_adjusted is not None else nan,
        }

    @property
    def swap_p(self) -> float | None:
        """A similarity row's test, the swap test of its noise floor (it has no permutation test of its own): its
        p-value, None when the row has its own test or no swap test was run."""
        if self.test is not None or self.noise is None or math.isnan(self.noise.p_value):
            return None
        return float(self.noise.p_value)


def independent_units(sizes: Mapping[str, Any]) -> int | None:
    """The number of independent units a result rests on (``MetricResult.sizes``): its prompts (or persons), else
    what it counted."""
    for name in ("prompts", "persons", "pairs", "rows", "responses"):
        if name in sizes:
            return int(sizes[name])
    return None
