"""The metric families of the pipeline, in report order. Adding a family means adding its module here and its
metrics to :mod:`evenhand.registry`; the run loop does not change."""

from __future__ import annotations

from evenhand.pipeline.families.base import Family, Needs, RunContext
from evenhand.pipeline.families.classification import Classification
from evenhand.pipeline.families.counterfactual import Counterfactual
from evenhand.pipeline.families.decisions import CounterfactualDecisions
from evenhand.pipeline.families.estimation import Estimation
from evenhand.pipeline.families.figures import GroupMean, Histogram, PairScatter
from evenhand.pipeline.families.judged import JudgedTreatment
from evenhand.pipeline.families.recommendation import Recommendation
from evenhand.pipeline.families.refusal_length import Parity
from evenhand.pipeline.families.stereotype import Stereotype
from evenhand.pipeline.families.toxicity import Toxicity
from evenhand.pipeline.families.unplaced import UnplacedNames

FAMILY_TYPES: tuple[type[Family], ...] = (
    Toxicity,
    Stereotype,
    Counterfactual,
    Parity,
    JudgedTreatment,
    Classification,
    CounterfactualDecisions,
    Recommendation,
    Estimation,
    UnplacedNames,
)

#: The family of each registry family (``MetricSpec.family``, a record's ``family``).
FAMILY_OF: dict[str, type[Family]] = {name: kind for kind in FAMILY_TYPES for name in kind.metric_families}

#: Every family's per-group means and histograms, in their declared ``order`` (results.json's order of them).
GROUP_MEANS: tuple[GroupMean, ...] = tuple(
    sorted((m for f in FAMILY_TYPES for m in f.group_means), key=lambda m: m.order)
)
HISTOGRAMS: tuple[Histogram, ...] = tuple(
    sorted((h for f in FAMILY_TYPES for h in f.histograms), key=lambda h: h.order)
)
#: The one counterfactual pair scatter the families declare, or None (results.json ``pairs`` names no column).
PAIR_SCATTER: PairScatter | None = next((f.pair_scatter for f in FAMILY_TYPES if f.pair_scatter is not None), None)

__all__ = [
    "FAMILY_OF", "FAMILY_TYPES", "GROUP_MEANS", "HISTOGRAMS", "PAIR_SCATTER", "Family", "Needs", "RunContext",
]  # fmt: skip
