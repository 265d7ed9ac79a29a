"""Personal names that signal a group: the persons a text names (:mod:`evenhand.text.name_reader`), the group
each one's name signals, and swaps of them for counterfactuals.

A person's name signals a group by the name lists of ``evenhand/data/names/`` (:mod:`evenhand.text._names_data`):
the full-name rule of an attribute that has one (race), else the list of the stronger part. A counterfactual
replaces every mention of a person's first or last name the same way ("Emily Baker ... Emily's card" -> "Aisha
Baker ... Aisha's card").
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from evenhand.text._names_data import NameIndex, name_index, name_key
from evenhand.text.name_reader import (
    Mention,
    Person,
    _lookalike,
    clear_people_cache,
    find_people,
    find_people_many,
)

__all__ = [
    "Mention",
    "NameMatch",
    "Person",
    "UnplacedName",
    "clear_people_cache",
    "find_name_matches",
    "find_people",
    "find_people_many",
    "find_unplaced",
    "name_attributes",
    "substitute_names",
]


MIN_POOL = 2  # a pool narrowed to keep the other attributes' groups must keep this many names, else it is not narrowed
POOL_SIZE = 40  # names are drawn from the commonest this many of a group (after narrowing)


class NameMatch(NamedTuple):
    """A person's name that signals a group of one attribute."""

    word: str  # the name as written at its first mention ("Jamal Washington", "Robinson" after "Ms.")
    start: int  # character offsets of ``word`` in the prompt
    end: int
    group: str  # the group the name signals
    attribute: str  # the attribute ("gender", "race", ...)
    name: str  # the name parts that signal it, as written ("Jamal Washington"; "Emily" for gender)
    share: float  # the share of ``group``: the full-name posterior (race), or the share of the name's bearers


class UnplacedName(NamedTuple):
    """A person whose group no name list can place for an attribute (no list, or no group reaches its cut)."""

    word: str  # the name as written at its first mention ("Fatima Al-Sayed")
    start: int
    end: int
    attribute: str


def name_attributes(groups: Mapping[str, Collection[str]]) -> dict[str, str]:
    """Of the name lexicons, those usable for the given lexicons (lexicon name -> its groups): lexicon name ->
    attribute name, where the name data's groups are all among the lexicon's."""
    index = name_index()
    return {
        name: name
        for name, lexicon_groups in groups.items()
        if name in index.groups and set(index.groups[name]) <= set(lexicon_groups)
    }


def _signal(person: Person, attribute: str, index: NameIndex) -> tuple[str, float, tuple[str, ...]] | None:
    """The group a person's name signals for ``attribute`` (group, share, the parts read), or None (see
    :func:`_signal_of`)."""
    return _signal_of(person.first, _read_last(person, attribute, index), attribute, index)


def _read_last(person: Person, attribute: str, index: NameIndex) -> str | None:
    """The surname key the tables read for ``person``: the surname, or for a hyphenated double surname they do not
    list whole ("Hernández-Martínez") its first part they know ("hernandez"; Spanish puts the father's first). A
    counterfactual still swaps the whole double surname, at every mention of it or of a part."""
    last = person.last
    if last is None or not person.last_parts or index.readable(attribute, "last", last):
        return last
    return next((key for key in person.last_parts if index.readable(attribute, "last", key)), last)


@functools.lru_cache(maxsize=1 << 16)  # names recur across prompts: each (first, last) is read once per attribute
def _signal_of(
    first: str | None, last: str | None, attribute: str, index: NameIndex
) -> tuple[str, float, tuple[str, ...]] | None:
    """The group the name (first, last) signals for ``attribute`` (group, share, the parts read), or None.

    An attribute with a full-name rule (:class:`~evenhand.text._names_data.NameEvidence`: race) places the person
    by the posterior of every written part its tables know, at the rule's cut; a person none of whose parts are
    in those tables, and an attribute without such a rule (gender), take the list of the stronger part (share at
    least the list's cut)."""
    rule = index.evidence.get(attribute)
    if rule is not None:
        placed = rule.place(first, last, index.groups[attribute])
        if placed is not None:
            return (placed.group, placed.share, placed.parts) if placed.share >= rule.cut else None
    best: tuple[str, float, tuple[str, ...]] | None = None
    for part, key in (("first", first), ("last", last)):
        if key is None:
            continue
        assoc = index.association(part, key, attribute)
        if assoc is not None and (best is None or assoc.share > best[1]):
            best = (assoc.group, assoc.share, (part,))
    return best


def _written_parts(text: str, person: Person, parts: tuple[str, ...]) -> str:
    """The written name parts ``parts`` of a person, at their first mentions, joined by a space ("Jamal
    Washington", or "Washington" after "Ms.")."""
    written = []
    for part in parts:
        for m in person.mentions:  # in order of position: the first mention of the part
            if m.part == part:
                written.append(text[m.start : m.end])
                break
    return " ".join(written)


def find_name_matches(
    attribute: str, texts: Sequence[str], people: Sequence[tuple[Person, ...]] | None = None
) -> list[tuple[NameMatch, ...]]:
    """Per text, the persons whose names signal a group of ``attribute`` (one :class:`NameMatch` each)."""
    index = name_index()
    found = people if people is not None else find_people_many(texts)
    out: list[tuple[NameMatch, ...]] = []
    for text, persons in zip(texts, found, strict=True):
        if not persons:
            out.append(())
            continue
        row = []
        for person in persons:
            signal = _signal(person, attribute, index)
            if signal is None:
                continue
            group, share, parts = signal
            written = _written_parts(text, person, parts)
            row.append(
                NameMatch(text[person.start : person.end], person.start, person.end, group, attribute, written, share)
            )
        out.append(tuple(row))
    return out


def find_unplaced(
    attribute: str, texts: Sequence[str], people: Sequence[tuple[Person, ...]]
) -> list[tuple[UnplacedName, ...]]:
    """Per text, the persons whose group for ``attribute`` no name list places: every person when the attribute has
    no name data but readers infer it from names (``people.json`` ``read_without_lists``: religion, nationality; no
    offline source with a usable licence ties names to them), else those whose names signal no group (a full-name
    posterior below the rule's cut, or names in no list). None for an attribute a name does not signal (age,
    disability, ...): a named person's age is not unplaced, it is not read from names at all."""
    index = name_index()
    listed = attribute in index.groups
    if not listed and attribute not in index.read_without_lists:
        return [() for _ in texts]
    out: list[tuple[UnplacedName, ...]] = []
    for text, persons in zip(texts, people, strict=True):
        unplaced = [p for p in persons if not listed or _signal(p, attribute, index) is None]
        out.append(
            tuple(UnplacedName(text[p.start : p.end], p.start, p.end, attribute) for p in unplaced) if unplaced else ()
        )
    return out


def _pool(
    index: NameIndex,
    attribute: str,
    part: str,
    group: str,
    key: str,
    avoid: frozenset[str],
    fixed: Mapping[str, str] | None = None,
    origin: str | None = None,
) -> list[str]:
    """The names a ``part`` of ``group`` is drawn from for the original name ``key``: the group's commonest names
    that keep ``key``'s group in every other attribute with names of that part (a woman's name stays a woman's), or
    that have the group ``fixed`` gives for that attribute (an intersection's version: a Black woman's name),
    unless fewer than :data:`MIN_POOL` do; then, among those, the names of ``origin`` (the original's origin,
    :func:`_origin`), unless fewer than :data:`MIN_POOL` are."""
    fixed = fixed or {}
    keep: tuple[tuple[str, str | None], ...] = tuple(
        (other, fixed[other] if other in fixed else _group_of(index, part, key, other))
        for other in index.groups
        if other != attribute and any(index.ranked.get((other, part, g)) for g in index.groups[other])
    )
    return _narrowed_pool(index, attribute, part, group, keep, avoid, origin)


@functools.lru_cache(maxsize=4096)
def _narrowed_pool(
    index: NameIndex,
    attribute: str,
    part: str,
    group: str,
    keep: tuple[tuple[str, str | None], ...],
    avoid: frozenset[str],
    origin: str | None = None,
) -> list[str]:
    ranked = [k for k in index.ranked.get((attribute, part, group), ()) if not _lookalike(index, k) and k not in avoid]
    narrowed = ranked
    for other, wanted in keep:
        candidate = [k for k in narrowed if _group_of(index, part, k, other) == wanted]
        if len(candidate) >= MIN_POOL:
            narrowed = candidate
    if origin is not None:  # last: the groups first, then the origin within them where enough names are left
        candidate = [k for k in narrowed if index.origins.get((part, k)) == origin]
        if len(candidate) >= MIN_POOL:
            narrowed = candidate
    return narrowed[:POOL_SIZE]


def _origin(index: NameIndex, person: Person, part: str, read: str) -> str | None:
    """The origin a drawn ``part`` keeps (``people.json``'s ``name_origins``): that of the part as read, else that of
    the person's other part ("Lê Thị Mai": Mai's, Vietnamese; a given name no origin lists takes the surname's)."""
    own = index.origins.get((part, read))
    if own is not None:
        return own
    other = ("last", person.last) if part == "first" else ("first", person.first)
    return None if other[1] is None else index.origins.get((other[0], other[1]))


def _group_of(index: NameIndex, part: str, key: str, attribute: str) -> str | None:
    assoc = index.association(part, key, attribute)
    return None if assoc is None else assoc.group


def _rng(seed: int, text: str, attribute: str, group: str) -> random.Random:
    """A generator that depends on the seed, the prompt, the attribute and the group only (never on the hash
    seed, the order of the prompts or the groups asked for)."""
    digest = hashlib.sha256(f"{seed}\x00{attribute}\x00{group}\x00{text}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _written_like(original: str, new: str) -> str:
    return new.upper() if original.isupper() and len(original) > 1 else new


def substitute_names(
    attribute: str,
    groups: Sequence[str],
    texts: Sequence[str],
    target: str | None,
    seed: int = 0,
    avoid: Collection[str] = (),
    people: Sequence[tuple[Person, ...]] | None = None,
    fixed: Mapping[str, str] | None = None,
    drawn_for: Sequence[str] | None = None,
) -> tuple[list[str], list[tuple[tuple[str, str], ...]]]:
    """Replace the names that signal ``attribute`` in ``texts`` by names drawn for ``target`` (None: swap two
    ``groups``), the same way at every mention; the rest of each text is kept byte for byte.

    Returns the new texts and, per text, ``(name as written, its replacement)`` per person replaced. A name part
    with no name of the target's group (gender lists no surnames) is kept; so is a part no list knows. ``avoid``:
    lower-case words a drawn name must not be (the lexicon's terms, which the lexicon pass would change again).
    ``fixed``: for an intersection, the other attributes' groups of the version (``{"gender": "female"}``): a person
    whose name signals a group of any of the attributes is renamed, with names of all the version's groups.
    ``drawn_for``: the texts whose names are drawn (default ``texts``): the prompts as written, where ``texts`` are
    the same prompts with some words masked (bystanders' words, :mod:`evenhand.text.bystanders`), so that masking
    leaves the names drawn as they were.
    """
    index = name_index()
    found = people if people is not None else find_people_many(texts)
    avoid_keys = frozenset(name_key(w) for w in avoid)
    out_texts: list[str] = []
    used: list[tuple[tuple[str, str], ...]] = []
    for text, persons, written in zip(texts, found, drawn_for if drawn_for is not None else texts, strict=True):
        edits: dict[int, tuple[int, str]] = {}
        pairs: list[tuple[str, str]] = []
        chosen: dict[tuple[str, str], str] = {}
        rngs: dict[str, random.Random] = {}
        bare: dict[int, tuple[int, str]] = {}  # the same edits without an added possessive, for the record
        for person in persons:
            signal = _signal(person, attribute, index)
            if signal is None and not any(_signal(person, other, index) for other in fixed or {}):
                continue
            own = None if signal is None else signal[0]
            if target is not None:
                goal: str | None = target
            else:
                goal = groups[1 - groups.index(own)] if own in groups and len(groups) == 2 else None
            if goal is None or goal not in index.groups.get(attribute, ()):
                continue
            rng = rngs.setdefault(goal, _rng(seed, written, attribute, goal))
            replaced = False
            for part, key in (("first", person.first), ("last", person.last)):
                # a double surname is read by a part the tables know, and swapped whole
                read = _read_last(person, attribute, index) if part == "last" else key
                if key is None or read is None or (part, key) in chosen or not index.readable(attribute, part, read):
                    continue
                taken = {k for (p, _), k in chosen.items() if p == part}
                origin = _origin(index, person, part, read)
                drawn = _pool(index, attribute, part, goal, read, avoid_keys, fixed, origin)
                pool = [k for k in drawn if k not in (key, read, *person.last_parts) and k not in taken]
                if pool:
                    chosen[(part, key)] = pool[rng.randrange(len(pool))]
            for m in person.mentions:
                new_key = chosen.get((m.part, m.key))
                if new_key is None:
                    continue
                new = _written_like(text[m.start : m.end], index.written(m.part, new_key))
                after = text[m.end : m.end + 2]
                bare[m.start] = (m.end, new)
                if after[:1] in ("'", "’") and after[1:2] != "s" and not new.endswith("s"):
                    edits[m.start] = (m.end + 1, new + after[:1] + "s")  # "James' card" -> "Emily's card"
                else:
                    edits[m.start] = (m.end, new)
                replaced = True
            if replaced and person.family_name_first:
                _drop_middle_names(text, person, chosen, edits, bare)
                _given_name_first(person, chosen, edits, bare, index)
            if replaced:
                pairs.append((text[person.start : person.end], _apply(text, bare, person.start, person.end)))
        out_texts.append(_apply(text, edits, 0, len(text)) if edits else text)
        used.append(tuple(pairs))
    return out_texts, used


def _drop_middle_names(
    text: str,
    person: Person,
    chosen: Mapping[tuple[str, str], str],
    edits: dict[int, tuple[int, str]],
    bare: dict[int, tuple[int, str]],
) -> None:
    """For a name written family name first whose given name was swapped ("Nguyễn Thị Mai"), drop the middle name
    between the surname and the given name at its first mention: it belongs with the given name ("Thị" marks a
    Vietnamese woman's name), so no version keeps it beside another group's given name ("Nguyễn Minh", "Baker
    Emily")."""
    if ("first", person.first or "") not in chosen:
        return
    inside = [m for m in person.mentions if person.start <= m.start < person.end]
    surname = next((m for m in inside if m.part == "last"), None)
    given = next((m for m in inside if m.part == "first"), None)
    if surname is None or given is None or not text[surname.end : given.start].strip():
        return
    edits[surname.end] = bare[surname.end] = (given.start, " ")


def _given_name_first(
    person: Person,
    chosen: Mapping[tuple[str, str], str],
    edits: dict[int, tuple[int, str]],
    bare: dict[int, tuple[int, str]],
    index: NameIndex,
) -> None:
    """For a name written family name first whose surname and given name were both swapped for a surname of a
    language that writes the given name first ("Zhang Li" -> "Lopez" and "Sergio"), write the first full mention
    given name first ("Sergio Lopez", not "Lopez Sergio": no reader, and no model, reads the latter as a Hispanic
    name); the other mentions are swapped in place as before ("Li worked" -> "Sergio worked", "Ms. Zhang" -> "Ms.
    Lopez")."""
    new_last = chosen.get(("last", person.last or ""))
    if new_last is None or ("first", person.first or "") not in chosen:
        return
    if new_last in index.family_name_first or new_last in index.family_name_first_careful:
        return
    inside = [m for m in person.mentions if person.start <= m.start < person.end]
    surname = next((m for m in inside if m.part == "last"), None)
    given = next((m for m in inside if m.part == "first"), None)
    if surname is None or given is None or surname.start > given.start or given.start not in bare:
        return
    if surname.start not in bare:
        return
    given_new, surname_new = bare[given.start][1], bare[surname.start][1]
    stop, with_possessive = edits[given.start]
    suffix = with_possessive[len(given_new) :]  # "Zhang Li's card" -> "Sergio Lopez's card"
    for table in (edits, bare):
        for start in [k for k in table if surname.start <= k <= given.start]:
            del table[start]
    edits[surname.start] = (stop, f"{given_new} {surname_new}{suffix}")
    bare[surname.start] = (given.end, f"{given_new} {surname_new}")


def _apply(text: str, edits: Mapping[int, tuple[int, str]], start: int, end: int) -> str:
    """``text[start:end]`` with the edits (start -> (end, new text)) that begin inside it."""
    pieces, last = [], start
    for s in sorted(e for e in edits if start <= e < end):
        stop, new = edits[s]
        pieces.append(text[last:s])
        pieces.append(new)
        last = min(stop, end) if stop <= end else stop
    pieces.append(text[last:end])
    return "".join(pieces)
