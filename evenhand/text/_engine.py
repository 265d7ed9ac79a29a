"""Find and substitute lexicon terms in many texts with one regex pass.

All texts are joined with a NUL separator (never a word character, never whitespace, so no term or context
look-ahead can cross it) and scanned once by the lexicon's compiled pattern; match positions are mapped back to
texts with a binary search. Substitution replaces the matches of the joined string and splits it again. Texts
that themselves contain NUL fall back to one pass per text. ASCII text is scanned lower-cased with a case-sensitive
pattern (see :func:`_scan`), which ``re`` runs much faster than a case-insensitive one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import NamedTuple, TypeVar

import numpy as np

from evenhand.text._grammar import (
    GRAMMARS,
    PLURAL_SUBJECT,
    indefinite_article,
    keep_proper_case,
    match_case,
    plural_verb_agreement,
)
from evenhand.text._re2 import find_fast, substitute_fast
from evenhand.text.lexicon import MASK, NAME_NEXT, Lexicon, LexiconRow, normalize_term

_SEP = "\x00"
_T = TypeVar("_T")


class AttributeMatch(NamedTuple):
    """One protected-attribute word found in a text."""

    word: str  # as written in the text
    start: int  # character offsets in that text
    end: int
    term: str  # lower-case lexicon term
    group: str | None  # the group the term belongs to (None: a mention of no group, e.g. "Native American")
    attribute: str  # lexicon name: a built-in attribute ("gender", "race", ...) or "custom"


def _joined(texts: Sequence[str]) -> str | None:
    joined = _SEP.join(texts)
    return joined if joined.count(_SEP) == len(texts) - 1 else None


def find_matches(lexicon: Lexicon, texts: Sequence[str]) -> list[tuple[AttributeMatch, ...]]:
    """Per text, the attribute words it contains, in order of position."""
    joined = _joined(texts) if texts else None
    if joined is None:
        return [tuple(_match(lexicon, *_term(m, t)) for m in _scan(lexicon, t) if m.lastgroup != "x") for t in texts]
    return _ascii_apart(texts, joined, lambda part, joined_part: _find_joined(lexicon, part, joined_part))


def _ascii_apart(texts: Sequence[str], joined: str, run: Callable[[Sequence[str], str], list[_T]]) -> list[_T]:
    """``run(texts, joined)`` (``joined``: the texts joined by NUL), with the ASCII texts run apart from the others
    when the corpus is large enough for RE2, which takes the ASCII ones only (see evenhand.text._re2 for why)."""
    if len(joined) < _RE2_MIN_CHARS or joined.isascii():
        return run(texts, joined)
    out: list[_T | None] = [None] * len(texts)
    for wanted in (True, False):
        subset = [i for i, t in enumerate(texts) if t.isascii() == wanted]
        if subset:
            part = [texts[i] for i in subset]
            for i, result in zip(subset, run(part, _SEP.join(part)), strict=True):
                out[i] = result
    return out  # type: ignore[return-value]  # every position is in one subset


def _find_joined(lexicon: Lexicon, texts: Sequence[str], joined: str) -> list[tuple[AttributeMatch, ...]]:
    """:func:`find_matches` on ``texts`` joined by NUL (``joined``)."""
    out: list[tuple[AttributeMatch, ...]] = [()] * len(texts)
    fast = find_fast(lexicon, joined) if len(joined) >= _RE2_MIN_CHARS else None
    scanned = fast if fast is not None else _scan(lexicon, joined)
    spans = [_term(m, joined) for m in scanned if m.lastgroup != "x"]
    if not spans:
        return out
    lengths = np.fromiter((len(t) + 1 for t in texts), dtype=np.int64, count=len(texts))
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    positions = np.fromiter((s for _, s, _ in spans), dtype=np.int64, count=len(spans))
    owners = (np.searchsorted(starts, positions, side="right") - 1).tolist()
    bases = starts.tolist()
    per_text: dict[int, list[AttributeMatch]] = {}
    for (word, s, e), i in zip(spans, owners, strict=True):
        per_text.setdefault(i, []).append(_match(lexicon, word, s - bases[i], e - bases[i]))
    for i, found in per_text.items():
        out[i] = tuple(found)
    return out


def _scan(lexicon: Lexicon, text: str, substitution: bool = False) -> Iterator[re.Match[str]]:
    """The matches of the lexicon's (substitution) pattern in ``text``, in order.

    Offsets index ``text``, but for ASCII text the match may come from ``text.lower()``: read the words by offset
    from ``text``, never with ``m.group()``. A lower-case title match whose next word is not capitalised ("mr. and
    then") would not match the exact pattern; there the exact pattern takes over from that position.
    """
    exact = lexicon.substitution_pattern if substitution else lexicon.pattern
    lower = lexicon.lower_patterns
    if lower is None or not text.isascii():
        yield from exact.finditer(text)
        return
    fast = lower[1] if substitution else lower[0]
    low = text.lower()
    pos = 0
    while True:
        for m in fast.finditer(low, pos):
            if m.lastgroup == "n" and NAME_NEXT.match(text, m.end("n")) is None:
                break
            yield m
        else:
            return
        found = exact.search(text, m.start())
        if found is None:
            return
        yield found
        pos = found.end()


def _term(m: re.Match[str], text: str) -> tuple[str, int, int]:
    """The matched term (group ``t``, ``c`` or ``n`` of the lexicon pattern) as written in ``text``, and its span."""
    name = m.lastgroup or 0
    start, end = m.span(name)
    return text[start:end], start, end


def _match(lexicon: Lexicon, word: str, start: int, end: int) -> AttributeMatch:
    term = normalize_term(word)
    return AttributeMatch(word, start, end, term, lexicon.group_of(term), lexicon.name)


_OPENERS = frozenset(" \t\"'([“‘")
_ENDERS = frozenset(".!?:\n\r\x00")


def at_sentence_start(text: str, start: int) -> bool:
    """True when the word at ``start`` begins a text, a line or a sentence (only spaces, quotes and brackets
    between it and a full stop, question or exclamation mark, colon or line break)."""
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    return i < 0 or text[i] in _ENDERS


def _no_noun_phrase(text: str, end: int) -> bool:
    """The next-words test of a lexicon without grammar rules (never asked: no term there has a second row)."""
    return False


class _Replacer:
    """``re.sub`` callback: the replacement for one matched term (and its article) in a given target."""

    def __init__(self, lexicon: Lexicon, target: str | None, mode: str) -> None:
        self.lexicon = lexicon
        self.target = target
        self.mode = mode  # "group": to target's form; "swap": to the other of two groups; "neutral"
        # the lexicon's grammar rules (named by its file) choose between the rows that share a term ("her")
        grammar = GRAMMARS[lexicon.grammar] if lexicon.grammar is not None else None
        self._choice_slot = grammar.noun_phrase_slot if grammar is not None else None
        # a target whose subject pronoun takes a plural verb ("they are"): its subject forms are marked, and
        # substitute() then fixes the verb after each mark
        plural = grammar is not None and mode == "group" and target in lexicon.plural_verb_groups
        self.subject_slot = grammar.subject_slot if grammar is not None and plural else None
        self._starts_noun_phrase = grammar.starts_noun_phrase if grammar is not None else _no_noun_phrase
        # The same few words recur across a corpus, so most matches are a dictionary look-up. A match is known by
        # its text (article, space and term) and where the term starts in it; a term whose row depends on the next
        # words ("her" -> "their"/"them") is memoised per answer of that look at the next words.
        self._memo: dict[tuple[str, int], str] = {}
        self._contextual: set[tuple[str, int]] = set()
        self._memo_in_context: dict[tuple[str, int, bool], str] = {}

    def row_choices(self, key: str) -> tuple[LexiconRow, LexiconRow | None]:
        """The row for ``key``; with a second row when the choice depends on the next words (the first row is
        then the determiner's, for a noun phrase next: "her book" -> "their book", "saw her" -> "saw them")."""
        rows = self.lexicon.rows
        idx = self.lexicon.rows_for(key)
        if len(idx) > 1 and self._choice_slot is not None:
            noun_phrase = [i for i in idx if rows[i].slot == self._choice_slot]
            other = [i for i in idx if rows[i].slot != self._choice_slot]
            if noun_phrase and other:
                return rows[noun_phrase[0]], rows[other[0]]
        return rows[idx[0]], None

    def row(self, key: str, text: str, end: int) -> tuple[LexiconRow, bool | None]:
        """The lexicon row for ``key`` at this position, and what the next words said (None: not looked at)."""
        first, second = self.row_choices(key)
        if second is None:
            return first, None
        noun_phrase = self._starts_noun_phrase(text, end)
        return (first if noun_phrase else second), noun_phrase

    def replacement(self, word: str, row: LexiconRow, key: str, initial: bool = False) -> str:
        """The replacement of ``word`` (its lower-case ``key``) by ``row``; ``initial``: the word starts a sentence
        (read only by a lexicon with ``proper_forms``, for a capitalised word)."""
        own = row.group_of(key)
        if self.mode == "neutral":
            neutral = row.neutral or MASK
            return neutral if neutral == MASK else match_case(word, neutral)
        if self.mode == "swap":
            groups = self.lexicon.groups
            target = groups[1 - groups.index(own)] if own in groups else None
        else:
            target = self.target
        if target is None or (own is None and key not in row.terms):
            # a pattern's match of no group is kept: a child's age ("a 9-year-old", "aged 9") stays a child's in
            # every version (its prompt then has no counterfactual), never an adult's "aged 25"
            return word
        form = row.forms[target]
        if normalize_term(form) == key:
            return word  # already the target group's form: keep it byte-identical
        # a synonym is replaced even within its own group ("Caucasian" -> "White"), so that all versions of a
        # prompt differ only in the group word
        new = keep_proper_case(word, form, initial) if self.lexicon.proper_forms else match_case(word, form)
        return new + PLURAL_SUBJECT if row.slot == self.subject_slot else new

    def needs_position(self, word: str) -> bool:
        """True when the replacement of ``word`` depends on whether it starts a sentence (a capitalised word of a
        lexicon with ``proper_forms``: "Muslims ..." -> "Atheists ...", "a Muslim" -> "an atheist")."""
        return self.lexicon.proper_forms and word[:1].isupper()

    def for_word(self, word: str) -> tuple[str, str | None]:
        """The replacement for a term ``word`` (no article); with a second one, for when no noun phrase follows,
        if the choice depends on the next words."""
        key = normalize_term(word)
        if not self.lexicon.rows_for(key):  # a candidate that is not a term (a not_terms phrase): kept
            return word, None
        first, second = self.row_choices(key)
        return self.replacement(word, first, key), None if second is None else self.replacement(word, second, key)

    def __call__(self, text: str, m: re.Match[str]) -> str:
        """The replacement for match ``m`` of ``text`` (offsets only: ``m`` may be a match in ``text.lower()``)."""
        name = m.lastgroup
        assert name is not None
        start = m.start()
        if name == "x":  # a phrase that is never a mention ("African American" for nationality): kept
            return text[start : m.end()]
        term_start, term_end = m.span(name)
        if self.needs_position(text[term_start:term_end]):
            return self._positional(text, m, name)
        whole, offset = text[start : m.end()], term_start - start
        memo_key = (whole, offset)
        done = self._memo.get(memo_key)
        if done is not None:
            return done
        if memo_key in self._contextual:
            done = self._memo_in_context.get((whole, offset, self._starts_noun_phrase(text, term_end)))
            if done is not None:
                return done
        word = text[term_start:term_end]
        key = normalize_term(word)
        row, context = self.row(key, text, term_end)
        new = self.replacement(word, row, key)
        art, sp = m.span("art"), m.span("sp")  # (-1, -1) when there is no article
        if art[0] < 0 or new == word or new.startswith("["):
            out = text[start:term_start] + new  # the span before the term is the article, if any
        else:
            out = _article(text[art[0] : art[1]], new) + text[sp[0] : sp[1]] + new
        if context is None:
            self._memo[memo_key] = out
        else:
            self._contextual.add(memo_key)
            self._memo_in_context[(whole, offset, context)] = out
        return out

    def _positional(self, text: str, m: re.Match[str], name: str) -> str:
        """:meth:`__call__` for a word whose replacement depends on where it stands (not memoised: rare)."""
        start = m.start()
        term_start, term_end = m.span(name)
        word = text[term_start:term_end]
        key = normalize_term(word)
        row, _ = self.row(key, text, term_end)
        new = self.replacement(word, row, key, initial=at_sentence_start(text, term_start))
        art, sp = m.span("art"), m.span("sp")
        if art[0] < 0 or new == word or new.startswith("["):
            return text[start:term_start] + new
        return _article(text[art[0] : art[1]], new) + text[sp[0] : sp[1]] + new


def substitute(lexicon: Lexicon, texts: Sequence[str], target: str | None, mode: str = "group") -> list[str]:
    """Replace every attribute word of ``texts`` (see :class:`_Replacer` for the modes)."""
    if not texts:
        return []
    replacer = _Replacer(lexicon, target, mode)
    if replacer.subject_slot is not None:
        if any(PLURAL_SUBJECT in t for t in texts):  # the mark would be ambiguous: no verb agreement
            replacer.subject_slot = None
        else:
            return [plural_verb_agreement(t) for t in _substitute(lexicon, replacer, texts)]
    return _substitute(lexicon, replacer, texts)


def _substitute(lexicon: Lexicon, replacer: _Replacer, texts: Sequence[str]) -> list[str]:
    joined = _joined(texts)
    if joined is None:
        return [_sub(lexicon, replacer, t) for t in texts]
    return _ascii_apart(texts, joined, lambda _, joined_part: _sub_joined(lexicon, replacer, joined_part).split(_SEP))


# Below this many characters the cost of handing the text to RE2 (compiling the pattern) is not worth it.
_RE2_MIN_CHARS = 20_000


def _sub_joined(lexicon: Lexicon, replacer: _Replacer, joined: str) -> str:
    if len(joined) >= _RE2_MIN_CHARS:
        fast = substitute_fast(lexicon, joined, replacer.for_word, replacer, _article)
        if fast is not None:
            return fast
    return _sub(lexicon, replacer, joined)


def _article(old: str, new_word: str) -> str:
    """The indefinite article ``old`` ("a", "An", ...) as it must read before ``new_word``, in ``old``'s case."""
    return match_case(old, indefinite_article(new_word))


def _sub(lexicon: Lexicon, replacer: _Replacer, text: str) -> str:
    """``substitution_pattern.sub(replacer, text)``, on the fast scan of :func:`_scan`."""
    pieces: list[str] = []
    append = pieces.append
    last = 0
    for m in _scan(lexicon, text, substitution=True):
        append(text[last : m.start()])
        append(replacer(text, m))
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces)
