"""The noise floor's gap (stats14): where most prompts give the same gap (no counterfactual pair differs from the
floor's), a gap of bounded similarities reaches the none-off bound of its prompts, as the metrics' own intervals do
(review11); where the prompts' gaps vary, the interval is the bootstrap's as before."""

from __future__ import annotations

import numpy as np
import pytest

from evenhand.stats import noise_floor_from_scores, none_off_bounds


def _scores(cf: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    k = cf.shape[0]
    return cf.ravel(), np.repeat(np.arange(k), cf.shape[1]), base.ravel(), np.repeat(np.arange(k), base.shape[1])


def test_a_gap_from_a_few_changed_pairs_reaches_the_none_off_bound() -> None:
    """40 prompts, every reply alike but one counterfactual pair in each of two prompts: the bootstrap's interval
    was about [0.0, 0.015], where a change in a share of prompts none showed is as possible."""
    cf = np.ones((40, 3))
    cf[[4, 17], 0] = 0.4
    floor = noise_floor_from_scores(*_scores(cf, np.ones((40, 4))), name="CROUGE-L", n_resamples=500, seed=0)
    low, high = none_off_bounds(floor.gap, (-1.0, 1.0), 40, 0.95)
    assert floor.gap_interval.low <= low + 1e-12 and floor.gap_interval.high >= high - 1e-12
    assert "joined with none of 40 prompts off the value" in floor.gap_interval.method


def test_a_gap_whose_prompts_vary_keeps_its_bootstrap_interval() -> None:
    rng = np.random.default_rng(1)
    mu = rng.uniform(0.3, 0.8, size=(40, 1))
    cf = np.clip(mu - 0.1 + rng.normal(0, 0.1, (40, 3)), 0, 1)
    base = np.clip(mu + rng.normal(0, 0.1, (40, 4)), 0, 1)
    floor = noise_floor_from_scores(*_scores(cf, base), name="CROUGE-L", n_resamples=500, seed=0)
    assert "none of" not in floor.gap_interval.method
    assert floor.gap_interval.low > 0 and floor.gap_interval.width == pytest.approx(0.048, abs=0.02)
