"""The decision framework (paper section 4, Figure 1, Table 1): which metrics fit a use case, and why.

A :class:`UseCase` records the task, the prompts (or the answer to "do the prompts mention protected groups?"),
the attributes to check and the stakeholder answers the framework needs. :func:`plan` runs the FTU check on the
prompts and walks Figure 1, returning a :class:`Plan`.

One job per module: :mod:`~evenhand.framework.use_case` (the UseCase schema), :mod:`~evenhand.framework.plan` (what
a plan holds and how it reads), :mod:`~evenhand.framework.ftu` (the FTU and language checks) and
:mod:`~evenhand.framework.rules` (the Figure 1 rules and :func:`plan`). Which classification metrics fit which
answers is the metrics layer's tree (:mod:`evenhand.metrics.classification_choice`); every metric fact is the
registry's (:mod:`evenhand.registry`).
"""

from __future__ import annotations

from evenhand.framework.plan import (
    PAIRED_DESIGN,
    PERSON_DESIGN,
    FTUSummary,
    NotApplicable,
    Plan,
    PlannedMetric,
    left_out,
)
from evenhand.framework.rules import (
    CF_SENTIMENT,
    CF_SIMILARITY,
    COUNTERFACTUAL_DECISIONS,
    ESTIMATES,
    FALSE_NEGATIVES,
    FALSE_POSITIVES,
    JUDGED,
    PARITY,
    RECOMMENDATION,
    REFUSALS,
    REPRESENTATION,
    STEREOTYPE_CLASSIFIER,
    STEREOTYPE_COOCCURRENCE,
    TOXICITY,
    TOXICITY_PARITY,
    plan,
)
from evenhand.framework.use_case import TASKS, Intervention, NameTemplates, Task, TemplateOptions, UseCase
from evenhand.registry import METRICS, MetricSpec

#: The metric catalogue (paper Table 2): the registry, by metric key. ``CATALOGUE[key].name`` is the short name.
CATALOGUE = METRICS
MetricInfo = MetricSpec

__all__ = [
    "CATALOGUE",
    "CF_SENTIMENT",
    "CF_SIMILARITY",
    "COUNTERFACTUAL_DECISIONS",
    "ESTIMATES",
    "FALSE_NEGATIVES",
    "FALSE_POSITIVES",
    "JUDGED",
    "PAIRED_DESIGN",
    "PARITY",
    "PERSON_DESIGN",
    "RECOMMENDATION",
    "REFUSALS",
    "REPRESENTATION",
    "STEREOTYPE_CLASSIFIER",
    "STEREOTYPE_COOCCURRENCE",
    "TASKS",
    "TOXICITY",
    "TOXICITY_PARITY",
    "FTUSummary",
    "Intervention",
    "MetricInfo",
    "NameTemplates",
    "NotApplicable",
    "Plan",
    "PlannedMetric",
    "Task",
    "TemplateOptions",
    "UseCase",
    "left_out",
    "plan",
]
