"""Small English grammar rules that keep substituted text natural: case, articles, her/his.

These are heuristics on the next word, not a parser: they cover the common cases ("I saw her." / "her book",
"his book" / "is his.") without any model or downloaded data. :data:`GRAMMARS` holds the rule sets a lexicon file
can switch on by name (its ``grammar`` key).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np
import numpy.typing as npt

# Words that, right after "her"/"his", show that it is NOT a determiner of a following noun: prepositions,
# particles, conjunctions, articles and other determiners, pronouns, auxiliaries, adverbs, and a few adjectives and
# bare verbs that commonly follow an object ("made her happy", "let her go").
_NOT_A_NOUN_PHRASE = frozenset(
    """
    a an the this that these those some any all every each no another either neither both such what which whose
    to in on at for with by from of about into onto upon up down out off over under after before around through
    across along among behind beside between beyond near toward towards against without within during since until
    till via per than as like unlike back away again too also so or and but nor yet if when while where why how
    because although though whether once then now today tomorrow tonight yesterday here there very really just
    still already soon later never ever always often sometimes not n't only even well much more most less least
    enough instead anyway alone together directly immediately who whom i you he she it we they me him her us them
    my your his its our their mine yours hers ours theirs myself yourself herself himself
    is was are were be been being am will would can could shall should may might must do does did has have had
    happy sad angry upset safe sick tired ready sure afraid alive awake aware
    go come know feel see think cry eat sit stand walk run try make take get give tell ask want
    """.split()
)
# Deliberately absent because "her X" is more often possessive: first, last, right, home, free, busy, work, call,
# help, need, say, talk, win, sleep, smile, laugh, stay, leave ("her call", "her stay", "her first order").
# Two-word adverbials that start with one of those words ("tell her right away", "saw her last night").
_ADVERBIAL_PAIRS = frozenset(
    {
        ("right", "away"), ("right", "now"), ("right", "here"), ("right", "there"), ("right", "after"),
        ("right", "before"), ("first", "thing"), ("last", "night"), ("last", "week"), ("last", "month"),
        ("last", "year"), ("last", "time"), ("home", "safely"), ("home", "early"), ("home", "late"),
    }
)  # fmt: skip

_NEXT_WORDS = re.compile(r"[ \t]*(\w+)?(?:[ \t]+(\w+))?")  # same line only: a line break ends the phrase
_VOWEL_SOUND_EXCEPTIONS = ("uni", "use", "usu", "uti", "eu", "one", "once", "ur")
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def starts_noun_phrase(text: str, end: int) -> bool:
    """True when the word after position ``end`` looks like the head of a noun phrase ("her [book]")."""
    m = _NEXT_WORDS.match(text, end)
    word = m.group(1) if m else None
    if word is None:
        return False
    word = word.lower()
    if word in _NOT_A_NOUN_PHRASE:
        return False
    after = m.group(2) if m else None
    return after is None or (word, after.lower()) not in _ADVERBIAL_PAIRS


_ADVERBIAL_HEADS = frozenset(first for first, _ in _ADVERBIAL_PAIRS)
_WORD_BYTE = np.array([chr(b).isalnum() or b == 95 for b in range(128)] + [False] * 128)  # ASCII \w
_BLANK_BYTE = np.array([b in (9, 32) for b in range(256)])


def starts_noun_phrase_many(text: str, ends: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """:func:`starts_noun_phrase` at each position of ``ends`` in an ASCII ``text``, vectorised: the next word of
    every position is found from the bytes and judged once per distinct word."""
    from evenhand._bytecodes import distinct_spans  # imports pandas: only when needed

    # NUL at the end: neither blank nor a word character, it stops both walks
    raw = np.frombuffer(text.encode("ascii") + b"\0", dtype=np.uint8)
    word_start = ends.copy()
    todo = np.arange(ends.size)
    while todo.size:  # past spaces and tabs (usually one)
        todo = todo[_BLANK_BYTE[raw[word_start[todo]]]]
        word_start[todo] += 1
    word_end = word_start.copy()
    todo = np.arange(ends.size)
    while todo.size:  # to the end of the word
        todo = todo[_WORD_BYTE[raw[word_end[todo]]]]
        word_end[todo] += 1
    out = np.zeros(ends.size, dtype=bool)
    has_word = np.flatnonzero(word_end > word_start)
    if has_word.size == 0:
        return out
    starts, stops = word_start[has_word], word_end[has_word]
    distinct, codes = distinct_spans(text, starts, stops)
    words = [w.lower() for w in distinct]
    verdict = np.array([w not in _NOT_A_NOUN_PHRASE for w in words])
    out[has_word] = verdict[codes]
    pair_heads = np.array([w in _ADVERBIAL_HEADS for w in words])[codes]
    for i in has_word[pair_heads].tolist():  # "right away", "last night": look at the word after
        out[i] = starts_noun_phrase(text, int(ends[i]))
    return out


def match_case(source: str, replacement: str) -> str:
    """Give ``replacement`` the case pattern of ``source``: lower, UPPER or Capitalised (else as in the lexicon).

    Lower-case text stays lower-case even where the lexicon capitalises ("a black woman" -> "a white woman",
    "mrs" -> "mr"), so every version of a prompt keeps the prompt's own style.
    """
    if source.islower():
        return replacement.lower()
    if len(source) > 1 and source.isupper():
        return replacement.upper()
    if source[:1].isupper() and replacement[:1].islower():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def keep_proper_case(source: str, form: str, initial: bool) -> str:
    """The replacement ``form`` of ``source`` in a lexicon whose forms keep their own capitals (``proper_forms``).

    A capitalised form stays capitalised ("an atheist" -> "a Christian"); a lower-case form stays lower-case after a
    capitalised proper word ("a Muslim" -> "an atheist") unless the word starts a sentence (``initial``:
    "Muslims ..." -> "Atheists ..."); upper-case text stays upper-case.
    """
    if len(source) > 1 and source.isupper():
        return form.upper()
    if initial and source[:1].isupper() and form[:1].islower():
        return form[:1].upper() + form[1:]
    return form


# After an adjective-or-noun term ("Muslim", "lesbian"): words that show it is used as a noun ("a Muslim who ...",
# "a lesbian in ..."); anything else, a word next reads as the noun it qualifies ("a Muslim customer").
_NOT_AFTER_ADJECTIVE = frozenset(
    """
    who whom whose which that is was are were be been being am will would can could shall should may might must
    do does did has have had to in on at for with by from of about into onto upon after before since until as
    like than but nor so because although though if when while where why how here there too also again
    """.split()
)
_COORDINATED = frozenset({"and", "or"})
_NOUN_PHRASE_START = frozenset({"a", "an", "the", "my", "your", "his", "her", "our", "their", "another"})


def qualifies_next_word(text: str, end: int) -> bool:
    """True when the adjective-or-noun term ending at ``end`` qualifies a next word ("a Muslim [customer]",
    "Muslim and Jewish [customers]"), False when it stands as a noun ("a Muslim.", "a Muslim who ...",
    "a Muslim and a Christian")."""
    m = _NEXT_WORDS.match(text, end)
    word = m.group(1) if m else None
    if word is None or m is None:
        return False
    word = word.lower()
    if word in _NOT_AFTER_ADJECTIVE:
        return False
    if word in _COORDINATED:
        after = m.group(2)
        return after is not None and after.lower() not in _NOUN_PHRASE_START
    return True


def qualifies_next_word_many(text: str, ends: npt.NDArray[np.int64]) -> npt.NDArray[np.bool_]:
    """:func:`qualifies_next_word` at each position of ``ends`` (such terms are rare: one call each)."""
    return np.fromiter((qualifies_next_word(text, int(e)) for e in ends), dtype=bool, count=ends.size)


def indefinite_article(word: str) -> str:
    """'a' or 'an' for ``word`` by its (approximate) initial sound."""
    w = word.lower()
    if w.startswith(_SILENT_H):
        return "an"
    if w[:1] and w[0] in "aeiou" and not w.startswith(_VOWEL_SOUND_EXCEPTIONS):
        return "an"
    return "a"


@dataclass(frozen=True)
class GrammarRules:
    """How to choose between the rows of a lexicon that share a term, from the words that follow it.

    A term of several rows ("her": object and determiner; "his": determiner and pronoun) takes its row of slot
    ``noun_phrase_slot`` when a noun phrase follows ("her book"), otherwise its first row of another slot ("saw
    her."). A lexicon file names its rule set in its ``grammar`` key; see :data:`GRAMMARS`.
    """

    noun_phrase_slot: str
    starts_noun_phrase: Callable[[str, int], bool]
    starts_noun_phrase_many: Callable[[str, npt.NDArray[np.int64]], npt.NDArray[np.bool_]]
    # the slot of subject pronouns, whose verb agrees with them ("she is" -> "they are" for a lexicon's
    # plural_verb_groups); None: no verb agreement
    subject_slot: str | None = None


# Marks a subject pronoun whose verb must become plural ("they\ue000 is" -> "they are"); a private-use character, so
# that no text has it (a text that has it is substituted without the verb agreement).
PLURAL_SUBJECT = "\ue000"
_ADVERBS = (
    "always never often also usually still just really sometimes only rarely already even now then probably "
    "certainly generally typically actually currently seldom mostly"
)
_AGREEMENT = re.compile(
    rf"{PLURAL_SUBJECT}(?P<contraction>['’]s(?!\w))?(?:(?P<sp>[ \t]+)(?P<adv>(?:(?:{_ADVERBS.replace(' ', '|')})"
    r"[ \t]+)?)(?P<verb>[A-Za-z]+(?:n['’]t)?)(?!['’\w]))?",
    re.IGNORECASE,
)
_IRREGULAR = {
    "is": "are", "was": "were", "has": "have", "does": "do", "goes": "go", "isn't": "aren't", "wasn't": "weren't",
    "hasn't": "haven't", "doesn't": "don't", "isn’t": "aren’t", "wasn’t": "weren’t", "hasn’t": "haven’t",
    "doesn’t": "don’t",
}  # fmt: skip
_NOT_A_VERB = frozenset(_ADVERBS.split()) | {"perhaps", "nevertheless", "afterwards", "besides", "regardless"}
_ES_ENDINGS = ("ches", "shes", "sses", "xes", "zes", "oes")
_HAVE_NEXT = re.compile(r"[ \t]+(?:been|got|gotten|had|done|seen|made|taken|given|[a-z]+ed)(?!\w)", re.IGNORECASE)


def _plural_verb(verb: str) -> str:
    """The plural of a third-person singular verb ("is" -> "are", "works" -> "work"); other words as they are."""
    low = verb.lower()
    if low in _IRREGULAR:
        return match_case(verb, _IRREGULAR[low])
    if low in _NOT_A_VERB or len(low) < 3 or not low.endswith("s") or low.endswith(("ss", "us", "is", "ys")):
        return verb
    if low.endswith("ies") and len(low) > 4:
        return verb[:-3] + ("Y" if verb.isupper() else "y")
    if low.endswith(_ES_ENDINGS):
        return verb[:-2]
    return verb[:-1]


def plural_verb_agreement(text: str) -> str:
    """Make the verb after every marked subject pronoun plural and drop the marks: "they\ue000 is late" -> "they are
    late", "they\ue000 always works" -> "they always work", "they\ue000's been" -> "they've been", "they\ue000's
    late" -> "they're late". A heuristic on the next word, like the rest of this module."""
    if PLURAL_SUBJECT not in text:
        return text

    def fix(m: re.Match[str]) -> str:
        contraction, verb = m.group("contraction"), m.group("verb")
        if contraction:
            ending = "ve" if _HAVE_NEXT.match(text, m.end("contraction")) else "re"
            ending = ending.upper() if contraction[1:].isupper() else ending
            return contraction[0] + ending + text[m.end("contraction") : m.end()]
        if verb is None:
            return ""
        return m.group("sp") + m.group("adv") + _plural_verb(verb)

    return _AGREEMENT.sub(fix, text).replace(PLURAL_SUBJECT, "")


# The grammar rule sets a lexicon file may name (its "grammar" key), by name.
GRAMMARS: Mapping[str, GrammarRules] = MappingProxyType(
    {
        "english_gendered_pronouns": GrammarRules(
            "determiner", starts_noun_phrase, starts_noun_phrase_many, subject_slot="subject"
        ),
        # a word that is an adjective ("a Muslim customer") or a noun ("a Muslim."): the "adjective" row when it
        # qualifies a next word, otherwise its noun row ("a Jewish customer" / "a Jewish person")
        "english_adjective_or_noun": GrammarRules("adjective", qualifies_next_word, qualifies_next_word_many),
    }
)
