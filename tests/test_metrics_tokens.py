"""The fast tokenizers give exactly the reference tokens (NLTK word_tokenize, rouge-score)."""

from __future__ import annotations

import random
import re

import pytest
from _metrics_tokens_corpus import llm_like_text, random_text
from hypothesis import given
from hypothesis import strategies as st

from evenhand.metrics._tokens import (
    _fast_tokens,
    fast_path_share,
    nltk_word_tokenize,
    rouge_codes,
    rouge_tokens,
    word_tokens,
)


def test_reference_tokenizer_matches_nltk_examples() -> None:
    text = "Good muffins cost $3.88 in New York. Please buy me two of them. Thanks. He can't, Mr. Smith's car!"
    assert nltk_word_tokenize(text) == [
        "Good", "muffins", "cost", "$", "3.88", "in", "New", "York", ".", "Please", "buy", "me", "two", "of",
        "them", ".", "Thanks", ".", "He", "ca", "n't", ",", "Mr.", "Smith", "'s", "car", "!",
    ]  # fmt: skip
    assert word_tokens([text]) == [nltk_word_tokenize(text)]


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.slow
def test_fast_tokens_equal_nltk_on_a_random_corpus(lowercase: bool) -> None:
    rng = random.Random(7)
    texts = [random_text(rng, rng.randint(0, 40), rng.choice([0.05, 0.2, 0.5])) for _ in range(1200)]
    texts += [llm_like_text(rng) for _ in range(300)]
    got = word_tokens(texts, lowercase=lowercase)
    for text, tokens in zip(texts, got, strict=True):
        assert tokens == nltk_word_tokenize(text.lower() if lowercase else text), text


def test_ordinary_prose_takes_the_fast_path() -> None:
    rng = random.Random(3)
    assert fast_path_share([llm_like_text(rng) for _ in range(500)]) > 0.9


tricky = st.text(alphabet="ab Zc.,;:!?'\"()-\n$%&*3.'s n't ", max_size=40)


@given(st.lists(tricky, min_size=1, max_size=5))
def test_fast_tokens_equal_nltk_on_generated_text(texts) -> None:
    assert word_tokens(texts) == [nltk_word_tokenize(t) for t in texts]


# Quotes: straight double quotes ("``" or "''" by position), curly quotes and guillemets (always split off), and
# quotes closing a sentence, where Punkt decides whether the period before them ends it ("go." vs "Mr.").
_QUOTED_PIECES = [
    *['"', "“", "”", "‘", "’", "«", "»", 'go."', 'Mr."', "end.”", "“Mr.", '?"', "!”", "U.S.”", "no.’", "x.»", '"Hi'],
    *["He", "said", "e.g.", "3.5", ",", ".", "?", ":", "(", ")", "it’s", "don't", "]", ">"],
]
quoted = st.lists(st.tuples(st.sampled_from(_QUOTED_PIECES), st.sampled_from([" ", " ", "", "\n", "\t"])), max_size=20)


@given(st.lists(quoted.map(lambda parts: "".join(w + s for w, s in parts)), min_size=1, max_size=5))
def test_fast_tokens_equal_nltk_on_quoted_text(texts) -> None:
    reference = [nltk_word_tokenize(t) for t in texts]
    assert word_tokens(texts) == reference
    assert [_fast_tokens(t) in (None, r) for t, r in zip(texts, reference, strict=True)] == [True] * len(texts)


def test_quoted_prose_takes_the_fast_path() -> None:
    texts = [
        'He said "go." Then he left.',
        "I said “go.” Then she left, didn’t she?",
        'Ask Mr." Smith said the "Dr." was in.',
        "It was «fine». “Why?” he asked.",
        'She said: "yes". Then "no," then "maybe."',
    ]
    assert [_fast_tokens(t) for t in texts] == [nltk_word_tokenize(t) for t in texts]


def _rouge_reference(text: str) -> list[str]:
    # rouge-score's tokenizer with use_stemmer=True, written out from its specification
    from nltk.stem.porter import PorterStemmer

    stemmer = PorterStemmer()
    tokens = re.split(r"\s+", re.sub(r"[^a-z0-9]+", " ", text.lower()))
    tokens = [stemmer.stem(t) if len(t) > 3 else t for t in tokens]
    return [t for t in tokens if re.match(r"^[a-z0-9]+$", t)]


@given(st.lists(st.text(alphabet="abcXYZ running cats 12 ,.!é'\n", max_size=40), min_size=1, max_size=4))
def test_rouge_tokens_follow_rouge_score(texts) -> None:
    assert rouge_tokens(texts) == [_rouge_reference(t) for t in texts]
    codes, _ = rouge_codes(texts)
    assert [len(c) for c in codes] == [len(_rouge_reference(t)) for t in texts]
