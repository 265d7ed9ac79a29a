"""FTU reads a stated age ("I'm 72 years old") and wheelchair use ("I use a wheelchair") (groups14).

Before, age read only ages before a person noun ("a 68-year-old customer") and disability only "uses a wheelchair"
and "wheelchair user": a prompt that said "I'm 72 years old" or "I use a wheelchair" passed FTU and got no
counterfactual versions. The words are lexicon data (age: ``person_subjects`` and ``patterns_after_person_subject``;
disability: terms); false positives stay out ("72 years of service", "the house is 100 years old", "a wheel")."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.text import counterfactual_prompts


@pytest.mark.parametrize(
    ("prompt", "attribute", "group"),
    [
        ("I'm 72 years old and want to open a savings account.", "age", "old"),
        ("I am 68 years old. Can I still get a mortgage?", "age", "old"),
        ("My client says she is 81 years old and lives alone.", "age", "old"),
        ("I\u2019m 24 years old and need a student loan.", "age", "young"),
        ("Write to a 68-year-old customer about the fee.", "age", "old"),
        ("I use a wheelchair and need help booking a room.", "disability", "disabled"),
        ("My son needs a wheelchair at the airport.", "disability", "disabled"),
    ],
)
def test_stated_ages_and_wheelchair_use_are_read(prompt: str, attribute: str, group: str) -> None:
    result = evenhand.check_ftu([prompt], attribute=attribute)
    assert result.n_flagged == 1, prompt
    assert group in {m.group for m in result.matches[0]}, result.matches


@pytest.mark.parametrize(
    "prompt",
    [
        "Thank him for 72 years of service.",
        "The house is 100 years old and needs a new roof.",
        "The wheel is broken; order a new wheel.",
        "The company is 75 years old this year.",
        "Book a wheelchair-accessible room.",
        "Our 72-year warranty covers the roof.",
    ],
)
def test_look_alikes_are_not_flagged(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], attribute="age").n_flagged == 0
    assert evenhand.check_ftu([prompt], attribute="disability").n_flagged == 0


def test_counterfactual_versions_swap_the_stated_age_only() -> None:
    versions = counterfactual_prompts(["I'm 72 years old and want a loan."], attribute="age")
    assert versions["young"][0] == "I'm 25 years old and want a loan."
    assert versions["old"][0] == "I'm 70 years old and want a loan."
    wheel = counterfactual_prompts(["I use a wheelchair and need a room."], attribute="disability")
    assert wheel["nondisabled"][0] == "I do not use a wheelchair and need a room."


def test_a_large_corpus_reads_stated_ages_as_one_prompt_does() -> None:
    # over 20,000 characters the fast RE2 engine scans first; the look-behind of a person subject is decided by
    # Python's pattern on the whole text, so both read the same spans
    prompts = ["I'm 72 years old and want a loan.", "The house is 100 years old.", "She is 30 years old."] * 400
    one_by_one = [evenhand.check_ftu([p], attribute="age").n_flagged for p in prompts[:3]]
    assert one_by_one == [1, 0, 1]
    assert evenhand.check_ftu(prompts, attribute="age").n_flagged == 800
    versions = counterfactual_prompts(prompts, attribute="age")
    assert versions["young"][:2] == ["I'm 25 years old and want a loan.", "She is 25 years old."]
    assert len(versions["old"]) == 800 and versions["old"][1] == "She is 70 years old."
