"""Protected-attribute lexicons: aligned word lists per group, loaded from data files or a user dict.

A lexicon is a list of *rows*. A row is one word in one grammatical use, with its form for every group (and a
gender-neutral form where one exists): ``she / he / they``, ``her / his / their`` (determiner), ``Caucasian ->
White / Black / Hispanic / Asian``. Counterfactual substitution replaces a term by the same row's form for the
target group; FTU only needs to know that a term is there.

The data files live in ``evenhand/data/lexicons/`` (see ``SOURCES.md`` there).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from evenhand.text._regex import trie_pattern

BUILTIN_ATTRIBUTES: tuple[str, ...] = ("gender", "race")
MASK = "[MASK]"
# what makes a title a title: a capitalised word next ("Mr. Smith"), or "Mr. and Mrs. Smith"
NAME_NEXT = re.compile(r"\s+(?-i:[A-Z])|\s+(?:and|or|&)\s", re.IGNORECASE)
_LOWER_NAME_NEXT = r"\s+[a-z]|\s+(?:and|or|&)\s"  # the same on lower-cased text, less the capital
_ASCII_LETTERS = tuple("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")


@dataclass(frozen=True)
class LexiconRow:
    """One aligned row: the replacement form per group, the neutral form, and the terms that select it."""

    slot: str
    forms: Mapping[str, str]  # group -> replacement form
    neutral: str | None
    terms: Mapping[str, str | None]  # lower-case term -> the group it belongs to (None: a mention of no group)
    needs_person_noun: frozenset[str] = frozenset()  # terms that count only before a person noun
    needs_name: bool = False  # titles (Mr./Ms.) count only before a capitalised name ("200 ms." is not one)


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Aligned protected-attribute word lists.

    Attributes:
        name: "gender", "race" or "custom".
        groups: the group names, in a fixed order (e.g. ``("female", "male")``).
        rows: the aligned rows (see :class:`LexiconRow`).
        person_nouns: nouns that make a context-dependent term ("black", "white", ...) count.
        grammar: True for the built-in gender lexicon (her/his disambiguation).
    """

    name: str
    groups: tuple[str, ...]
    rows: tuple[LexiconRow, ...]
    person_nouns: frozenset[str] = frozenset()
    grammar: bool = False
    _index: dict[str, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, list[int]] = {}
        for i, row in enumerate(self.rows):
            for term in row.terms:
                index.setdefault(term, []).append(i)
        self._index.update({term: tuple(rows) for term, rows in index.items()})

    # -- the contract other layers use -------------------------------------------------------------------
    def group_words(self, group: str) -> frozenset[str]:
        """Lower-case words/phrases of ``group`` (for co-occurrence metrics)."""
        if group not in self.groups:
            raise ValueError(f"unknown group {group!r} for the {self.name} lexicon; groups are {list(self.groups)}")
        return frozenset(term for row in self.rows for term, g in row.terms.items() if g == group)

    @property
    def words(self) -> frozenset[str]:
        """Every lower-case term of the lexicon (all groups, plus mentions of no group)."""
        return frozenset(self._index)

    def group_of(self, term: str) -> str | None:
        """The group a (lower-case) term belongs to, or None."""
        key = normalize_term(term)
        rows = self._index.get(key)
        return self.rows[rows[0]].terms[key] if rows else None

    def rows_for(self, term: str) -> tuple[int, ...]:
        """Indices of the rows a lower-case, whitespace-normalised term selects (several when ambiguous)."""
        return self._index.get(term, ())

    # -- matching ----------------------------------------------------------------------------------------
    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        """One compiled regex for every term: whole words, case-insensitive, longest first.

        The matched term is in group ``t`` (a term), ``c`` (a context-dependent term followed by a person noun) or
        ``n`` (a title followed by a name).
        """
        return re.compile(rf"(?<!\w)(?:{self._alternatives()})(?!\w)", re.IGNORECASE)

    @functools.cached_property
    def substitution_pattern(self) -> re.Pattern[str]:
        """:attr:`pattern` plus an optional indefinite article before the term (group ``art``, then ``sp``).

        Substitution needs the article to fix it ("a Caucasian" -> "an Asian"); finding terms does not, and is
        faster without it.
        """
        return re.compile(rf"(?<!\w)(?:(?P<art>an?)(?P<sp>\s+))?(?:{self._alternatives()})(?!\w)", re.IGNORECASE)

    @functools.cached_property
    def lower_patterns(self) -> tuple[re.Pattern[str], re.Pattern[str]] | None:
        """Case-sensitive twins of :attr:`pattern` and :attr:`substitution_pattern`, for lower-cased ASCII text.

        ``re`` scans a case-insensitive pattern much more slowly; ASCII text keeps its length and offsets when
        lower-cased, so matching these against ``text.lower()`` finds the same spans. A title's "capitalised name
        next" becomes "a letter next" (:data:`NAME_NEXT` checks the original text afterwards). None when a term has
        a non-ASCII letter that matches an ASCII one case-insensitively (e.g. dotless "ı" matches "i").
        """
        chars = {ch for term in (*self._index, *self.person_nouns) for ch in term if not ch.isascii()}
        if any(re.fullmatch(re.escape(ch), a, re.IGNORECASE) for ch in chars for a in _ASCII_LETTERS):
            return None
        alternatives = self._alternatives(name_next=_LOWER_NAME_NEXT)
        return (
            re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)"),
            re.compile(rf"(?<!\w)(?:(?P<art>an?)(?P<sp>\s+))?(?:{alternatives})(?!\w)"),
        )

    def term_kinds(self) -> tuple[list[str], list[str], list[str]]:
        """The terms by how they match: plain terms, titles (before a name), context terms (before a person noun)."""
        free = [t for row in self.rows if not row.needs_name for t in row.terms if t not in row.needs_person_noun]
        titles = [t for row in self.rows if row.needs_name for t in row.terms]
        ctx = [t for row in self.rows for t in row.needs_person_noun]
        return free, titles, ctx

    def _alternatives(self, name_next: str | None = None) -> str:
        free, titles, ctx = self.term_kinds()
        alternatives = f"(?P<t>{trie_pattern(free)})"
        if titles:  # a capitalised word next ("Mr. Smith"), or "Mr. and Mrs. Smith"
            alternatives += rf"|(?<!\d\s)(?P<n>{trie_pattern(titles)})(?={name_next or NAME_NEXT.pattern})"
        if ctx:
            nouns = trie_pattern(sorted(self.person_nouns))
            alternatives += rf"|(?P<c>{trie_pattern(ctx)})(?=\s+(?:{nouns})(?!\w))"
        return alternatives

    def __repr__(self) -> str:
        return f"Lexicon(name={self.name!r}, groups={self.groups!r}, terms={len(self._index)})"


def normalize_term(text: str) -> str:
    """Lower-case and collapse internal whitespace: the key a matched span is looked up by."""
    key = text.lower()
    words = key.split()  # any whitespace the patterns' \s+ matched, e.g. "asian\x0bamerican"
    return key if len(words) == 1 and words[0] == key else " ".join(words)


# ---------------------------------------------------------------------------------------------------------
# loading


def load_lexicon(attribute: str | Mapping[str, Sequence[str]] | Lexicon) -> Lexicon:
    """Return the lexicon for ``"gender"``, ``"race"``, or a custom ``{"group": [words...]}`` dict.

    A custom dict maps each group name to a list of words, aligned across groups: the i-th word of every group
    forms one row, so counterfactual substitution replaces ``group_a[i]`` by ``group_b[i]``.

    >>> load_lexicon("gender").groups
    ('female', 'male')
    >>> sorted(load_lexicon({"young": ["young"], "old": ["old"]}).group_words("old"))
    ['old']
    """
    if isinstance(attribute, Lexicon):
        return attribute
    if isinstance(attribute, str):
        key = attribute.strip().lower()
        if key not in BUILTIN_ATTRIBUTES:
            raise ValueError(
                f"unknown attribute {attribute!r}: use one of {list(BUILTIN_ATTRIBUTES)} or a dict of aligned word "
                'lists such as {"group_a": [...], "group_b": [...]}'
            )
        return _builtin(key)
    if isinstance(attribute, Mapping):
        return _custom(attribute)
    raise TypeError(
        f"attribute must be 'gender', 'race', a dict of aligned word lists or a Lexicon, got {type(attribute).__name__}"
    )


def _read_json(name: str) -> dict[str, Any]:
    text = resources.files("evenhand").joinpath(f"data/lexicons/{name}.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@functools.cache
def _builtin(name: str) -> Lexicon:
    data = _read_json(name)
    return _gender(data) if name == "gender" else _race(data)


def _gender(data: dict[str, Any]) -> Lexicon:
    groups = tuple(data["groups"])
    neutral_col = data["neutral_column"]
    rows = []
    for raw in data["rows"]:
        terms: dict[str, str | None] = {}
        for g in groups:
            terms.setdefault(normalize_term(raw[g]), g)
        forms = {g: raw[g] for g in groups}
        rows.append(LexiconRow(raw["slot"], forms, raw[neutral_col], terms, needs_name=bool(raw.get("needs_name"))))
    return Lexicon("gender", groups, tuple(rows), grammar=True)


def _race(data: dict[str, Any]) -> Lexicon:
    groups = tuple(data["groups"])
    rows = []
    for raw in data["rows"]:
        terms: dict[str, str | None] = {}
        for g, words in raw["terms"].items():
            for w in words:
                terms.setdefault(normalize_term(w), g if g in groups else None)
        ctx: list[str] = []
        for g, words in raw.get("terms_before_person_noun", {}).items():
            for w in words:
                terms.setdefault(normalize_term(w), g if g in groups else None)
                ctx.append(normalize_term(w))
        rows.append(LexiconRow(raw["slot"], dict(raw["replace_with"]), data["mask"], terms, frozenset(ctx)))
    nouns = frozenset(normalize_term(w) for w in data["person_nouns"])
    return Lexicon("race", groups, tuple(rows), person_nouns=nouns)


def _custom(spec: Mapping[str, Sequence[str]]) -> Lexicon:
    if not spec:
        raise ValueError("a custom attribute needs at least one group: {'group_a': [...], 'group_b': [...]}")
    groups: list[str] = []
    columns: list[list[str]] = []
    for group, words in spec.items():
        if not isinstance(group, str) or not group:
            raise TypeError(f"custom group names must be non-empty strings, got {group!r}")
        if isinstance(words, str) or not isinstance(words, Sequence):
            raise TypeError(f"custom group {group!r} must map to a list of words, got {type(words).__name__}")
        words = list(words)
        for i, w in enumerate(words):
            if not isinstance(w, str) or not w.strip():
                raise ValueError(f"custom group {group!r}: word {i} is {w!r}; words must be non-empty strings")
        if not words:
            raise ValueError(f"custom group {group!r} has no words")
        groups.append(group)
        columns.append([w.strip() for w in words])
    lengths = {g: len(c) for g, c in zip(groups, columns, strict=True)}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"custom word lists must be aligned (same length per group), got lengths {lengths}")
    rows = []
    for i in range(len(columns[0])):
        terms: dict[str, str | None] = {}
        for g, col in zip(groups, columns, strict=True):
            terms.setdefault(normalize_term(col[i]), g)
        rows.append(LexiconRow("custom", {g: col[i] for g, col in zip(groups, columns, strict=True)}, MASK, terms))
    return Lexicon("custom", tuple(groups), tuple(rows))
