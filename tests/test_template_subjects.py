"""The subject of a prompt filled from a template (people14, item 1): the person the template's placeholder stands
for, not the first person the prompt names. "The manager Mr. John Smith reviewed the loan of {name}; he will call
{them}." filled with "Tamia Mickens" used to make the manager the subject: his name and title changed in every
version ("Mrs. Margaret Smith ... she") and the applicant, the person the audit is about, was a bystander kept as
written."""

from __future__ import annotations

import pytest

from evenhand.framework import UseCase
from evenhand.text import check_ftu, counterfactual_prompts

MANAGER = "The manager Mr. John Smith reviewed the loan of {name}; he will call {them}. Approve? Answer yes or no."


def _use_case(template: str, **fields: object) -> UseCase:
    return UseCase(task="classification", attributes=["gender"],
                   templates={"templates": [template], "names_per_group": 2}, **fields)  # type: ignore[arg-type]  # fmt: skip


@pytest.mark.parametrize(
    "template",
    [
        MANAGER,
        "The manager Mr. John Smith wrote to {first_name} about {their} loan; he will call {them}.",
        "The manager Mr. John Smith reviewed the loan of {title} {last_name}; he will call {them}.",
    ],
)
def test_the_placeholder_s_person_is_the_subject_of_a_filled_template(template: str) -> None:
    uc = _use_case(template)
    fills = uc.templates.fills  # type: ignore[union-attr]
    cf = counterfactual_prompts(uc.prompts, "gender", subject=uc.name_subject)
    assert len(cf) == len(uc.prompts) == 2
    for k, fill in enumerate(fills):
        other = next(g for g in cf.groups if g != fill["group"])
        for g in cf.groups:
            version = str(cf[g][k])
            assert "The manager Mr. John Smith" in version, version  # the manager keeps his title and name
            if fill["group"] == "female":  # a woman's fill: "he" is the manager's
                assert "; he will call" in version, version
        renamed = str(cf[other][k])
        if "{last_name}" in template:  # gender has no surnames: the applicant's title changes
            title = "Mr." if other == "male" else ("Ms.", "Mrs.")
            assert renamed.split(" of ")[1].startswith(title), renamed
        else:
            assert fill["name"].split()[0] not in renamed, (fill, renamed)  # the applicant is renamed


def test_only_the_placeholder_s_person_decides_ftu() -> None:
    uc = _use_case("Mr. John Smith reviewed the loan of Ms. {last_name}.")
    names = check_ftu(uc.prompts, "race", subject=uc.name_subject).names
    assert all(found for found in names)  # each fill's person is read for race
    assert not any("Smith" in m.name for found in names for m in found), names  # the manager is a bystander


def test_every_still_swaps_everyone_and_a_copy_keeps_the_subjects() -> None:
    every = _use_case(MANAGER, name_subject="every")
    assert every.name_subject == "every"
    uc = _use_case(MANAGER)
    assert uc.name_subject == [f["name"] for f in uc.templates.fills]  # type: ignore[union-attr]
    assert UseCase.model_validate(uc.model_dump()) == uc


def test_the_plan_says_whose_name_counts_in_a_filled_template() -> None:
    import evenhand

    plan = evenhand.plan(task="classification", attributes=["gender"], templates=[MANAGER])
    assert any("placeholder ({name}) stands for" in n for n in plan.notes), plan.notes
    assert plan.to_dict()["use_case"]["name_subject"] == "given"
