"""The lexicon type: aligned rows of protected-attribute words, and how they match text.

A lexicon is a list of *rows*. A row is one word in one grammatical use, with its form for every group (and a
gender-neutral form where one exists): ``she / he / they``, ``her / his / their`` (determiner), ``Caucasian ->
White / Black / Hispanic / Asian``. Counterfactual substitution replaces a term by the same row's form for the
target group; FTU only needs to know that a term is there.

Where lexicons come from (the data files, a user's dict) is :mod:`evenhand.text.lexicon`, which re-exports the names
here: import them from there.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evenhand._validation import did_you_mean
from evenhand.errors import InputError
from evenhand.text._grammar import GRAMMARS
from evenhand.text._regex import trie_pattern

MASK = "[MASK]"  # the neutral form of a row that has none
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
    # regular expressions (lower-case source) -> the group they belong to; they count only before a person noun
    # ("the 72-year-old man"), like the terms of needs_person_noun
    patterns: Mapping[str, str | None] = field(default_factory=dict)
    # the patterns that count after a person subject instead ("i'm 72 years old": the lexicon's person_subjects)
    after_subject: frozenset[str] = frozenset()
    # the subjects this row's after_subject patterns follow (None: the lexicon's person_subjects); "emily, aged 72"
    subjects: frozenset[str] | None = None
    # the after_subject patterns count only where a clause ends after them ("my landlord is 80." / "is 80 and", not
    # "is 30 minutes late"): a bare number is an age only there
    ends_clause: bool = False

    def group_of(self, key: str) -> str | None:
        """The group of a lower-case term of this row (a listed term, or a text one of its patterns matches)."""
        if key in self.terms:
            return self.terms[key]
        for source, group in self.patterns.items():
            if _compiled(source).fullmatch(key):
                return group
        return None

    def selects(self, key: str) -> bool:
        """True when the lower-case term ``key`` selects this row."""
        return key in self.terms or any(_compiled(source).fullmatch(key) for source in self.patterns)


@functools.lru_cache(maxsize=256)
def _compiled(source: str) -> re.Pattern[str]:
    return re.compile(source, re.IGNORECASE)


@dataclass(frozen=True, eq=False)
class Lexicon:
    """Aligned protected-attribute word lists.

    Attributes:
        name: the attribute: a data file's name ("gender", "race", ...) or "custom".
        groups: the group names, in a fixed order (e.g. ``("female", "male")``).
        rows: the aligned rows (see :class:`LexiconRow`).
        person_nouns: nouns that make a context-dependent term ("black", "white", ...) count.
        person_subjects: lower-case words after which a row's ``after_subject`` patterns count ("i'm", "she is":
            "I'm 72 years old", not "the house is 100 years old").
        grammar: the name of the grammar rules that choose between rows sharing a term (a key of
            ``evenhand.text._grammar.GRAMMARS``, e.g. "english_gendered_pronouns" for her/his), or None.
        stereotype_category: the category a stereotype classifier uses for this attribute, or None.
        language: the language its words are in (ISO 639-1, ``"en"``), or None when unknown (a custom dict: the
            user's words are in the user's language, so a prompt language never blocks it).
        not_terms: lower-case phrases that are never mentions of the attribute, though they contain a term
            ("african american" in the nationality lexicon, where "american" is a term): matched first and left as
            they are.
        optional_groups: groups that have forms in every row but are generated only on request
            (``counterfactual_prompts(..., groups=[...])``): gender's "nonbinary". Not in ``groups``, so a plan
            and the default counterfactual versions stay as they were.
        plural_verb_groups: groups whose subject form takes a plural verb (singular they: "she is" -> "they are";
            the grammar rule set names the subject slot).
        proper_forms: the replacement forms keep their own capitals ("an atheist" -> "a Christian"; "a Muslim"
            -> "an atheist"; a lower-case form is capitalised only at the start of a sentence or in upper-case
            text). False: the replacement takes the case of the word it replaces (gender, race).
    """

    name: str
    groups: tuple[str, ...]
    rows: tuple[LexiconRow, ...]
    person_nouns: frozenset[str] = frozenset()
    person_subjects: frozenset[str] = frozenset()
    grammar: str | None = None
    stereotype_category: str | None = None
    language: str | None = None
    not_terms: frozenset[str] = frozenset()
    proper_forms: bool = False
    optional_groups: tuple[str, ...] = ()
    plural_verb_groups: frozenset[str] = frozenset()
    _index: dict[str, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False)
    _pattern_index: dict[str, tuple[int, ...]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.grammar is not None and self.grammar not in GRAMMARS:
            raise InputError(f"unknown grammar {self.grammar!r}; known: {sorted(GRAMMARS)}")
        index: dict[str, list[int]] = {}
        for i, row in enumerate(self.rows):
            for term in row.terms:
                index.setdefault(term, []).append(i)
        self._index.update({term: tuple(rows) for term, rows in index.items()})

    # -- the contract other layers use -------------------------------------------------------------------
    def group_words(self, group: str) -> frozenset[str]:
        """Lower-case words/phrases of ``group`` (for co-occurrence metrics)."""
        if group not in self.groups and group not in self.optional_groups:
            raise InputError(f"unknown group {group!r} for the {self.name} lexicon; groups are {list(self.all_groups)}")
        return frozenset(term for row in self.rows for term, g in row.terms.items() if g == group)

    def with_groups(self, groups: Sequence[str]) -> Lexicon:
        """This lexicon with only ``groups`` compared (in that order), optional ones included, e.g. gender's
        ``["female", "male", "nonbinary"]``: what a use case's ``groups`` setting hands to every text function."""
        chosen = tuple(dict.fromkeys(groups))
        unknown = [g for g in chosen if g not in self.all_groups]
        if unknown or len(chosen) < 2:
            # a word of a group ("women") points at its group, a misspelt group at the close one
            hint = did_you_mean(
                unknown, self.all_groups, {g.lower(): self.group_of(g) or "" for g in map(str, unknown)}
            )
            named = f"unknown group(s) {unknown}{hint}; " if unknown else ""
            raise InputError(
                f"groups {list(groups)} for the {self.name} attribute: {named}name two or more of "
                f"{list(self.all_groups)}"
            )
        rest = tuple(g for g in self.all_groups if g not in chosen)
        return dataclasses.replace(self, groups=chosen, optional_groups=rest)

    @property
    def all_groups(self) -> tuple[str, ...]:
        """``groups`` and then ``optional_groups``: every group a counterfactual version can be made for."""
        return self.groups + self.optional_groups

    @property
    def words(self) -> frozenset[str]:
        """Every lower-case term of the lexicon (all groups, plus mentions of no group)."""
        return frozenset(self._index)

    def group_of(self, term: str) -> str | None:
        """The group a (lower-case) term belongs to, or None."""
        key = normalize_term(term)
        rows = self.rows_for(key)
        return self.rows[rows[0]].group_of(key) if rows else None

    def rows_for(self, term: str) -> tuple[int, ...]:
        """Indices of the rows a lower-case, whitespace-normalised term selects (several when ambiguous)."""
        found = self._index.get(term)
        if found is not None or not self.has_patterns:
            return found or ()
        found = self._pattern_index.get(term)
        if found is None:  # a text a row's pattern matches ("72-year-old"), looked up once
            found = tuple(i for i, row in enumerate(self.rows) if row.patterns and row.selects(term))
            self._pattern_index[term] = found
        return found

    def stated_after(self, term: str) -> re.Pattern[str] | None:
        """What a row reads after the (lower-case) listed ``term`` as its subject, right after it ("pensioners
        **between 65 and 80**": the age file's ``{term}`` subjects), whether or not a clause ends there; None where no
        row takes the term as a subject. A version that swaps the term must swap this too (left18)."""
        key = normalize_term(term)
        sources = sorted({p for row in self.rows if row.subjects and key in row.subjects for p in row.after_subject})
        return _compiled(r"\s+(?:" + "|".join(sources) + r")\b") if sources else None

    @functools.cached_property
    def has_patterns(self) -> bool:
        """True when a row has regular-expression terms (:attr:`LexiconRow.patterns`)."""
        return any(row.patterns for row in self.rows)

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
        chars = {ch for term in (*self._index, *self.person_nouns, *self.not_terms) for ch in term if not ch.isascii()}
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

    def context_patterns(self) -> list[str]:
        """The regular-expression terms that count only before a person noun, of every row, in row order."""
        return list(
            dict.fromkeys(source for row in self.rows for source in row.patterns if source not in row.after_subject)
        )

    def subject_patterns(self) -> list[str]:
        """The regular-expression terms that count only after a person subject, of every row, in row order."""
        return list(
            dict.fromkeys(source for row in self.rows for source in row.patterns if source in row.after_subject)
        )

    def _subject_groups(self) -> dict[tuple[frozenset[str], bool], list[str]]:
        """The after-subject patterns by the subjects they follow and whether a clause must end after them."""
        groups: dict[tuple[frozenset[str], bool], list[str]] = {}
        for row in self.rows:
            subjects = self.person_subjects if row.subjects is None else row.subjects
            if not row.after_subject or not subjects:
                continue
            sources = groups.setdefault((subjects, row.ends_clause), [])
            sources.extend(p for p in row.patterns if p in row.after_subject and p not in sources)
        return groups

    def _alternatives(self, name_next: str | None = None) -> str:
        free, titles, ctx = self.term_kinds()
        alternatives = f"(?P<t>{trie_pattern(free)})"
        if self.not_terms:  # phrases that are never mentions come first, and win where they match
            alternatives = f"(?P<x>{trie_pattern(sorted(self.not_terms))})|{alternatives}"
        if titles:  # a capitalised word next ("Mr. Smith"), or "Mr. and Mrs. Smith"
            alternatives += rf"|(?<!\d\s)(?P<n>{trie_pattern(titles)})(?={name_next or NAME_NEXT.pattern})"
        patterns = self.context_patterns()
        if ctx or patterns:
            nouns = trie_pattern(sorted(self.person_nouns))
            context = "|".join([trie_pattern(ctx)] * bool(ctx) + [f"(?:{p})" for p in patterns])
            # one hyphenated modifier may stand between ("a Black small-business owner", "a Mexican food-truck owner")
            alternatives += rf"|(?P<c>{context})(?=\s+(?:[^\W\d_]+(?:-[^\W\d_]+)+\s+)?(?:{nouns})(?!\w))"
        for i, ((subjects, ends_clause), sources) in enumerate(self._subject_groups().items()):
            body = "|".join(f"(?:{p})" for p in sources)
            end = _CLAUSE_END if ends_clause else ""
            # fixed-width look-behinds, one per length of subject ("i'm ", "she is "); the look-ahead first: most
            # positions fail it at once, before any look-behind is tried
            alternatives += rf"|(?=(?:{body})(?!\w){end})(?:{_behind(subjects)})(?P<s{i or ''}>{body})"
        return alternatives

    def __repr__(self) -> str:
        return f"Lexicon(name={self.name!r}, groups={self.groups!r}, terms={len(self._index)})"


#: where a clause ends after a term (``LexiconRow.ends_clause``): punctuation, the end of the text, or a conjunction
_CLAUSE_END = r"(?=[ \t]*(?:[.,;:!?)\]\n\r\x00]|$)|\s+(?:and|but|who|with|so|because)(?!\w))"


def _behind(subjects: frozenset[str]) -> str:
    """Look-behinds for ``subjects`` then a space: one per length (Python's look-behinds are fixed-width), a subject
    that starts with a word character only after a non-word one ("he is", not "the is"; ", aged" after a name)."""
    by_width: dict[tuple[int, bool], list[str]] = {}
    after_given: dict[int, list[str]] = {}  # "<GIVEN_NAME> white, aged": a given name, then the rest (left18)
    for s in sorted(subjects):
        if s.startswith(GIVEN_NAME + " "):
            after_given.setdefault(len(s) - len(GIVEN_NAME), []).append(s[len(GIVEN_NAME) :])
        else:
            by_width.setdefault((len(s), s[:1].isalnum() or s[:1] == "_"), []).append(s)
    guard = r"(?<!\w)"
    # a trie per width: thousands of subjects ("{name}, aged") are tried letter by letter, not one after another
    behind = [
        rf"(?<={guard if word else ''}(?:{_literal_trie(words)})\s)" for (_, word), words in sorted(by_width.items())
    ]
    if after_given:  # one look-behind per width of given name and of the rest: fixed widths, no cross product
        names = _given_names()
        behind += [
            rf"(?<={guard}(?:{_literal_trie(firsts)})(?:{_literal_trie(rests)})\s)"
            for width, firsts in sorted(names.items())
            for _, rests in sorted(after_given.items())
        ]
    return "|".join(behind)


#: in a person subject, any given name of the name lists that names a person alone ("<GIVEN_NAME> white, aged":
#: "Emily White, aged 72", never "White, aged 12" alone; lexicon._personal_names)
GIVEN_NAME = "\x01"


@functools.lru_cache(maxsize=1)
def _given_names() -> dict[int, list[str]]:
    """The given names that name a person alone (as ``{name}`` reads them), lower-case, as written and without
    diacritics, by length."""
    from evenhand.text._names_data import name_index, plain_letters

    index = name_index()
    written = {index.written("first", key) for key in index.starts_alone if index.known("first", key)}
    out: dict[int, list[str]] = {}
    for name in sorted({w.lower() for w in written} | {plain_letters(w).lower() for w in written}):
        out.setdefault(len(name), []).append(name)
    return out


def _literal_trie(words: Sequence[str]) -> str:
    """Regex source matching exactly ``words`` (of one length), character by character as written: a trie, so that a
    look-behind over thousands of them stays fast (``trie_pattern`` reads a space as any run of spaces, which a
    fixed-width look-behind cannot hold)."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})

    def emit(node: dict[str, Any]) -> str:
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items())]
        return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})" if branches else ""

    return emit(root)


#: what a text may write where a term has the straight apostrophe: the right single quotation mark (U+2019, what word
#: processors and many models write: "ma’am") and the modifier letter apostrophe (U+02BC)
TYPOGRAPHIC_APOSTROPHES = ("\u2019", "\u02bc")


def spellings(term: str) -> tuple[str, ...]:
    """``term`` and, when it has a straight apostrophe, the same term with each typographic one: the loaders add
    every spelling to the term's row, so finding, masking and swapping read "ma’am" as they read "ma'am".

    >>> spellings("ma'am")
    ("ma'am", 'ma’am', 'maʼam')
    """
    if "'" not in term:
        return (term,)
    return (term, *(term.replace("'", mark) for mark in TYPOGRAPHIC_APOSTROPHES))


def normalize_term(text: str) -> str:
    """Lower-case and collapse internal whitespace: the key a matched span is looked up by."""
    key = text.lower()
    words = key.split()  # any whitespace the patterns' \s+ matched, e.g. "asian\x0bamerican"
    return key if len(words) == 1 and words[0] == key else " ".join(words)
