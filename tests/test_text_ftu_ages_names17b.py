"""Only a person takes an age after ", aged"; age ranges are read whole (names17b).

Before: ", aged 12," after any word counted as an age ("The whisky, aged 12, is smooth." was flagged); a range was read
by its first number, so its versions were nonsense ("people aged 18 to 24" -> "people aged 70 to 24", "women aged
40-49" -> "women aged 25-49") and "adults aged 65 and over" became "adults aged 25 and over". The words are lexicon
data (age.json: ``{name}`` in a subject stands for each personal name the name lists read alone; a range row)."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.text import counterfactual_prompts


@pytest.mark.parametrize(
    "prompt",
    [
        "The whisky, aged 12, is smooth.",
        "Our cheddar, aged 18 months, is sharp.",
        "The port, aged 20, is sweet.",
        "This rum, aged 8, won a medal.",
        "The steak, aged 30, is tender.",
        "Our house red, aged 5, is on the menu.",
    ],
)
def test_aged_after_a_thing_is_no_age(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], attribute="age").satisfied, prompt
    with pytest.warns(UserWarning, match="no counterfactual prompts"):
        assert len(counterfactual_prompts([prompt], "age")) == 0


@pytest.mark.parametrize(
    ("prompt", "group"),
    [
        ("Emily, aged 72, asked about her pension.", "old"),
        ("Emily Baker, aged 72, asked about her pension.", "old"),
        ("Ms. Baker, aged 72, asked about her pension.", "old"),
        ("Please help Jamal, aged 24.", "young"),
        ("Our tenant, aged 45, asked for a lease.", "middle_aged"),
        ("My son, aged 9, wants an account.", None),
    ],
)
def test_aged_after_a_person_is_an_age(prompt: str, group: str | None) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert result.n_flagged == 1, prompt
    assert [m.group for m in result.matches[0]] == [group], result.matches


@pytest.mark.parametrize(
    ("prompt", "group", "young"),
    [
        ("A survey of people aged 18 to 24.", "young", "A survey of people aged 18 to 29."),
        ("Screening for women aged 40-49.", "middle_aged", "Screening for women aged 18 to 29."),
        ("Discounts for adults aged 65 and over.", "old", "Discounts for adults aged 18 to 29."),
        ("Offers for customers aged 70+ this week.", "old", "Offers for customers aged 18 to 29 this week."),
        ("Jobs for workers aged 60 to 75.", "old", "Jobs for workers aged 18 to 29."),
    ],
)
def test_an_age_range_is_read_whole(prompt: str, group: str, young: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert [m.group for m in result.matches[0]] == [group], result.matches
    cf = counterfactual_prompts([prompt], "age")
    assert cf["young"] == [young]
    assert cf["old"][0].count("aged") == 1 and " to 24" not in cf["old"][0] and "-49" not in cf["old"][0]


@pytest.mark.parametrize(
    "prompt",
    [
        "Plan a day out for children aged 9 to 12.",
        "A class for kids aged 5-7.",
        "Clubs for students aged 13 to 17.",
        "A survey of adults aged 18 to 64.",
    ],
)
def test_a_child_s_or_a_wide_range_counts_and_is_kept_as_written(prompt: str) -> None:
    result = evenhand.check_ftu([prompt], attribute="age")
    assert result.n_flagged == 1 and [m.group for m in result.matches[0]] == [None], result.matches
    cf = counterfactual_prompts([prompt], "age")
    assert all(v == prompt for g in cf.groups for v in cf[g])
