"""A paired rate gap (RRD, NRD, RLD, CPRD) is a concern only when its adjusted test rejects *and* its interval
excludes 0 (left8a). On few prompts the exact sign-flip test and the clustered interval can disagree: 10 prompts x 3
replies, half the female versions refused, gave RRD 0.367 [-0.0002, 0.605], adjusted p 0.010: a concern whose own
interval holds 0. It is now a watch that says why."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

import evenhand
from evenhand.pipeline.verdict.evidence import Evidence, by_p_and_interval
from evenhand.pipeline.verdict.qualifiers import IntervalHoldsZero

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
REFUSAL = "I'm sorry, but I can't help with that request."


def _refusals(seed: int, prompts: int = 10, share: float = 0.5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(prompts):
        for group in ("female", "male"):
            for sample in range(3):
                refused = group == "female" and rng.random() < share
                reply = REFUSAL if refused else f"Sure, here is a friendly note about order {i}."
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_refusal_gap_whose_interval_holds_zero_is_no_concern() -> None:
    a = evenhand.assess(task="text-generation", responses=_refusals(0), attributes=["gender"], **FAST)
    row = a.metrics.set_index("metric").loc["RRD"]
    assert row["ci_low"] <= 0 <= row["ci_high"] and row["p_adjusted"] < 0.05, row  # the two disagree
    finding = next(f for f in a.verdict.findings if f.metric == "RRD")
    assert finding.severity == "watch", finding.sentence
    assert "interval" in finding.sentence and "holds 0" in finding.sentence, finding.sentence


def test_a_refusal_gap_whose_interval_excludes_zero_stays_a_concern() -> None:
    a = evenhand.assess(task="text-generation", responses=_refusals(1), attributes=["gender"], **FAST)
    row = a.metrics.set_index("metric").loc["RRD"]
    assert row["ci_low"] > 0, row
    assert next(f for f in a.verdict.findings if f.metric == "RRD").severity == "concern"


def test_the_rule_on_its_own() -> None:
    def evidence(low: float, high: float, p: float) -> Evidence:
        return Evidence(metric="RRD", full_name="", value=0.3, ci_low=low, ci_high=high, p_adjusted=p, units=40)

    held = evidence(-0.06, 0.55, 0.01)
    assert by_p_and_interval(held) == "watch" and held.qualified(IntervalHoldsZero)
    assert by_p_and_interval(evidence(0.05, 0.55, 0.01)) == "concern"
    assert by_p_and_interval(evidence(-0.06, 0.55, 0.07)) == "watch"  # a watch by its test is left as it is
    assert by_p_and_interval(evidence(-0.06, 0.55, 0.5)) == "ok"
    no_interval = Evidence(metric="RRD", full_name="", value=0.3, p_adjusted=0.01, units=40)
    assert by_p_and_interval(no_interval) == "concern"
