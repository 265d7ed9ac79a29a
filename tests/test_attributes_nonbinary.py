"""Non-binary gender: an optional group of the gender lexicon, generated only on request."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.text import check_ftu, counterfactual_prompts, load_lexicon, load_lexicon_file, neutralize
from evenhand.text._grammar import plural_verb_agreement

ALL = ["female", "male", "nonbinary"]


def nonbinary(text: str) -> str:
    return counterfactual_prompts([text], attribute="gender", groups=ALL)["nonbinary"][0]


def test_default_groups_stay_female_and_male() -> None:
    gender = load_lexicon("gender")
    assert gender.groups == ("female", "male") and gender.optional_groups == ("nonbinary",)
    assert gender.all_groups == ("female", "male", "nonbinary")
    assert counterfactual_prompts(["She left."], attribute="gender").groups == ("female", "male")
    cf = counterfactual_prompts(["She left."], attribute="gender", groups=ALL)
    assert cf.groups == ("female", "male", "nonbinary") and cf["nonbinary"] == ["They left."]
    assert counterfactual_prompts(["She left."], attribute="gender", groups=["nonbinary"]).groups == ("nonbinary",)
    # the nonbinary forms are not gender terms: FTU and the female/male versions are as before
    assert check_ftu(["They asked the person about their parent."], attribute="gender").satisfied
    assert "nonbinary" not in evenhand.counterfactual_prompts(["He left."], attribute="gender").prompts
    assert gender.group_words("nonbinary") == frozenset()


def test_unknown_group_names_the_optional_ones() -> None:
    with pytest.raises(ValueError, match=r"and, on request, \['nonbinary'\]"):
        counterfactual_prompts(["She left."], attribute="gender", groups=["agender"])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She is late and she has no card.", "They are late and they have no card."),
        ("He was here; he wasn't late.", "They were here; they weren't late."),
        ("She always works hard and he never watches TV.", "They always work hard and they never watch TV."),
        ("He tries. She goes. He does it. She doesn't.", "They try. They go. They do it. They don't."),
        ("She's late. He's been told.", "They're late. They've been told."),
        ("She said she would go and she can.", "They said they would go and they can."),
        ("I saw her book and gave it to her.", "I saw their book and gave it to them."),
        ("He did it himself. That is his.", "They did it themself. That is theirs."),
        ("Ask Mrs. Smith and Mr. Lee.", "Ask Mx. Smith and Mr. Lee."),  # Mr. Lee: a bystander of the first named
        ("A woman and her daughter.", "A nonbinary person and their child."),
        ("SHE IS LATE.", "THEY ARE LATE."),
        ("She", "They"),
    ],
)
def test_singular_they_with_verb_agreement(text: str, expected: str) -> None:
    assert nonbinary(text) == expected


def test_every_person_named_or_the_word_path_changes_every_title() -> None:
    """The default subject is the first person named: a second titled person keeps their title (left10b's
    bystanders); ``subject="every"`` and the word-only path (``names=False``) change every title."""
    for kwargs in ({"subject": "every"}, {"names": False}):
        cf = counterfactual_prompts(["Ask Mrs. Smith and Mr. Lee."], attribute="gender", groups=ALL, **kwargs)
        assert cf["nonbinary"][0] == "Ask Mx. Smith and Mx. Lee.", kwargs


def test_female_and_male_versions_are_unchanged_next_to_nonbinary() -> None:
    texts = ["She is late and she has no card.", "He said his son saw him.", "Mr. Smith's wife called."]
    two = counterfactual_prompts(texts, attribute="gender")
    three = counterfactual_prompts(texts, attribute="gender", groups=ALL)
    assert two["female"] == three["female"] and two["male"] == three["male"]
    assert three["male"][0] == "He is late and he has no card."  # no verb change outside the plural group


def test_large_corpora_give_the_same_versions() -> None:
    texts = [f"She is late and she has no card {i}. He always works; he's been told." for i in range(600)]
    big = counterfactual_prompts(texts, attribute="gender", groups=ALL)["nonbinary"]
    assert len("\x00".join(texts)) > 20_000  # the RE2 engine
    assert big == [nonbinary(t) for t in texts[:1]] * 1 + [nonbinary(t) for t in texts[1:]]
    assert big[5] == "They are late and they have no card 5. They always work; they've been told."


def test_a_text_with_the_mark_is_substituted_without_verb_agreement() -> None:
    out = counterfactual_prompts(["She is \ue000 late."], attribute="gender", groups=ALL)["nonbinary"]
    assert out == ["They is \ue000 late."]


def test_agreement_heuristic() -> None:
    m = "\ue000"
    assert plural_verb_agreement(f"they{m} is") == "they are"
    assert plural_verb_agreement(f"they{m} perhaps") == "they perhaps"
    assert plural_verb_agreement(f"they{m} class") == "they class"
    assert plural_verb_agreement(f"they{m}.") == "they."
    assert plural_verb_agreement("no mark here") == "no mark here"


def test_neutralize_is_unchanged() -> None:
    assert neutralize(["She did it herself."]) == ["They did it themselves."]


def test_optional_groups_in_a_file_of_ones_own() -> None:
    lex = load_lexicon_file(
        {
            "name": "x",
            "groups": ["a", "b"],
            "optional_groups": ["c"],
            "default": False,
            "rows": [{"slot": "noun", "replace_with": {"a": "cat", "b": "dog", "c": "fox"}}],
        }
    )
    assert lex.groups == ("a", "b") and lex.words == frozenset({"cat", "dog"})
    assert counterfactual_prompts(["a cat"], lex, groups=["a", "c"])["c"] == ["a fox"]
    with pytest.raises(ValueError, match="no form for group"):
        load_lexicon_file({"name": "x", "groups": ["a"], "optional_groups": ["c"], "default": False,
                           "rows": [{"slot": "noun", "replace_with": {"a": "cat"}}]})  # fmt: skip
    with pytest.raises(ValueError, match="plural_verb_groups"):
        load_lexicon_file({"name": "x", "groups": ["a"], "plural_verb_groups": ["z"], "default": False,
                           "rows": [{"slot": "noun", "replace_with": {"a": "cat"}}]})  # fmt: skip
