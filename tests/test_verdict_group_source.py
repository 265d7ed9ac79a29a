"""A group-rate finding names the real source of its groups (issue 37): a column of the user's table, the groups given
per person, the group words of each prompt, or personal names; a pair of versions says names only where names
signalled them."""

from __future__ import annotations

import pandas as pd
import pytest

import evenhand
from evenhand import metrics as M
from evenhand.pipeline.evidence.records import GIVEN_GROUPS, PROMPT_GROUPS, MetricRecord, pair
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.findings import _say_how_signalled

DP = M.demographic_parity_difference([1, 0, 1, 1], ["white", "white", "black", "black"])
RRD = M.refusal_rate_difference([1, 0], [0, 0])


def _said(key: str, result: object, source: str | None, signals: dict[str, str]) -> str:
    rec = MetricRecord(key, "race", pair("white", "black"), result)  # type: ignore[arg-type]
    rec.group_source = source
    e = Evidence(rec.name, rec.spec.full_name, 0.5, severity="watch", claim="a claim")
    _say_how_signalled(rec, e, signals)
    e.word()
    return e.sentence


@pytest.mark.parametrize(
    ("source", "signals", "words"),
    [
        ("the column 'applicant_race'", {"race": "names"}, "(groups: the column 'applicant_race')"),
        (GIVEN_GROUPS, {"race": "names"}, "(groups: each person's group as given (the group column))"),
        (PROMPT_GROUPS, {"race": "words"}, "(groups: the group words of each prompt)"),
        (PROMPT_GROUPS, {}, "(groups: the group words of each prompt)"),
        (PROMPT_GROUPS, {"race": "names"}, "(groups signalled by personal names)"),
        (PROMPT_GROUPS, {"race": "words and names"}, "(groups signalled by words and by personal names)"),
    ],
)
def test_a_group_rate_says_where_its_groups_come_from(source: str, signals: dict[str, str], words: str) -> None:
    said = _said("demographic_parity_difference", DP, source, signals)
    assert said.endswith(words), said
    assert said.count("(groups") == 1


def test_a_pair_of_versions_says_names_only_where_names_signalled_them() -> None:
    assert _said("refusal_rate_difference", RRD, None, {"race": "names"}).endswith(
        "(groups signalled by personal names)"
    )
    assert "groups" not in _said("refusal_rate_difference", RRD, None, {"race": "words"})
    # a record that does not know its source (built outside the classification family) says nothing of it
    rec_said = _said("demographic_parity_difference", DP, None, {"race": "names"})
    assert "groups" not in rec_said


def _table() -> pd.DataFrame:
    rows = [("female", "white", 1), ("female", "black", 0), ("male", "white", 1), ("male", "black", 1)] * 6
    return pd.DataFrame(
        {
            "prompt": [f"Applicant {i}: approve the loan? Answer yes or no." for i in range(len(rows))],
            "response": ["Yes." if pred else "No." for *_, pred in rows],
            "applicant_gender": [g for g, *_ in rows],
            "applicant_race": [r for _, r, _ in rows],
        }
    )


def test_findings_of_a_run_name_the_column_its_groups_came_from() -> None:
    table = _table()
    a = evenhand.assess(
        task="classification", responses=table, group_columns={"gender": "applicant_gender", "race": "applicant_race"},
        attributes=["gender", "race"], intersections=[["gender", "race"]], person_level=True,
        prevalence_parity=True, n_resamples=30, progress=False,
    )  # fmt: skip
    dp = {f.attribute: f.sentence for f in a.verdict.findings if f.metric == "DP"}
    assert dp["gender"].endswith("(groups: the column 'applicant_gender')"), dp
    assert dp["race"].endswith("(groups: the column 'applicant_race')"), dp
    assert dp["gender+race"].endswith("(groups: the column 'applicant_gender' and the column 'applicant_race')"), dp
    assert not any("personal names" in s for s in dp.values())


def test_findings_of_a_run_with_groups_given_per_prompt_say_so() -> None:
    prompts = [f"Applicant {i}: approve the loan? Answer yes or no." for i in range(20)]
    a = evenhand.assess(
        task="classification", prompts=prompts, client=lambda p: "Yes." if int(p.split()[1][:-1]) % 3 else "No.",
        groups=["female" if i % 2 else "male" for i in range(20)], attributes=["gender"], person_level=True,
        prevalence_parity=True, count=1, store=None, n_resamples=30, progress=False,
    )  # fmt: skip
    (dp,) = [f.sentence for f in a.verdict.findings if f.metric == "DP"]
    assert dp.endswith(f"(groups: {GIVEN_GROUPS})"), dp
