"""The personal-name lexicons (``evenhand/data/names/``): which first and last names signal which group.

Each ``<attribute>.json`` there lists, per group of the attribute's lexicon, the names that at least ``cut`` of
their bearers in the source belong to, commonest first, with that share (SCHEMA.md and SOURCES.md beside them);
``people.json`` holds the context that tells a name from a look-alike. One index over all files answers, for a name,
its group in every attribute that has one: a counterfactual name for one attribute then keeps the others' groups
("a woman's name becomes another group's woman's name"). No code names an attribute: adding a file adds one.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from evenhand.errors import InputError

PARTS = ("first", "last")  # a name part: a first (given) name or a last name (surname)
_PEOPLE_FILE = "people.json"
_RECALL_FILE = "measured_recall.json"
_LABEL = "evenhand/data/names"


#: Letters that no Unicode decomposition turns into a plain one ("Søren", "Łukasz", "Đặng"): their plain form.
_PLAIN_LETTERS = str.maketrans(
    {"ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "æ": "ae", "œ": "oe", "ı": "i",
     "Ø": "O", "Ł": "L", "Đ": "D", "Ð": "D", "Þ": "Th", "Æ": "Ae", "Œ": "Oe"}
)  # fmt: skip


def plain_letters(word: str) -> str:
    """``word`` without diacritics, its case kept ("García" -> "Garcia", "NGUYỄN" -> "NGUYEN", "Łukasz" ->
    "Lukasz"); an ASCII word as it is."""
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word.translate(_PLAIN_LETTERS))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def name_key(word: str) -> str:
    """The look-up key of a written name: lower case, letters only, without diacritics ("O'Brien" -> "obrien",
    "Al-Farsi" -> "alfarsi", "García" -> "garcia", "Nguyễn" -> "nguyen", as the SSA and Census tables write them:
    a name written with its accents reads as the same name written without them)."""
    return "".join(ch for ch in plain_letters(word.casefold()) if ch.isalpha())


@dataclass(frozen=True)
class Association:
    """A name part's group in one attribute and the share of its bearers in that group in the source."""

    group: str
    share: float


@dataclass(frozen=True)
class Placement:
    """Where the full-name rule puts a person: the likeliest group, its posterior share, and the name parts that
    went into it ("first", "last")."""

    group: str
    share: float
    parts: tuple[str, ...]


@dataclass(frozen=True, eq=False)
class NameEvidence:
    """The full-name rule of one attribute: Bayesian Improved First name and Surname (BIFSG; Imai & Khanna 2016,
    Voicu 2018).

    With shares ``P(c | last)`` from a surname table and ``P(c | first)`` from a first-name table whose population
    has the shares ``first_population(c)``, the posterior of category ``c`` for a person named (first, last) is

        P(c | first, last) = P(c | last) * P(c | first) / first_population(c), normalised over the categories

    (``P(first | c)`` is proportional to ``P(c | first) / first_population(c)``, and the first name and surname are
    taken as independent given ``c``). With one part written: ``P(c | last)``, or ``population(c) * P(c | first) /
    first_population(c)`` normalised (the first name read against the surname table's population). Shares are
    stored in per mille; a share written as 0 counts as 0.5 per mille, so that one table's zero does not veto the
    other's evidence. A person counts for a group when its posterior is at least ``cut``; the categories may hold
    more than the lexicon's groups (``"other"``), which then only lower the groups' posteriors.
    """

    categories: tuple[str, ...]
    cut: float
    population: tuple[float, ...]
    first_population: tuple[float, ...]
    first: Mapping[str, tuple[int, ...]]
    last: Mapping[str, tuple[int, ...]]
    _placed: dict[tuple[str | None, str | None, tuple[str, ...]], Placement | None] = dataclasses.field(
        default_factory=dict, repr=False
    )  # names recur across prompts: each (first, last) is placed once

    def posterior(self, first: str | None, last: str | None) -> tuple[list[float], tuple[str, ...]] | None:
        """The normalised posterior over :attr:`categories` and the parts it read; None when neither part is in
        the tables."""
        f = self.first.get(first) if first is not None else None
        s = self.last.get(last) if last is not None else None
        if f is None and s is None:
            return None
        if s is not None:
            weights = [(v + 0.5) / 1000 for v in s]
        else:
            weights = list(self.population)
        if f is not None:
            weights = [w * (v + 0.5) / 1000 / p for w, v, p in zip(weights, f, self.first_population, strict=True)]
        total = sum(weights)
        parts = tuple(part for part, found in (("first", f), ("last", s)) if found is not None)
        return [w / total for w in weights], parts

    def place(self, first: str | None, last: str | None, groups: tuple[str, ...]) -> Placement | None:
        """The group of ``groups`` whose posterior is largest, with that posterior (None when the tables know
        neither part)."""
        key = (first, last, groups)
        if key in self._placed:
            return self._placed[key]
        found = self.posterior(first, last)
        placed = None
        if found is not None:
            shares, parts = found
            best = max(
                (c for c in range(len(self.categories)) if self.categories[c] in groups), key=lambda c: shares[c]
            )
            placed = Placement(self.categories[best], shares[best], parts)
        if len(self._placed) < 1 << 16:
            self._placed[key] = placed
        return placed


@dataclass(frozen=True, eq=False)
class NameIndex:
    """Every name lexicon, indexed by name part and key.

    Attributes:
        groups: attribute -> its groups that have names, in file order.
        associations: (part, key) -> attribute -> :class:`Association`.
        ranked: (attribute, part, group) -> keys, commonest first.
        display: (part, key) -> the name as the source writes it ("McDonald").
        cut: attribute -> the least share that counts.
        titles, before_person, after_person, not_last_names, place_prefixes, lookalikes, common_last_names,
            before_place: the context words of ``people.json`` (lower case; keys for the name lists).
        lookalike_phrases: ``people.json``'s look-alikes of several words ("Morgan Stanley", "Kim Jong Un"), as
            tuples of keys: a run of capitalised words that starts with one names nobody in those words.
        evidence: attribute -> its full-name rule (:class:`NameEvidence`), for the attributes whose file has one.
        family_name_first: ``people.json``'s surnames of languages that write the family name first ("Nguyễn Thị
            Mai", "Zhang Wei"), as keys: a run that starts with one and ends with a known given name reads in that
            order.
        family_name_first_careful: ``people.json``'s family names first that are also English words or given names,
            or of two letters ("Lê", "Li", "He", "Kim", "Lee"): they read family name first only before a given name
            of :attr:`family_name_first_given` ("Lê Thị Mai", "Kim Min-jun"; "Lee Smith", "He Emily" keep theirs).
        family_name_first_given: the first names (keys) of ``people.json``'s ``family_name_first_given_groups``.
        evidence_surnames: surnames no list holds that an attribute's full-name tables place alone in one of
            ``people.json``'s ``surnames_placed_by_evidence`` groups (names18: "Okafor", "Tanaka"), less
            ``surname_word_lookalikes`` and names of three letters or fewer: after a capitalised word no list knows
            they make a person, as a list's surname does ("Chinedu Okafor"; "Town Square" does not).
        word_surnames: ``people.json``'s surnames that are English words ("White", "Long", "Baker"): an age after one
            counts only after a title ("Ms. White, aged 72"; "White, aged 12, is a whisky").
        origins: (part, key) -> the origin ``people.json``'s ``name_origins`` writes for the name ("vietnamese",
            "south_asian", ...): a counterfactual draws a name of the original's origin where enough are left
            ("Lê Thị Mai" -> a Vietnamese man's given name, never "Ashish").
        double_surnames: the surnames (keys) of ``people.json``'s ``double_surname_groups`` (Hispanic surnames): two
            of them side by side after a given name or a title are one double surname, "María García López".
        read_without_lists: ``people.json``'s attributes that readers infer from a personal name although no list
            here places a name in their groups (religion, nationality): a named person is unplaced for them.
    """

    groups: Mapping[str, tuple[str, ...]]
    associations: Mapping[tuple[str, str], Mapping[str, Association]]
    ranked: Mapping[tuple[str, str, str], tuple[str, ...]]
    display: Mapping[tuple[str, str], str]
    cut: Mapping[str, float]
    titles: frozenset[str]
    before_person: frozenset[str]
    after_person: frozenset[str]
    not_last_names: frozenset[str]
    place_prefixes: frozenset[str]
    lookalikes: frozenset[str]
    common_last_names: frozenset[str]
    before_place: frozenset[str] = frozenset()
    lookalike_phrases: frozenset[tuple[str, ...]] = frozenset()
    evidence: Mapping[str, NameEvidence] = dataclasses.field(default_factory=dict)
    read_without_lists: frozenset[str] = frozenset()
    family_name_first: frozenset[str] = frozenset()
    double_surnames: frozenset[str] = frozenset()
    family_name_first_careful: frozenset[str] = frozenset()
    family_name_first_given: frozenset[str] = frozenset()
    origins: Mapping[tuple[str, str], str] = dataclasses.field(default_factory=dict)
    evidence_surnames: frozenset[str] = frozenset()
    word_surnames: frozenset[str] = frozenset()

    @functools.cached_property
    def interesting(self) -> frozenset[str]:
        """The keys that can start a person: the names of every list and the titles (a text with none of them as a
        capitalised word names nobody, and is passed over at once)."""
        return frozenset(key for _, key in self.associations) | self.titles | self.evidence_surnames

    @functools.cached_property
    def starts_alone(self) -> frozenset[str]:
        """The keys that can make a person without a capitalised neighbour: titles and first names that are not
        look-alikes ("Remind Emily"); a surname or a look-alike first name needs a title or another capitalised word
        beside it ("Ms. Washington", "Grace Lee")."""
        firsts = {key for part, key in self.associations if part == "first"}
        return frozenset(k for k in firsts if k not in self.lookalikes and len(k) > 2) | self.titles

    @functools.cached_property
    def lookalike_phrase_starts(self) -> Mapping[str, tuple[int, ...]]:
        """The first key of each of :attr:`lookalike_phrases` -> the lengths of the phrases it starts."""
        starts: dict[str, set[int]] = {}
        for phrase in self.lookalike_phrases:
            starts.setdefault(phrase[0], set()).add(len(phrase))
        return {key: tuple(sorted(sizes)) for key, sizes in starts.items()}

    def known(self, part: str, key: str) -> bool:
        """True when ``key`` is a name of ``part`` in some attribute's list."""
        return (part, key) in self.associations

    def readable(self, attribute: str, part: str, key: str) -> bool:
        """True when a list or ``attribute``'s full-name tables know ``key`` as a name of ``part`` (a counterfactual
        replaces such a part: "Greg Baker" reads white from both parts, so the Black version changes both)."""
        if (part, key) in self.associations:
            return True
        rule = self.evidence.get(attribute)
        return rule is not None and key in (rule.first if part == "first" else rule.last)

    def association(self, part: str, key: str, attribute: str) -> Association | None:
        return self.associations.get((part, key), {}).get(attribute)

    def is_last_name(self, key: str) -> bool:
        """A surname of some list or one of the commonest surnames."""
        return (("last", key) in self.associations) or key in self.common_last_names

    def in_surname_tables(self, key: str) -> bool:
        """A surname of some attribute's full-name tables (the 2010 Census surnames of 1,000 bearers or more)."""
        return any(key in rule.last for rule in self.evidence.values())

    def written(self, part: str, key: str) -> str:
        return self.display[(part, key)]


def _words(data: Mapping[str, Any], key: str, label: str) -> frozenset[str]:
    values = data.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise InputError(f"name data {label}: key {key!r} must be a list of non-empty strings")
    return frozenset(v.casefold() for v in values)


_NAME = re.compile(r"[^\W\d_]+(?:['’ -][^\W\d_]+)*")


def _name_lists(data: Mapping[str, Any], key: str, label: str) -> dict[str, list[tuple[str, float]]]:
    lists = data.get(key, {})
    if not isinstance(lists, dict):
        raise InputError(f"name data {label}: key {key!r} must map groups to lists of [name, share]")
    out: dict[str, list[tuple[str, float]]] = {}
    for group, entries in lists.items():
        if not isinstance(entries, list):
            raise InputError(f"name data {label}: key '{key}.{group}' must be a list of [name, share]")
        rows: list[tuple[str, float]] = []
        for i, entry in enumerate(entries):
            ok = isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
            if not ok or _NAME.fullmatch(entry[0]) is None or not isinstance(entry[1], (int, float)):
                raise InputError(f"name data {label}: bad entry '{key}.{group}[{i}]': {entry!r}")
            rows.append((entry[0], float(entry[1])))
        out[str(group)] = rows
    return out


def _evidence(data: Mapping[str, Any], label: str) -> NameEvidence | None:
    """The file's full-name rule (key ``evidence``), validated; None when it has none."""
    spec = data.get("evidence")
    if spec is None:
        return None
    if not isinstance(spec, dict) or spec.get("rule") != "bifsg":
        raise InputError(f'name data {label}: \'evidence\' must be an object with "rule": "bifsg"')
    categories = spec.get("categories")
    if not isinstance(categories, list) or len(categories) < 2 or not all(isinstance(c, str) for c in categories):
        raise InputError(f"name data {label}: 'evidence.categories' must list two or more categories")
    cut = spec.get("cut")
    if not isinstance(cut, (int, float)) or not 0.5 < cut <= 1:
        raise InputError(f"name data {label}: 'evidence.cut' must be a share above 0.5 and at most 1, got {cut!r}")
    shares: dict[str, tuple[float, ...]] = {}
    for key in ("population", "first_population"):
        values = spec.get(key)
        if (
            not isinstance(values, list)
            or len(values) != len(categories)
            or not all(isinstance(v, (int, float)) and v > 0 for v in values)
        ):
            raise InputError(f"name data {label}: 'evidence.{key}' must give a positive share per category")
        shares[key] = tuple(float(v) for v in values)
    tables: dict[str, dict[str, tuple[int, ...]]] = {}
    for key in ("first_names", "last_names"):
        table = spec.get(key, {})
        if not isinstance(table, dict):
            raise InputError(f"name data {label}: 'evidence.{key}' must map names to per-mille shares")
        for name, row in table.items():
            if not (isinstance(row, list) and len(row) == len(categories) and all(isinstance(v, int) for v in row)):
                raise InputError(f"name data {label}: bad entry 'evidence.{key}.{name}': {row!r}")
        tables[key] = {name_key(name): tuple(row) for name, row in table.items()}
    return NameEvidence(
        categories=tuple(categories),
        cut=float(cut),
        population=shares["population"],
        first_population=shares["first_population"],
        first=tables["first_names"],
        last=tables["last_names"],
    )


@functools.lru_cache(maxsize=1)
def name_index() -> NameIndex:
    """The shipped name lexicons, read once."""
    folder = resources.files("evenhand").joinpath("data").joinpath("names")
    files = sorted(
        (e for e in folder.iterdir() if e.name.endswith(".json") and e.name not in (_PEOPLE_FILE, _RECALL_FILE)),
        key=lambda e: e.name,
    )
    people = json.loads(folder.joinpath(_PEOPLE_FILE).read_text(encoding="utf-8"))
    return build_index([json.loads(e.read_text(encoding="utf-8")) for e in files], people)


def build_index(lexicons: list[Mapping[str, Any]], people: Mapping[str, Any]) -> NameIndex:
    """The index over name lexicon files (each a parsed ``<attribute>.json``) and the context of ``people``."""
    groups: dict[str, tuple[str, ...]] = {}
    associations: dict[tuple[str, str], dict[str, Association]] = {}
    ranked: dict[tuple[str, str, str], tuple[str, ...]] = {}
    display: dict[tuple[str, str], str] = {}
    cuts: dict[str, float] = {}
    evidence: dict[str, NameEvidence] = {}
    for data in lexicons:
        attribute = data.get("attribute")
        label = f"{_LABEL}/{attribute}.json"
        cut = data.get("cut")
        if not isinstance(attribute, str) or not attribute or attribute in groups:
            raise InputError(f"name data {label}: 'attribute' must be a distinct non-empty string")
        if not isinstance(cut, (int, float)) or not 0.5 < cut <= 1:
            raise InputError(f"name data {label}: 'cut' must be a share above 0.5 and at most 1, got {cut!r}")
        cuts[attribute] = float(cut)
        seen: list[str] = []
        for part in PARTS:
            for group, rows in _name_lists(data, f"{part}_names", label).items():
                if group not in seen:
                    seen.append(group)
                keys: list[str] = []
                for written, share in rows:
                    if share < cut:
                        raise InputError(f"name data {label}: {written!r} has share {share} below the cut {cut}")
                    key = name_key(written)
                    here = associations.setdefault((part, key), {})
                    if attribute in here:  # listed twice (under two groups: impossible above a cut of 0.5)
                        continue
                    here[attribute] = Association(group, share)
                    display.setdefault((part, key), written)
                    keys.append(key)
                ranked[(attribute, part, group)] = tuple(keys)
        groups[attribute] = tuple(seen)
        rule = _evidence(data, label)
        if rule is not None:
            evidence[attribute] = rule
    _add_listed(people, groups, cuts, associations, ranked, display, evidence)
    return NameIndex(
        groups=groups,
        associations=associations,
        ranked=ranked,
        display=display,
        cut=cuts,
        titles=_words(people, "titles", _PEOPLE_FILE),
        before_person=_words(people, "before_person", _PEOPLE_FILE),
        after_person=_words(people, "after_person", _PEOPLE_FILE),
        not_last_names=_words(people, "not_last_names", _PEOPLE_FILE),
        place_prefixes=_words(people, "place_prefixes", _PEOPLE_FILE),
        lookalikes=frozenset(name_key(w) for w in _words(people, "lookalikes", _PEOPLE_FILE)),
        common_last_names=frozenset(name_key(w) for w in _words(people, "common_last_names", _PEOPLE_FILE)),
        before_place=_words(people, "before_place", _PEOPLE_FILE),
        family_name_first=frozenset(name_key(w) for w in _words(people, "family_name_first", _PEOPLE_FILE)),
        lookalike_phrases=frozenset(
            tuple(name_key(w) for w in phrase.split()) for phrase in _words(people, "lookalike_phrases", _PEOPLE_FILE)
        ),
        evidence=evidence,
        read_without_lists=_words(people, "read_without_lists", _PEOPLE_FILE),
        double_surnames=_group_names(people, "double_surname_groups", "last", ranked),
        family_name_first_careful=frozenset(
            name_key(w) for w in _words(people, "family_name_first_careful", _PEOPLE_FILE)
        ),
        family_name_first_given=_group_names(people, "family_name_first_given_groups", "first", ranked),
        origins=_origins(people),
        evidence_surnames=_evidence_surnames(people, evidence, groups, associations),
        word_surnames=_words(people, "word_surnames", _PEOPLE_FILE),
    )


def _evidence_surnames(
    people: Mapping[str, Any],
    evidence: Mapping[str, NameEvidence],
    groups: Mapping[str, tuple[str, ...]],
    associations: Mapping[tuple[str, str], Mapping[str, Association]],
) -> frozenset[str]:
    """The surnames (keys) of :attr:`NameIndex.evidence_surnames`: per attribute of ``people.json``'s
    ``surnames_placed_by_evidence``, the full-name tables' surnames no list holds whose posterior alone reaches the
    rule's cut in one of the groups named (the lists keep only surnames of 2,000 bearers and an 80% share, so
    "Okafor", 97% black among 1,000-odd bearers, and "Tanaka", 77% Asian, name nobody without a known given name).
    The groups left out (white) are those whose extra surnames are mostly English words ("Church", "Bridge")."""
    spec = people.get("surnames_placed_by_evidence", {})
    label = f"name data {_LABEL}/{_PEOPLE_FILE}"
    if not isinstance(spec, dict):
        raise InputError(f"{label}: 'surnames_placed_by_evidence' must map attributes to lists of groups")
    words = frozenset(name_key(w) for w in _words(people, "surname_word_lookalikes", _PEOPLE_FILE))
    found: set[str] = set()
    for attribute, wanted in spec.items():
        rule = evidence.get(attribute)
        if rule is None or not isinstance(wanted, list) or not set(wanted) <= set(groups.get(attribute, ())):
            raise InputError(f"{label}: 'surnames_placed_by_evidence.{attribute}' must list groups of an attribute "
                             "with a full-name rule")  # fmt: skip
        for key in rule.last:
            if len(key) <= 3 or key in words or ("last", key) in associations:
                continue
            placed = rule.place(None, key, groups[attribute])
            if placed is not None and placed.share >= rule.cut and placed.group in wanted:
                found.add(key)
    return frozenset(found)


def _add_listed(
    people: Mapping[str, Any],
    groups: Mapping[str, tuple[str, ...]],
    cuts: Mapping[str, float],
    associations: dict[tuple[str, str], dict[str, Association]],
    ranked: dict[tuple[str, str, str], tuple[str, ...]],
    display: dict[tuple[str, str], str],
    evidence: dict[str, NameEvidence],
) -> None:
    """Add ``people.json``'s ``listed_first_names`` (attribute -> group -> names): given names no table holds that a
    cited public list places in a group (Korean given names, "Min-jun", "Seo-yeon"; SOURCES.md). Such a list gives no
    share, so a name is read at the attribute's cut, after the table's names; a name a table already places keeps the
    table's group. Where the attribute has a full-name rule whose first-name table lacks the name, the name enters it
    with the cut for its group and the rest shared evenly, so that "Lee Min-ho" is read from both parts, as a name of
    the tables is ("Lee" alone places nobody)."""
    spec = people.get("listed_first_names", {})
    label = f"name data {_LABEL}/{_PEOPLE_FILE}"
    if not isinstance(spec, dict):
        raise InputError(f"{label}: 'listed_first_names' must map attributes to {{group: [names]}}")
    for attribute, lists in spec.items():
        if attribute == "comment":
            continue
        if attribute not in groups or not isinstance(lists, dict):
            raise InputError(f"{label}: 'listed_first_names.{attribute}' names no attribute of the name lists")
        for group in lists:
            if group not in groups[attribute]:
                raise InputError(f"{label}: 'listed_first_names.{attribute}.{group}' is not a group of {attribute}")
            added: list[str] = []
            for written in lists[group]:
                key = name_key(written)
                if not isinstance(written, str) or _NAME.fullmatch(written) is None:
                    raise InputError(f"{label}: bad name in 'listed_first_names.{attribute}.{group}': {written!r}")
                here = associations.setdefault(("first", key), {})
                if attribute in here:
                    continue
                here[attribute] = Association(group, cuts[attribute])
                display.setdefault(("first", key), written)
                added.append(key)
            ranked[(attribute, "first", group)] = (*ranked.get((attribute, "first", group), ()), *added)
            rule = evidence.get(attribute)
            if rule is not None and group in rule.categories:
                row = _listed_row(rule.categories, group, cuts[attribute])
                firsts = {key: row for key in added if key not in rule.first}
                evidence[attribute] = dataclasses.replace(rule, first={**rule.first, **firsts})


def _listed_row(categories: tuple[str, ...], group: str, share: float) -> tuple[int, ...]:
    """A full-name rule's per-mille row for a name listed in ``group`` at ``share``: the rest shared evenly."""
    rest = round((1 - share) * 1000 / (len(categories) - 1))
    return tuple(round(share * 1000) if c == group else rest for c in categories)


def _origins(people: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """``people.json``'s ``name_origins`` (origin -> {"first": [...], "last": [...]}) as (part, key) -> origin; a name
    written under two origins is an error (the file leaves ambiguous names out)."""
    spec = people.get("name_origins", {})
    label = f"name data {_LABEL}/{_PEOPLE_FILE}"
    if not isinstance(spec, dict):
        raise InputError(f"{label}: 'name_origins' must map origins to {{'first': [...], 'last': [...]}}")
    out: dict[tuple[str, str], str] = {}
    for origin, parts in spec.items():
        if not isinstance(parts, dict) or not set(parts) <= set(PARTS):
            raise InputError(f"{label}: 'name_origins.{origin}' must map 'first' and/or 'last' to lists of names")
        for part in parts:
            for key in sorted(name_key(w) for w in _words(parts, part, _PEOPLE_FILE)):
                if out.setdefault((part, key), origin) != origin:
                    raise InputError(f"{label}: {key!r} is under two origins in 'name_origins' ({part} names)")
    return out


def _group_names(
    people: Mapping[str, Any], key: str, part: str, ranked: Mapping[tuple[str, str, str], tuple[str, ...]]
) -> frozenset[str]:
    """The names of ``part`` (keys) of the groups ``people.json``'s ``key`` names (attribute -> groups):
    ``double_surname_groups`` (surnames written two together without a hyphen, Spanish "García López"),
    ``family_name_first_given_groups`` (given names after a careful family name first, "Lê Thị Mai")."""
    spec = people.get(key, {})
    if not isinstance(spec, dict) or not all(
        isinstance(groups, list) and all(isinstance(g, str) for g in groups) for groups in spec.values()
    ):
        raise InputError(f"name data {_LABEL}/{_PEOPLE_FILE}: {key!r} must map attributes to lists of groups")
    return frozenset(
        name
        for attribute, groups in spec.items()
        for group in groups
        for name in ranked.get((attribute, part, group), ())
    )


@dataclass(frozen=True)
class MeasuredRecall:
    """How well the names of an attribute are read: per group, (names read as the group, labelled names), on the
    labelled set ``labelled``."""

    labelled: str
    groups: Mapping[str, tuple[int, int]]

    def describe(self) -> str:
        """ "100% white, 95% black, ..." """
        return ", ".join(f"{read / n:.0%} {group}" for group, (read, n) in self.groups.items() if n)


@functools.lru_cache(maxsize=1)
def measured_recall() -> dict[str, MeasuredRecall]:
    """The shipped per-group recall of name reading (``measured_recall.json``), per attribute measured."""
    folder = resources.files("evenhand").joinpath("data").joinpath("names")
    data = json.loads(folder.joinpath(_RECALL_FILE).read_text(encoding="utf-8"))
    return {
        attribute: MeasuredRecall(
            str(entry["set"]), {str(g): (int(v[0]), int(v[1])) for g, v in entry["groups"].items()}
        )
        for attribute, entry in data.items()
        if isinstance(entry, dict)
    }
