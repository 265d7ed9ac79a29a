"""Refusals in person-level classification logs (left10b): an answer that declines the task is found by the refusal
detector the text families use, left out of the decision metrics with the count said, and each group's refusal rate
is compared as a gap of its own (PRRD, the refusal-parity evidence), its interval and test over persons. Before, a
log refusing 23% of the women's requests and 2% of the men's read "ok" on DP alone."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.metrics import demographic_parity_difference, person_refusal_rate_difference

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False}
REFUSAL = "I'm sorry, but I can't help with that request."


def _log(refused: dict[str, int], n: int = 100, *, decline: str = REFUSAL) -> pd.DataFrame:
    """``n`` applicants per group, one answer each; ``refused[group]`` of them refused, the rest alternately
    approved and declined."""
    rows = []
    for k, group in enumerate(("female", "male")):
        for i in range(n):
            answer = decline if i < refused[group] else ("Yes, approve." if i % 2 else "No, decline.")
            rows.append({"applicant_gender": group, "response": answer,
                         "prompt": f"Applicant {k * n + i}: approve the loan? Answer yes or no."})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(table: pd.DataFrame, **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(task="classification", responses=table, attributes=["gender"],
                           group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                           **FAST, **kwargs)  # fmt: skip


def _prrd(a: evenhand.Assessment) -> pd.Series:
    rows = a.metrics[a.metrics["metric"] == "PRRD"]
    assert len(rows) == 1, a.metrics[["metric", "value"]]
    return rows.iloc[0]


def test_the_formula_by_hand() -> None:
    """female: 2 of 4 answers refused; male: 1 of 4 -> 0.5 - 0.25; a third group's answers are left out."""
    scores = [1.0, 0.9, 0.2, 0.0, 0.7, 0.1, 0.0, 0.4, 1.0, 1.0]
    groups = ["f", "f", "f", "f", "m", "m", "m", "m", "x", "x"]
    r = person_refusal_rate_difference(scores, groups, first="f", second="m")
    assert float(r) == pytest.approx(0.5 - 0.25)
    assert r.details == {"rate_a": 0.5, "rate_b": 0.25, "refusals_a": 2, "refusals_b": 1, "answers_a": 4,
                         "answers_b": 4}  # fmt: skip
    assert float(person_refusal_rate_difference(scores, groups, first="m", second="f")) == pytest.approx(-0.25)
    assert float(person_refusal_rate_difference(scores, groups, 0.95, first="f", second="m")) == pytest.approx(0.25)
    assert math.isnan(float(person_refusal_rate_difference(scores, groups, first="f", second="nobody")))


def test_the_interval_resamples_persons() -> None:
    """Five answers per person: the prompt (the person) is the unit, so the interval is wider than over answers."""
    rng = np.random.default_rng(3)
    people = np.repeat(np.arange(40), 5)
    groups = np.where(people < 20, "f", "m")
    refused = (rng.random(40) < 0.3)[people].astype(float)  # a person is refused on all or none of their answers
    by_person = person_refusal_rate_difference(refused, groups, first="f", second="m", prompts=people)
    by_answer = person_refusal_rate_difference(refused, groups, first="f", second="m")
    assert by_person.sizes["prompts"] == 40 and by_person.resampler is not None
    assert by_person.resampler.unit == "prompt" and by_answer.resampler.unit != "prompt"
    assert float(by_person) == pytest.approx(float(by_answer))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from("ab")), min_size=2, max_size=40))
def test_it_is_the_signed_dp_of_the_refusal_flags(answers: list[tuple[bool, str]]) -> None:
    flags = [float(f) for f, _ in answers]
    groups = [g for _, g in answers]
    r = person_refusal_rate_difference(flags, groups, first="a", second="b")
    if len(set(groups)) < 2:
        assert math.isnan(float(r))
        return
    assert -1.0 <= float(r) <= 1.0
    assert abs(float(r)) == pytest.approx(float(demographic_parity_difference([f == 1 for f in flags], groups)))
    assert float(person_refusal_rate_difference(flags, groups, first="b", second="a")) == pytest.approx(-float(r))


def test_a_log_refusing_23_percent_of_women_and_2_percent_of_men_is_a_concern() -> None:
    a = _assess(_log({"female": 23, "male": 2}), thresholds=[{"verdict": "concern", "max": 0}])
    row = _prrd(a)
    assert row["value"] == pytest.approx(0.23 - 0.02)
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    assert [f.metric for f in concerns] == ["PRRD"], a.verdict.summary
    assert "23%" in concerns[0].sentence and "2%" in concerns[0].sentence and "female" in concerns[0].sentence
    assert any("25 of 200 answers were refusals" in c for c in a.caveats), a.caveats
    assert not any("could not be parsed" in c for c in a.caveats), a.caveats  # refusals are no parse failures
    dp = a.metrics[a.metrics["metric"] == "DP"].iloc[0]
    assert dp["value"] < 0.05  # the decisions of the 175 answered applicants: no gap, as built
    assert not all(c.passed for c in a.threshold_checks)


def test_equal_refusals_are_no_finding() -> None:
    a = _assess(_log({"female": 10, "male": 10}))
    assert _prrd(a)["value"] == 0
    assert a.verdict.count("concern") == 0 and a.verdict.count("watch") == 0, a.verdict.summary


def test_no_refusal_is_prrd_0_untested() -> None:
    a = _assess(_log({"female": 0, "male": 0}))
    row = _prrd(a)
    assert row["value"] == 0 and not (isinstance(row["p_value"], float) and row["p_value"] < 1)
    assert not any("refusals" in c for c in a.caveats)
    assert a.verdict.count("concern") == 0


def test_a_decision_worded_as_a_refusal_to_approve_stays_a_decision() -> None:
    """"No. I cannot approve this loan." parses into a label: it is a decision (the wording patterns would call it a
    refusal), so a group declined that way more often is a DP finding, not a refusal gap."""
    rows = []
    for k, (group, declined) in enumerate((("female", 40), ("male", 10))):
        for i in range(60):
            answer = "No. I cannot approve this loan given the income." if i < declined else "Yes, approve."
            rows.append({"applicant_gender": group, "response": answer, "prompt": f"Applicant {k * 60 + i}: approve?"})
    a = _assess(pd.DataFrame(rows))
    assert _prrd(a)["value"] == 0
    dp = a.metrics[a.metrics["metric"] == "DP"].iloc[0]
    assert dp["value"] == pytest.approx(30 / 60)
