"""Integer codes for the tokens of many texts, computed from their UTF-8 bytes with NumPy.

Creating millions of token strings and hashing them is most of the cost of a tokenizer-based metric on a large
corpus. Here all texts become one byte buffer, a 256-entry table says which bytes belong to tokens (tokens are
the maximal runs of such bytes), and each token is identified by its bytes read eight at a time as 64-bit
integers, which pandas factorizes in C. Only the distinct tokens are ever turned into strings.

The two tokenizations used by the metrics are byte-exact this way: rouge-score's ``[a-z0-9]+`` runs of
lower-cased text (every byte of a non-ASCII character is >= 0x80, so it separates tokens, as in ``re``) and
``str.split()`` on whitespace (ASCII whitespace by the table; other Unicode whitespace is replaced by a space first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

IntArray = npt.NDArray[np.int64]

# bytes that make up tokens: translate() maps them to 1 and all others to 0
ALNUM_LOWER = bytes(int(48 <= b <= 57 or 97 <= b <= 122) for b in range(256))
NOT_SPACE = bytes(int(b not in b" \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f") for b in range(256))
# the characters other than ASCII ones for which str.isspace() is true (tests check the list is complete)
NON_ASCII_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")

_MASKS = np.array([(1 << (8 * r)) - 1 for r in range(8)] + [(1 << 64) - 1], dtype=np.uint64)


@dataclass(frozen=True)
class TokenCodes:
    """The tokens of ``n`` texts: ``codes`` concatenates each text's token codes (equal tokens, equal codes,
    codes ``0 .. n_distinct - 1``), ``lengths[i]`` is the number of tokens of text ``i``."""

    codes: IntArray
    lengths: IntArray
    n_distinct: int
    _data: bytes
    _starts: IntArray
    _ends: IntArray

    def vocabulary(self) -> list[str]:
        """The distinct tokens, in code order."""
        first = first_occurrences(self.codes, self.n_distinct)
        data, starts, ends = self._data, self._starts[first].tolist(), self._ends[first].tolist()
        return [data[s:e].decode("utf-8") for s, e in zip(starts, ends, strict=True)]


def token_codes(texts: Sequence[str], token_bytes: bytes) -> TokenCodes:
    """Code the tokens of ``texts``: maximal runs of bytes ``b`` with ``token_bytes[b] == 1`` in each UTF-8 text.

    The separator used to join the texts (a space) must not be a token byte.
    """
    data = " ".join(texts).encode("utf-8")
    if data.isascii():
        sizes = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    else:
        sizes = np.fromiter((len(t.encode("utf-8")) for t in texts), dtype=np.int64, count=len(texts))
    text_starts = np.cumsum(sizes + 1) - (sizes + 1)
    inside = np.zeros(len(data) + 2, dtype=np.int8)
    inside[1:-1] = np.frombuffer(data.translate(token_bytes), dtype=np.int8)
    edges = np.flatnonzero(np.diff(inside))  # token starts and ends, alternating
    starts, ends = edges[0::2], edges[1::2]
    counts = np.diff(np.searchsorted(starts, np.append(text_starts, len(data) + 1)))
    codes, n_distinct = code_spans(data, starts, ends - starts)
    return TokenCodes(codes, counts.astype(np.int64), n_distinct, data, starts, ends)


def distinct_spans(text: str, starts: IntArray, stops: IntArray) -> tuple[list[str], IntArray]:
    """The distinct substrings ``text[start:stop]`` of an ASCII ``text`` (in order of first occurrence) and, per
    span, the index of its substring."""
    codes, n_distinct = code_spans(text.encode("ascii"), starts, stops - starts)
    first = first_occurrences(codes, n_distinct)
    return [text[a:b] for a, b in zip(starts[first].tolist(), stops[first].tolist(), strict=True)], codes


def first_occurrences(codes: IntArray, n_codes: int) -> IntArray:
    """For each code ``0 .. n_codes - 1`` (all present in ``codes``), the index of its first occurrence."""
    firsts = np.flatnonzero(~pd.Series(codes).duplicated().to_numpy())
    out = np.empty(n_codes, dtype=np.int64)
    out[codes[firsts]] = firsts
    return out


def code_spans(data: bytes, starts: IntArray, sizes: IntArray) -> tuple[IntArray, int]:
    """Codes of the byte strings ``data[s : s + n]`` (equal strings, equal codes) and the number of codes."""
    if starts.size == 0:
        return np.zeros(0, dtype=np.int64), 0
    padded = np.frombuffer(data + bytes(8), dtype=np.uint8)
    # every offset read as a little-endian 64-bit integer of the 8 bytes there (an unaligned, overlapping view)
    words = np.ndarray(shape=(padded.size - 7,), dtype="<u8", buffer=padded.data, strides=(1,))
    codes = np.empty(starts.size, dtype=np.int64)
    # up to 7 bytes: the bytes and the length (in the top byte, unused by the bytes) make one exact key
    short = sizes < 8
    key = words[starts[short]] & _MASKS[sizes[short]]
    key |= sizes[short].astype(np.uint64) << np.uint64(56)
    short_codes, short_uniques = pd.factorize(key)
    codes[short] = short_codes
    n_codes = len(short_uniques)
    long = np.flatnonzero(~short)
    if long.size:
        codes[long] = n_codes + _code_long(words, starts[long], sizes[long])
        n_codes = int(codes[long].max()) + 1
    return codes, n_codes


def _code_long(words: npt.NDArray[np.uint64], starts: IntArray, sizes: IntArray) -> IntArray:
    """Codes of byte strings of 8 bytes or more: start from the length, then refine by each 8-byte chunk."""
    code = np.asarray(pd.factorize(sizes)[0], dtype=np.int64)
    next_code = int(code.max()) + 1
    todo = np.arange(starts.size)
    offset = 0
    while todo.size:
        remaining = sizes[todo] - offset
        chunk = words[starts[todo] + offset] & _MASKS[np.minimum(remaining, 8)]
        chunk_codes, chunk_uniques = pd.factorize(chunk)
        base = code[todo]
        if next_code * len(chunk_uniques) >= 1 << 62:  # keep the combined key inside int64
            base = np.asarray(pd.factorize(base)[0], dtype=np.int64)
        # strings still being read get fresh codes above all earlier ones, so they never meet finished strings
        refined = np.asarray(pd.factorize(base * len(chunk_uniques) + chunk_codes)[0], dtype=np.int64)
        code[todo] = next_code + refined
        next_code += int(refined.max()) + 1
        offset += 8
        todo = todo[remaining > 8]
    return np.asarray(pd.factorize(code)[0], dtype=np.int64)
