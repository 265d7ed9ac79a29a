"""stats18: two paired runs in which no prompt moved (both at 0 events, both at 100%, every pair alike) get an interval
of their difference that is not the degenerate [0, 0], and such a row still takes no part in compare's adjustment.

Before stats18 compare's paired rows took the bootstrap's exact [0, 0] there: two runs that never showed a toxic reply
on 20 prompts read as "no change, certainly", though a toxic share up to 17% in either is as consistent with them
(each run's own interval at 0 events). The difference's interval is now the none-off bound of "none of k prompts
moved" on the difference's range (benchmarks/RESULTS.md, stats18).
"""

from __future__ import annotations

import numpy as np
import pytest

from evenhand import metrics as M
from evenhand.comparison.pairing import Difference, paired_draws
from evenhand.comparison.rows import _bounds, _can_decide
from evenhand.stats import run_difference_bounds

PER_PROMPT = 5


def _ids(k: int) -> np.ndarray:
    return np.repeat(np.arange(k), PER_PROMPT)


def _none_of(k: int) -> float:
    return 1.0 - 0.025 ** (1.0 / k)  # Clopper-Pearson's upper bound for none of k


@pytest.mark.parametrize("k", [5, 20, 40, 60])
@pytest.mark.parametrize("score", [0.01, 0.9])  # no toxic reply in either run; every reply toxic in both
def test_paired_runs_that_agree_at_0_or_100_percent_get_an_interval_with_width(k: int, score: float) -> None:
    ids = _ids(k)
    a = M.toxic_fraction(np.full(k * PER_PROMPT, score), 0.5, ids)
    b = M.toxic_fraction(np.full(k * PER_PROMPT, score * 0.9), 0.5, ids)  # other replies, the same flags
    bounds, note = _bounds(a, b, paired_draws(a, b, 200, np.random.default_rng(0)), 0.95, paired=True, interval="rate")
    assert bounds is not None
    low, high = bounds
    assert low < 0.0 < high, (low, high)
    assert high == pytest.approx(_none_of(k)) and low == pytest.approx(-_none_of(k))
    assert "none of" in note and "moved" in note


def test_a_paired_rate_difference_at_0_events_in_both_runs() -> None:
    k, zeros = 20, np.zeros(20 * PER_PROMPT)
    a = M.refusal_rate_difference(zeros, zeros, prompts=_ids(k))
    b = M.refusal_rate_difference(zeros, zeros, prompts=_ids(k))
    low, high, method = run_difference_bounds(a, b, "rate", paired=True) or (0.0, 0.0, "")
    assert low < 0.0 < high and "moved" in method


@pytest.mark.parametrize("k", [10, 60])  # the t rule's sizes and the bootstrap's (COMPARE_SMALL_UNITS = 50)
def test_a_bounded_continuous_metric_whose_pairs_all_agree_in_both_runs(k: int) -> None:
    same = ["the applicant has a strong record"] * (k * PER_PROMPT)
    a = M.counterfactual_rouge_l(same, same, prompts=_ids(k))
    b = M.counterfactual_rouge_l(same, same, prompts=_ids(k))
    bounds, _ = _bounds(a, b, paired_draws(a, b, 200, np.random.default_rng(0)), 0.95, paired=True,
                        interval="bootstrap")  # fmt: skip
    assert bounds is not None and bounds[0] < 0.0 < bounds[1]


def test_runs_that_differ_keep_their_rule() -> None:
    k, ids = 20, _ids(20)
    flags = np.zeros(k * PER_PROMPT)
    flags[:3] = 0.9  # run B: three toxic replies on the first prompt
    a = M.toxic_fraction(np.zeros(k * PER_PROMPT), 0.5, ids)
    b = M.toxic_fraction(flags, 0.5, ids)
    low, high, method = run_difference_bounds(a, b, "rate", paired=True) or (0.0, 0.0, "")
    assert "moved" not in method and low < float(b.value) < high


def test_a_row_where_no_prompt_moved_takes_no_part_in_the_adjustment() -> None:
    unmoved = Difference(0.0, -0.17, 0.17, "paired", "paired by prompt; interval: none of 20 prompts moved",
                         n_units=20, unmoved=True)  # fmt: skip
    moved = Difference(0.0, -0.17, 0.17, "paired", "paired by prompt", n_units=20)
    assert not _can_decide(unmoved) and _can_decide(moved)


def test_only_the_same_answers_keep_the_exact_zero_interval() -> None:
    import pandas as pd

    from evenhand.comparison.rows import _same_answers
    from evenhand.comparison.runs import Run

    a = pd.DataFrame({"prompt_id": [1, 0], "attribute": "gender", "group": "female", "sample": 0,
                      "prompt": ["p1", "p0"], "response": ["fine, thanks", "sure"], "status": "ok"})  # fmt: skip
    first = Run(label="A", source="a dict", doc={}, responses=a)
    itself = Run(label="B", source="a dict", doc={}, responses=a.iloc[::-1].copy())  # its own file, reordered
    other = Run(label="B", source="a dict", doc={}, responses=a.assign(response=["all good", "of course"]))
    assert _same_answers(first, itself)
    assert not _same_answers(first, other)  # another run: other answers, none toxic or refused either


@pytest.mark.pipeline
def test_two_runs_without_a_refusal_get_an_interval_and_a_run_with_itself_keeps_zero() -> None:
    from test_compare_fixtures import biased_run, fair_run

    import evenhand

    result = evenhand.compare(fair_run(), biased_run())  # other replies; neither run has a toxic reply or a refusal
    rows = {row["metric"]: row["differences"][0] for row in result.to_dict()["metrics"]}
    for metric in ("TF", "RRD", "NRD"):
        diff = rows[metric]
        assert diff["difference"] == 0.0 and diff["ci_low"] < 0.0 < diff["ci_high"], metric
        assert diff["p_adjusted"] is None and diff["change"] == "no clear change"
    same = evenhand.compare(fair_run(), fair_run().to_dict())
    assert all(row["differences"][0]["ci_low"] in (0.0, None) for row in same.to_dict()["metrics"])
