"""Find the lexicon terms of a large ASCII corpus with RE2 (through pyarrow), then substitute them vectorised.

Python's ``re`` tries the lexicon pattern at every position of the text, which is most of the time of neutralising
a corpus. RE2 compiles the same terms into an automaton that scans several times faster. RE2 has no look-arounds,
so the pattern given to it is *exact* for plain terms (each term carries its own end test: ``\\b`` after a word
character, ``\\B`` after another character, which is what Python's ``(?!\\w)`` means there) and a *superset* for
the terms that need look-arounds (titles before a name, context words before a person noun). The spans of every
candidate come back as marker bytes around its groups; plain terms are replaced per distinct word, and the few
other candidates are decided by the exact Python pattern.

Scope, where both engines provably find the same spans: ASCII text (RE2's ``\\b`` is ASCII-only, Python's ``\\w``
is not) without the marker bytes, and lexicons whose terms start with an ASCII word character. Every other text
takes the Python engine. The tests compare both engines on random texts.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from evenhand.text._grammar import GRAMMARS, starts_noun_phrase_many
from evenhand.text.lexicon import normalize_term

if TYPE_CHECKING:
    from evenhand.text.lexicon import Lexicon

IntArray = npt.NDArray[np.int64]

_SPACE = r"[\t\n\x0b\x0c\r\x1c-\x1f ]"  # Python's \s on ASCII text (RE2's \s lacks \x0b and \x1c-\x1f)
_SPACE_BYTE = np.array([chr(b) in "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f " for b in range(256)])
_OPEN, _CLOSE = "\x01", "\x02"  # put around every match by RE2 (texts that contain them are not scanned here)


def _is_word(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def _term_source(term: str) -> str:
    out = []
    for ch in term:
        if ch == " ":
            out.append(_SPACE + "+")
        elif _is_word(ch):
            out.append(ch)
        else:
            out.append(f"\\x{{{ord(ch):x}}}")
    return "".join(out) + (r"\b" if _is_word(term[-1]) else r"\B")


@functools.lru_cache(maxsize=32)
def re2_source(lexicon: Lexicon) -> str | None:
    """The RE2 pattern for ``lexicon``, or None when the lexicon is out of scope.

    Plain terms come first, then titles and context terms, each longest first (the order in which Python's trie,
    with greedy optional tails, tries terms that share a prefix). Terms with non-ASCII characters are left out:
    they cannot occur in ASCII text. A term that could be read as an article ("a", "an x") would make the
    article ambiguous, so such lexicons stay with Python.
    """
    free, titles, ctx = lexicon.term_kinds()
    never = sorted(lexicon.not_terms)  # first, as in the Python pattern: they win where they match
    terms = [t for t in (*never, *free, *titles, *ctx) if t.isascii() and t]
    if any(not _is_word(t[0]) or re.match(r"an?(?: |$)", t) for t in terms):
        return None
    ordered = [
        t for kind in (never, free, titles, ctx) for t in sorted(set(kind) & set(terms), key=lambda t: (-len(t), t))
    ]
    # regular-expression terms (before a person noun, after a person subject) last; the Python pattern decides them
    patterns = [*lexicon.context_patterns(), *lexicon.subject_patterns()]
    alternatives = "|".join([*map(_term_source, ordered), *(f"(?:{p})" for p in patterns)])
    return rf"(?i)\b(?:an?{_SPACE}+)?(?:{alternatives})" if alternatives else None


def candidate_spans(lexicon: Lexicon, text: str) -> tuple[IntArray, IntArray] | None:
    """Starts and ends of RE2's matches of the lexicon pattern in ``text`` (articles included), or None when out
    of scope. Every match of the exact Python pattern lies inside one of these spans (RE2's pattern matches
    wherever Python's does, and both scan leftmost-first without overlaps)."""
    source = re2_source(lexicon)
    if source is None or not text.isascii() or _OPEN in text or _CLOSE in text:
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:  # pragma: no cover - pyarrow is a dependency; the Python engine still works without it
        return None
    marked = pc.replace_substring_regex(pa.array([text], type=pa.large_string()), source, f"{_OPEN}\\0{_CLOSE}")
    _, offsets, data = marked.buffers()
    begin, end = np.frombuffer(offsets, dtype=np.int64)[:2]
    raw = np.frombuffer(data, dtype=np.uint8)[begin:end]
    opens, closes = np.flatnonzero(raw == ord(_OPEN)), np.flatnonzero(raw == ord(_CLOSE))
    before = 2 * np.arange(opens.size, dtype=np.int64)  # marker bytes before each match
    return opens - before, closes - before - 1


_NON_WORD = re.compile(r"\W")


def find_fast(lexicon: Lexicon, text: str) -> list[re.Match[str]] | None:
    """The matches of ``lexicon.pattern`` in ``text``, exactly as ``lexicon.pattern.finditer(text)`` gives them, or
    None when out of scope (the caller scans with ``re``).

    Python's pattern can match only where RE2's superset pattern does, so every match starts inside one of RE2's
    candidate spans: the exact pattern is tried there alone, at each position a term may start (after a non-word
    character: the pattern's look-behind), from the end of the previous match on, as ``finditer`` goes on.
    """
    spans = candidate_spans(lexicon, text)
    if spans is None:
        return None
    exact = lexicon.pattern
    found: list[re.Match[str]] = []
    done = 0  # where the previous match ended: finditer goes on from there
    for start, end in zip(*(s.tolist() for s in spans), strict=True):
        at = max(start, done)
        while at < end:
            m = exact.match(text, at)
            if m is not None:
                found.append(m)
                at = done = m.end()
                continue
            gap = _NON_WORD.search(text, at, end)
            if gap is None:
                break
            at = gap.start() + 1
    return found


def substitute_fast(
    lexicon: Lexicon,
    text: str,
    for_word: Callable[[str], tuple[str, str | None]],
    replace_match: Callable[[str, re.Match[str]], str],
    article: Callable[[str, str], str],
) -> str | None:
    """``text`` with every lexicon term substituted, or None when out of scope (the caller uses ``re``).

    ``for_word(word)`` gives a plain term's replacement (and another for when no noun phrase follows, if that
    matters); ``replace_match(text, m)`` the replacement of a match of the exact pattern (article included);
    ``article(old_article, new_word)`` the article before a replaced word.
    """
    from evenhand._bytecodes import distinct_spans  # imports pandas: only when needed

    spans = candidate_spans(lexicon, text)
    if spans is None:
        return None
    match_start, match_end = spans
    term_start = _after_article(text, match_start)
    distinct, codes = distinct_spans(text, term_start, match_end)
    words = np.asarray(distinct, dtype=object)
    free = set(lexicon.term_kinds()[0])
    # a capitalised word of a lexicon with proper_forms depends on whether it starts a sentence: Python decides
    positional = lexicon.proper_forms
    plain_word = np.array(
        [normalize_term(w) in free and not (positional and w[:1].isupper()) for w in words], dtype=bool
    )
    plain = plain_word[codes] if codes.size else np.zeros(0, dtype=bool)
    # plain terms are exact in RE2's pattern; titles and context terms are checked by Python's pattern
    grammar = GRAMMARS[lexicon.grammar] if lexicon.grammar is not None else None
    next_words = grammar.starts_noun_phrase_many if grammar is not None else starts_noun_phrase_many
    starts, stops, news = _plain_edits(text, match_start[plain], term_start[plain], match_end[plain],
                                       words, codes[plain], for_word, article, next_words)  # fmt: skip
    others = np.flatnonzero(~plain)
    if others.size:
        decided = _decide_others(lexicon, text, match_start, others, replace_match)
        if decided is None:
            return None
        if decided:
            extra_starts, extra_stops, extra_news = zip(*decided, strict=True)
            starts = np.concatenate([starts, np.asarray(extra_starts, dtype=np.int64)])
            stops = np.concatenate([stops, np.asarray(extra_stops, dtype=np.int64)])
            news = np.concatenate([news, np.asarray(extra_news, dtype=object)])
            order = np.argsort(starts, kind="stable")
            starts, stops, news = starts[order], stops[order], news[order]
    if starts.size == 0:
        return text
    # the text is the kept pieces (before, between and after the edits) interleaved with the replacements
    kept_from = np.concatenate([[0], stops]).tolist()
    kept_to = np.concatenate([starts, [len(text)]]).tolist()
    pieces: list[str] = [""] * (2 * starts.size + 1)
    pieces[0::2] = [text[a:b] for a, b in zip(kept_from, kept_to, strict=True)]
    pieces[1::2] = news.tolist()
    return "".join(pieces)


def _after_article(text: str, starts: IntArray) -> IntArray:
    """Where the term starts in each match: after "a"/"an" and whitespace when the match begins with them (no
    term of an in-scope lexicon can be read that way)."""
    raw = np.frombuffer(text.encode("ascii") + b"\0\0\0", dtype=np.uint8)
    is_a = (raw[starts] | 0x20) == ord("a")
    second = raw[starts + 1]
    skip = np.where(is_a & _SPACE_BYTE[second], 1, 0)
    skip = np.where(is_a & ((second | 0x20) == ord("n")) & _SPACE_BYTE[raw[starts + 2]], 2, skip)
    term_start = starts + skip
    todo = np.flatnonzero(skip > 0)
    while todo.size:  # past the whitespace run (usually one space)
        inside = _SPACE_BYTE[raw[term_start[todo]]]
        todo = todo[inside]
        term_start[todo] += 1
    return term_start


def _plain_edits(
    text: str,
    match_start: IntArray,
    term_start: IntArray,
    term_end: IntArray,
    words: npt.NDArray[Any],
    codes: IntArray,
    for_word: Callable[[str], tuple[str, str | None]],
    article: Callable[[str, str], str],
    next_words: Callable[[str, IntArray], npt.NDArray[np.bool_]] = starts_noun_phrase_many,
) -> tuple[IntArray, IntArray, npt.NDArray[Any]]:
    """Edits (starts, stops, replacements) for plain terms: one replacement per distinct word (two for her/his,
    chosen by the next word), and the article fixed where the new word needs the other one."""
    choices = [for_word(w) for w in words.tolist()]
    news = np.asarray([first for first, _ in choices], dtype=object)[codes] if codes.size else np.zeros(0, object)
    contextual = np.array([second is not None for _, second in choices], dtype=bool)
    if codes.size and contextual.any():
        otherwise = np.asarray([second for _, second in choices], dtype=object)
        which = np.flatnonzero(contextual[codes])
        no_phrase = ~next_words(text, term_end[which])
        news[which[no_phrase]] = otherwise[codes[which[no_phrase]]]
    changed = news != words[codes]
    starts = term_start.copy()
    for i in np.flatnonzero(changed & (term_start > match_start)).tolist():
        new = news[i]
        if not new.startswith("["):
            art_start, art_end = (
                int(match_start[i]),
                int(match_start[i]) + (2 if text[match_start[i] + 1] in "nN" else 1),
            )
            news[i] = article(text[art_start:art_end], new) + text[art_end : int(term_start[i])] + new
            starts[i] = art_start
    return starts[changed], term_end[changed], news[changed]


def _decide_others(
    lexicon: Lexicon, text: str, starts: IntArray, others: Any, replace_match: Callable[[str, re.Match[str]], str]
) -> list[tuple[int, int, str]] | None:
    """Titles and context terms: the exact pattern decides, from each such candidate up to the next candidate.
    None when a match of it would overlap the next candidate (then the whole text goes to the Python engine)."""
    exact = lexicon.substitution_pattern
    edits = []
    start_list = starts.tolist()
    for i in others.tolist():
        limit = start_list[i + 1] if i + 1 < len(start_list) else len(text)
        for m in exact.finditer(text, start_list[i]):
            if m.start() >= limit:
                break
            if m.end() > limit:
                return None
            edits.append((m.start(), m.end(), replace_match(text, m)))
    return edits
