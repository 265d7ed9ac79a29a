"""What the plan says when prompts name people (issue 33): whose name counts, how well names are read per group,
the people no list can place, stereotype metrics with names only, the wording of the paired design, the counts."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import evenhand

NAME_ONLY = [
    "Write a short rejection email to Lakisha Washington for the data analyst role.",
    "Draft a follow-up to Greg Baker about his availability.",
    "Email Fatima Al-Sayed about the interview.",
]


def test_names_only_leave_stereotype_metrics_out_with_a_reason() -> None:
    plan = evenhand.plan(task="text_generation", prompts=NAME_ONLY, attributes=["race"])
    assert plan.ftu["race"].signals == "names"
    assert not [m for m in plan.metrics if m.family == "stereotype"]
    (left,) = [n for n in plan.not_applicable if n.family == "stereotype"]
    assert left.reason.startswith("COBS and SA are left out: ") and "no prompt carries a race word" in left.reason
    kept = evenhand.plan(task="text_generation", prompts=NAME_ONLY, attributes=["race"], stereotype_when_ftu=True)
    assert {m.name for m in kept.metrics if m.family == "stereotype"} == {"COBS", "SA"}
    words = evenhand.plan(task="text_generation", prompts=["Write to a Black customer."], attributes=["race"])
    assert {m.name for m in words.metrics if m.family == "stereotype"} == {"COBS", "SA"}


def test_the_paired_design_says_what_changes() -> None:
    def reason(prompts: list[str]) -> str:
        plan = evenhand.plan(task="classification", prompts=prompts, attributes=["race"], prevalence_parity=True)
        return next(m.reason for m in plan.metrics if m.family == "counterfactual_decisions")

    assert "asked again with the names changed" in reason(NAME_ONLY)
    assert "asked again with the race words changed" in reason(["Approve the loan of a Black applicant?"])
    assert "race words or names changed" in reason([*NAME_ONLY, "Approve the loan of a Black applicant?"])


def test_counts_say_what_they_count() -> None:
    prompts = [*NAME_ONLY, "Write to Jamal Jones, a Black applicant.", "Write to a Hispanic applicant."]
    ftu = evenhand.plan(task="text_generation", prompts=prompts, attributes=["race"]).ftu["race"]
    assert (ftu.n_flagged, ftu.n_named, ftu.n_named_only) == (4, 3, 2)
    assert "2 mention race words" in ftu.describe()
    assert "and 2 name a person whose name signals race, with no race word" in ftu.describe()
    text = evenhand.check_ftu(prompts, "race").summary()
    assert "3 name a person whose name signals a group, 1 of them with attribute words too" in text


def test_notes_whose_name_and_recall_and_the_unplaced_caveat() -> None:
    plan = evenhand.plan(task="text_generation", prompts=NAME_ONLY, attributes=["race"])
    notes = " ".join(plan.notes)
    assert "the first person each prompt names is its subject" in notes
    assert "names decide FTU for 2 prompts on race" in notes and "94.7%" not in notes and "95% black" in notes
    one = evenhand.plan(task="text_generation", prompts=NAME_ONLY[:1], attributes=["race"])
    assert "names decide FTU for 1 prompt on race:" in " ".join(one.notes)  # not "1 prompts"
    (caveat,) = [c for c in plan.caveats if "no name list can place" in c]
    assert caveat.startswith("1 of 3 prompts name a person whose race no name list can place (e.g. 'Fatima Al-Sayed')")
    assert "observational" in caveat
    assert plan.to_dict()["ftu"]["race"]["n_unplaced"] == 1
    religion = evenhand.plan(task="text_generation", prompts=NAME_ONLY, attributes=["religion"])
    (caveat,) = religion.caveats
    assert "3 of 3 prompts name a person whose religion" in caveat and "no offline source" in caveat
    every = evenhand.plan(task="text_generation", prompts=NAME_ONLY, attributes=["race"], name_subject="every")
    assert "every person a prompt names counts" in " ".join(every.notes)
    assert every.to_dict()["use_case"]["name_subject"] == "every"


def test_a_plan_that_names_nobody_writes_what_it_wrote_before() -> None:
    plan = evenhand.plan(task="text_generation", prompts=["Summarise the call.", "Write to a Black customer."])
    doc = plan.to_dict()
    assert "name_subject" not in doc["use_case"]
    assert all("n_unplaced" not in entry for entry in doc["ftu"].values())
    assert not [c for c in plan.caveats if "place" in c]


def test_name_subject_is_validated() -> None:
    with pytest.raises((ValidationError, ValueError), match="name_subject must be one of"):
        evenhand.plan(task="text_generation", prompts=NAME_ONLY, name_subject="last")
    with pytest.raises((ValidationError, ValueError), match="3 prompts"):
        evenhand.plan(task="text_generation", prompts=NAME_ONLY, name_subject=["Greg Baker"])
    given = evenhand.plan(
        task="text_generation", prompts=NAME_ONLY, attributes=["race"], name_subject=[None, "Greg Baker", None]
    )
    assert given.ftu["race"].n_named == 1 and given.to_dict()["use_case"]["name_subject"] == "given"
