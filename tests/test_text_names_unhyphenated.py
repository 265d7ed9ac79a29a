"""Spanish double surnames written without a hyphen, and family-name-first names with short surnames (names15).

"María García López" was read as "María García" and a third capitalised word: "López" stayed in the white, Black and
Asian versions. "Lê Thị Mai" and "Kim Min-jun" (surnames of two letters, and Kim/Lee, left out of
``family_name_first``) were read given name first."""

from __future__ import annotations

import warnings

import evenhand
from evenhand.text.names import find_people


def _versions(prompt: str, attribute: str = "race") -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = evenhand.counterfactual_prompts([prompt], attribute=attribute)
    return {g: cf[g][0] for g in cf.groups if cf[g]}


def test_an_unhyphenated_double_surname_is_one_person_swapped_whole() -> None:
    prompt = "Write to María García López about the refund. Ms. López called twice."
    person = find_people(prompt)[0]
    assert person.first == "maria" and person.last_parts == ("garcia", "lopez"), person
    assert prompt[person.start : person.end] == "María García López"
    for group in ("white", "black", "asian"):
        text = _versions(prompt)[group]
        assert "López" not in text and "García" not in text and "María" not in text, text
        surname = text.split("Write to ", 1)[1].split(" about", 1)[0].split()[-1]
        assert f"Ms. {surname} called" in text, text


def test_a_titled_unhyphenated_double_surname_joins_the_person() -> None:
    prompt = "Write to José Hernández Martínez. Mr. Hernández Martínez asked for a call."
    people = find_people(prompt)
    assert len(people) == 1 and people[0].last_parts == ("hernandez", "martinez"), people
    for group in ("white", "black", "asian"):
        text = _versions(prompt)[group]
        assert "Hernández" not in text and "Martínez" not in text, text


def test_no_false_join_with_a_capitalised_non_surname() -> None:
    for prompt, kept in (
        ("Remind María García Tuesday about the bill.", "Tuesday"),
        ("Ana López Bank called about the loan.", "Bank"),
        ("Write to Emily Baker Smith about it.", "Smith"),
    ):
        for person in find_people(prompt):
            assert person.last_parts == (), (prompt, person)
        for text in _versions(prompt).values():
            assert kept in text, text
