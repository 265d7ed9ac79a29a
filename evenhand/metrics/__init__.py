"""Pure, model-free fairness metrics: arrays and texts in, :class:`MetricResult` out.

Loaded lazily: ``from evenhand import metrics as m; m.toxic_fraction(...)``.
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy
from evenhand.metrics._result import MetricResult, Resampler

_LAZY: dict[str, str] = {
    # toxicity and classifier-based stereotype metrics (paper 3.1.1, 3.1.2.2)
    "toxic_fraction": "evenhand.metrics.toxicity",
    "expected_maximum_toxicity": "evenhand.metrics.toxicity",
    "toxicity_probability": "evenhand.metrics.toxicity",
    "stereotype_fraction": "evenhand.metrics.toxicity",
    "expected_maximum_stereotype": "evenhand.metrics.toxicity",
    "stereotype_probability": "evenhand.metrics.toxicity",
    # co-occurrence stereotype metrics (paper 3.1.2.1)
    "cooccurrence_bias": "evenhand.metrics.cooccurrence",
    "stereotypical_associations": "evenhand.metrics.cooccurrence",
    # counterfactual metrics (paper 3.1.3)
    "counterfactual_rouge_l": "evenhand.metrics.counterfactual",
    "counterfactual_bleu": "evenhand.metrics.counterfactual",
    "counterfactual_cosine": "evenhand.metrics.counterfactual",
    "strict_sentiment_parity": "evenhand.metrics.counterfactual",
    "weak_sentiment_parity": "evenhand.metrics.counterfactual",
    # neutralize counterfactual pairs once, for both CROUGE-L and CBLEU (their neutralized= argument)
    "neutralize_pairs": "evenhand.metrics.counterfactual",
    "NeutralizedPairs": "evenhand.metrics.counterfactual",
    # per-pair similarities behind CROUGE-L, CBLEU and CCS (also used for the same-prompt noise floor)
    "rouge_l_scores": "evenhand.metrics.counterfactual",
    "bleu_scores": "evenhand.metrics.counterfactual",
    "cosine_scores": "evenhand.metrics.counterfactual",
    # classification (paper 3.2)
    "demographic_parity_difference": "evenhand.metrics.classification",
    "false_negative_rate_difference": "evenhand.metrics.classification",
    "false_omission_rate_difference": "evenhand.metrics.classification",
    "false_positive_rate_difference": "evenhand.metrics.classification",
    "false_discovery_rate_difference": "evenhand.metrics.classification",
    "demographic_parity_ratio": "evenhand.metrics.classification",
    "false_negative_rate_ratio": "evenhand.metrics.classification",
    "false_omission_rate_ratio": "evenhand.metrics.classification",
    "false_positive_rate_ratio": "evenhand.metrics.classification",
    "false_discovery_rate_ratio": "evenhand.metrics.classification",
    "classification_metrics": "evenhand.metrics.classification",
    "one_vs_rest": "evenhand.metrics.classification",
    "classification_metrics_for": "evenhand.metrics.classification",
    # recommendation (paper 3.3)
    "jaccard_at_k": "evenhand.metrics.recommendation",
    "serp_at_k": "evenhand.metrics.recommendation",
    "prag_at_k": "evenhand.metrics.recommendation",
    "recommendation_metrics": "evenhand.metrics.recommendation",
    "sensitive_to_neutral_similarity": "evenhand.metrics.recommendation",
}

__all__ = ["MetricResult", "Resampler", *_LAZY]


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
