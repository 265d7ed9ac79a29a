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


def test_short_family_names_first_are_read_in_their_order() -> None:
    for prompt, first, last in (
        ("Write a reminder to Lê Thị Mai about the bill.", "mai", "le"),
        ("Write a reminder to Vũ Minh about the bill.", "minh", "vu"),
        ("Write to Li Wei about the bill.", "wei", "li"),
        ("Write to Wu Jing about the bill.", "jing", "wu"),
        ("Write to He Ming about the bill.", "ming", "he"),
        ("Write to Ma Lan about the bill.", "lan", "ma"),
        ("Write to Kim Min-jun about the bill.", "minjun", "kim"),  # a listed given name (names17b): read whole
        ("Write to Kim Jun-ho about the bill.", "jun", "kim"),  # unlisted: read by its first part
        ("Write to Lee Jun about the bill.", "jun", "lee"),
    ):
        person = find_people(prompt)[0]
        assert (person.first, person.last, person.family_name_first) == (first, last, True), (prompt, person)


def test_short_family_names_swap_each_part_in_its_place() -> None:
    prompt = "Write a reminder to Lê Thị Mai about the bill. Mai asked twice."
    gender = evenhand.check_ftu([prompt], attribute="gender").names[0]
    assert [m.group for m in gender] == ["female"]
    male = _versions(prompt, "gender")["male"]
    assert male.startswith("Write a reminder to Lê ") and "Mai" not in male and "Thị" not in male, male
    white = _versions("Write to Kim Min-jun about the bill.")["white"]
    assert "Kim" not in white and "Min-jun" not in white, white


def test_english_readings_of_short_family_names_stay() -> None:
    for prompt, first in (
        ("Write to Lee Smith about the bill.", "lee"),
        ("Write to Lee James about the bill.", "lee"),
        ("Kim Baker called about the bill.", "kim"),
    ):
        person = find_people(prompt)[0]
        assert person.first == first and not person.family_name_first, (prompt, person)
    for prompt in ("He Emily asked about it.", "He said Ma Baker would call.", "Ask Ma what He Jordan meant."):
        assert all(not p.family_name_first for p in find_people(prompt)), prompt
    assert not any(p.last in ("he", "ma") for p in find_people("He called Emily. Ma said yes."))
