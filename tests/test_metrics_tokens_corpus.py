"""word_tokens decides its path once over all texts joined together: boundaries between texts, texts that need
Punkt or NLTK on their own, and characters the joined path uses internally must not change any token."""

from __future__ import annotations

import random

import pytest
from _metrics_tokens_corpus import llm_like_text, random_text
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.metrics._tokens import nltk_word_tokenize, word_tokens

_WORDS = [
    "Dr.", "e.g.", "U.S.", "3.", "2020.", "A.", "Mr.", "etc.", "it's", "don't", "Cannot", "gonna", "WANNA", "d'ye",
    "more'n", "o'clock", "rock'n'roll", "'s", "3.5", "10:30", "1,000", ",5", "x.y", "end.", "end!", "?", "...",
    "(a)", "--", "''", "\"q\"", "\t", "\n", "\u00a0", "\u2003", "İstanbul", "\x00", "\x02", "\x03", "\x04", "café",
]  # fmt: skip
_text = st.lists(st.sampled_from(_WORDS) | st.text(alphabet="ab Z.,:'!-\n3", max_size=6), max_size=12).map(
    lambda words: " ".join(words)
)


def _reference(texts: list[str], lowercase: bool) -> list[list[str]]:
    return [nltk_word_tokenize(t.lower() if lowercase else t) for t in texts]


@settings(max_examples=200, deadline=None)
@given(st.lists(_text, max_size=12), st.booleans())
def test_corpus_path_equals_nltk(texts: list[str], lowercase: bool) -> None:
    assert word_tokens(texts, lowercase=lowercase) == _reference(texts, lowercase)


@pytest.mark.slow
def test_corpus_path_equals_nltk_on_mixed_prose() -> None:
    rng = random.Random(11)
    texts = [llm_like_text(rng) for _ in range(200)] + [random_text(rng, 30, 0.3) for _ in range(200)]
    texts += [" ".join(rng.choice(_WORDS) for _ in range(15)) for _ in range(200)]
    rng.shuffle(texts)
    for lowercase in (False, True):
        assert word_tokens(texts, lowercase=lowercase) == _reference(texts, lowercase)


def test_texts_with_the_separator_fall_back() -> None:
    texts = ["a\x00b. c", "He's here.", ""]
    assert word_tokens(texts) == _reference(texts, False)
