"""RLD (relative answer length difference) is judged by its paired prompt-level test alone (rld16).

Its interval covers the truth only 63.5-96.5% of the time in the coverage benchmark's cells (review11; stats14 item 2:
no bound both covers and keeps power), while its paired sign-flip test keeps its false-concern rate. So RLD's
concern / watch rests on the adjusted p, and the interval is shown as a description that may undercover, said in the
finding. The paired rate gaps (RRD, NRD, CPRD), whose intervals cover, still need their interval to exclude 0."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

import evenhand
from evenhand.pipeline.verdict.evidence import Evidence, by_p_and_interval
from evenhand.pipeline.verdict.qualifiers import IntervalHoldsZero, IntervalMayUndercover
from evenhand.registry import METRICS

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}


def _evidence(low: float, high: float, p: float) -> Evidence:
    return Evidence(metric="RLD", full_name="", value=0.2, ci_low=low, ci_high=high, p_adjusted=p, units=40)


def test_a_length_gap_is_judged_by_its_test_with_its_interval_a_description() -> None:
    held = _evidence(-0.02, 0.4, 0.01)  # the test rejects, the interval holds 0
    assert by_p_and_interval(held, interval_covers=False) == "concern"
    assert held.qualified(IntervalMayUndercover) and not held.qualified(IntervalHoldsZero)
    quiet = _evidence(-0.02, 0.4, 0.5)
    assert by_p_and_interval(quiet, interval_covers=False) == "ok"
    assert quiet.qualified(IntervalMayUndercover)  # said beside every judged gap, not only a concern
    assert by_p_and_interval(_evidence(0.05, 0.4, 0.07), interval_covers=False) == "watch"
    few = Evidence(metric="RLD", full_name="", value=0.2, ci_low=0.1, ci_high=0.3, p_adjusted=0.01, units=5)
    assert by_p_and_interval(few, interval_covers=False) == "watch"  # too few prompts still demote
    held.word()
    assert "may undercover" in held.sentence and "paired test" in held.sentence, held.sentence


def test_the_rate_gaps_still_need_their_interval() -> None:
    held = _evidence(-0.02, 0.4, 0.01)
    assert by_p_and_interval(held) == "watch" and held.qualified(IntervalHoldsZero)


def test_the_registry_says_whose_interval_may_undercover() -> None:
    assert METRICS["relative_length_difference"].interval_covers is False
    for key in ("refusal_rate_difference", "non_completion_rate_difference"):
        assert METRICS[key].interval_covers is True


def _lengths(seed: int, prompts: int = 20, longer: float = 0.3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(prompts):
        base = int(rng.integers(20, 60))
        for group in ("female", "male"):
            for sample in range(3):
                n = round((base + int(rng.poisson(2))) * (1 + longer if group == "male" else 1.0))
                reply = " ".join(["word"] * n)
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_run_says_the_length_interval_may_undercover() -> None:
    a = evenhand.assess(task="text-generation", responses=_lengths(0), attributes=["gender"], **FAST)
    finding = next(f for f in a.verdict.findings if f.metric == "RLD")
    assert finding.severity == "concern", finding.sentence
    assert "may undercover" in finding.sentence, finding.sentence
    rules = a.verdict.to_dict()["rules"]
    assert any("RLD" in rule and "may undercover" in rule for rule in rules), rules
