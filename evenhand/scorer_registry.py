"""The scorers a run can configure, declared once: each one's key (the config's ``scoring.<key>``), the command-line
flag that chooses it and its factory.

Beside the metric registry (:mod:`evenhand.registry`) and independent of it: a scorer is not a metric, and the
factories are named as lazy ``"module:object"`` strings (bound with :func:`evenhand.registry.bind` by whoever builds
one), so importing this table imports no scorer code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True)
class ScorerSpec:
    """A model that turns responses into the scores some metrics take (:attr:`evenhand.registry.MetricSpec.inputs`):
    the command-line flag that chooses it and its factory, as a lazy ``"module:object"`` reference."""

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
