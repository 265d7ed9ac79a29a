"""Scorers: texts -> numbers (toxicity, sentiment, stereotype) and texts -> vectors (embeddings).

Metrics never load models; they take the arrays these produce. ``None`` always means the offline default.
Names load lazily so that ``import evenhand.scorers`` stays light (no torch).

>>> from evenhand.scorers import get_toxicity_scorer, get_sentiment_scorer
>>> get_sentiment_scorer()(["I love it", "I hate it"]).round(3).tolist()  # 0 = most negative, 1 = most positive
[0.818, 0.214]
"""

from __future__ import annotations

from typing import Any

from evenhand._lazy import load_lazy

_LAZY: dict[str, str] = {
    "get_toxicity_scorer": "evenhand.scorers.toxicity",
    "get_sentiment_scorer": "evenhand.scorers.sentiment",
    "get_stereotype_scorer": "evenhand.scorers.stereotype",
    "get_embedder": "evenhand.scorers.embedding",
    "Scorer": "evenhand.scorers._base",
    "CallableScorer": "evenhand.scorers._base",
    "MaxScorer": "evenhand.scorers._base",
    "ModelUnavailableError": "evenhand.scorers._base",
    "ScoreCache": "evenhand.scorers._cache",
    "ProfanityCheckToxicity": "evenhand.scorers.toxicity",
    "DetoxifyToxicity": "evenhand.scorers.toxicity",
    "HFToxicity": "evenhand.scorers.toxicity",
    "VaderSentiment": "evenhand.scorers.sentiment",
    "HFSentiment": "evenhand.scorers.sentiment",
    "StereotypeScorer": "evenhand.scorers.stereotype",
    "MiniLMStereotypeScorer": "evenhand.scorers.stereotype_minilm",  # EXPERIMENTAL, opt-in (docs/stereotype-scorer.md)
    "Embedder": "evenhand.scorers.embedding",
    "SentenceTransformerEmbedder": "evenhand.scorers.embedding",
    "CallableEmbedder": "evenhand.scorers.embedding",
    # how scorers receive texts (de-duplication, cache, batches): the engine interface and the local engine
    "ScoringEngine": "evenhand.scorers.engine",
    "LocalEngine": "evenhand.scorers.engine",
    "get_engine": "evenhand.scorers.engine",
    "TextScorer": "evenhand.scorers.engine",
    "TextEmbedder": "evenhand.scorers.engine",
    "RayEngine": "evenhand.scorers.ray_engine",  # the same steps on a Ray cluster (docs/scale.md)
    # auditing a scorer on identity statements, and identity-masked scoring (docs/scorers.md)
    "audit_scorer": "evenhand.scorers.audit",
    "ScorerAudit": "evenhand.scorers.audit",
    "identity_statements": "evenhand.scorers.audit",
    "IdentityMaskedScorer": "evenhand.scorers.masking",
    "mask_identity": "evenhand.scorers.masking",
    # opt-in int8 classifiers (ONNX Runtime dynamic quantization): their agreement with full precision
    "int8_agreement": "evenhand.scorers._onnx",
    "Agreement": "evenhand.scorers._onnx",
}

__all__ = list(_LAZY)


def __getattr__(name: str) -> Any:
    return load_lazy(__name__, _LAZY, globals(), name)


def __dir__() -> list[str]:
    return sorted(__all__)
