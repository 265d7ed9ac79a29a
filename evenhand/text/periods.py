"""The period an amount is stated per ("$4,000 a month", "$48,000 per year", "$25/hr", "an annual salary of
$70,000"), and the conversion of an amount from one period to another.

Weeks, months and years convert exactly (a year is 12 months or 52 weeks). An hour or a day converts only to itself:
how many hours or days a year holds depends on the work (40 or 37.5 hours a week; 260 working days or 365 days of
rent), and a guessed factor would move every hourly answer by it; so an amount per hour or per day compared per month
is not read (:func:`evenhand.text.numbers.parse_numbers` gives it the status "other period").
"""

from __future__ import annotations

import re
from typing import Final

from evenhand.text._bundled_lists import wordlist_json

#: The periods an amount may be stated per, longest first (the order that breaks a tie between two periods).
PERIODS: Final = ("year", "month", "week", "day", "hour")

#: How many of each period a year holds, for the periods that convert exactly into one another.
_PER_YEAR: Final = {"year": 1.0, "month": 12.0, "week": 52.0}


#: The period words (evenhand/data/wordlists/periods.json): names, the phrases after an amount, qualifiers
_LISTS: Final = wordlist_json("periods.json")
#: each word that names a period, to its period ("annual" -> "year")
_WORDS: Final = {word: period for period, words in _LISTS["names"].items() for word in words}
#: each phrase written after an amount in any language, lower case with single spaces, to its period ("im jahr")
_PHRASES: Final = {
    " ".join(phrase.lower().split()): period
    for period, phrases in _LISTS["after"].items()
    for phrase in phrases
}

_SPACE = r"[ \u00a0\u202f]"


def _alternatives(phrases: list[str]) -> str:
    """A regex alternation of literal phrases, longest first; a space in one matches any run of spaces."""
    ordered = sorted(set(phrases), key=len, reverse=True)
    return "|".join(f"{_SPACE}+".join(re.escape(word) for word in phrase.split()) for phrase in ordered)


# what may stand between an amount and its period: "gross", "before tax" ("$70,000 gross per year", "brutto im Jahr")
_QUALIFIER = rf"(?:(?:{_alternatives(list(_LISTS['qualifiers']))}){_SPACE}+)?"
#: a period stated right after an amount: "/month", "/mo", "per year", "a month", "each week", "monthly", "p.a.",
#: and the phrases of the word list ("im Jahr", "par mois", "de l'heure", "al mes"), ending where a word does
_AFTER: Final = re.compile(
    rf"""{_SPACE}*(?:{_QUALIFIER}
      (?:(?P<phrase>{_alternatives(list(_PHRASES))})(?:(?<=\.)|(?!\w))
      |(?:/{_SPACE}*|per{_SPACE}+|(?:a|an|each|every){_SPACE}+)(?P<per>annum|year|yr|month|mo|mth|week|wk|day|hour|hr|h)
        (?![A-Za-z])\.?)
      |,?{_SPACE}*(?P<adverb>annually|yearly|monthly|weekly|daily|hourly)\b
      |{_SPACE}+(?P<pa>p\.{_SPACE}?a\.|pa\b))""",
    re.IGNORECASE | re.VERBOSE,
)
_ENGLISH: Final = _LISTS["before_english"]
#: each English adjective that names the period of what an amount is, to its period ("annual" -> "year")
_ADJECTIVES: Final = {word: period for period, words in _ENGLISH["adjectives"].items() for word in words}
#: a period that qualifies what the amount is, written before it in English: "an annual salary of $70,000",
#: "monthly rent: $900" (the adjectives, qualifiers, nouns and links of the word list's ``before_english``)
_BEFORE: Final = re.compile(
    rf"\b(?P<adjective>{_alternatives(list(_ADJECTIVES))})\s+(?:(?:{_alternatives(_ENGLISH['qualifiers'])})\s+)?"
    rf"(?:{_alternatives(_ENGLISH['nouns'])})(?:\s*(?:{_alternatives(_ENGLISH['links'])}))*\s*\Z",
    re.IGNORECASE,
)
#: each noun a period qualifies, written before an amount in another language, lower case with single spaces, to its
#: period ("jahresgehalt" -> "year", "loyer mensuel" -> "month")
_NOUNS: Final = {
    " ".join(noun.lower().split()): period for period, nouns in _LISTS["before"].items() for noun in nouns
}
#: the same before an amount in German, French, Spanish and Portuguese ("Jahresgehalt von 50.000 €", "salaire annuel
#: brut d'environ 40 000 €", "salario anual de 40.000 €"): the noun ends a word (a compound reads:
#: "Bruttojahresgehalt"), a qualifier may follow it, then only links ("von", "de", "d'", "de unos") up to the amount
_LINKS = _alternatives(list(_LISTS["links"]))
_LINK = rf"(?:{_SPACE}*[:=]|{_SPACE}+(?:{_LINKS})|(?<=['’])(?:{_LINKS}))"
_BEFORE_WORDS: Final = re.compile(
    rf"(?P<noun>{_alternatives(list(_NOUNS))})(?!\w)(?:{_SPACE}+(?:{_alternatives(list(_LISTS['qualifiers']))}))?"
    rf"(?:{_LINK}(?:(?<=['’])|(?![^\W\d_])))*\s*\Z",  # a link ends a word, or an elision ("d'")
    re.IGNORECASE,
)
_LOOK_BACK = 80  # characters before an amount searched for a period that qualifies it


def stated_period(text: str, start: int, end: int) -> str:
    """The period the amount written at ``text[start:end]`` is stated per ("year", "month", "week", "day", "hour"),
    or "" when the text states none: the period written right after the amount ("$4,000 a month"), else the one
    that qualifies it right before ("a monthly salary of $4,000").

    >>> stated_period("I'd offer $4,000 a month.", 10, 16), stated_period("An annual salary of $70k.", 20, 24)
    ('month', 'year')
    """
    after, _ = period_after(text, end)
    if after:
        return after
    before = _BEFORE.search(text[max(0, start - _LOOK_BACK) : start])
    if before is not None:
        return _ADJECTIVES[before["adjective"].lower()]
    noun = _BEFORE_WORDS.search(text[max(0, start - _LOOK_BACK) : start])
    if noun is not None:
        return _NOUNS[" ".join(noun["noun"].lower().split())]
    return ""


def period_after(text: str, end: int) -> tuple[str, int]:
    """The period written right after an amount that ends at ``text[end]`` ("a month" in "$4k a month to $5k a
    month") and where its words end; ``("", end)`` where none is written there.

    >>> period_after("$4k a month to $5k a month", 3)
    ('month', 11)
    """
    after = _AFTER.match(text, end)
    if after is None:
        return "", end
    phrase = after["phrase"]
    if phrase:
        return _PHRASES[" ".join(phrase.lower().split())], after.end()
    word = after["per"] or after["adverb"] or "pa"
    return _WORDS[word.lower()], after.end()


def period_name(word: str) -> str:
    """The period a setting names: "year", "years", "annual", "per year", "/yr", "p.a." -> "year"; raises
    ``ValueError`` for a word that names none."""
    key = re.sub(r"^(?:(?:per|an?)\s+|/)|[.\s]", "", word.strip().lower())
    found = _WORDS.get(key)
    if found is None:
        raise ValueError(f"{word!r} is not a period: give one of {', '.join(PERIODS)}")
    return found


def conversion(stated: str, compared: str) -> float | None:
    """The factor that turns an amount per ``stated`` into one per ``compared`` (12 from month to year), or None
    where the two periods do not convert exactly (an hour or a day into anything but itself)."""
    if stated == compared:
        return 1.0
    if stated in _PER_YEAR and compared in _PER_YEAR:
        return _PER_YEAR[stated] / _PER_YEAR[compared]
    return None
