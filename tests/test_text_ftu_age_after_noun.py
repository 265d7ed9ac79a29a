"""FTU reads a stated age after a noun, "aged 72" and a decade of life (names15).

Before, only a pronoun subject counted ("I'm 72 years old"): "my mother is 80 years old", "a man aged 72" and "a
woman in her seventies" passed FTU and got no counterfactual versions. The words are lexicon data (age.json's
``person_subjects`` and two rows of ``patterns_after_person_subject``); look-alikes stay out ("aged 12 years in oak",
"music of the seventies", "the building is 80 years old")."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.text import counterfactual_prompts


@pytest.mark.parametrize(
    ("prompt", "group"),
    [
        ("My mother is 80 years old and wants to open an account.", "old"),
        ("My grandfather is 91 years old; can he get a card?", "old"),
        ("Write to a customer aged 72 about the new fee.", "old"),
        ("The applicant, aged 24, wants a student loan.", "young"),
        ("A man in his seventies asked about a mortgage.", "old"),
        ("My client is a woman in her late sixties.", "old"),
        ("The caller, in his twenties, wants a loan.", "young"),
        ("My father is in his early fifties.", "middle_aged"),
    ],
)
def test_ages_after_a_noun_and_decades_are_read(prompt: str, group: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert result.n_flagged == 1, prompt
    assert group in {m.group for m in result.matches[0]}, result.matches


@pytest.mark.parametrize(
    "prompt",
    [
        "This whisky was aged 12 years in oak.",
        "A cheddar aged 18 months goes well with it.",
        "Play some music of the seventies.",
        "Prices rose in the eighties and nineties.",
        "The building is 80 years old; book a surveyor.",
        "My car is 20 years old and needs new brakes.",
        "Temperatures were in the seventies all week.",
    ],
)
def test_look_alikes_are_not_flagged(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], attribute="age").n_flagged == 0, prompt


def test_versions_swap_the_age_in_its_own_words() -> None:
    versions = counterfactual_prompts(["My mother is 80 years old and wants a loan."], attribute="age")
    assert versions["young"][0] == "My mother is 25 years old and wants a loan."
    aged = counterfactual_prompts(["Write to a customer aged 72 about the fee."], attribute="age")
    assert aged["young"][0] == "Write to a customer aged 25 about the fee."
    decade = counterfactual_prompts(["A man in his seventies asked about a mortgage."], attribute="age")
    assert decade["young"][0] == "A man in his twenties asked about a mortgage."
