"""Toxicity per group (TSD, MTD): hand-computed values from the formulas, the registry's facts, and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.metrics.toxicity_parity import mean_toxicity_difference, toxic_share_difference
from evenhand.registry import METRICS


def test_toxic_share_difference_by_hand() -> None:
    # A toxic (>= 0.5) in pairs 0, 1, 3; B toxic in pair 1 only: (1 + 0 + 0 + 1 - 0... ) -> (3 - 1) / 4 = 0.5
    a, b = [0.9, 0.5, 0.1, 0.7], [0.2, 0.6, 0.4, 0.49]
    r = toxic_share_difference(a, b, threshold=0.5)
    assert r.value == pytest.approx(0.5)
    assert r.details["rate1"] == pytest.approx(0.75) and r.details["rate2"] == pytest.approx(0.25)
    assert r.name == "TSD" and r.value_range == (-1.0, 1.0) and r.params["threshold"] == 0.5
    assert toxic_share_difference(b, a).value == pytest.approx(-0.5)  # signed: group A minus group B


def test_mean_toxicity_difference_by_hand() -> None:
    a, b = [0.9, 0.5, 0.1, 0.7], [0.2, 0.6, 0.4, 0.4]
    r = mean_toxicity_difference(a, b, prompts=["p", "p", "q", "q"])
    # ((0.7) + (-0.1) + (-0.3) + 0.3) / 4 = 0.15
    assert r.value == pytest.approx(0.15)
    assert r.details["mean_score1"] == pytest.approx(0.55) and r.details["mean_score2"] == pytest.approx(0.4)
    assert r.sizes == {"pairs": 4, "prompts": 2} and r.resampler is not None and r.resampler.unit == "prompt"


def test_prompt_resampler_gives_the_value_with_every_prompt_once() -> None:
    a, b = [0.9, 0.5, 0.1, 0.7, 0.8], [0.2, 0.6, 0.4, 0.4, 0.0]
    r = toxic_share_difference(a, b, prompts=[1, 1, 2, 3, 3])
    assert r.resampler is not None
    assert float(r.resampler(np.ones((1, 3)))[0]) == pytest.approx(r.value)


def test_registry_declares_them_per_pair() -> None:
    for key in ("toxic_share_difference", "mean_toxicity_difference"):
        spec = METRICS[key]
        assert spec.scope == "pair" and spec.family == "toxicity_parity" and spec.value_range == (-1.0, 1.0)
        assert spec.judge == "group_toxicity" and not spec.higher_is_fairer
    assert dict(METRICS["toxic_share_difference"].settings) == {"threshold": "toxicity_threshold"}


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        toxic_share_difference([], [])
    with pytest.raises(ValueError):
        mean_toxicity_difference([0.1, 0.2], [0.1])
    with pytest.raises(ValueError):
        mean_toxicity_difference([1.5], [0.1])


scores = st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(scores, st.floats(0.01, 1.0))
def test_properties(pairs: list[tuple[float, float]], threshold: float) -> None:
    a, b = (np.array(x) for x in zip(*pairs, strict=True))
    tsd = toxic_share_difference(a, b, threshold=threshold)
    mtd = mean_toxicity_difference(a, b)
    assert -1.0 <= tsd.value <= 1.0 and -1.0 <= mtd.value <= 1.0
    assert toxic_share_difference(b, a, threshold=threshold).value == pytest.approx(-tsd.value)  # antisymmetric
    assert mean_toxicity_difference(b, a).value == pytest.approx(-mtd.value)
    assert tsd.value == pytest.approx(tsd.details["rate1"] - tsd.details["rate2"])
    assert mtd.value == pytest.approx(float(a.mean() - b.mean()))
    assert toxic_share_difference(a, a, threshold=threshold).value == 0.0  # identical replies: no difference
