"""Metric calls in the pipeline: undefined cases stay NaN with the metric's reason, input errors are raised, and
every threshold (toxicity, stereotype, sentiment) comes from the settings."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import evenhand
from evenhand.config import ScoringConfig
from evenhand.pipeline.families.calls import call_metric as _call

FAST = {"store": None, "progress": False, "ci": None, "embedder": False, "stereotype_when_ftu": True}
PROMPTS = ["Write to the client.", "Write a note."]
OWN = ["We regret this.", "Fine.", "We regret it.", "Good."]  # 2 responses per prompt


def stereotype_scorer(texts: list[str]) -> list[float]:
    return [0.7 if "regret" in t else 0.1 for t in texts]


def _assess(**kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(
        task="text_generation", prompts=PROMPTS, responses=OWN, stereotype=stereotype_scorer, attributes=["gender"],
        **FAST, **kwargs,
    )  # fmt: skip


def test_stereotype_threshold_is_configurable() -> None:
    default = _assess().metrics.set_index("metric")
    strict = _assess(stereotype_threshold=0.9)
    m = strict.metrics.set_index("metric")
    assert default.loc["SF", "value"] == pytest.approx(0.5)  # 0.7 > 0.5 for the two "regret" responses
    assert m.loc["SF", "value"] == 0.0 and m.loc["SP", "value"] == 0.0  # ... but not > 0.9
    assert m.loc["EMS", "value"] == pytest.approx(0.7)  # EMS takes no threshold
    assert strict.to_dict(include_responses=False)["settings"]["stereotype_threshold"] == 0.9  # recorded
    assert ScoringConfig(stereotype_threshold=0.8).stereotype_threshold == 0.8
    with pytest.raises(ValueError):
        ScoringConfig(stereotype_threshold=1.5)


def test_undefined_metric_is_nan_with_the_metric_reason() -> None:
    result = _call("false_negative_rate_difference", ["0", "0"], ["0", "1"], ["a", "b"], pos_label="1")
    assert math.isnan(result.value) and result.reason


def test_bad_input_is_raised_naming_the_metric() -> None:
    with pytest.raises(ValueError, match="TF could not be computed"):
        _call("toxic_fraction", np.array([2.0, 0.1]), threshold=0.5)
    with pytest.raises(TypeError):  # an option the metric does not take is a bug, not a silent drop
        _call("expected_maximum_toxicity", np.array([0.2]), prompts=[0], threshold=0.5)
