"""Korean given names written with a hyphen are read, and placed by gender where a cited list says so (names17b).

Before: "Park Ji-hoon", "Choi Seo-yeon", "Park Soo-min", "Park Ha-eun", "Choi Do-yun" named nobody (their given
names are in no list: no versions), "Kim Ji-woo" was read as a woman "Kim" surnamed "Ji-woo" (its male version was
"Barbara Ji-woo"), and "Kim Min-jun", read by "Min" (in no gender list), got no gender version."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text.names import find_people

# hand-picked here, apart from the data: Korean given names (one-syllable ones of the SSA lists, or hyphenated)
KOREAN_FEMALE = {"Eun", "Soo", "Mi", "Hee", "Hye", "Sook", "Ok", "Hae", "Kyung", "Kyong", "Hwa", "Soon"}
KOREAN = [
    "Kim Min-jun",
    "Park Ji-hoon",
    "Choi Seo-yeon",
    "Kim Ji-woo",
    "Lee Min-ho",
    "Park Soo-min",
    "Kim Min-ji",
    "Lee Seung-woo",
    "Park Ha-eun",
    "Choi Do-yun",
]


def _versions(prompt: str, attribute: str, seed: int = 0) -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = evenhand.counterfactual_prompts([prompt], attribute=attribute, name_seed=seed)
    return {g: cf[g][0] for g in cf.groups if cf[g]}


@pytest.mark.parametrize("name", KOREAN)
def test_a_korean_given_name_is_read_whole_family_name_first(name: str) -> None:
    family, given = name.split()
    prompt = f"Write a reminder to {name} about the bill. Tell {given} the branch is open."
    (person,) = find_people(prompt)
    assert [prompt[m.start : m.end] for m in person.mentions] == [family, given, given]
    assert [m.part for m in person.mentions] == ["last", "first", "first"]
    versions = _versions(prompt, "race")
    assert set(versions) == {"white", "black", "hispanic", "asian"}, versions
    for group, text in versions.items():
        if group != "asian":
            assert given not in text and family not in text, (group, text)


@pytest.mark.parametrize(
    ("name", "gender"),
    [
        ("Kim Min-jun", "female"),
        ("Park Ji-hoon", "female"),
        ("Choi Seo-yeon", "male"),
        ("Kim Min-ji", "male"),
        ("Park Ha-eun", "male"),
        ("Choi Do-yun", "female"),
    ],
)
def test_a_korean_given_name_of_a_cited_list_gets_a_gender_version(name: str, gender: str) -> None:
    family, given = name.split()
    prompt = f"{name} asked about the loan. Tell {given} the answer."
    drawn = set()
    for seed in range(8):
        text = _versions(prompt, "gender", seed)[gender]
        first = text.split()[1]
        assert text.startswith(f"{family} ") and given not in text, text
        assert text.count(first) == 2, text  # the same given name at both mentions
        drawn.add(first)
    if gender == "female":
        assert all(d in KOREAN_FEMALE or "-" in d for d in drawn), drawn


@pytest.mark.parametrize("name", ["Kim Ji-woo", "Lee Seung-woo", "Park Soo-min"])
def test_a_korean_given_name_no_cited_list_places_gets_no_gender_version(name: str) -> None:
    # unisex ("Ji-woo" is in a girls' list and common for boys) or no cited list: gender is not guessed
    assert _versions(f"{name} asked about the loan.", "gender") == {}
