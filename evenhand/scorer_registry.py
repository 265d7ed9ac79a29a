"""The scorers a run can configure, declared once: each one's key (the config's ``scoring`` section), the
command-line flag that chooses it and its factory, as a lazy ``"module:object"`` reference
(:func:`evenhand.registry.bind`), so declaring a scorer imports no model code.

It sits beside :mod:`evenhand.registry` (the metrics' table), which names the scores a metric takes
(:attr:`~evenhand.registry.MetricSpec.inputs`) but not the models that make them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class ScorerSpec:
    """A model that turns responses into the scores some metrics take (:attr:`MetricSpec.inputs`): the command-line
    flag that chooses it and its factory, as a lazy ``"module:object"`` reference."""

    key: str
    flag: str
    factory: str


#: The scorers a run can configure (the config's ``scoring`` section; a command line's scoring flags).
SCORERS: Mapping[str, ScorerSpec] = MappingProxyType(
    {
        s.key: s
        for s in (
            ScorerSpec("toxicity", "--toxicity", "evenhand.scorers.toxicity:get_toxicity_scorer"),
            ScorerSpec("sentiment", "--sentiment", "evenhand.scorers.sentiment:get_sentiment_scorer"),
            ScorerSpec("stereotype", "--stereotype", "evenhand.scorers.stereotype:get_stereotype_scorer"),
            ScorerSpec("embedder", "--embedder", "evenhand.scorers.embedding:get_embedder"),
            ScorerSpec("refusal", "--refusal", "evenhand.scorers.refusal:get_refusal_scorer"),
        )
    }
)
