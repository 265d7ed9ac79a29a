"""The RE2 engine (evenhand.text._re2) substitutes exactly what the Python engine does, or declines."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_text_fastscan import _SEPARATORS, _TOKENS

from evenhand.text import Lexicon, load_lexicon, neutralize
from evenhand.text import _engine as engine
from evenhand.text._engine import _article, _Replacer, _sub, find_matches
from evenhand.text._grammar import starts_noun_phrase, starts_noun_phrase_many
from evenhand.text._re2 import find_fast, re2_source, substitute_fast

GENDER = load_lexicon("gender")
RACE = load_lexicon("race")
CUSTOM = load_lexicon(
    {
        "pets": ["cat owner", "dog-lover", "o'neil", "x.y", "kitten"],
        "other": ["mole", "a-team", "fox", "o.k.", "dog owner"],
    }
)
MODES = [(None, "neutral"), (None, "swap"), ("first", "group")]


@st.composite
def corpora(draw: st.DrawFn) -> str:
    """Several generated texts joined by NUL, as substitute() hands them over."""
    texts = []
    for _ in range(draw(st.integers(1, 4))):
        words = draw(
            st.lists(st.sampled_from([*_TOKENS, "cat  owner", "Dog-Lover", "X.Y", "a-team", "the"]), max_size=25)
        )
        texts.append("".join(w + draw(st.sampled_from([*_SEPARATORS, "\t", "\x0b", "!"])) for w in words))
    return "\x00".join(texts)


def _both(lexicon: Lexicon, text: str, target: str | None, mode: str) -> tuple[str | None, str]:
    target = lexicon.groups[0] if target == "first" else target
    fast_replacer, slow_replacer = _Replacer(lexicon, target, mode), _Replacer(lexicon, target, mode)
    fast = substitute_fast(lexicon, text, fast_replacer.for_word, fast_replacer, _article)
    return fast, _sub(lexicon, slow_replacer, text)


@pytest.mark.parametrize("lexicon", [GENDER, RACE, CUSTOM], ids=["gender", "race", "custom"])
@settings(max_examples=200, deadline=None)
@given(text=corpora())
def test_re2_engine_equals_the_python_engine(lexicon: Lexicon, text: str) -> None:
    for target, mode in MODES:
        fast, slow = _both(lexicon, text, target, mode)
        assert (fast is None) == (not text.isascii())  # non-ASCII text is left to the Python engine
        assert fast in (None, slow)


AGE = load_lexicon("age")  # regular-expression terms before a person noun ("72-year-old man")


def _found(matches: list[re.Match[str]] | None) -> list[tuple[tuple[int, int], str | None]] | None:
    return None if matches is None else [(m.span(), m.lastgroup) for m in matches]


@pytest.mark.parametrize("lexicon", [GENDER, RACE, CUSTOM, AGE], ids=["gender", "race", "custom", "age"])
@settings(max_examples=200, deadline=None)
@given(text=corpora())
def test_re2_finds_exactly_the_matches_of_the_python_pattern(lexicon: Lexicon, text: str) -> None:
    fast = find_fast(lexicon, text)
    assert (fast is None) == (not text.isascii())
    assert _found(fast) in (None, _found(list(lexicon.pattern.finditer(text))))


def test_re2_finds_context_terms_titles_and_rejected_candidates_on_a_large_corpus() -> None:
    rng = random.Random(3)
    words = [*_TOKENS, "black car", "white man", "Black woman", "Mr. and", "mr. smith", "a 72-year-old man", "72-year"]
    words = [w for w in words if w.isascii()]
    texts = [" ".join(rng.choice(words) for _ in range(50)) for _ in range(400)]
    for lexicon in (GENDER, RACE, AGE):
        text = "\x00".join(texts)
        fast = find_fast(lexicon, text)
        assert fast and _found(fast) == _found(list(lexicon.pattern.finditer(text))), lexicon.name


def test_find_matches_takes_re2_for_large_corpora_and_re_for_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(4)
    texts = [" ".join(rng.choice(_TOKENS) for _ in range(40)) for _ in range(300)]
    texts[::5] = [t + " naïve café" for t in texts[::5]]  # some non-ASCII texts: the Python engine takes those
    texts[3] = ""
    fast = {lex.name: find_matches(lex, texts) for lex in (GENDER, RACE, AGE)}
    monkeypatch.setattr(engine, "_RE2_MIN_CHARS", 10**12)
    assert fast == {lex.name: find_matches(lex, texts) for lex in (GENDER, RACE, AGE)}


def test_titles_articles_and_her_his_on_a_large_corpus() -> None:
    rng = random.Random(5)
    words = [*_TOKENS, "the", "book", "car", "said", "to", "me", "happy", "uncle", "aunt", "Heir", "hour"]
    words = [w for w in words if w.isascii()]
    texts = [" ".join(rng.choice(words) for _ in range(60)) + rng.choice([".", "", " Mr. Smith"]) for _ in range(500)]
    text = "\x00".join(texts)
    for lexicon in (GENDER, RACE):
        for target, mode in MODES:
            fast, slow = _both(lexicon, text, target, mode)
            assert fast == slow, (lexicon.name, mode)


def test_out_of_scope_inputs_are_declined() -> None:
    replacer = _Replacer(GENDER, None, "neutral")
    assert substitute_fast(GENDER, "café au lait for her", replacer.for_word, replacer, _article) is None
    assert substitute_fast(GENDER, "a \x01 marker, she", replacer.for_word, replacer, _article) is None
    assert re2_source(load_lexicon({"x": ["#tag"], "y": ["other"]})) is None  # starts with a non-word character
    assert re2_source(load_lexicon({"x": ["an ox"], "y": ["a cow"]})) is None  # reads like an article


def test_neutralize_takes_re2_for_large_ascii_corpora_and_re_for_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(9)
    texts = [" ".join(rng.choice(_TOKENS) for _ in range(40)) for _ in range(300)]
    texts[::7] = [t + " naïve café" for t in texts[::7]]  # some non-ASCII texts: the Python engine takes those
    fast = neutralize(texts, attribute=None)
    monkeypatch.setattr(engine, "_RE2_MIN_CHARS", 10**12)
    assert fast == neutralize(texts, attribute=None)


_PIECES = ["her", "Right", "away", "now", "book", "the", "Last", "night", " ", " ", "\t", "\n", ".", "_1", "é"]


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=25).map("".join))
def test_vectorised_noun_phrase_check_equals_the_scalar_one(text: str) -> None:
    text = text.replace("é", "e")  # (the vectorised check takes ASCII text)
    ends = np.arange(len(text) + 1, dtype=np.int64)
    assert starts_noun_phrase_many(text, ends).tolist() == [starts_noun_phrase(text, int(e)) for e in ends]
