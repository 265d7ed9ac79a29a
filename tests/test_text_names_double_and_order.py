"""Double surnames and family-name-first names in counterfactual versions (groups14).

"María García-López ... Ms. López" kept "Ms. López" in every other group's version, and "José Hernández-Martínez"
(a double surname the tables do not list whole) was read by the first name alone and kept whole in every version: a
Hispanic part stayed in the white, Black and Asian versions. "Nguyễn Thị Mai" (family name first) was read as first
name Nguyễn and surname Mai: the versions put a first name where the family name stands and a surname in place of the
given name, and gender was not read at all (Mai is a woman's name)."""

from __future__ import annotations

import warnings

import evenhand
from evenhand.text.names import find_people


def _versions(prompt: str, attribute: str = "race") -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = evenhand.counterfactual_prompts([prompt], attribute=attribute)
    return {g: cf[g][0] for g in cf.groups if cf[g]}


def test_a_part_of_a_double_surname_is_swapped_with_it() -> None:
    versions = _versions("Write to María García-López. Ms. López called; tell María it is fine.")
    for group in ("white", "black", "asian"):
        text = versions[group]
        assert "López" not in text and "García" not in text and "María" not in text, text
        # the same new surname at both mentions
        surname = text.split("Write to ", 1)[1].split(".")[0].split()[-1]
        assert f"Ms. {surname} called" in text, text


def test_a_double_surname_the_tables_know_by_parts_is_read_and_swapped_whole() -> None:
    prompt = "Write to José Hernández-Martínez, then call Mr. Hernández."
    match = evenhand.check_ftu([prompt], attribute="race").names[0][0]
    assert match.group == "hispanic" and "Hernández-Martínez" in match.name, match
    for group, text in _versions(prompt).items():
        if group != "hispanic":
            assert "Hernández" not in text and "Martínez" not in text, text


def test_family_name_first_is_read_in_its_order() -> None:
    person = find_people("Write a reminder to Nguyễn Thị Mai about the bill.")[0]
    assert (person.first, person.last) == ("mai", "nguyen")
    assert find_people("Write to Zhang Wei about the bill.")[0].first == "wei"
    western = find_people("Write a reminder to Mai Nguyen about the bill.")[0]
    assert (western.first, western.last) == ("mai", "nguyen")
    assert (find_people("Write to Emily Chen.")[0].first, find_people("Write to Emily Chen.")[0].last) == (
        "emily",
        "chen",
    )


def test_family_name_first_swaps_each_part_in_its_place() -> None:
    prompt = "Write a reminder to Nguyễn Thị Mai about the bill. Mai asked twice."
    gender = evenhand.check_ftu([prompt], attribute="gender").names[0]
    assert [m.group for m in gender] == ["female"]
    male = _versions(prompt, "gender")["male"]
    # the family name stays where it stands, the given name (and the middle name with it) is a man's
    assert male.startswith("Write a reminder to Nguyễn ") and "Mai" not in male and "Thị" not in male, male
    given = male.split("Nguyễn ", 1)[1].split(" about", 1)[0]
    assert f"{given} asked twice" in male, male
    white = _versions(prompt)["white"]
    assert "Nguyễn" not in white and "Thị" not in white and "Mai" not in white, white
