"""Lexicons: data files load, groups and words are as documented, custom dicts are validated."""

from __future__ import annotations

from pathlib import Path

import pytest

from evenhand.text.lexicon import Lexicon, load_lexicon

# The paper's footnote 22: the female -> male substitutions a gender lexicon must cover.
FOOTNOTE_22 = {
    "she": "he", "hers": "his", "her": "him", "herself": "himself", "female": "male", "females": "males",
    "woman": "man", "women": "men", "girl": "boy", "girls": "boys", "daughter": "son", "daughters": "sons",
    "mother": "father", "mothers": "fathers", "sister": "brother", "sisters": "brothers", "aunt": "uncle",
    "aunts": "uncles", "niece": "nephew", "nieces": "nephews", "lady": "gentleman", "ladies": "gentlemen",
    "grandmother": "grandfather", "grandmothers": "grandfathers",
}  # fmt: skip


def test_gender_groups_and_footnote_22_coverage() -> None:
    lex = load_lexicon("gender")
    assert lex.groups == ("female", "male")
    female, male = lex.group_words("female"), lex.group_words("male")
    assert set(FOOTNOTE_22) <= female
    assert set(FOOTNOTE_22.values()) <= male
    for word in ("wife", "girlfriend", "mrs.", "ms."):
        assert word in female
    for word in ("husband", "boyfriend", "mr."):
        assert word in male
    assert not female & male
    assert "they" not in lex.words and "person" not in lex.words  # neutral forms are not attribute words


def test_race_groups_and_terms() -> None:
    lex = load_lexicon("race")
    assert lex.groups == ("white", "black", "hispanic", "asian")
    assert {"caucasian", "white"} <= lex.group_words("white")
    assert {"african american", "black"} <= lex.group_words("black")
    assert {"latina", "latino", "hispanic"} <= lex.group_words("hispanic")
    assert {"asian american", "asian"} <= lex.group_words("asian")
    assert lex.group_of("Native American") is None  # a race mention that is none of the four groups


def test_group_words_are_lower_case_frozensets() -> None:
    for name in ("gender", "race"):
        lex = load_lexicon(name)
        for group in lex.groups:
            words = lex.group_words(group)
            assert isinstance(words, frozenset) and words
            assert all(w == w.lower() for w in words)


def test_builtins_are_cached_and_names_are_case_insensitive() -> None:
    assert load_lexicon("gender") is load_lexicon(" Gender ")
    lex = load_lexicon("race")
    assert load_lexicon(lex) is lex


def test_custom_lexicon() -> None:
    lex = load_lexicon({"young": ["young", "youth"], "old": ["old", "elderly person"]})
    assert isinstance(lex, Lexicon)
    assert lex.name == "custom" and lex.groups == ("young", "old")
    assert lex.group_words("old") == frozenset({"old", "elderly person"})
    with pytest.raises(ValueError, match="unknown group"):
        lex.group_words("middle")


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("zodiac", ValueError, "unknown attribute 'zodiac'"),
        ({}, ValueError, "at least one group"),
        ({"a": ["x", "y"], "b": ["z"]}, ValueError, "aligned"),
        ({"a": []}, ValueError, "no words"),
        ({"a": ["x", None]}, ValueError, "word 1"),
        ({"a": ["x", "  "]}, ValueError, "word 1"),
        ({"a": "xyz"}, TypeError, "list of words"),
        (42, TypeError, "attribute must be"),
    ],
)
def test_bad_lexicon_specs(spec: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        load_lexicon(spec)  # type: ignore[arg-type]


def test_unreadable_lexicon_files_are_one_line_naming_the_file(tmp_path: Path) -> None:
    from evenhand import load_lexicon_file

    (tmp_path / "folder.json").mkdir()
    (tmp_path / "latin.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    with pytest.raises(FileNotFoundError, match=r"^lexicon file .*missing\.json: no such file$"):
        load_lexicon_file(tmp_path / "missing.json")
    with pytest.raises(ValueError, match=r"^lexicon file .*folder\.json: is a folder, not a file$"):
        load_lexicon_file(tmp_path / "folder.json")
    with pytest.raises(ValueError, match=r"^lexicon file .*latin\.json: not UTF-8 text \(byte 0xe9\)$"):
        load_lexicon_file(tmp_path / "latin.json")


@pytest.mark.parametrize(
    ("text", "attribute", "mentions"),
    [
        ("I am a Black small-business owner in Ohio.", "race", True),  # review5: FTU missed it
        ("They are a White middle-aged couple.", "race", True),
        ("Ask the Mexican food-truck owner.", "nationality", True),
        ("I drive a black pick-up truck.", "race", False),  # the modifier must be followed by a person noun
        ("The white-collar workers left.", "race", False),
        ("A black leather jacket for owners.", "race", False),  # one hyphenated modifier, no plain word between
    ],
)
def test_a_context_term_reads_through_one_hyphenated_modifier(text: str, attribute: str, mentions: bool) -> None:
    from evenhand.text import check_ftu, counterfactual_prompts

    assert check_ftu([text], attribute=attribute).satisfied is not mentions
    if mentions and attribute == "race":
        versions = counterfactual_prompts([text], attribute="race").to_frame().iloc[0]
        assert "Asian" in versions["asian"] and versions["asian"] != versions["white"]


def _apostrophe_cases() -> list[tuple[str, str, str]]:
    """(attribute, straight sentence, curly sentence) for every built-in term with an apostrophe, in a sentence
    where it counts (before a person noun when its row asks for one, before a name when it is a title)."""
    from evenhand.text.lexicon import builtin_attributes

    cases = []
    for attribute in builtin_attributes():
        lex = load_lexicon(attribute)
        noun = sorted(lex.person_nouns)[0] if lex.person_nouns else "person"
        for row in lex.rows:
            for term in row.terms:
                if "'" not in term:
                    continue
                after = " Smith" if row.needs_name else f" {noun}" if term in row.needs_person_noun else ""
                sentence = f"Ask the {term}{after} about it, please."
                cases.append((attribute, sentence, sentence.replace("'", "\u2019")))
    return cases


@pytest.mark.parametrize(("attribute", "straight", "curly"), _apostrophe_cases())
def test_a_term_with_a_curly_apostrophe_counts_like_the_straight_one(attribute: str, straight: str, curly: str) -> None:
    """ "ma’am" (U+2019, what word processors and many models write) was no gender word though "ma'am" was: every
    term with an apostrophe is read, and swapped, in both spellings."""
    import evenhand

    flagged = evenhand.check_ftu([straight, curly], attribute).flagged.tolist()
    assert flagged == [True, True]
    versions = evenhand.counterfactual_prompts([straight, curly], attribute).prompts
    assert any(texts[0] != straight for texts in versions.values())  # the straight term is swapped somewhere
    for texts in versions.values():
        assert texts[1].replace("\u2019", "'") == texts[0]


def test_a_custom_word_with_an_apostrophe_counts_in_both_spellings() -> None:
    lex = load_lexicon({"a": ["o'neill"], "b": ["smith"]})
    assert lex.group_of("o\u2019neill") == "a" and lex.pattern.search("Ask O\u2019Neill.")
    assert "o'neill" in lex.group_words("a")
