"""FTU counts the words the counterfactual versions change, not a bystander's (names17).

Before: a bystander's title and pronouns ("Mr. John Smith ... said he would review her file", subject Emily Baker)
were FTU mentions of gender although every version keeps them as written (left10b, people14): the check and the
versions disagreed on whose words they are. Now FTU drops exactly the spans the versions keep
(``bystanders.bystander_spans`` and a template's own words); the subject's words, and every word where it cannot
tell whose it is, still count ("Tell the client that his order shipped": the client's "his")."""

from __future__ import annotations

import warnings

import evenhand
from evenhand.framework import UseCase

OFFICER = "Emily Baker applied for a loan. Mr. John Smith (the loan officer) said he would review her file."


def test_a_bystander_s_title_and_pronoun_are_not_mentions() -> None:
    r = evenhand.check_ftu([OFFICER], "gender")
    assert [m.word for m in r.matches[0]] == ["her"]
    assert not r.satisfied  # her name and "her" are the subject's
    assert r.group_counts()["female"] == 1 and r.group_counts().get("male", 0) == 0


def test_the_subject_s_pronoun_is_a_mention_named_or_not() -> None:
    assert not evenhand.check_ftu(["Tell the client that his order shipped."], "gender").satisfied
    r = evenhand.check_ftu(["Write to Taylor Reed; Mr. John Smith said he would call."], "gender")
    assert "he" in [m.word for m in r.matches[0]]  # Taylor's gender unknown: "he" could be either's, it counts


def test_every_and_word_only_still_count_every_word() -> None:
    every = evenhand.check_ftu([OFFICER], "gender", subject="every")
    assert [m.word for m in every.matches[0]] == ["Mr.", "he", "her"]
    words = evenhand.check_ftu([OFFICER], "gender", names=False)
    assert [m.word for m in words.matches[0]] == ["Mr.", "he", "her"]


def test_a_template_s_own_words_are_not_the_fill_s_mentions() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        uc = UseCase(
            task="classification",
            attributes=["gender"],
            templates=["The manager Mr. John Smith reviewed the loan of {name}; he will call {them}."],
        )
    r = evenhand.check_ftu(uc.prompts, "gender", subject=uc.subjects)
    for prompt, found in zip(uc.prompts, r.matches, strict=True):
        words = [m.word for m in found]
        assert "Mr." not in words and "he" not in words, (prompt, words)
        assert words in (["her"], ["him"]), (prompt, words)  # the placeholder's {them}
