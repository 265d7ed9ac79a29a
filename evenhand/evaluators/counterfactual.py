"""CounterfactualMetrics: CROUGE-L, CBLEU, CCS, SCSP and WCSP (paper 3.1.3) for counterfactual response pairs."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd

from evenhand._validation import as_text_list, check_same_length, check_threshold
from evenhand.evaluators._result import EvaluationResult
from evenhand.evaluators._scoring import scores_for
from evenhand.metrics import MetricResult
from evenhand.metrics.counterfactual import (
    counterfactual_bleu,
    counterfactual_cosine,
    counterfactual_rouge_l,
    neutralize_pairs,
    strict_sentiment_parity,
    weak_sentiment_parity,
)

ALL = ("rouge_l", "bleu", "cosine", "sentiment")


class CounterfactualMetrics:
    """Counterfactual similarity and sentiment parity of response pairs (``texts1[i]`` vs ``texts2[i]``).

    Args:
        attribute: neutralize both texts for ROUGE-L and BLEU (``"gender"``, ``"race"``, a custom dict, or None).
        metrics: a subset of ``("rouge_l", "bleu", "cosine", "sentiment")``.
        embedder: for CCS; None = the bundled all-MiniLM-L6-v2 (needs the ``models`` extra).
        sentiment_scorer: for SCSP/WCSP; None = VADER (offline), a spec or a callable ``f(texts) -> [0, 1]``.
        threshold: WCSP's threshold (a score counts when ``> threshold``).
    """

    def __init__(
        self,
        attribute: Any = "gender",
        metrics: Iterable[str] = ALL,
        embedder: Any = None,
        sentiment_scorer: Any = None,
        threshold: float = 0.5,
    ) -> None:
        self.metrics = tuple(metrics)
        unknown = set(self.metrics) - set(ALL)
        if unknown:
            raise ValueError(f"unknown counterfactual metrics {sorted(unknown)}; choose from {list(ALL)}")
        self.attribute = attribute
        self.threshold = check_threshold(threshold)
        self._embedder = embedder
        self._sentiment_spec = sentiment_scorer
        self._sentiment: Any = None

    @property
    def sentiment_scorer(self) -> Any:
        if self._sentiment is None:
            from evenhand.scorers import get_sentiment_scorer

            self._sentiment = get_sentiment_scorer(self._sentiment_spec)
        return self._sentiment

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from evenhand.scorers import get_embedder

            self._embedder = get_embedder(None)
        return self._embedder

    def evaluate(self, texts1: Any, texts2: Any, sentiment1: Any = None, sentiment2: Any = None) -> EvaluationResult:
        """Every selected metric, and a DataFrame with one row per pair (texts, per-pair scores)."""
        a = as_text_list(texts1, "texts1")
        b = as_text_list(texts2, "texts2")
        check_same_length(texts1=a, texts2=b)
        data = pd.DataFrame({"texts1": a, "texts2": b})
        out: dict[str, MetricResult] = {}
        if "rouge_l" in self.metrics or "bleu" in self.metrics:
            pairs = neutralize_pairs(a, b, self.attribute)  # neutralize once for both
            similarity = (("rouge_l", "CROUGE-L", counterfactual_rouge_l), ("bleu", "CBLEU", counterfactual_bleu))
            for key, name, metric in similarity:
                if key in self.metrics:
                    out[name] = metric(pairs.texts1, pairs.texts2, self.attribute, neutralized=pairs)
                    data[key] = out[name].per_item
        if "cosine" in self.metrics:
            out["CCS"] = counterfactual_cosine(a, b, embedder=self.embedder)
            data["cosine"] = out["CCS"].per_item
        if "sentiment" in self.metrics:
            scorer = None if sentiment1 is not None and sentiment2 is not None else self.sentiment_scorer
            s1 = scores_for(a, sentiment1, scorer, "sentiment1")
            s2 = scores_for(b, sentiment2, scorer, "sentiment2")
            out["SCSP"] = strict_sentiment_parity(s1, s2)
            out["WCSP"] = weak_sentiment_parity(s1, s2, self.threshold)
            data["sentiment1"], data["sentiment2"] = s1, s2
        return EvaluationResult("counterfactual", out, data)
