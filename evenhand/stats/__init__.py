"""Uncertainty for every metric: bootstrap intervals, permutation tests, multiple testing, noise floor.

``confidence_interval(result)`` resamples the units a :class:`~evenhand.metrics.MetricResult` carries through its
``Resampler``: the prompt with all its answers (pairs, rows within groups) when the metric was given ``prompts=``,
else pairs or rows; nothing is recomputed from text. The permutation tests permute the same unit. See
docs/uncertainty.md.
"""

from __future__ import annotations

from evenhand.stats._estimate_floor import EstimateFloor, estimate_noise_floor
from evenhand.stats._intervals import (
    Interval,
    bootstrap_distribution,
    confidence_interval,
    interval_table,
    joined_with_zero_unless_rejected,
)
from evenhand.stats._multiple_testing import benjamini_hochberg, omnibus_then_pairs
from evenhand.stats._noise_floor import NoiseFloor, noise_floor, noise_floor_from_scores, swap_test_of_gap
from evenhand.stats._paired_prompts import paired_prompt_test
from evenhand.stats._permutation import (
    PermutationTest,
    counterfactual_sentiment_test,
    pairwise_rate_tests,
    rate_difference_test,
)
from evenhand.stats._prompt_sets import prompt_set_test
from evenhand.stats._rate_intervals import (
    binomial_bounds,
    effective_rate,
    metric_interval,
    newcombe_bounds,
    rate_difference_bounds,
    rate_interval,
    run_difference_bounds,
)
from evenhand.stats._scorer_error import CorrectedRate, ScorerError, corrected_rate, rogan_gladen
from evenhand.stats._shuffle import PreparedStatistic, group_shuffle_test
from evenhand.stats._small_sample import (
    COMPARE_SMALL_UNITS,
    SMALL_UNITS,
    UNBOUNDED_T_UNITS,
    continuous_interval,
    difference_bounds,
    none_off_bounds,
    small_sample_interval,
    unmoved,
    unmoved_bounds,
)

__all__ = [
    "COMPARE_SMALL_UNITS",
    "SMALL_UNITS",
    "UNBOUNDED_T_UNITS",
    "CorrectedRate",
    "EstimateFloor",
    "Interval",
    "NoiseFloor",
    "PermutationTest",
    "PreparedStatistic",
    "ScorerError",
    "benjamini_hochberg",
    "binomial_bounds",
    "bootstrap_distribution",
    "confidence_interval",
    "continuous_interval",
    "corrected_rate",
    "counterfactual_sentiment_test",
    "difference_bounds",
    "effective_rate",
    "estimate_noise_floor",
    "group_shuffle_test",
    "interval_table",
    "joined_with_zero_unless_rejected",
    "metric_interval",
    "newcombe_bounds",
    "noise_floor",
    "noise_floor_from_scores",
    "none_off_bounds",
    "omnibus_then_pairs",
    "paired_prompt_test",
    "pairwise_rate_tests",
    "prompt_set_test",
    "rate_difference_bounds",
    "rate_difference_test",
    "rate_interval",
    "rogan_gladen",
    "run_difference_bounds",
    "small_sample_interval",
    "swap_test_of_gap",
    "unmoved",
    "unmoved_bounds",
]
