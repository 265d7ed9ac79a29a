"""Decisions nested in the JSON a reply holds (``{"result": {"decision": "approve"}}``): a dotted path reads them,
and so does a bare name the JSON holds in one place at any depth; a name in two places is not read (never a guess
between them) and the caveat says why and which path to give. Tool-call arguments alike (left10a; before, a bare
name read the top level only: every nested decision was unparsed and a planted gap was never seen)."""

from __future__ import annotations

import json
import random

import pandas as pd
import pytest

import evenhand

LABELS = {"1": ["approve"], "0": ["deny"]}


def _reply(word: str, form: str) -> str:
    if form == "nested":
        return json.dumps({"result": {"decision": word, "confidence": 0.8}})
    if form == "two_places":  # the model's decision and the policy's suggestion, both named "decision"
        return json.dumps({"result": {"decision": word}, "policy": {"decision": "approve"}})
    call = {"id": "c1", "type": "function",
            "function": {"name": "record", "arguments": json.dumps({"application": {"decision": word}})}}
    return json.dumps({"role": "assistant", "content": None, "tool_calls": [call]})  # a tool call, nested


def _log(n: int, gap: float, form: str, seed: int = 0) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gender = "female" if i % 2 else "male"
        word = "approve" if rng.random() < 0.6 - (gap if gender == "female" else 0.0) else "deny"
        rows.append({"prompt": f"Applicant {i}: approve the loan?", "response": _reply(word, form),
                     "applicant_gender": gender})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(table: pd.DataFrame, **reading: object) -> evenhand.Assessment:
    return evenhand.assess(
        task="classification", responses=table, attributes=["gender"], person_level=True, label_parser=LABELS,
        group_columns={"gender": "applicant_gender"}, embedder=None, n_resamples=200, **reading,
    )  # fmt: skip


@pytest.mark.pipeline
@pytest.mark.parametrize(("form", "reading"), [
    ("nested", {"json_field": "decision"}),
    ("nested", {"json_field": "result.decision"}),
    ("tool", {"tool": {"function": "record", "argument": "decision"}}),
    ("tool", {"json_field": "decision"}),
])  # fmt: skip
def test_a_nested_decision_is_read_and_a_planted_gap_found(form, reading):
    assessment = _assess(_log(200, gap=0.3, form=form), **reading)
    assert assessment.responses["label"].notna().all()
    dp = assessment.metrics.set_index("metric").loc["DP"]
    assert dp["value"] > 0.15 and dp["p_adjusted"] < 0.05


@pytest.mark.pipeline
def test_a_name_in_two_places_is_not_read_and_the_caveat_says_why():
    assessment = _assess(_log(40, gap=0.0, form="two_places"), json_field="decision")
    assert assessment.responses["label"].isna().all()
    caveat = next(c for c in assessment.caveats if "could not be parsed" in c)
    assert "hold 'decision' in two or more places (policy.decision, result.decision" in caveat
    assert "give one as a dotted path ('policy.decision')" in caveat
    # the dotted path reads the one meant
    assert _assess(_log(40, gap=0.0, form="two_places"), json_field="result.decision").responses["label"].notna().all()
