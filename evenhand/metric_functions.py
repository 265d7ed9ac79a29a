"""The functions of :mod:`evenhand.metrics` that the registry names (:mod:`evenhand.registry`): each metric's, the
ratio variant of each group-rate metric's, and the per-pair similarity scores behind the counterfactual similarity
metrics (:data:`PAIR_SIMILARITIES`), which the same-prompt noise floor reuses. Like the registry, it names them as
lazy ``"module:object"`` strings, so importing it imports no metric code; ``evenhand.metrics`` loads its public names
from :func:`lazy_functions`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from evenhand.registry import METRICS, bind, rate_metrics


@dataclass(frozen=True)
class PairSimilarity:
    """A per-pair similarity score behind a counterfactual similarity metric (:attr:`MetricSpec.pair_similarity`):
    ``function`` scores ``(texts, texts)`` pair by pair; ``needs_model`` when it needs an embedder."""

    key: str
    function: str
    needs_model: bool = False

    def load(self) -> Callable[..., Any]:
        fn: Callable[..., Any] = bind(self.function)
        return fn


PAIR_SIMILARITIES: Mapping[str, PairSimilarity] = MappingProxyType(
    {
        p.key: p
        for p in (
            PairSimilarity("rouge_l", "evenhand.metrics.counterfactual:rouge_l_scores"),
            PairSimilarity("bleu", "evenhand.metrics.counterfactual:bleu_scores"),
            PairSimilarity("cosine", "evenhand.metrics.counterfactual:cosine_scores", needs_model=True),
        )
    }
)


def lazy_functions() -> dict[str, str]:
    """Every function of :mod:`evenhand.metrics` the registry declares -> its module: each metric, the ratio variant
    of each group-rate metric and the per-pair similarities. ``evenhand.metrics`` loads its public names from this."""
    out = {m.key: m.module for m in METRICS.values()}
    out.update({m.ratio: m.module for m in rate_metrics() if m.ratio is not None})
    out.update(dict(p.function.split(":")[::-1] for p in PAIR_SIMILARITIES.values()))
    return out
