"""Find the persons a text names, where a name reads as a person (never a look-alike such as "Washington approved
the rule", "by May", "the Ford dealership"):

- a title and a name: "Ms. Robinson", "Dr. Wei Zhang", "Dear Mr. Nguyen" (a title ends the capitalised words before it);
- a full name: a known first name and a capitalised last name ("Jamal Washington", "Emily R. Baker"), or a
  capitalised word and a known surname inside a sentence ("from Mohammed Al-Farsi"); a first name that is also a
  common word, place or brand ("Grace", "Jordan", "Will": ``people.json``'s ``lookalikes``) counts only before a
  surname of the lists ("Grace Lee");
- a first name alone in a person's place: after "to", "for", "Dear", "thank", ... ("Remind Emily"), before "said",
  "wants", "is", ... ("Emily called"), with a possessive ("Emily's account", not a shop's: "at Macy's") or addressed
  ("Emily, please ...");
- never inside a look-alike of several words (``lookalike_phrases``: "Morgan Stanley", "Kim Jong Un").

Once a person is found, every other mention of their first or last name in the prompt is theirs, so a
counterfactual replaces all of them the same way ("Emily Baker ... Emily's card" -> "Aisha Baker ... Aisha's card").
The name lists and the context words are data (``evenhand/data/names/``, :mod:`evenhand.text._names_data`); what a
name signals, and the swaps, are in :mod:`evenhand.text.names`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, cast

from evenhand.text._engine import at_sentence_start
from evenhand.text._names_data import PARTS, NameIndex, name_index, name_key

__all__ = ["Mention", "Person", "clear_people_cache", "find_people", "find_people_many"]

# a capitalised word: letters, with inner apostrophes or hyphens ("O'Brien", "Al-Farsi"), not a possessive "'s"
# (the capital first, then the look-behind: a scan for a character class is much faster than one that starts with a
# look-behind)
# (the first letter's class also holds the Latin Extended blocks, lower case too: "Łukasz", "Đặng", "Şahin"; a word
# whose first letter is not a capital is left out after the scan, :func:`_capitalised`)
_WORD = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ɏḀ-ỿ](?<![\w'’-].)[^\W\d_]*(?:['’-](?!s(?![^\W\d_]))[^\W\d_]+)*")
# the word before a position (with the spaces or comma between), and the word after one
_PREVIOUS = re.compile(r"([^\W\d_]+(?:['’-][^\W\d_]+)*)[ \t]*,?[ \t]*\Z")
_NEXT = re.compile(r"[ \t]{1,2}([^\W\d_]+)")
_POSSESSIVE = re.compile(r"['’]s?(?![^\W\d_])")
_TITLE_GAP = re.compile(r"\.?[ \t]{1,2}")
# two capitalised words side by side (a first name and a surname, a title and a name, an initial and a surname)
_PAIR = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ɏḀ-ỿ][^\W\d_'’-]*\.?[ \t]{1,2}[A-ZÀ-ÖØ-ÞĀ-ɏḀ-ỿ]")
_NAME_GAP = re.compile(r"[ \t]{1,2}")
_DOUBLE_SPLIT = re.compile(r"[-\s]+")  # the parts of a double surname: "García-López", "García López"


@dataclass(frozen=True)
class Mention:
    """One written name part of a person: its span and whether it is the first or the last name."""

    start: int
    end: int
    part: str  # "first" or "last"
    key: str


@dataclass(frozen=True)
class Person:
    """A person named in a text: where the name stands first (``start``, ``end``, title excluded), its first and last
    name keys (None when not written), and every mention of those parts in the text."""

    start: int
    end: int
    first: str | None
    last: str | None
    mentions: tuple[Mention, ...]
    # the parts of a double surname, in order ("garcia", "lopez" for "García-López" or "García López"); else empty
    last_parts: tuple[str, ...] = ()

    @property
    def family_name_first(self) -> bool:
        """True when the name is written family name first ("Nguyễn Thị Mai", "Zhang Wei"): at its first full
        mention the surname stands before the given name."""
        firsts = [m.start for m in self.mentions if m.part == "first" and self.start <= m.start < self.end]
        lasts = [m.start for m in self.mentions if m.part == "last" and self.start <= m.start < self.end]
        return bool(firsts and lasts) and lasts[0] < firsts[0]


class _Word(NamedTuple):
    """A capitalised word (not all capitals: "Emily", not "FAQ")."""

    start: int
    end: int
    text: str
    key: str


_KEYS: dict[str, str] = {}  # written word -> its key: the same capitalised words recur across prompts


def _key(word: str) -> str:
    key = _KEYS.get(word)
    if key is None:
        key = word.casefold()
        if not (key.isalpha() and key.isascii()):  # "O'Brien", "García": the tables' plain letters
            key = name_key(word)
        if len(_KEYS) < 1 << 17:
            _KEYS[word] = key
    return key


def _is_initial(text: str, word: _Word) -> bool:
    return len(word.text) == 1 and word.text.isupper() and text.startswith(".", word.end)


def _title_at(text: str, words: list[_Word], i: int, index: NameIndex) -> bool:
    """True when ``words[i]`` is a title with a capitalised word right after it ("Mr. Nguyen", "Dr Patel")."""
    return (
        words[i].key in index.titles
        and i + 1 < len(words)
        and _TITLE_GAP.fullmatch(text, words[i].end, words[i + 1].start) is not None
    )


def _lookalike_phrase_words(text: str, words: list[_Word], index: NameIndex) -> set[int]:
    """The words of look-alikes of several words ("Morgan Stanley", "Kim Jong Un", "Dr Pepper"): they name nobody."""
    covered: set[int] = set()
    starts = index.lookalike_phrase_starts
    for i, word in enumerate(words):
        for size in starts.get(word.key, ()):
            span = range(i, i + size)
            if i + size > len(words) or tuple(words[j].key for j in span) not in index.lookalike_phrases:
                continue
            if all(_TITLE_GAP.fullmatch(text, words[j].end, words[j + 1].start) for j in span[:-1]):
                covered.update(span)
    return covered


def _runs(text: str, words: list[_Word], index: NameIndex) -> list[tuple[list[int], bool]]:
    """Runs of capitalised words a space apart (a middle initial "R." may sit inside), each with whether a title
    stands before it ("Ms. Emily Baker": the run is "Emily Baker", titled)."""
    runs: list[tuple[list[int], bool]] = []
    i, n = 0, len(words)
    titles = index.titles
    while i < n:
        titled = words[i].key in titles and _title_at(text, words, i, index)
        if titled:
            i += 1
        run = [i]
        while i + 1 < n:
            here, after = words[i], words[i + 1]
            if after.start - here.end > 3:  # not a name gap (1-2 spaces, or ". " after an initial): most words
                break
            if after.key in titles and _title_at(text, words, i + 1, index):
                break  # "Dear Mr. Washington": the title starts a titled run of its own
            if _NAME_GAP.fullmatch(text, here.end, after.start) or (
                _is_initial(text, here) and _TITLE_GAP.fullmatch(text, here.end, after.start)
            ):
                i += 1
                run.append(i)
            else:
                break
        runs.append((run, titled))
        i += 1
    return runs


def _first_name(index: NameIndex, key: str) -> bool:
    return index.known("first", key)


def _lookalike(index: NameIndex, key: str) -> bool:
    return key in index.lookalikes or len(key) <= 2


def _surname_after_unknown(index: NameIndex, key: str, *, ends_run: bool) -> bool:
    """A surname that makes a person after a capitalised word no list knows ("from Mohammed Al-Farsi"): a list's,
    or one the race tables place alone (``evidence_surnames``: "Chinedu Okafor", "Yuki Tanaka") where it ends the
    run of capitalised words ("the Tokyo Sato Building" names nobody)."""
    return index.known("last", key) or (ends_run and key in index.evidence_surnames)


def _verb_cue_after(text: str, word: _Word, index: NameIndex) -> bool:
    """True when a verb cue of ``after_person`` follows ``word`` ("Sunita Gupta reported ..."): a name at the start
    of a sentence or after a colon then reads as a person ("HR case 2291: Sunita Gupta reported")."""
    after = _NEXT.match(text, word.end)
    return after is not None and after.group(1).casefold() in index.after_person


def _last_name_ok(index: NameIndex, word: _Word) -> bool:
    return word.key not in index.not_last_names and word.key not in index.titles and len(word.key) > 1


def _brand_like_possessive(text: str, end: int, before: re.Match[str] | None, index: NameIndex) -> bool:
    """A possessive that reads as a shop or brand, not a person's: a capitalised word follows ("Macy's Parade") or
    nothing does after a place word ("a gift card at Macy's.", "lunch at Wendy's")."""
    after = _NEXT.match(text, end)
    if after is not None:
        return after.group(1)[:1].isupper()
    return before is not None and before.group(1).casefold() in index.before_place


def _in_persons_place(text: str, w: _Word, index: NameIndex) -> bool:
    """A lone first name where a person stands: after a cue word, before a verb cue, with a possessive, or
    addressed at the start of a sentence ("Emily, ...")."""
    before = _PREVIOUS.search(text, max(0, w.start - 40), w.start)
    possessive = _POSSESSIVE.match(text, w.end)
    if possessive is not None and not _brand_like_possessive(text, possessive.end(), before, index):
        return True
    if before is not None and before.group(1).casefold() in index.before_person:
        return True
    after = _NEXT.match(text, w.end)
    if after is not None and after.group(1).casefold() in index.after_person:
        return True
    return text.startswith(",", w.end) and at_sentence_start(text, w.start)


def _people_in_run(
    text: str, words: list[_Word], run: list[int], titled: bool, index: NameIndex
) -> list[tuple[int | None, int | None, list[int]]]:
    """(first word, last word, the run's words of that person) for each person of a run."""
    if titled:
        last = run[-1]
        if len(run) == 1:
            key = words[last].key
            # after a title a word is the family name where a surname table knows it ("Ms. Khalil", "Ms. Nasser":
            # men's given names too), else a given name the lists know ("Dr. Emily")
            if not index.is_last_name(key) and not index.in_surname_tables(key) and _first_name(index, key):
                return [(last, None, run)]
            return [(None, last, run)]
        return [(run[0], last, run)]
    found: list[tuple[int | None, int | None, list[int]]] = []
    k = 0
    while k < len(run):
        w = words[run[k]]
        family_first = _family_name_first(words, run, k, index)
        if family_first is not None:
            found.append(family_first)
            k += len(family_first[2])
            continue
        j = k + 1
        if j < len(run) and (_is_initial(text, words[run[j]]) or _first_name(index, words[run[j]].key)):
            if j + 1 < len(run) and index.is_last_name(words[run[j + 1]].key):
                j += 1  # a middle initial or middle name: "Emily R. Baker", "Emily Jane Baker"
        if j < len(run) and _first_name(index, w.key) and _last_name_ok(index, words[run[j]]):
            surname = words[run[j]]
            if not _lookalike(index, w.key) or index.is_last_name(surname.key):
                found.append((run[k], run[j], run[k : j + 1]))
                k = j + 1
                continue
        if (
            k + 1 < len(run)
            and _surname_after_unknown(index, words[run[k + 1]].key, ends_run=k + 2 == len(run))
            and _last_name_ok(index, words[run[k + 1]])
            and w.key not in index.place_prefixes
            and not _lookalike(index, w.key)
            and w.key not in index.titles
            and (not at_sentence_start(text, w.start) or _verb_cue_after(text, words[run[k + 1]], index))
        ):
            found.append((run[k], run[k + 1], run[k : k + 2]))  # "from Mohammed Al-Farsi": a known surname
            k += 2
            continue
        if " " in w.text:  # a double surname joined with no given name before it ("call García López")
            found.append((None, run[k], [run[k]]))
        elif _first_name(index, w.key) and not _lookalike(index, w.key) and _in_persons_place(text, w, index):
            found.append((run[k], None, [run[k]]))
        k += 1
    return found


def _family_name_first(
    words: list[_Word], run: list[int], k: int, index: NameIndex
) -> tuple[int | None, int | None, list[int]] | None:
    """A name written family name first at ``run[k]`` (first word, last word, its words), or None: a surname of
    ``people.json``'s ``family_name_first`` (languages that write the family name first: "Nguyễn", "Zhang"), then at
    most one middle name and a known given name that is not itself such a surname ("Nguyễn Thị Mai", "Zhang Wei";
    "Mai Nguyen" and "Emily Chen" keep the given name first). A surname of ``family_name_first_careful`` (two letters
    or an English word or given name too: "Lê", "He", "Kim", "Lee") counts only before a given name of
    ``family_name_first_given_groups`` ("Lê Thị Mai", "Li Wei"; "Lee Smith", "He Emily" keep their reading); a
    hyphenated given name ("Kim Min-jun") is read by its first part when every part is such a name (the word is then
    keyed by that part)."""
    surname = words[run[k]].key
    careful = surname in index.family_name_first_careful
    if not careful and surname not in index.family_name_first:
        return None
    for size in (3, 2):  # with a middle name first: "Nguyễn Thị Mai" is one person, not "Nguyễn Thị" and "Mai"
        if k + size > len(run):
            continue
        span = run[k : k + size]
        given = _given_after_family_name(words[span[-1]], careful, index)
        middle_ok = all(index.known("first", words[i].key) for i in span[1:-1])
        if middle_ok and given is not None:
            if given != words[span[-1]].key:
                words[span[-1]] = words[span[-1]]._replace(key=given)
            return (span[-1], span[0], span)
    return None


def _given_after_family_name(word: _Word, careful: bool, index: NameIndex) -> str | None:
    """The key ``word`` is read by as the given name after a family name, or None when it is none."""
    def ok(key: str) -> bool:
        return key in index.family_name_first_given if careful else index.known("first", key)

    if ok(word.key):
        given = word.key
    elif careful and "-" in word.text:  # "Min-jun": every part a given name of the groups
        parts = [_key(part) for part in word.text.split("-")]
        given = parts[0] if all(ok(part) for part in parts) else ""
    else:
        return None
    # a given name of two letters reads after a family name that is not itself careful ("Zhang Li", "Wang Na"); a
    # careful one ("Li", "Kim") needs a longer given name, and a look-alike word never reads
    short_ok = not careful and len(given) == 2 and given not in index.lookalikes
    if not given or given in index.family_name_first or (_lookalike(index, given) and not short_ok):
        return None
    return given


def find_people(text: str, index: NameIndex | None = None) -> tuple[Person, ...]:
    """The persons named in ``text``, in order of first mention.

    With the shipped name data (``index`` None) the answer is remembered per text (up to 65,536 texts, then the
    memory starts again): a plan reads the same prompts once per attribute, and the counterfactual prompts read them
    again."""
    if index is None:
        found = _REMEMBERED.get(text)
        return found if found is not None else find_people_many([text])[0]
    return _find_people(text, index, _capitalised(text))


_REMEMBERED: dict[str, tuple[Person, ...]] = {}  # text -> its persons, with the shipped name data
_REMEMBER = 1 << 16  # texts remembered at most (then the memory starts again)


def find_people_many(texts: Sequence[str]) -> list[tuple[Person, ...]]:
    """Per text, :func:`find_people` with the shipped name data (each distinct text read once)."""
    out = [_REMEMBERED.get(t) for t in texts]
    todo = list(dict.fromkeys(t for t, found in zip(texts, out, strict=True) if found is None))
    if not todo:
        return cast("list[tuple[Person, ...]]", out)
    index = name_index()
    read = {t: _find_people(t, index, _capitalised(t)) for t in todo}
    if len(_REMEMBERED) + len(read) > _REMEMBER:
        _REMEMBERED.clear()
    _REMEMBERED.update(list(read.items())[:_REMEMBER])
    return [found if found is not None else read[t] for t, found in zip(texts, out, strict=True)]


def clear_people_cache() -> None:
    """Forget the persons remembered per text (benchmarks time a first reading with it)."""
    _REMEMBERED.clear()


def _capitalised(text: str) -> list[tuple[int, int, str]]:
    """The capitalised words of ``text`` (:data:`_WORD`): start, end and the word."""
    return [(m.start(), m.end(), w) for m in _WORD.finditer(text) if (w := m.group())[0].isupper()]


def _partial(found: tuple[int | None, int | None, list[int]]) -> bool:
    return found[0] is None or found[1] is None


def _find_people(text: str, index: NameIndex, capitalised: list[tuple[int, int, str]]) -> tuple[Person, ...]:
    """The persons of ``text``, from its capitalised words (:func:`_capitalised`)."""
    # most texts are passed over here: a set look-up per capitalised word; a text whose only name-like words are
    # surnames or look-alike first names ("Washington approved", "by May") needs two capitalised words side by side
    # to name anyone
    known = _KEYS.get
    word_keys = [known(w) or _key(w) for _, _, w in capitalised]
    if index.starts_alone.isdisjoint(word_keys):
        if index.interesting.isdisjoint(word_keys) or _PAIR.search(text) is None:
            return ()
    words = [  # the capitalised words, not all capitals ("Emily", not "FAQ")
        _Word(s, e, w, k) for (s, e, w), k in zip(capitalised, word_keys, strict=True) if len(w) == 1 or not w.isupper()
    ]
    if index.double_surnames and not index.double_surnames.isdisjoint(word_keys):
        words = _join_double_surnames(text, words, index)
    found: list[tuple[int | None, int | None, list[int]]] = []
    interesting = index.interesting
    for run, titled in _runs(text, words, index):
        # a lone capitalised word no list knows ("Draft", "Notes") names nobody unless a title stands before it; a
        # double surname joined alone ("call García López") is a person's surname
        if titled or len(run) > 1 or words[run[0]].key in interesting or " " in words[run[0]].text:
            found.extend(_people_in_run(text, words, run, titled, index))
    starts_phrase = found and not index.lookalike_phrase_starts.keys().isdisjoint(word_keys)
    phrases = _lookalike_phrase_words(text, words, index) if starts_phrase else set()
    found = [f for f in found if not phrases.intersection(f[2])]
    if not found:
        return ()
    # one person per name: "Emily Baker ... Emily's card ... Ms. Baker" is one person, mentioned three times
    keys: list[tuple[str | None, str | None]] = []
    spans: list[list[int]] = []
    parts: list[dict[int, str]] = []  # per person: word index -> "first" / "last"
    # full names first, so that a lone "Emily" before "Emily Baker" joins her
    for first, last, span in sorted(found, key=_partial) if len(found) > 1 else found:
        fkey = None if first is None else words[first].key
        lkey = None if last is None else words[last].key
        p = keys.index((fkey, lkey)) if (fkey, lkey) in keys else None
        if p is None and (fkey is None or lkey is None):
            p = next(
                (
                    q
                    for q, (f, k) in enumerate(keys)
                    if (fkey is not None and f == fkey)
                    or (lkey is not None and (k == lkey or lkey in _surname_pieces(words, parts[q])))
                ),
                None,
            )
        if p is None:
            keys.append((fkey, lkey))
            spans.append(span)
            parts.append({})
            p = len(keys) - 1
        if first is not None:
            parts[p][first] = "first"
        if last is not None:
            parts[p][last] = "last"
    taken = {i for _, _, span in found for i in span} | phrases
    owner: dict[tuple[str, str], int] = {}
    for p, (fkey, lkey) in enumerate(keys):
        for part, key in (("first", fkey), ("last", lkey)):
            if key is not None:
                owner.setdefault((part, key), p)
    for p, own in enumerate(parts):  # a part of a double surname written alone ("López" after "María García-López")
        for key in _surname_pieces(words, own):
            owner.setdefault(("last", key), p)
        for i, part in own.items():  # a hyphenated given name read by its first part ("Min-jun" of "Kim Min-jun"):
            written = _key(words[i].text)  # a later "Min-jun" alone, keyed "minjun", is hers or his too
            if part == "first" and written != words[i].key:
                owner.setdefault(("first", written), p)
    named = {key for _, key in owner}
    for i, w in enumerate(words):  # other mentions of a found person's first or last name
        if i in taken or w.key not in named:
            continue
        for part in PARTS:
            p = owner.get((part, w.key))
            if p is None:
                continue
            if (
                _lookalike(index, w.key)
                and not _POSSESSIVE.match(text, w.end)
                and not (part == "first" and _in_persons_place(text, w, index))
            ):
                # "May Lee ... by May 5": a look-alike alone stays what it is, unless it is the person's first name
                # where a person stands ("Georgia Brown ... notify Georgia", "Will Smith ... whether Will can")
                continue
            parts[p][i] = part
            break
    people = []
    for (fkey, lkey), span, own in zip(keys, spans, parts, strict=True):
        # every mention of a part carries the person's key of it: "Ms. López" swaps as "García-López" does
        named_as = {"first": fkey, "last": lkey}
        mentions = [
            Mention(words[i].start, words[i].end, part, named_as[part] or words[i].key)
            for i, part in sorted(own.items())
        ]
        lasts = (words[i].text for i, part in sorted(own.items()) if part == "last")
        pieces = next((d for written in lasts if (d := _double_pieces(written))), ())
        people.append(Person(words[span[0]].start, words[span[-1]].end, fkey, lkey, tuple(mentions), pieces))
    if len(people) > 1:
        people.sort(key=_first_mention)
    return tuple(people)


def _join_double_surnames(text: str, words: list[_Word], index: NameIndex) -> list[_Word]:
    """``words`` with each double surname written without a hyphen made one word ("María García López": "García
    López", key "garcialopez", as "García-López"): two surnames of ``people.json``'s ``double_surname_groups`` side
    by side, right after a known given name, an initial or a title. A capitalised word that is not such a surname
    never joins ("María García Tuesday", "Ana López Bank")."""
    doubles = index.double_surnames
    out: list[_Word] = []
    i = 0
    while i < len(words):
        here = words[i]
        if (
            i + 1 < len(words)
            and here.key in doubles
            and words[i + 1].key in doubles
            and _NAME_GAP.fullmatch(text, here.end, words[i + 1].start)
            and (
                (out and _after_given_or_title(text, out[-1], here, index))
                or _double_surname_alone(text, out[-1] if out else None, here, index)
            )
        ):
            after = words[i + 1]
            joined = text[here.start : after.end]
            out.append(_Word(here.start, after.end, joined, _key(joined)))
            i += 2
            continue
        out.append(here)
        i += 1
    return out


def _double_surname_alone(text: str, before: _Word | None, word: _Word, index: NameIndex) -> bool:
    """True when ``word`` starts a double surname written with no given name where a lone surname pair is read as a
    person ("call García López", "the García López family", "Dear García López,"): not a given name itself ("call
    Santiago López" is a given name and a surname), not a place's first word ("Santa Rosa"), not at the start of a
    sentence, and with no capitalised word right before it but a greeting or a place prefix ("Dear", "The")."""
    if (
        _first_name(index, word.key)
        or word.key in index.place_prefixes
        or _lookalike(index, word.key)
        or at_sentence_start(text, word.start)
    ):
        return False
    return (
        before is None
        or _NAME_GAP.fullmatch(text, before.end, word.start) is None
        or before.key in index.place_prefixes
    )


def _after_given_or_title(text: str, before: _Word, word: _Word, index: NameIndex) -> bool:
    """True when ``before`` stands right before ``word`` as its given name, an initial or a title."""
    if _NAME_GAP.fullmatch(text, before.end, word.start):
        return _first_name(index, before.key) or before.key in index.titles
    return _TITLE_GAP.fullmatch(text, before.end, word.start) is not None and (
        before.key in index.titles or _is_initial(text, before)
    )


def _double_pieces(written: str) -> tuple[str, ...]:
    """The keys of the parts of a double surname as written ("García-López", "García López"; parts of more than one
    letter), or () for a single surname."""
    if "-" not in written and " " not in written:
        return ()
    return tuple(key for piece in _DOUBLE_SPLIT.split(written) if len(key := _key(piece)) > 1)


def _surname_pieces(words: list[_Word], own: dict[int, str]) -> set[str]:
    """The keys of the parts of a person's hyphenated double surname ("garcia", "lopez" for "García-López"; parts of
    more than one letter), from the words ``own`` marks as the person's last name."""
    pieces: set[str] = set()
    for i, part in own.items():
        if part == "last":
            pieces.update(_double_pieces(words[i].text))
    return pieces


def _first_mention(person: Person) -> int:
    return person.mentions[0].start
