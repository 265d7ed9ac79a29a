"""Pure, model-free fairness metrics: arrays and texts in, :class:`MetricResult` out.

Loaded lazily: ``from evenhand import metrics as m; m.toxic_fraction(...)``.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy
from evenhand.metric_functions import lazy_functions
from evenhand.metrics._result import MetricResult, Resampler

_LAZY: dict[str, str] = {
    # every metric, the ratio of each group rate and the per-pair similarities: declared in the registry
    **lazy_functions(),
    # neutralize counterfactual pairs once, for both CROUGE-L and CBLEU (their neutralized= argument)
    "neutralize_pairs": "evenhand.metrics.counterfactual",
    "NeutralizedPairs": "evenhand.metrics.counterfactual",
    # several classification metrics from one pass, multiclass one-vs-rest, and the paper's choice among them
    "classification_metrics": "evenhand.metrics.classification",
    "one_vs_rest": "evenhand.metrics.classification",
    "classification_metrics_for": "evenhand.metrics.classification_choice",
    # recommendation (paper 3.3): all three at once, and the sensitive-to-neutral variant
    "recommendation_metrics": "evenhand.metrics.recommendation",
    "sensitive_to_neutral_similarity": "evenhand.metrics.recommendation",
    # numeric outcomes (issue 36): each group's numbers described; the impact-ratio table of NYC Local Law 144
    "estimate_summary": "evenhand.metrics.estimation",
    "impact_ratio_table": "evenhand.metrics.impact_ratio",
    "ImpactRatioTable": "evenhand.metrics.impact_ratio",
}

__all__ = ["MetricResult", "Resampler", *_LAZY]


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
