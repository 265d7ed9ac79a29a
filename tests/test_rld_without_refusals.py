"""One behaviour, one finding (rld18): a model that refuses one group more and otherwise answers both groups at the
same length is judged by refusal parity (RRD) alone. Answer length (RLD) is measured over the pairs where neither
reply is a refusal (the run's refusal detector at its threshold) and says how many pairs it left out; before, a
refusal counted as a short answer and the same behaviour gave a second, length finding."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand.pipeline.verdict.kinds.refusal_length import LENGTH
from evenhand.registry import METRICS
from tests._stored_runs import StoredFrame

sys.path.insert(0, str(Path(__file__).parent))
from test_parity_planted import FAST, REFUSE, stand_in

pytestmark = pytest.mark.pipeline  # whole assessments, about half a second or more each

RLD = "relative_length_difference"


def _row(a: evenhand.Assessment, key: str) -> pd.Series:
    rows = a.metrics[(a.metrics["key"] == key) & (a.metrics["attribute"] == "gender")]
    assert len(rows) == 1
    return rows.iloc[0]


def _severity(a: evenhand.Assessment, risk: str) -> str:
    found = [f for f in a.verdict.findings if f.risk == risk and f.attribute == "gender"]
    assert len(found) == 1, [(f.risk, f.groups) for f in a.verdict.findings]
    return str(found[0].severity)


def test_refusing_one_group_more_is_a_refusal_finding_not_a_length_finding_too() -> None:
    a = evenhand.assess(**stand_in(40, refused="female"), **FAST)
    assert _severity(a, "refusal") == "concern"
    assert _severity(a, "quality_of_service") not in ("concern", "watch")
    row = _row(a, RLD)
    assert abs(float(row["value"])) < 0.1, row["value"]
    assert re.search(r"left out \d+ of 200 pairs with a refusal on either side", str(row["reason"])), row["reason"]
    worst = a.to_dict(include_responses=False)["worst_examples"]["length_gap"]
    assert worst and all(REFUSE not in (w["response_a"], w["response_b"]) for w in worst)  # the refusals are RRD's


def test_a_length_gap_beside_refusals_is_still_found() -> None:
    a = evenhand.assess(**stand_in(40, refused="female", shorter="female"), **FAST)
    assert _severity(a, "quality_of_service") == "concern"
    assert -0.4 < float(_row(a, RLD)["value"]) < -0.2


def test_too_few_answered_pairs_leave_answer_length_undefined_with_the_reason() -> None:
    data = stand_in(20, refused="female", share=1.0)
    replies = data["counterfactual_responses"]["gender"]
    replies["female"] = [REFUSE] * len(replies["female"])
    a = evenhand.assess(**data, **FAST)
    row = _row(a, RLD)
    assert math.isnan(float(row["value"]))
    assert "refusal" in str(row["reason"]), row["reason"]


def test_compare_rebuilds_answer_length_over_the_same_pairs() -> None:
    """compare's RLD leaves out the stored pairs with a refusal (the stored refusal scores at the run's threshold)."""
    rows = []
    for i in range(30):
        for group in ("female", "male"):
            refused = group == "female" and i < 10
            rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": 0, "status": "ok",
                         "prompt": f"Help {group} {i}.", "response": REFUSE if refused else "an answer " * 10,
                         "refusal": 1.0 if refused else 0.0, "words": 6.0 if refused else 20.0})  # fmt: skip
    row = {"key": RLD, "metric": "RLD", "attribute": "gender", "groups": ["female", "male"]}
    table = LENGTH.stored_items(StoredFrame(pd.DataFrame(rows)), row, METRICS[RLD])
    assert isinstance(table, pd.DataFrame)
    assert len(table) == 20 and np.array_equal(table["a"].to_numpy(), table["b"].to_numpy())
    assert float(LENGTH.recompute(StoredFrame(pd.DataFrame(rows)), row, METRICS[RLD], table)) == pytest.approx(0.0)
