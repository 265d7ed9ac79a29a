"""Token codes from bytes equal the codes of the Python tokens (str.split, rouge-score runs), on any text."""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest
from _metrics_tokens_corpus import llm_like_text, random_text
from hypothesis import given
from hypothesis import strategies as st

from evenhand._bytecodes import ALNUM_LOWER, NON_ASCII_SPACE, NOT_SPACE, token_codes
from evenhand.metrics._tokens import nltk_word_tokenize, rouge_codes, word_token_ids


def _same_partition(codes: np.ndarray, tokens: list[str]) -> bool:
    """Equal tokens have equal codes and different tokens different codes."""
    reference = pd.factorize(np.asarray(tokens, dtype=object))[0] if tokens else np.zeros(0, dtype=np.int64)
    pairs = set(zip(codes.tolist(), reference.tolist(), strict=True))
    return len(pairs) == len(set(codes.tolist())) == len(set(reference.tolist()))


def _check(texts: list[str], table: bytes, split: Callable[[str], list[str]]) -> None:
    got = token_codes(texts, table)
    lists = [split(t) for t in texts]
    assert got.lengths.tolist() == [len(x) for x in lists]
    flat = [w for x in lists for w in x]
    assert _same_partition(got.codes, flat)
    assert got.n_distinct == len(set(flat))
    vocabulary = got.vocabulary()
    assert [vocabulary[c] for c in got.codes.tolist()] == flat


@pytest.mark.slow
def test_non_ascii_space_lists_every_unicode_whitespace_character() -> None:
    expected = {chr(c) for c in range(0x80, sys.maxunicode + 1) if chr(c).isspace()}
    found = {chr(c) for c in range(0x80, sys.maxunicode + 1) if NON_ASCII_SPACE.fullmatch(chr(c))}
    assert found == expected
    assert {chr(b) for b in range(128) if not NOT_SPACE[b]} == {chr(b) for b in range(128) if chr(b).isspace()}


words = st.text(alphabet=st.sampled_from("ab\x00é\u3000ž1 \t\n\x1c.,'"), max_size=30)


@given(st.lists(st.one_of(words, st.text(max_size=12)), max_size=6))
def test_whitespace_codes_equal_str_split(texts: list[str]) -> None:
    _check([NON_ASCII_SPACE.sub(" ", t) for t in texts], NOT_SPACE, str.split)


@given(st.lists(st.one_of(words, st.text(max_size=12)), max_size=6))
def test_alnum_codes_equal_rouge_runs(texts: list[str]) -> None:
    lowered = [t.lower() for t in texts]
    _check(lowered, ALNUM_LOWER, re.compile(r"[a-z0-9]+").findall)


def test_long_tokens_sharing_prefixes_keep_distinct_codes() -> None:
    stems = ["internationalization", "internationalizations", "international", "internationa", "interna"]
    texts = [" ".join(random.Random(i).choices(stems + [s * 5 for s in stems], k=30)) for i in range(50)]
    _check(texts, NOT_SPACE, str.split)
    _check(["x" * n for n in range(40)] + ["x" * 8 + "\x00", "x" * 8], NOT_SPACE, str.split)


def test_empty_inputs() -> None:
    got = token_codes([], NOT_SPACE)
    assert got.codes.size == 0 and got.lengths.size == 0 and got.vocabulary() == []
    _check(["", " ", "\n\t"], NOT_SPACE, str.split)


@pytest.mark.slow
def test_word_token_ids_equal_the_codes_of_nltk_tokens() -> None:
    rng = random.Random(11)
    texts = [random_text(rng, rng.randint(0, 40)) for _ in range(300)] + [llm_like_text(rng) for _ in range(100)]
    texts += ["naïve café\u00a0résumé\u2028über", "a\u3000b", ""]
    ids, lengths = word_token_ids(texts, lowercase=True)
    reference = [nltk_word_tokenize(t.lower()) for t in texts]
    assert lengths.tolist() == [len(x) for x in reference]
    assert _same_partition(ids, [w for x in reference for w in x])


# words that Treebank splits (clitics, MacIntyre contractions) beside texts that take NLTK's own path (quotes)
_SPLIT_WORDS = ["don't", "it's", "Cannot", "gonna", "WANNA", "gimme", "parents'", "'tis", "o'clock", "d'ye", "more'n"]
_OTHER = ["a", "the", "Mr.", "said", "3.5", ",", ".", "!", "?", "(x)", '"', "''", "--", "\n"]


@given(st.lists(st.lists(st.sampled_from(_SPLIT_WORDS + _OTHER), max_size=15).map(" ".join), min_size=2, max_size=6))
def test_word_token_ids_split_words_like_nltk(texts: list[str]) -> None:
    ids, lengths = word_token_ids(texts)
    reference = [nltk_word_tokenize(t) for t in texts]
    assert lengths.tolist() == [len(x) for x in reference]
    assert _same_partition(ids, [w for x in reference for w in x])


@pytest.mark.slow
def test_rouge_codes_skip_surrogate_code_points() -> None:
    # more than 0xD800 distinct stems: the code points jump over the surrogate range and still decode
    texts = [" ".join(f"w{i}x{j}" for j in range(100)) for i in range(600)]
    coded, n_stems = rouge_codes(texts)
    assert n_stems == 60_000
    assert all(len(c) == 100 for c in coded)
    assert not any(0xD800 <= ord(ch) < 0xE000 for c in coded for ch in c)
    assert len({ch for c in coded for ch in c}) == 60_000
