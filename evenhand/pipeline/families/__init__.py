"""The metric families of the pipeline, in report order. Adding a family means adding its module here and its
metrics to :mod:`evenhand.registry`; the run loop does not change."""

from __future__ import annotations

from evenhand.pipeline.families.base import Family, Needs, RunContext
from evenhand.pipeline.families.classification import Classification
from evenhand.pipeline.families.counterfactual import Counterfactual
from evenhand.pipeline.families.decisions import CounterfactualDecisions
from evenhand.pipeline.families.parity import Parity
from evenhand.pipeline.families.recommendation import Recommendation
from evenhand.pipeline.families.stereotype import Stereotype
from evenhand.pipeline.families.toxicity import Toxicity

FAMILY_TYPES: tuple[type[Family], ...] = (
    Toxicity,
    Stereotype,
    Counterfactual,
    Parity,
    Classification,
    CounterfactualDecisions,
    Recommendation,
)

#: The family of each registry family (``MetricSpec.family``, a record's ``family``).
FAMILY_OF: dict[str, type[Family]] = {name: kind for kind in FAMILY_TYPES for name in kind.metric_families}

__all__ = ["FAMILY_OF", "FAMILY_TYPES", "Family", "Needs", "RunContext"]
