"""The result of a family evaluator."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from evenhand.metrics import MetricResult


@dataclass(frozen=True)
class EvaluationResult(Mapping[str, MetricResult]):
    """All metrics of one family (a read-only mapping name -> :class:`MetricResult`) and the response-level data
    they were computed from (``data``: one row per response or per counterfactual pair)."""

    family: str
    metrics: dict[str, MetricResult]
    data: pd.DataFrame = field(repr=False)

    def __getitem__(self, name: str) -> MetricResult:
        return self.metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.metrics)

    def __len__(self) -> int:
        return len(self.metrics)

    def values_dict(self) -> dict[str, float | None]:
        """``{metric name: value}``, None where a metric is undefined."""
        return {k: (None if math.isnan(float(r)) else float(r)) for k, r in self.metrics.items()}

    def summary(self) -> list[dict[str, Any]]:
        return [r.summary() for r in self.metrics.values()]
