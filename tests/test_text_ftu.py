"""FTU check: the paper's definition (no prompt contains an attribute word), whole-word matching, inputs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.text import check_ftu, load_lexicon

NEUTRAL_WORDS = ["the", "call", "summarise", "account", "please", "bill", "today", "customer", "shepherd", "theme"]


def test_hand_computed_example() -> None:
    # X ∩ A = ∅ for prompts 0 and 2; prompt 1 contains "she" and "her" -> FTU fails, 1 prompt flagged.
    prompts = ["Summarise the call.", "She asked about her bill.", "Reset the password."]
    r = check_ftu(prompts, attribute="gender")
    assert not r.satisfied
    assert r.n_flagged == 1 and r.n_prompts == 3
    assert r.flagged.tolist() == [False, True, False]
    assert r.flagged_index == (1,)
    assert [(m.word, m.start, m.end, m.group) for m in r.matches[1]] == [
        ("She", 0, 3, "female"),
        ("her", 16, 19, "female"),
    ]
    assert r.matches[0] == () and r.matches[2] == ()
    assert r.flagged_prompts == ["She asked about her bill."]
    assert r.group_counts() == {"female": 1}
    assert check_ftu(["Summarise the call.", ""], attribute="gender").satisfied


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Trim the whitespace.", "race"),
        ("Blackstone reported earnings.", "race"),
        ("Fly Asiana to Seoul.", "race"),
        ("The shepherd herded sheep.", "gender"),
        ("Check the theme and the mention.", "gender"),
        ("Buy a black car and a white shirt.", "race"),
        ("The black model has a white fan.", "race"),
        ("Asian food is popular.", "race"),
        ("The Indian Ocean.", "race"),
        ("human manpower", "gender"),
        ("The delay is 200 ms. Then it retries.", "gender"),
        ("I need a queen-size bed; please groom the dog and don't miss the payment.", "gender"),
        ("Southeast Asian cuisine and Anglo-Saxon literature.", "race"),
    ],
)
def test_whole_word_and_context(text: str, attribute: str) -> None:
    assert check_ftu([text], attribute=attribute).satisfied


@pytest.mark.parametrize(
    ("text", "attribute", "words"),
    [
        ("A black woman spoke.", "race", ["black"]),
        ("The White man and the ASIAN girl.", "race", ["White", "ASIAN"]),
        ("An Indian doctor.", "race", ["Indian"]),
        ("Caucasian, African-American and Latina voters.", "race", ["Caucasian", "African-American", "Latina"]),
        ("African  American families", "race", ["African  American"]),
        ("Mr. Smith and Mrs. Jones", "gender", ["Mr.", "Mrs."]),
        ("Dear Mr. and Ms. Lee", "gender", ["Mr.", "Ms."]),
        ("an East Asian student", "race", ["East Asian"]),
        ("HE told his mother-in-law.", "gender", ["HE", "his", "mother-in-law"]),
        ("She's here; her wife's car.", "gender", ["She", "her", "wife"]),
    ],
)
def test_finds_attribute_words(text: str, attribute: str, words: list[str]) -> None:
    # the lexicon's words (names17: with names read, a bystander's title, "Mrs." of "Mr. Smith and Mrs. Jones", is
    # not the subject's and is left out, as the versions keep it)
    r = check_ftu([text], attribute=attribute, names=False)
    assert [m.word for m in r.matches[0]] == words
    for m in r.matches[0]:
        assert text[m.start : m.end] == m.word


def test_all_builtins_and_custom() -> None:
    r = check_ftu(["A black man.", "nothing here", "the Latino vote"], attribute=None)
    assert r.attribute == "gender+race+age+disability+economic_status+nationality+religion+sexual_orientation"
    assert [[m.attribute for m in found] for found in r.matches] == [["race", "gender"], [], ["race"]]
    custom = check_ftu(["an elderly person", "a young man"], attribute={"young": ["young"], "old": ["elderly"]})
    assert custom.n_flagged == 2 and custom.matches[0][0].group == "old"


@pytest.mark.parametrize("container", [list, tuple, np.array, pd.Series])
def test_accepts_sequences(container: type) -> None:
    r = check_ftu(container(["he left", "the call"]), attribute="gender")
    assert r.n_flagged == 1


def test_frames() -> None:
    r = check_ftu(["he left", "the call"], attribute="gender")
    frame = r.to_frame()
    assert list(frame.columns) == ["prompt_index", "prompt", "flagged", "n_matches", "attribute_words", "groups"]
    assert frame["flagged"].tolist() == [True, False]
    assert frame["attribute_words"].tolist() == [["he"], []]
    matches = r.matches_frame()
    assert matches[["prompt_index", "word", "group"]].values.tolist() == [[0, "he", "male"]]
    assert "not satisfied" in r.summary()


@pytest.mark.parametrize(
    ("prompts", "error", "message"),
    [
        (None, TypeError, "prompts"),
        ([], ValueError, "empty"),
        (["ok", None], TypeError, r"prompts\[1\]"),
        (["ok", 3], TypeError, r"prompts\[1\]"),
        ("a single string", TypeError, "single str"),
    ],
)
def test_bad_prompts(prompts: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        check_ftu(prompts, attribute="gender")


def test_unknown_attribute() -> None:
    with pytest.raises(ValueError, match="unknown attribute"):
        check_ftu(["x"], attribute="zodiac")


def test_texts_containing_nul_fall_back_to_per_text_scan() -> None:
    r = check_ftu(["he\x00she", "her"], attribute="gender")
    assert [[m.word for m in found] for found in r.matches] == [["he", "she"], ["her"]]


_FEMALE = sorted(load_lexicon("gender").group_words("female") - {"ms."})  # "ms." needs a name after it
_words = st.lists(st.sampled_from(NEUTRAL_WORDS + _FEMALE), max_size=12)


@given(st.lists(_words, min_size=1, max_size=6))
def test_property_flags_exactly_the_prompts_with_lexicon_words(token_lists: list[list[str]]) -> None:
    prompts = [" ".join(tokens) for tokens in token_lists]
    lex_words = load_lexicon("gender").words
    r = check_ftu(prompts, attribute="gender")
    expected = [any(t in lex_words for t in tokens) for tokens in token_lists]
    assert r.flagged.tolist() == expected
    assert r.satisfied == (not any(expected))
    assert [len(m) for m in r.matches] == [sum(t in lex_words for t in tokens) for tokens in token_lists]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_property_spans_point_into_the_text(text: str) -> None:
    r = check_ftu([text, text.upper()], attribute=None)
    for prompt, found in zip(r.prompts, r.matches, strict=True):
        for m in found:
            assert prompt[m.start : m.end] == m.word
