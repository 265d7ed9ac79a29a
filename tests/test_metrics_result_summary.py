"""MetricResult.summary() is strict JSON, also for metrics with an unbounded range (COBS: [0, inf))."""

from __future__ import annotations

import json
import math

import numpy as np

from evenhand.metrics._result import MetricResult, undefined


def test_summary_infinite_range_bound_is_null() -> None:
    result = MetricResult(name="COBS", value=0.5, per_item=np.zeros(0), value_range=(0.0, math.inf))
    summary = result.summary()
    assert summary["range"] == [0.0, None]
    assert json.loads(json.dumps(summary, allow_nan=False))["range"] == [0.0, None]


def test_summary_finite_range_and_undefined_value() -> None:
    result = undefined("CBLEU", "no tokens", per_item=np.zeros(0), value_range=(-math.inf, 1.0))
    summary = result.summary()
    assert summary["value"] is None and summary["range"] == [None, 1.0]
    json.dumps(summary, allow_nan=False)


def test_cooccurrence_bias_summary_is_strict_json() -> None:
    from evenhand.metrics import cooccurrence_bias

    texts = ["He is a strong doctor and she is a caring nurse.", "The man was a doctor.", "The woman was a nurse."]
    json.dumps(cooccurrence_bias(texts).summary(), allow_nan=False)
