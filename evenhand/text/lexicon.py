"""Protected-attribute lexicons: loaded from data files or a user dict (the type itself: :mod:`.lexicon_model`).

The built-in attributes are the data files in ``evenhand/data/lexicons/`` (one ``<name>.json`` per attribute), all
in one schema (``SCHEMA.md`` there; sources in ``SOURCES.md``) and read by one loader, :func:`load_lexicon_file`.
Dropping a new file there adds an attribute; no code names an attribute.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evenhand.errors import InputError, InputFileNotFoundError, InputTypeError
from evenhand.text._grammar import GRAMMARS
from evenhand.text.lexicon_model import GIVEN_NAME, MASK, NAME_NEXT, Lexicon, LexiconRow, normalize_term, spellings

if TYPE_CHECKING:
    from importlib.abc import Traversable

    from pydantic import BaseModel

__all__ = [  # the lexicon type is importable from here as before
    "BUILTIN_ATTRIBUTES", "DEFAULT_ATTRIBUTES", "MASK", "MASKED_ATTRIBUTES", "NAME_NEXT", "Lexicon", "LexiconRow",
    "builtin_attributes", "default_attributes", "load_lexicon", "load_lexicon_file", "masked_attributes",
    "normalize_term",
    "spellings",
]

OTHER = "other"  # the key, in a lexicon file's terms, of mentions of the attribute that belong to no group
DEFAULT_LANGUAGE = "en"  # a lexicon file's language when it names none (ISO 639-1)


# ---------------------------------------------------------------------------------------------------------
# loading


def builtin_attributes() -> tuple[str, ...]:
    """The built-in attributes: one per data file ``evenhand/data/lexicons/<name>.json``, the default ones first.

    >>> builtin_attributes()[:2]
    ('gender', 'race')
    """
    return BUILTIN_ATTRIBUTES


def default_attributes() -> tuple[str, ...]:
    """The built-in attributes whose file says ``"default": true`` (a use case's attributes unless it names some)."""
    return DEFAULT_ATTRIBUTES


def masked_attributes() -> tuple[str, ...]:
    """The built-in attributes whose words identity masking hides when it is given no list: every one whose file
    does not say ``"masked_by_default": false`` (:mod:`evenhand.scorers.masking`)."""
    return MASKED_ATTRIBUTES


def load_lexicon(attribute: str | Mapping[str, Sequence[str]] | Lexicon) -> Lexicon:
    """Return the lexicon of a built-in attribute (``"gender"``, ``"race"``, ...) or of a custom dict.

    A custom dict maps each group name to a list of words, aligned across groups: the i-th word of every group
    forms one row, so counterfactual substitution replaces ``group_a[i]`` by ``group_b[i]``.

    >>> load_lexicon("gender").groups
    ('female', 'male')
    >>> load_lexicon("gender").language
    'en'
    >>> sorted(load_lexicon({"young": ["young"], "old": ["old"]}).group_words("old"))
    ['old']
    """
    if isinstance(attribute, Lexicon):
        return attribute
    if isinstance(attribute, str):
        key = attribute.strip().lower()
        if key not in BUILTIN_ATTRIBUTES:
            raise InputError(
                f"unknown attribute {attribute!r}: built-ins are {list(BUILTIN_ATTRIBUTES)}; or pass a custom dict "
                'of aligned word lists such as {"group_a": [...], "group_b": [...]}'
            )
        return _load_builtin(key)
    if isinstance(attribute, Mapping):
        return _custom(attribute)
    raise InputTypeError(
        f"attribute must be a built-in attribute name {list(BUILTIN_ATTRIBUTES)}, a dict of aligned word lists or a "
        f"Lexicon, got {type(attribute).__name__}"
    )


def load_lexicon_file(source: str | os.PathLike[str] | Traversable | Mapping[str, Any]) -> Lexicon:
    """Validate a lexicon file (a path, or its parsed JSON as a dict) against the schema and build its lexicon.

    The built-in attributes are loaded by this same code; the schema is described in
    ``evenhand/data/lexicons/SCHEMA.md``. Errors are :class:`ValueError` naming the file and the offending key, e.g.
    ``lexicon file age.json: missing key 'rows[2].slot'``. Not cached: load a file once and pass the
    :class:`Lexicon` on (every ``attribute=`` argument takes one).
    """
    if isinstance(source, Mapping):
        return _build(source, "<dict>")
    if isinstance(source, (str, os.PathLike)):
        entry: Traversable = Path(source)
    elif hasattr(source, "read_text"):
        entry = source
    else:
        raise InputTypeError(f"a lexicon file is a path or a dict of its parsed JSON, got {type(source).__name__}")
    return _build(_read_json(entry, str(source)), str(source))


@functools.cache
def _load_builtin(name: str) -> Lexicon:
    """The lexicon of the data file ``<name>.json`` (validated, cached: loaded once per process)."""
    label = f"{_DATA_LABEL}/{name}.json"
    lexicon = _build(_read_json(_DATA.joinpath(f"{name}.json"), label), label)
    if lexicon.name != name:
        raise InputError(f"lexicon file {label}: key 'name' is {lexicon.name!r}; it must be the file's name {name!r}")
    return lexicon


def _read_json(entry: Traversable, label: str) -> Any:
    try:
        return json.loads(entry.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"lexicon file {label}: not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"lexicon file {label}: not UTF-8 text (byte {exc.object[exc.start]:#x})") from None
    except IsADirectoryError:
        raise InputError(f"lexicon file {label}: is a folder, not a file") from None
    except FileNotFoundError:
        raise InputFileNotFoundError(f"lexicon file {label}: no such file") from None
    except OSError as exc:
        raise InputError(f"lexicon file {label}: cannot be read ({exc.strerror or type(exc).__name__})") from None


def _discover(folder: Traversable) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(every attribute, the default ones, the ones masked by default) of a data folder: the names of its ``*.json``
    files, default ones first, each alphabetically. Only reads the ``default`` and ``masked_by_default`` keys: a
    broken file is reported when it is loaded."""
    names: list[str] = []
    defaults: set[str] = set()
    unmasked: set[str] = set()
    for entry in folder.iterdir():
        if entry.name.endswith(".json") and entry.is_file():
            names.append(entry.name[: -len(".json")])
            try:
                data = json.loads(entry.read_text(encoding="utf-8"))
            except ValueError:
                continue
            if isinstance(data, dict) and data.get("default") is True:
                defaults.add(names[-1])
            if isinstance(data, dict) and data.get("masked_by_default") is False:
                unmasked.add(names[-1])
    ordered = tuple(sorted(names, key=lambda name: (name not in defaults, name)))
    masked = tuple(name for name in ordered if name not in unmasked)
    return ordered, tuple(name for name in ordered if name in defaults), masked


_DATA_LABEL = "evenhand/data/lexicons"
_DATA: Traversable = resources.files("evenhand").joinpath("data/lexicons")
BUILTIN_ATTRIBUTES: tuple[str, ...]
DEFAULT_ATTRIBUTES: tuple[str, ...]
#: the built-in attributes whose words identity masking hides when it is given no list (``masked_by_default``)
MASKED_ATTRIBUTES: tuple[str, ...]
BUILTIN_ATTRIBUTES, DEFAULT_ATTRIBUTES, MASKED_ATTRIBUTES = _discover(_DATA)


@functools.cache
def _schema() -> type[BaseModel]:
    """The pydantic model of a lexicon file (built on first use: importing the text core does not import pydantic).

    Keep in step with ``evenhand/data/lexicons/SCHEMA.md``.
    """
    from pydantic import BaseModel, ConfigDict, Field

    config = ConfigDict(extra="forbid", strict=True)

    class Row(BaseModel):
        model_config = config
        slot: str
        replace_with: dict[str, str]
        neutral: str | None = None
        terms: dict[str, list[str]] | None = None
        terms_before_person_noun: dict[str, list[str]] = Field(default_factory=dict)
        patterns_before_person_noun: dict[str, list[str]] = Field(default_factory=dict)
        patterns_after_person_subject: dict[str, list[str]] = Field(default_factory=dict)
        person_subjects: list[str] | None = None
        ends_clause: bool = False
        needs_name: bool = False

    class LexiconFile(BaseModel):
        model_config = config
        name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
        groups: list[str] = Field(min_length=1)
        default: bool
        masked_by_default: bool = True
        language: str = Field(default=DEFAULT_LANGUAGE, pattern=r"^[a-z]{2}$")
        comment: str | None = None
        person_nouns: list[str] = Field(default_factory=list)
        person_subjects: list[str] = Field(default_factory=list)
        person_subject_nouns: list[str] = Field(default_factory=list)
        neutral: str | None = None
        grammar: str | None = None
        stereotype_category: str | None = None
        not_terms: list[str] = Field(default_factory=list)
        proper_forms: bool = False
        optional_groups: list[str] = Field(default_factory=list)
        plural_verb_groups: list[str] = Field(default_factory=list)
        rows: list[Row] = Field(min_length=1)

    return LexiconFile


def _key(loc: Sequence[int | str]) -> str:
    """A pydantic error location as a key path: ``rows[3].replace_with``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}" if out else str(part)
    return out


def _build(data: Any, label: str) -> Lexicon:
    """Validate parsed lexicon-file JSON and build its :class:`Lexicon` (errors name ``label`` and the key)."""
    from pydantic import ValidationError

    try:
        spec: dict[str, Any] = _schema().model_validate(data).model_dump()
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = _key(err["loc"])
            if err["type"] == "missing":
                problems.append(f"missing key {key!r}")
            elif err["type"] == "extra_forbidden":
                problems.append(f"unknown key {key!r}")
            else:
                problems.append(f"key {key!r}: {err['msg']}" if key else err["msg"])
        raise InputError(f"lexicon file {label}: {'; '.join(problems)}") from None
    problems = _check(spec)
    if problems:
        raise InputError(f"lexicon file {label}: {'; '.join(problems)}")
    groups = tuple(spec["groups"])
    all_groups = groups + tuple(spec["optional_groups"])
    subject_nouns = spec["person_subject_nouns"] or spec["person_nouns"]
    # the words that name a group of the file ("pensioners", "young adults", "teenagers"): a ``{term}`` subject
    subject_terms = [w for raw in spec["rows"] for words in (raw["terms"] or {}).values() for w in words]
    rows = []
    for raw in spec["rows"]:
        terms: dict[str, str | None] = {}
        if raw["terms"] is None:  # the replacement forms are the terms
            for g in groups:
                for term in _spelled([raw["replace_with"][g]]):
                    terms.setdefault(term, g)
        else:
            for g, words in raw["terms"].items():
                for term in _spelled(words):
                    terms.setdefault(term, None if g == OTHER else g)
        ctx: list[str] = []
        for g, words in raw["terms_before_person_noun"].items():
            for term in _spelled(words):
                terms.setdefault(term, None if g == OTHER else g)
                ctx.append(term)
        patterns = {
            source: None if g == OTHER else g
            for kind in ("patterns_before_person_noun", "patterns_after_person_subject")
            for g, sources in raw[kind].items()
            for source in sources
        }
        after_subject = frozenset(s for sources in raw["patterns_after_person_subject"].values() for s in sources)
        own_subjects = raw["person_subjects"]
        forms = {g: raw["replace_with"][g] for g in all_groups}
        neutral = raw["neutral"] if raw["neutral"] is not None else spec["neutral"]
        rows.append(
            LexiconRow(
                raw["slot"],
                forms,
                neutral,
                terms,
                frozenset(ctx),
                needs_name=raw["needs_name"],
                patterns=patterns,
                after_subject=after_subject,
                subjects=None if own_subjects is None else _subjects(own_subjects, subject_nouns, subject_terms),
                ends_clause=raw["ends_clause"],
            )
        )
    nouns = frozenset(_spelled(spec["person_nouns"]))
    return Lexicon(
        spec["name"],
        groups,
        tuple(rows),
        nouns,
        person_subjects=_subjects(spec["person_subjects"], subject_nouns, subject_terms),
        grammar=spec["grammar"],
        stereotype_category=spec["stereotype_category"],
        language=spec["language"],
        not_terms=frozenset(_spelled(spec["not_terms"])),
        proper_forms=spec["proper_forms"],
        optional_groups=tuple(spec["optional_groups"]),
        plural_verb_groups=frozenset(spec["plural_verb_groups"]),
    )


def _subjects(subjects: Sequence[str], nouns: Sequence[str], terms: Sequence[str] = ()) -> frozenset[str]:
    """The person subjects of a file or row, with each ``{noun}`` made one subject per person noun ("{noun} is" ->
    "landlord is", "tenant is", ...: the file's ``person_subject_nouns``, else its ``person_nouns``), each ``{term}``
    one per word of the file's rows' ``terms`` ("pensioners between 65 and 80": left18, the range is then swapped
    with the noun, never left beside another group's) and each ``{name}`` one per personal name that names a person
    alone ("{name}, aged" -> "emily, aged", "baker, aged": :func:`_personal_names`)."""
    expanded = [s.replace("{noun}", noun) for s in subjects if "{noun}" in s for noun in nouns]
    expanded += [s.replace("{term}", term) for s in subjects if "{term}" in s for term in terms]
    expanded += [s.replace("{name}", name) for s in subjects if "{name}" in s for name in _personal_names()]
    expanded += [s for s in subjects if not any(p in s for p in ("{noun}", "{name}", "{term}"))]
    return frozenset(_spelled(expanded))


@functools.lru_cache(maxsize=1)
def _personal_names() -> tuple[str, ...]:
    """The personal names a ``{name}`` subject stands for: the first names of the name lists that name a person
    alone (not look-alikes such as "Grace" or "May", nor names of two letters), the lists' surnames, the commonest
    surnames and those the race tables place alone ("Ms. Baker, aged 72", "Mr. Okafor, aged 70": ``evidence_surnames``),
    as written and without diacritics ("García", "Garcia"); a surname that is an English word (``people.json``'s
    ``word_surnames``: "White", "Long") only after a title. "The whisky, aged 12" names nobody."""
    from evenhand.text._names_data import name_index, plain_letters

    index = name_index()
    firsts = [key for key in index.starts_alone if index.known("first", key)]
    lasts = [key for part, key in index.associations if part == "last"]
    written = {index.written("first", key) for key in firsts} | {index.written("last", key) for key in lasts}
    names = written | {plain_letters(w) for w in written} | index.common_last_names | index.evidence_surnames
    # a surname that is an English word ("White", "Long") names a person only after a title ("Ms. White, aged 72"):
    # "White, aged 12, is our best-selling whisky" names nobody
    words = {name for name in names if name.casefold() in index.word_surnames}
    titled = {f"{title}{dot} {word}" for word in words for title in index.titles for dot in (".", "")}
    # ... or after a given name, as a full name ("Emily White, aged 72": left18); GIVEN_NAME stands for any given name
    # of the lists (lexicon_model._behind), so the subjects are not every given name times every word surname
    full = {f"{GIVEN_NAME} {word}" for word in words}
    return tuple(sorted((names - words) | titled | full))


def _spelled(words: Sequence[str]) -> list[str]:
    """The lookup keys of ``words``: each normalised, then in every spelling of its apostrophes (:func:`spellings`)."""
    return [term for word in words for term in spellings(normalize_term(word))]


def _check(spec: dict[str, Any]) -> list[str]:
    """What the schema's types do not say: groups are distinct, rows give every group a form, words are words."""
    problems: list[str] = []

    def words(key: str, values: Sequence[str]) -> None:
        bad = [i for i, w in enumerate(values) if not w.strip()]
        if bad:
            problems.append(f"key {key!r}: item {bad[0]} is {values[bad[0]]!r}; words must be non-empty")

    words("groups", spec["groups"])
    words("optional_groups", spec["optional_groups"])
    groups = spec["groups"] + spec["optional_groups"]
    if len(set(groups)) != len(groups):
        problems.append(f"key 'groups': repeated group in {groups}")
    if OTHER in groups:
        problems.append(f"key 'groups': {OTHER!r} is reserved for terms of no group")
    unknown_plural = [g for g in spec["plural_verb_groups"] if g not in groups]
    if unknown_plural:
        problems.append(f"key 'plural_verb_groups': unknown group(s) {unknown_plural}; groups are {groups}")
    words("person_nouns", spec["person_nouns"])
    words("person_subjects", spec["person_subjects"])
    words("person_subject_nouns", spec["person_subject_nouns"])
    words("not_terms", spec["not_terms"])
    for key in ("neutral", "stereotype_category", "grammar"):
        if spec[key] is not None and not spec[key].strip():
            problems.append(f"key {key!r} is empty; leave it out instead")
    if spec["grammar"] and spec["grammar"] not in GRAMMARS:
        problems.append(f"key 'grammar': unknown grammar {spec['grammar']!r}; known: {sorted(GRAMMARS)}")
    for i, row in enumerate(spec["rows"]):
        at = f"rows[{i}]"
        missing = [g for g in groups if g not in row["replace_with"]]
        unknown = [g for g in row["replace_with"] if g not in groups]
        if missing or unknown:
            what = f"no form for group(s) {missing}" if missing else f"unknown group(s) {unknown}"
            problems.append(f"key '{at}.replace_with': {what}; it needs one form per group of {groups}")
        words(f"{at}.replace_with", list(row["replace_with"].values()))
        if row["neutral"] is not None:
            words(f"{at}.neutral", [row["neutral"]])
        for kind in ("patterns_before_person_noun", "patterns_after_person_subject"):
            for g, sources in row[kind].items():
                for j, source in enumerate(sources):
                    problem = _pattern_problem(source)
                    if problem:
                        problems.append(f"key '{at}.{kind}.{g}': item {j} {problem}")
        for kind in ("terms", *_CONTEXT_KINDS):
            for g, values in (row[kind] or {}).items():
                if g not in groups and g != OTHER:
                    problems.append(f"key '{at}.{kind}.{g}': unknown group; use one of {[*groups, OTHER]}")
                words(f"{at}.{kind}.{g}", values)
        for kind in ("terms_before_person_noun", "patterns_before_person_noun"):
            if row[kind] and not spec["person_nouns"]:
                problems.append(f"key '{at}.{kind}': the file has no person_nouns to follow them")
        if row["person_subjects"] is not None:
            words(f"{at}.person_subjects", row["person_subjects"])
        if row["patterns_after_person_subject"] and not (spec["person_subjects"] or row["person_subjects"]):
            problems.append(f"key '{at}.patterns_after_person_subject': the file has no person_subjects before them")
        if (row["person_subjects"] is not None or row["ends_clause"]) and not row["patterns_after_person_subject"]:
            problems.append(f"key '{at}': person_subjects and ends_clause need patterns_after_person_subject")
        if (
            row["terms"] is not None
            and not any(row["terms"].values())
            and not any(row["terms_before_person_noun"].values())
            and not any(row["patterns_before_person_noun"].values())
            and not any(row["patterns_after_person_subject"].values())
        ):
            problems.append(f"key '{at}.terms': the row has no terms")
    return problems


#: the row keys of terms that count only in a context (before a person noun, after a person subject)
_CONTEXT_KINDS = ("terms_before_person_noun", "patterns_before_person_noun", "patterns_after_person_subject")


def _pattern_problem(source: str) -> str | None:
    """Why a regular-expression term cannot be used, or None. It is matched on lower-cased text and by RE2 too,
    so it is lower-case, has no capturing groups or look-arounds, and starts with a word character or a class."""
    try:
        compiled = re.compile(source)
    except re.error as exc:
        return f"is not a valid regular expression: {exc}"
    if compiled.groups:
        return "has a capturing group; use (?:...)"
    if source != source.lower() or "(?" in source.replace("(?:", ""):
        return "must be lower-case, without look-arounds or flags"
    if compiled.match("") is not None:
        return "matches the empty string"
    return None


def _custom(spec: Mapping[str, Sequence[str]]) -> Lexicon:
    if not spec:
        raise InputError("a custom attribute needs at least one group: {'group_a': [...], 'group_b': [...]}")
    groups: list[str] = []
    columns: list[list[str]] = []
    for group, words in spec.items():
        if not isinstance(group, str) or not group:
            raise InputTypeError(f"custom group names must be non-empty strings, got {group!r}")
        if isinstance(words, str) or not isinstance(words, Sequence):
            raise InputTypeError(f"custom group {group!r} must map to a list of words, got {type(words).__name__}")
        words = list(words)
        for i, w in enumerate(words):
            if not isinstance(w, str) or not w.strip():
                raise InputError(f"custom group {group!r}: word {i} is {w!r}; words must be non-empty strings")
        if not words:
            raise InputError(f"custom group {group!r} has no words")
        groups.append(group)
        columns.append([w.strip() for w in words])
    lengths = {g: len(c) for g, c in zip(groups, columns, strict=True)}
    if len(set(lengths.values())) > 1:
        raise InputError(f"custom word lists must be aligned (same length per group), got lengths {lengths}")
    rows = []
    for i in range(len(columns[0])):
        terms: dict[str, str | None] = {}
        for g, col in zip(groups, columns, strict=True):
            for term in _spelled([col[i]]):
                terms.setdefault(term, g)
        rows.append(LexiconRow("custom", {g: col[i] for g, col in zip(groups, columns, strict=True)}, MASK, terms))
    return Lexicon("custom", tuple(groups), tuple(rows))
