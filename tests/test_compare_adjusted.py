"""compare15: compare says "worse" / "better" on the adjusted p of a row, adjusted across the rows it compares by the
run's own adjustment (evenhand.stats.omnibus_then_pairs), and keeps each row's difference, interval and raw p."""

from __future__ import annotations

import numpy as np
import pytest
from test_compare_fixtures import biased_run, fair_run

import evenhand
from evenhand.comparison.pairing import Difference, interval_p_value, paired_draws
from evenhand.comparison.rows import IMPROVED, NO_CLEAR_CHANGE, WORSE, MetricComparison, _bounds, judge_rows
from evenhand.metrics._result import MetricResult, mean_resampler
from evenhand.stats import continuous_interval, omnibus_then_pairs


def test_the_raw_p_is_below_the_level_exactly_when_the_interval_excludes_0() -> None:
    # symmetric: +0.10 [+0.00, +0.20] at 95% sits on the edge, so p = 0.05
    assert interval_p_value(0.10, 0.0, 0.20, 0.95) == pytest.approx(0.05)
    assert interval_p_value(0.10, 0.01, 0.19, 0.95) < 0.05 < interval_p_value(0.10, -0.01, 0.21, 0.95)
    # asymmetric (MOVER, a percentile interval): the half towards 0 decides
    assert interval_p_value(-0.10, -0.40, -0.001, 0.95) < 0.05 < interval_p_value(-0.10, -0.12, +0.001, 0.95)
    assert interval_p_value(0.0, 0.0, 0.0, 0.95) == 1.0  # a run compared with itself
    assert interval_p_value(0.1, None, None, 0.95) is None


def _row(metric: str, pair: str, low: float, high: float) -> MetricComparison:
    row = MetricComparison(key=metric, metric=metric, full_name=metric, attribute="race", groups=tuple(pair.split()),
                           cls=None, comparison=pair.replace(" ", " vs "), higher_is_fairer=True)  # fmt: skip
    estimate = (low + high) / 2
    row.values = {"A": 0.8, "B": 0.8 + estimate}
    row.differences["B"] = Difference(estimate, low, high, "paired", n_units=30)
    return row


def test_twelve_rows_that_each_just_exclude_0_are_no_clear_change_after_adjustment() -> None:
    # the defect (compare14's null): each row judged at 95% alone, so one of 12 rows in 6 of 20 fair comparisons
    # read "worse". Rows that just exclude 0 (raw p about 0.04) are not worse once adjusted across the 12 rows.
    pairs = ["white black", "white hispanic", "white asian", "black hispanic", "black asian", "hispanic asian"]
    rows = [_row(m, p, -0.041, -0.001) for m in ("CROUGE-L", "CBLEU") for p in pairs]
    judge_rows(rows, ["A", "B"], level=0.95)
    raw = [r.differences["B"].p_value for r in rows]
    assert all(p is not None and 0.03 < p < 0.05 for p in raw)
    assert {r.changes["B"] for r in rows} == {NO_CLEAR_CHANGE}
    families = [(r.key, r.attribute, r.cls) for r in rows]
    expected = omnibus_then_pairs(raw, families)  # the run's own adjustment, not another
    assert [r.differences["B"].p_adjusted for r in rows] == pytest.approx(list(expected))
    assert "adjusted p" in rows[0].sentences["B"] and "no clear change" in rows[0].sentences["B"]


def test_a_clear_change_survives_the_adjustment_and_keeps_its_direction() -> None:
    rows = [_row("CROUGE-L", "white black", -0.30, -0.20), _row("CROUGE-L", "white asian", -0.05, 0.05),
            _row("CBLEU", "white black", 0.20, 0.30)]  # fmt: skip
    judge_rows(rows, ["A", "B"], level=0.95)
    assert [r.changes["B"] for r in rows] == [WORSE, NO_CLEAR_CHANGE, IMPROVED]
    assert rows[0].differences["B"].p_adjusted < 0.05
    assert rows[0].sentences["B"].startswith("B is worse than A on race CROUGE-L (white vs black): difference -0.25 [")


@pytest.mark.pipeline
def test_the_planted_bias_is_still_worse_and_the_outputs_carry_both_p_values() -> None:
    result = evenhand.compare(fair_run(), biased_run())
    doc = result.to_dict()
    scsp = next(r for r in doc["metrics"] if r["metric"] == "SCSP")["differences"][0]
    assert scsp["change"] == "worse" and scsp["p_adjusted"] < 0.05 and scsp["p_value"] <= scsp["p_adjusted"]
    assert {"p_value", "p_adjusted"} <= set(result.metrics.columns)
    assert "adjusted" in doc["verdict"]["rule"]
    assert "Rule: a metric row is worse or better when its p" in result.to_html()


def _scores(seed: int, k: int) -> MetricResult:
    per = np.clip(np.random.default_rng(seed).uniform(0.2, 0.8, k), 0, 1)
    return MetricResult(name="mean score", value=float(per.mean()), resampler=mean_resampler(per, "prompt"),
                        value_range=(0.0, 1.0))  # fmt: skip


@pytest.mark.parametrize("k", [30, 40, 49])
def test_compare_takes_the_t_rule_up_to_50_prompts_and_a_run_s_own_interval_does_not(k: int) -> None:
    # the percentile bootstrap of paired differences said "changed" in 7.5-9% of null comparisons at 30 prompts
    # (stats14); compare's differences now take Student's t on the jackknife below COMPARE_SMALL_UNITS
    a, b = _scores(1, k), _scores(2, k)
    bounds, note = _bounds(a, b, paired_draws(a, b, 200, np.random.default_rng(0)), 0.95, paired=True,
                           interval="bootstrap")  # fmt: skip
    assert "student-t on jackknife prompts (fewer than 50 units)" in note and bounds is not None
    assert continuous_interval(a).method == "percentile"  # the run's own interval from 30 units on: unchanged
    a, b = _scores(1, 50), _scores(2, 50)
    assert _bounds(a, b, paired_draws(a, b, 200, np.random.default_rng(0)), 0.95, paired=True,
                   interval="bootstrap")[1] == ""  # fmt: skip
