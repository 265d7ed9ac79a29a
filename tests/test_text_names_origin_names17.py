"""A swapped name keeps its origin; a lone hyphenated given name and a bare double surname are the person's (names17).

Before: a gender version of "Lê Thị Mai" drew any Asian given name of the other gender ("Lê Arnel", "Lê Ashish"),
so a Vietnamese woman became a man with a Filipino or South Asian given name beside a Vietnamese surname; a later
lone "Min-jun" after "Kim Min-jun" was kept in every version; "call García López" (no given name) was read as a
given name "García" and a surname "López", so every version kept "García" ("García Hanson")."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text.names import find_people

# hand-picked here, apart from the data: common given names of each origin in the gender lists
VIETNAMESE = {"Minh", "Tuan", "Hung", "Thanh", "Duc", "Cuong", "Quang", "Trung", "Phong", "Huy", "Vinh", "Hai",
              "Long", "Son", "Binh", "Tri", "Nam", "Tan", "Hoang", "Hieu", "Loc", "Tung", "Thang", "Khoa", "Phuc",
              "Quoc", "Viet", "Dat", "Duy", "Thuan", "Nghia", "Thien", "Hiep", "Thong", "Nhan", "Toan", "Thinh",
              "Phu", "Kiet", "Phat", "Khoi", "Truong", "Liem", "Phuoc", "Quy", "Duong", "Kien", "Hau", "Danh", "Phi",
              "Vu", "Lam", "Thai", "Quan", "Tin", "Chung"}
SOUTH_ASIAN_FEMALE = {"Priya", "Anjali", "Shilpa", "Deepa", "Smita", "Archana", "Rashmi", "Manisha", "Sangeeta",
                      "Lakshmi", "Jyoti", "Uma", "Anuradha", "Sandhya", "Ritu", "Hina", "Poonam", "Hetal", "Preeti",
                      "Anju", "Hema", "Shalini"}
CHINESE_FEMALE = {"Jing", "Mei", "Xin", "Lei", "Ling", "Jia", "Shi", "Sheng", "Mao", "Su", "Lai", "Ka"}


def _versions(prompt: str, attribute: str, seed: int = 0) -> dict[str, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = evenhand.counterfactual_prompts([prompt], attribute=attribute, name_seed=seed)
    return {g: cf[g][0] for g in cf.groups if cf[g]}


def test_a_vietnamese_woman_s_male_version_keeps_a_vietnamese_given_name() -> None:
    drawn = set()
    for seed in range(15):
        text = _versions("Write to Lê Thị Mai and thank her for her patience.", "gender", seed)["male"]
        assert text.startswith("Write to Lê ") and " him " in text, text
        drawn.add(text.split("Write to Lê ", 1)[1].split()[0])
    assert drawn <= VIETNAMESE, drawn - VIETNAMESE
    assert len(drawn) > 3


def test_a_south_asian_man_s_female_version_keeps_a_south_asian_given_name() -> None:
    drawn = {
        _versions("Email Sanjay Patel about his loan.", "gender", seed)["female"].split()[1] for seed in range(15)
    }
    assert drawn <= SOUTH_ASIAN_FEMALE, drawn - SOUTH_ASIAN_FEMALE


def test_a_chinese_man_s_female_version_keeps_a_chinese_given_name() -> None:
    drawn = set()
    for seed in range(10):
        text = _versions("Zhang Jian asked about his loan.", "gender", seed)["female"]
        assert text.startswith("Zhang ") and " her " in text, text
        drawn.add(text.split()[1])
    assert drawn <= CHINESE_FEMALE, drawn - CHINESE_FEMALE


def test_white_and_hispanic_names_draw_as_before() -> None:
    # no origin is written for them: the draw is the one before names17
    assert _versions("Send Emily Baker the statement and thank her for her patience.", "gender")["male"] == (
        "Send Jeffrey Baker the statement and thank him for his patience."
    )


def test_a_later_lone_hyphenated_given_name_is_the_person_s() -> None:
    prompt = "Kim Min-jun asked about the loan. Tell Min-jun the answer."
    (person,) = find_people(prompt)
    assert [prompt[m.start : m.end] for m in person.mentions] == ["Kim", "Min-jun", "Min-jun"]
    for group, text in _versions(prompt, "race").items():
        assert "Min-jun" not in text, (group, text)
        given = text.split("Tell ")[1].split()[0]
        assert text.count(given) == 2, text  # the same given name at both mentions (names18: a version of a group
        # that writes the given name first writes the full name so: "Steven Arnold ... Tell Steven")


@pytest.mark.parametrize(
    "prompt",
    [
        "Please call García López about the claim.",
        "The García López family asked about the claim.",
        "Dear García López, your claim is approved.",
    ],
)
def test_a_double_surname_without_a_given_name_is_one_surname(prompt: str) -> None:
    (person,) = find_people(prompt)
    assert person.first is None and person.last_parts == ("garcia", "lopez"), person
    for group, text in _versions(prompt, "race").items():
        assert "García" not in text and "López" not in text, (group, text)


@pytest.mark.parametrize(
    "prompt",
    [
        "We flew from Santa Rosa to San Diego.",
        "Visit Costa Rica in May.",
        "Please call Santiago López about the claim.",
    ],
)
def test_places_and_given_names_are_not_joined(prompt: str) -> None:
    for person in find_people(prompt):
        assert not person.last_parts, person
