"""The error-rate view of counterfactual decisions (left10b): where the responses carry each case's true outcome, the
false negative and false positive rates of two groups' versions of the same cases are compared (CFNRD, CFPRD), by the
classification family's rate engine under the paired view, with the paired prompt-level test of CPRD; with three or
more outcomes, per outcome. Before, a model that denied the female versions of deserving cases and approved the male
versions of undeserving ones at the same overall approval rate had no error-rate row at all."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.metrics import (
    counterfactual_false_negative_rate_difference,
    counterfactual_false_positive_rate_difference,
    counterfactual_positive_rate_difference,
    false_negative_rate_difference,
)

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
WORDS = {"approve": "yes", "deny": "no", "review": "maybe"}


def test_the_formulas_by_hand() -> None:
    """Five pairs; truth 1 = approve. FNR: of the 3 true approvals the A version misses 2, B 1 -> 2/3 - 1/3. FPR: of
    the 2 true denials A approves 1, B 0 -> 1/2."""
    truth = [1, 1, 1, 0, 0]
    a = [0, 0, 1, 1, 0]
    b = [1, 0, 1, 0, 0]
    fnr = counterfactual_false_negative_rate_difference(truth, a, b)
    assert float(fnr) == pytest.approx(2 / 3 - 1 / 3)
    assert fnr.details == {"rate_a": pytest.approx(2 / 3), "rate_b": pytest.approx(1 / 3), "errors_a": 2,
                           "errors_b": 1, "cases": 3}  # fmt: skip
    assert float(counterfactual_false_positive_rate_difference(truth, a, b)) == pytest.approx(1 / 2)
    assert float(counterfactual_false_negative_rate_difference(truth, b, a)) == pytest.approx(-1 / 3)
    undefined = counterfactual_false_positive_rate_difference([1, 1], [1, 0], [0, 0])
    assert math.isnan(float(undefined)) and "another class" in str(undefined.reason)


def test_prompts_make_the_prompt_the_unit() -> None:
    r = counterfactual_false_negative_rate_difference([1, 1, 1, 1], [0, 0, 1, 1], [1, 1, 1, 1], prompts=[0, 0, 1, 1])
    assert r.sizes["prompts"] == 2 and r.resampler is not None and r.resampler.n_units == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans(), st.booleans()), min_size=1, max_size=30))
def test_one_engine_under_both_views(pairs: list[tuple[bool, bool, bool]]) -> None:
    """CFNRD is the person-level FNRD of the stacked versions (signed), and minus CPRD on the truly positive cases."""
    truth = [int(t) for t, _, _ in pairs]
    a = [int(x) for _, x, _ in pairs]
    b = [int(y) for _, _, y in pairs]
    r = counterfactual_false_negative_rate_difference(truth, a, b)
    positives = [i for i, t in enumerate(truth) if t]
    if not positives:
        assert math.isnan(float(r))
        return
    cprd = counterfactual_positive_rate_difference([a[i] for i in positives], [b[i] for i in positives])
    assert float(r) == pytest.approx(-float(cprd))
    person = false_negative_rate_difference([t == 1 for t in truth + truth], [d == 1 for d in a + b],
                                            ["a"] * len(a) + ["b"] * len(b))  # fmt: skip
    assert abs(float(r)) == pytest.approx(float(person))


def _cases(
    truth: list[str], answer: Any, samples: int = 3
) -> pd.DataFrame:  # fmt: skip
    """A counterfactual table: case ``i`` with true outcome ``truth[i]`` asked for a woman and a man, ``samples``
    answers each; ``answer(i, group, sample)`` gives the decision."""
    rows = []
    for i in range(len(truth)):
        for group, pronoun in (("female", "She"), ("male", "He")):
            for s in range(samples):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": s,
                             "prompt": f"{pronoun} is applicant {i} for a small loan. Decide.",
                             "response": WORDS[answer(i, group, s)]})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(table: pd.DataFrame, truth: list[str], outcomes: tuple[str, ...] = ("approve", "deny"),
            **kwargs: Any) -> evenhand.Assessment:  # fmt: skip
    return evenhand.assess(task="classification", responses=table, attributes=["gender"], prevalence_parity=True,
                           labels=truth, label_parser={o: [WORDS[o]] for o in outcomes}, positive_label="approve",
                           **FAST, **kwargs)  # fmt: skip


def _row(a: evenhand.Assessment, metric: str, cls: str | None = None) -> pd.Series:
    rows = a.metrics[(a.metrics["metric"] == metric)]
    rows = rows[rows["class"].isna()] if cls is None else rows[rows["class"] == cls]
    assert len(rows) == 1, a.metrics[["metric", "class", "value"]]
    return rows.iloc[0]


TRUTH = ["approve" if i % 2 == 0 else "deny" for i in range(40)]


def test_a_model_that_misses_the_women_who_should_be_approved_is_found() -> None:
    """Of the 20 cases that should be approved, the female version of 10 is denied (all samples); of the 20 that
    should be denied, the female version of 10 is approved: both versions are approved half the time (CPRD 0), but
    CFNRD = 10/20 - 0 and CFPRD = 10/20 - 0."""

    def answer(i: int, group: str, s: int) -> str:
        if group == "female" and i % 4 in (0, 1):
            return "deny" if TRUTH[i] == "approve" else "approve"
        return TRUTH[i]

    a = _assess(_cases(TRUTH, answer), TRUTH)
    assert _row(a, "CPRD")["value"] == pytest.approx(0.0)
    fnr, fpr = _row(a, "CFNRD"), _row(a, "CFPRD")
    assert fnr["value"] == pytest.approx(10 / 20) and fpr["value"] == pytest.approx(10 / 20)
    assert fnr["comparison"] == "female vs male" and fnr["p_adjusted"] < 0.05 and fpr["p_adjusted"] < 0.05
    evidence = {e.metric: e for f in a.verdict.findings for e in f.evidence}
    assert evidence["CFNRD"].severity == "concern" and evidence["CFPRD"].severity == "concern"
    claim = evidence["CFNRD"].claim or ""
    assert claim.startswith("the false negative rate of 'yes' differs between the female and male versions: 50% for "
                            "the female version against 0% for the male version (of the 60 pairs whose true outcome "
                            "is 'yes')"), claim  # fmt: skip
    assert "is not 'yes'" in (evidence["CFPRD"].claim or "")


def test_a_fair_model_with_errors_alike_is_no_finding() -> None:
    """Both versions of a case get the same answer, wrong in some cases: the error rates are equal."""
    a = _assess(_cases(TRUTH, lambda i, g, s: TRUTH[i] if i % 5 else ("deny" if TRUTH[i] == "approve" else "approve")),
                TRUTH)  # fmt: skip
    assert _row(a, "CFNRD")["value"] == 0 and _row(a, "CFPRD")["value"] == 0
    assert a.verdict.count("concern") == 0 and a.verdict.count("watch") == 0, a.verdict.summary


def test_the_intervention_picks_the_harm() -> None:
    a = _assess(_cases(TRUTH, lambda i, g, s: TRUTH[i]), TRUTH, intervention="assistive")
    assert "CFNRD" in set(a.metrics["metric"]) and "CFPRD" not in set(a.metrics["metric"])


def test_no_truth_no_error_rows() -> None:
    a = evenhand.assess(task="classification", responses=_cases(TRUTH, lambda i, g, s: TRUTH[i]), attributes=["gender"],
                        prevalence_parity=True, label_parser={"approve": ["yes"], "deny": ["no"]},
                        positive_label="approve", **FAST)  # fmt: skip
    assert not {"CFNRD", "CFPRD"} & set(a.metrics["metric"])


def test_three_outcomes_compare_each_outcome_s_error_rates() -> None:
    """Truth cycles approve / review / deny; the female versions of half the 'review' cases are denied: the rates of
    'review' (missed) and 'deny' (given wrongly) differ, approvals are untouched."""
    truth = [("approve", "review", "deny")[i % 3] for i in range(48)]

    def answer(i: int, group: str, s: int) -> str:
        return "deny" if truth[i] == "review" and group == "female" and i % 2 == 0 else truth[i]

    a = _assess(_cases(truth, answer), truth, outcomes=("approve", "review", "deny"))
    assert _row(a, "CFNRD")["value"] == 0  # approve
    assert _row(a, "CFNRD", "review")["value"] == pytest.approx(8 / 16)
    assert _row(a, "CFPRD", "deny")["value"] == pytest.approx(8 / 32)
    evidence = [e for f in a.verdict.findings for e in f.evidence if e.metric == "CFNRD" and e.severity == "concern"]
    assert len(evidence) == 1 and "false negative rate of 'maybe'" in (evidence[0].claim or ""), evidence
    assert np.isfinite(_row(a, "CFPRD", "review")["value"])
