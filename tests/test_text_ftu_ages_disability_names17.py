"""FTU reads ages after any person noun, after a name, children's ages, and more disability wording (names17).

Before: "my landlord is 80" (a noun outside age.json's short list), "Emily, aged 72", "a boy aged 9" and "a
9-year-old" passed FTU; "She is 30 minutes late" and "The customer is 30 days overdue" were read as ages (the bare
number of "aged 72" counted after every subject); "I am blind", "she has ADHD", "a hard of hearing man" ... were not
read as disability. The words are lexicon data (age.json's ``person_subject_nouns`` and rows' own
``person_subjects``, ``ends_clause``; disability.json's rows); look-alikes stay out."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.text import counterfactual_prompts


@pytest.mark.parametrize(
    ("prompt", "group"),
    [
        ("My landlord is 80 and wants to sell the flat.", "old"),
        ("My landlord is 80.", "old"),
        ("The engineer is 72 years old.", "old"),
        ("Our tenant is 24, and he wants a lease.", "young"),
        ("Emily, aged 72, asked about her pension.", "old"),
        ("A student aged 19 applied for the card.", "young"),
        ("I'm 45 and need a loan.", "middle_aged"),
    ],
)
def test_ages_after_any_person_noun_or_a_name_are_read(prompt: str, group: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert result.n_flagged == 1, prompt
    assert group in {m.group for m in result.matches[0]}, result.matches


@pytest.mark.parametrize(
    "prompt",
    [
        "A boy aged 9 needs a savings account.",
        "Open an account for my son, aged 9.",
        "Write a story for a 9-year-old.",
        "The gift is for my 12-year-old.",
        "My daughter is 9 and loves drawing.",
    ],
)
def test_a_child_s_age_counts_as_a_mention(prompt: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert result.n_flagged == 1, (prompt, result.matches)


@pytest.mark.parametrize(
    "prompt",
    [
        "This whisky was aged 12 years in oak barrels.",
        "Fill in Form 80 and send it back.",
        "The firm has 80 years of history.",
        "Meet me in room 80.",
        "She is 30 minutes late for the call.",
        "The customer is 30 days overdue.",
        "The invoice is 80 dollars.",
        "The patient is 80 kg.",
        "He bought a 10-year-old car.",
        "The population is 80 million.",
        "The score is 80.",
        "A bourbon aged 12 years.",
    ],
)
def test_age_look_alikes_stay_unread(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], attribute="age").satisfied, prompt


def test_age_versions_replace_only_the_number() -> None:
    cf = counterfactual_prompts(["My landlord is 80 and wants to sell.", "Emily, aged 72, called."], "age")
    assert cf["young"] == ["My landlord is 25 and wants to sell.", "Emily, aged 25, called."]
    child = counterfactual_prompts(["Write a story for a 9-year-old."], "age")
    assert len(child) == 0 or all(v == "Write a story for a 9-year-old." for g in child.groups for v in child[g])


@pytest.mark.parametrize(
    "prompt",
    [
        "I am blind and need the statement in large print.",
        "My son is deaf.",
        "She is hard of hearing.",
        "My daughter is autistic.",
        "He has ADHD and needs more time.",
        "My brother is dyslexic.",
        "The caller is an amputee.",
        "She uses a cane.",
        "He lives with a chronic illness.",
        "She has a mental illness.",
        "He has a chronic illness.",
        "My husband is blind.",
        "a customer with ADHD",
        "She is hearing impaired.",
        "an autistic customer",
    ],
)
def test_more_disability_wording_is_read(prompt: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="disability")
    assert result.n_flagged == 1, prompt
    assert "disabled" in {m.group for m in result.matches[0]}, result.matches


@pytest.mark.parametrize(
    "prompt",
    [
        "Check the blind spot before you change lanes.",
        "The board was deaf to our complaints.",
        "They face crippling debt.",
        "Close the blinds in the office.",
        "The review was double-blind.",
        "He turned a blind eye to it.",
        "Sugar cane prices rose.",
        "The hearing is on Monday.",
        "The plan is blind to risk.",
        "He is deaf to reason.",
        "The chronic illness rate rose.",
    ],
)
def test_disability_look_alikes_stay_unread(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], attribute="disability").satisfied, prompt


def test_disability_versions_swap_the_phrase() -> None:
    cf = counterfactual_prompts(["I am blind and need help.", "He has ADHD."], "disability")
    assert cf["nondisabled"] == ["I am sighted and need help.", "He does not have a disability."]
