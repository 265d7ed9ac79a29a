"""The ASCII fast scan (case-sensitive pattern on lower-cased text) finds exactly what the case-insensitive one does."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.text import Lexicon, load_lexicon
from evenhand.text._engine import _Replacer, _scan, _sub

GENDER = load_lexicon("gender")
RACE = load_lexicon("race")
_TOKENS = [
    *(form for lex in (GENDER, RACE) for term in sorted(lex.words) for form in (term, term.upper(), term.title())),
    *["Mr.", "mr.", "MR.", "ms.", "a", "An", "and", "&", "or", "200", "Smith", "smith", "her", "book", "right away"],
]
_SEPARATORS = [" ", " ", "  ", "\n", ". ", ", ", "", "-"]


@st.composite
def ascii_texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(_TOKENS), max_size=20))
    return "".join(w + draw(st.sampled_from(_SEPARATORS)) for w in words)


def _spans(matches: Iterable[re.Match[str]]) -> list[tuple[tuple[int, int], str | None, tuple[int, int]]]:
    return [(m.span(), m.lastgroup, m.span(m.lastgroup or 0)) for m in matches]


def _on_own_string(replacer: _Replacer, m: re.Match[str]) -> str:
    return replacer(m.string, m)


@pytest.mark.parametrize("lexicon", [GENDER, RACE], ids=["gender", "race"])
@settings(max_examples=150, deadline=None)
@given(text=ascii_texts())
def test_fast_scan_finds_the_exact_patterns_matches(lexicon: Lexicon, text: str) -> None:
    assert lexicon.lower_patterns is not None
    assert _spans(_scan(lexicon, text)) == _spans(lexicon.pattern.finditer(text))
    for target, mode in [(None, "neutral"), (None, "swap"), (lexicon.groups[0], "group")]:
        reference = _Replacer(lexicon, target, mode)  # the exact, case-insensitive pattern's own sub
        expected = lexicon.substitution_pattern.sub(partial(_on_own_string, reference), text)
        assert _sub(lexicon, _Replacer(lexicon, target, mode), text) == expected


def test_lower_case_title_without_a_name_falls_back_to_the_exact_pattern() -> None:
    # "ms. jones": the lower-case scan sees a title before a name, the original text has no capital there
    text = "the ms. and then, 5 ms. later, MS. Smith said ms. jones and ms and Mr. ms. Ann ms."
    fast = [(m.span(), m.lastgroup) for m in _scan(GENDER, text)]
    assert fast == [(m.span(), m.lastgroup) for m in GENDER.pattern.finditer(text)]
    assert [(text[slice(*span)], group) for span, group in fast] == [
        ("ms.", "n"),
        ("MS.", "n"),
        ("Mr.", "t"),
        ("ms.", "n"),
    ]


def test_terms_matching_ascii_letters_case_insensitively_disable_the_fast_scan() -> None:
    assert load_lexicon({"a": ["ſam"], "b": ["tom"]}).lower_patterns is None  # long s matches "s" and "S"
    assert load_lexicon({"a": ["café"], "b": ["tea"]}).lower_patterns is not None
