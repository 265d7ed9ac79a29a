"""Bystanders' titles and pronouns in counterfactual versions (left10b): where a prompt names its subject, only the
subject's gendered words change; a bystander named beside them ("Mr. John Smith (the loan officer) said he ...")
keeps their title and pronouns. Before, the officer became "Mrs. John Smith ... she" in the female version: two
people changed where only the applicant's group was meant to."""

from __future__ import annotations

import pytest

from evenhand.text import counterfactual_prompts
from evenhand.text.bystanders import BystanderMask

OFFICER = "Emily Baker applied for a loan. Mr. John Smith (the loan officer) said he would review her file."


def _versions(prompt: str, **kwargs: object) -> tuple[str, str]:
    cf = counterfactual_prompts([prompt], attribute="gender", **kwargs)  # type: ignore[arg-type]
    return cf["female"][0], cf["male"][0]


def test_the_officer_keeps_his_title_and_pronoun_while_the_applicant_changes() -> None:
    female, male = _versions(OFFICER)
    for version in (female, male):
        assert "Mr. John Smith (the loan officer) said he would review" in version, version
    assert female.endswith("review her file.") and male.endswith("review his file."), (female, male)
    assert "Emily" not in male  # the applicant is renamed


def test_a_bystander_of_the_other_group_keeps_the_words_of_that_group() -> None:
    female, male = _versions("Emily Baker applied; her brother, Mr. James Baker, said he would co-sign.")
    assert female.endswith("applied; her brother, Mr. James Baker, said he would co-sign."), female
    assert male.endswith("applied; his brother, Mr. James Baker, said he would co-sign."), male  # "his", not "him"


def test_a_bystander_of_the_subject_s_group_keeps_the_title_and_the_rest_changes_as_before() -> None:
    """"she" could be either woman's: as before, it changes; the title before the sister's name is hers."""
    _, male = _versions("Emily Baker applied; her sister, Mrs. Anna Baker, said she would co-sign.")
    assert "Mrs. Anna Baker" in male and "his brother" in male and "said he would" in male, male


def test_a_subject_named_after_the_bystander_by_a_subject_column() -> None:
    prompt = "Mr. John Smith (the loan officer) said he would review the file of Emily Baker; her income is stable."
    female, male = _versions(prompt, subject=["Emily Baker"])
    assert male.startswith("Mr. John Smith (the loan officer) said he would review the file of "), male
    assert male.endswith(" Baker; his income is stable.") and "Emily" not in male, male
    assert female.endswith(" Baker; her income is stable."), female


@pytest.mark.parametrize(
    "prompt",
    ["Write to Emily Baker about her loan.", "He said his son saw him.", "Mr. Lee asked whether his wife could join."],
)
def test_prompts_without_a_bystander_change_as_before(prompt: str) -> None:
    assert _versions(prompt) == _versions(prompt, subject="every")


def test_every_person_swapped_or_words_only_keeps_today_s_behaviour() -> None:
    """``subject="every"`` swaps everyone; ``names=False`` (the word-only path, LangFair's) every gendered word."""
    _, male_every = _versions(OFFICER, subject="every")
    assert "his file" in male_every
    female, _ = _versions(OFFICER, names=False)
    assert female == ("Emily Baker applied for a loan. Mrs. John Smith (the loan officer) said she would review her "
                      "file.")


def test_the_names_drawn_do_not_depend_on_the_masking() -> None:
    """The replacement name is drawn from the prompt as written (main drew "Ronald Baker" for this prompt and seed,
    before bystanders were kept): masking the officer's words leaves the draw as it was."""
    cf = counterfactual_prompts([OFFICER], attribute="gender")
    assert dict(cf.names[0]["male"]) == {"Emily Baker": "Ronald Baker"}
    assert cf["male"][0].startswith("Ronald Baker applied")


def test_the_mask_restores_every_word_in_order() -> None:
    text = "Mr. Smith said he saw Mrs. Jones."
    mask = BystanderMask([text], [[(0, 3), (15, 17), (22, 26)]])
    assert mask.texts[0] != text and len(mask.texts[0]) == len(text)
    assert mask.restore(mask.texts) == [text]


def test_intersections_keep_the_bystander_s_words_as_single_attributes_do() -> None:
    """people14 item 2: an intersection (gender x race) changed every word, the officer's title and "he" too."""
    from evenhand.text import intersectional_prompts

    cf = intersectional_prompts([OFFICER], ["gender", "race"])
    for group in cf.groups:
        version = str(cf[group][0])
        assert "Mr. John Smith (the loan officer) said he would review" in version, (group, version)
        assert version.endswith("review his file." if group.startswith("male") else "review her file."), version
        assert "Emily Baker" not in version, version  # the applicant is renamed
    # the names drawn do not depend on the masking (main drew these for this prompt and seed)
    assert dict(cf.names[0]["male+black"]) == {"Emily Baker": "Tyrese Mensah"}
    assert dict(cf.names[0]["female+asian"]) == {"Emily Baker": "Rashmi Cheng"}
