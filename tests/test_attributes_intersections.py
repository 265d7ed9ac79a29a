"""Intersectional counterfactual prompts: one version per combination of groups of several attributes."""

from __future__ import annotations

import pytest

from evenhand.text import counterfactual_prompts, intersectional_prompts

PROMPTS = ["A Black man called.", "She asked about her bill.", "Summarise the call.", "A Muslim customer."]


def test_every_combination_by_default() -> None:
    cf = intersectional_prompts(PROMPTS, ["gender", "race"])
    assert cf.attribute == "gender+race"
    assert cf.groups == (
        "female+white", "female+black", "female+hispanic", "female+asian",
        "male+white", "male+black", "male+hispanic", "male+asian",
    )  # fmt: skip
    assert cf.source_index.tolist() == [0, 1]  # prompts that mention gender or race
    assert cf["female+asian"] == ["An Asian woman called.", "She asked about her bill."]
    assert cf["male+white"] == ["A White man called.", "He asked about his bill."]
    assert cf.attribute_words == (("man", "black"), ("she", "her"))
    assert cf.pairs("female+black", "male+black")[0] == ("A Black woman called.", "A Black man called.")


def test_each_attribute_alone_gives_the_same_words() -> None:
    cf = intersectional_prompts(PROMPTS[:2], ["gender", "race"])
    gender = counterfactual_prompts(PROMPTS[:2], "gender")
    race = counterfactual_prompts(PROMPTS[:1], "race")
    assert [cf[f"{g}+black"][1] for g in ("female", "male")] == [gender["female"][1], gender["male"][1]]
    assert cf["male+hispanic"][0] == race["hispanic"][0]


def test_chosen_combinations_and_optional_groups() -> None:
    cf = intersectional_prompts(["She is a Muslim who prays."], ["gender", "religion"],
                                groups=[("nonbinary", "atheist"), "male+jewish"])  # fmt: skip
    assert cf.groups == ("nonbinary+atheist", "male+jewish")
    assert cf["nonbinary+atheist"] == ["They are an atheist who prays."]
    assert cf["male+jewish"] == ["He is a Jewish person who prays."]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"attributes": ["gender"]}, "two or more"),
        ({"attributes": "gender"}, "two or more"),
        ({"attributes": ["gender", None]}, "two or more"),
        ({"attributes": ["gender", "gender"]}, "must differ"),
        ({"attributes": ["gender", "race"], "groups": ["female"]}, "one group per attribute"),
        ({"attributes": ["gender", "race"], "groups": ["female+green"]}, "unknown group"),
        ({"attributes": ["gender", "race"], "groups": []}, "groups is empty"),
    ],
)
def test_bad_input(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        intersectional_prompts(PROMPTS, **kwargs)


def test_no_mention_warns() -> None:
    with pytest.warns(UserWarning, match="gender or race"):
        cf = intersectional_prompts(["Summarise the call."], ["gender", "race"])
    assert len(cf) == 0 and cf["female+white"] == []
