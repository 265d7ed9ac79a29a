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


def test_a_template_s_own_words_are_kept_in_every_version() -> None:
    """people14 item 4: a bystander the template names keeps their pronoun even where the filled person is of their
    group ("he will call him" of a man's fill: "he" is the manager's, the template says so). Before, the female
    version read "she will call her": the manager changed with the applicant. The versions of a fill are the template
    filled for another group, as :func:`~evenhand.text.fill_templates` writes them."""
    uc = _use_case(MANAGER)
    cf = counterfactual_prompts(uc.prompts, "gender", subject=uc.subjects)
    for k, fill in enumerate(uc.templates.fills):  # type: ignore[union-attr]
        for g in cf.groups:
            version = str(cf[g][k])
            assert "The manager Mr. John Smith" in version and "; he will call" in version, (fill, version)
            assert version.endswith(f"call {'her' if g == 'female' else 'him'}. Approve? Answer yes or no."), version


def test_a_template_s_own_words_are_kept_in_intersections_too() -> None:
    from evenhand.text import intersectional_prompts

    uc = UseCase(task="classification", attributes=["gender", "race"],
                 templates={"templates": [MANAGER], "names_per_group": 5})  # fmt: skip
    cf = intersectional_prompts(uc.prompts, ["gender", "race"], subject=uc.subjects)
    for k in range(len(cf)):
        for g in cf.groups:
            assert "The manager Mr. John Smith" in str(cf[g][k]) and "; he will call" in str(cf[g][k]), cf[g][k]


@pytest.mark.pipeline
def test_an_assessment_of_templates_sends_versions_that_keep_the_template_s_words() -> None:
    import evenhand

    def client(prompt: str, **_: object) -> str:
        return "yes"

    a = evenhand.assess(task="classification", attributes=["gender"], client=client, count=1, counterfactual_count=1,
                        templates={"templates": [MANAGER], "names_per_group": 4}, prevalence_parity=True,
                        label_parser={"approve": ["yes"], "deny": ["no"]}, positive_label="approve",
                        n_resamples=200, progress=False, store=None)  # fmt: skip
    versions = a.responses[a.responses["group"].notna()]
    assert len(versions) == 8 and versions["prompt"].str.contains("Mr. John Smith reviewed").all()
    assert versions["prompt"].str.contains("; he will call").all(), versions["prompt"].tolist()
    flagged = a.to_dict(include_responses=False)["names"]["attributes"]["gender"]["found"]
    assert not any("Smith" in name for name in flagged), flagged  # the manager is never the subject
