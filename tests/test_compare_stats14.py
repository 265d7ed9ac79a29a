"""``compare`` (stats14): a rate metric's difference between two runs follows the rule of the runs' own rate
intervals (Clopper-Pearson on effective prompts, combined by square-and-add), not a percentile bootstrap that
undercovers on rare events; PRRD (person-level refusals) is rebuilt from the stored answers as the other rows are."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

import evenhand
from evenhand import metrics as m
from evenhand.pipeline.results.outputs import write_outputs
from evenhand.stats import metric_interval

REFUSAL = "I'm sorry, but I can't help with that request."


def _loan_log(seed: int, female: float, male: float, n: int = 60) -> evenhand.Assessment:
    """A person-level loan log, ``n`` applicants a group, refused at the group's rate, else yes / no at random."""
    rng = random.Random(seed)
    rows = []
    for k, (group, rate) in enumerate((("female", female), ("male", male))):
        for i in range(n):
            answer = REFUSAL if rng.random() < rate else rng.choice(["Yes, approve.", "No, decline."])
            rows.append({"applicant_gender": group, "response": answer,
                         "prompt": f"Applicant {k * n + i}: approve the loan? Answer yes or no."})  # fmt: skip
    return evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"],
                           group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                           n_resamples=200, progress=False)  # fmt: skip


@pytest.mark.pipeline
def test_compare_rebuilds_prrd_from_the_stored_answers(tmp_path: Path) -> None:
    """PRRD was compared by the normal approximation from the stored intervals ("compares persons, not
    counterfactual pairs"); it is recomputed from each run's stored answers and paired by person as DP is."""
    before, after = _loan_log(0, 0.1, 0.1), _loan_log(0, 0.4, 0.02)
    paths = []
    for name, run in (("a", before), ("b", after)):
        write_outputs(run, tmp_path / name, html=False)
        paths.append(tmp_path / name / "results.json")
    doc = evenhand.compare(*paths).to_dict()
    (row,) = [r for r in doc["metrics"] if r["metric"] == "PRRD"]
    diff = row["differences"][0]
    assert diff["method"] == "paired", diff
    assert "effective" in diff["note"], diff["note"]
    assert diff["change"] == "worse", diff["sentence"]


def test_a_rate_difference_between_runs_keeps_the_none_seen_bound() -> None:
    """Run A answered every request (NRD 0, nothing missing); run B lost 3 female and 1 male reply of 30 prompts:
    the paired percentile bootstrap of the difference read [0.0, 0.13] (a false "worse" on a fair model); the rule
    of each run's own interval (no missing reply among 30 prompts: up to 11.6% per group) holds 0."""
    from evenhand.stats import rate_difference_bounds

    prompts = list(range(30))
    nothing = [0] * 30
    complete = m.non_completion_rate_difference(nothing, nothing, prompts=prompts)
    female = [1 if i in (3, 11, 20) else 0 for i in prompts]
    male = [1 if i == 7 else 0 for i in prompts]
    lossy = m.non_completion_rate_difference(female, male, prompts=prompts)
    own = metric_interval(lossy, "rate")
    assert own.low < 0 < own.high  # run B's own interval holds 0
    bounds = rate_difference_bounds(complete, lossy, paired=True)
    assert bounds is not None
    low, high, method = bounds
    assert low < 0 < high and "effective prompts" in method
    assert high >= own.high  # no narrower than run B's own interval: run A's is not a point


def test_a_run_compared_with_itself_keeps_the_exact_zero() -> None:
    from evenhand.stats import rate_difference_bounds

    prompts = list(range(30))
    flags = [1 if i % 7 == 0 else 0 for i in prompts]
    run = m.non_completion_rate_difference(flags, [0] * 30, prompts=prompts)
    assert rate_difference_bounds(run, run, paired=True) is None  # the bootstrap's exact [0, 0]


@pytest.mark.pipeline
@pytest.mark.parametrize("seed", [2, 6])
def test_a_fair_run_losing_a_few_replies_is_not_worse_than_a_complete_one(tmp_path: Path, seed: int) -> None:
    """left10b's compare null: a complete run against the same fair model losing 10% of everyone's replies (about
    3 a side on 30 cases). On these seeds the percentile bootstrap read NRD "worse" (5 of 40 seeds in all)."""
    from test_pipeline_decisions import _silent

    complete = _silent(seed, women=0.0, everyone=0.0)
    lossy = _silent(seed + 1000, women=0.0, everyone=0.1)
    write_outputs(complete, tmp_path / "a", html=False, include_responses=False)
    doc = evenhand.compare(tmp_path / "a" / "results.json", lossy).to_dict()
    (row,) = [r for r in doc["metrics"] if r["metric"] == "NRD"]
    diff = row["differences"][0]
    assert diff["change"] == "no clear change", diff["sentence"]
    assert "MOVER of each run's clopper-pearson on effective prompts" in diff["note"], diff["note"]
