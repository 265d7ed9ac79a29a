"""Every number a reply writes, read one at a time (:func:`amounts`): its digits in the groupings replies use, its
sign, its scale ("k", "million", "lakh") and whether it is marked as money. What a reply's number *is* (the first,
the one marked as asked, a range of two, per which period) is :mod:`evenhand.text.numbers`' job, which reads these.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final

from evenhand.text._bundled_lists import wordlist_json
from evenhand.text.number_words import WordNumber, word_numbers
from evenhand.text.periods import stated_period


def _alternation(markers: Iterable[str]) -> str:
    """A regex that matches any of ``markers`` as written, the longest first ("US$" before "$")."""
    return "(?:" + "|".join(re.escape(m) for m in sorted(set(markers), key=lambda m: (-len(m), m))) + ")"


#: The currencies' markers (evenhand/data/wordlists/currencies.json): per code its symbols, codes and words
_CURRENCY_LISTS: Final[dict[str, dict[str, Any]]] = dict(wordlist_json("currencies.json")["currencies"])
_MARKERS: Final = {kind: [m for c in _CURRENCY_LISTS.values() for m in c.get(kind, ())]
                   for kind in ("symbols", "codes", "words")}  # fmt: skip
_SIGNS: Final = "".join(m for m in _MARKERS["symbols"] if len(m) == 1)  # "$€£¥...": also written after a number
_SYMBOLS: Final = _alternation(_MARKERS["symbols"])
_CODES: Final = _alternation(_MARKERS["codes"])
_WORDS: Final = _alternation(_MARKERS["words"])
_GAP = r"[ \u00a0\u202f]?"  # one space between a number and its currency or scale
_ABBREVIATIONS = r"(?:k|K|MM|M|mn|mil|m|bn|B|b)"
#: after a space, a scale letter followed by a hyphen is a scale only when a scaled number follows ("70 K-75 K"):
#: "50 K-12 schools", "5 K-pop fans" are no thousands
_SPACED_HYPHEN = rf"[-−](?!{_SYMBOLS}?{_GAP}\d+(?:\.\d+)?{_GAP}{_ABBREVIATIONS}(?![A-Za-z0-9]))"
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6, "mm": 1e6,
           "mn": 1e6, "mil": 1e6, "b": 1e9, "bn": 1e9,
           "lakh": 1e5, "lakhs": 1e5, "lac": 1e5, "lacs": 1e5, "crore": 1e7, "crores": 1e7}  # fmt: skip
_AMOUNT = re.compile(
    rf"""
    (?<![\w.,])                                           # not inside a word or a number ("v2.0", "3.14.2")
    (?:(?<=\d[kKmMbB][-−])|(?<=\d[ \u00a0\u202f][kKmMbB][-−])|(?<![A-Za-z][-−])  # nor after a hyphenated word
                                                          # ("COVID-19"; "70k-75k" and "70 k-75 k" are ranges)
      |(?<=/h[-−])|(?<=/(?:hr|yr|mo|wk)[-−])|(?<=/(?:day|mth)[-−])|(?<=/(?:hour|year|week)[-−])|(?<=/month[-−]))
                                                          # nor ranges per a period ("$20/hr-$25/hr")
    (?P<sign1>[-−])?
    (?:(?:(?P<symbol>{_SYMBOLS})|(?P<code1>{_CODES})){_GAP})?  # "$50", "$ 50", "USD 50"
    (?P<sign2>[-−])?
    (?P<digits>
      (?P<decimal_comma>\d{{1,3}}(?:[.' \u00a0\u202f]\d{{3}})+,\d+)     # 71.300,50 · 71 300,50
      |(?P<dots>\d{{1,3}}(?:\.\d{{3}}){{2,}})                           # 1.234.567
      |(?P<lakh>\d{{1,2}}(?:,\d{{2}})+,\d{{3}}(?:\.\d+)?)                 # 12,00,000 (Indian grouping)
      |\d{{1,3}}(?:[,'’ \u00a0\u202f]\d{{3}})+(?:\.\d+)?                  # 71,300.50 · 71'300 · 85’000 · 71 300
      |\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|\.\d+
      |(?P<plain_comma>\d{{4,}},\d{{1,2}})                               # 65000,50: a decimal comma (no list or
                                                                        # grouping writes four digits before one)
      |(?P<short_comma>\d{{1,3}},\d{{1,2}})                              # 12,50: a decimal comma in money or in a
                                                                        # reply that writes numbers the European
                                                                        # way, else a list (:func:`_conventions`)
      |(?P<unreadable>\d+(?:[.,]\d+)+)                                  # 1,5 · 1.2.3: a decimal comma, a list
    )
    (?![\d]|[.,]\d)                                                      # the whole number, never its first part
    (?:(?P<abbr>{_ABBREVIATIONS})(?![A-Za-z0-9])                        # 50K
      |[ \u00a0\u202f](?P<spaced>{_ABBREVIATIONS})(?![A-Za-z0-9]|{_SPACED_HYPHEN})  # 50 K, not 50 kids
      |{_GAP}(?P<scale>thousand|million|billion|trillion|lakhs?|lacs?|crores?)\b)?
    (?:{_GAP}(?P<code2>{_CODES})\b|[ \u00a0\u202f](?P<word>{_WORDS})\b|{_GAP}(?P<symbol2>[{_SIGNS}]))?
    """,
    re.VERBOSE,
)



#: one dot group of three digits ("65.000"): a decimal point in "score 3.500", the thousands of "65.000 €"; never
#: thousands after a leading zero ("$0.125")
_DOT_GROUP = re.compile(r"[-−]?[1-9]\d{0,2}\.\d{3}")
#: a price per a unit of a good priced to a tenth of a cent, right after an amount: "€1.789 per litre", "1.789 €/l",
#: "$3.499/gal", "$4.250 per share" (fuel, energy and share prices are written so, and their dot group is a decimal
#: point); a period, "€2.500 per month", is no unit price, nor a unit whose price has no such level: "€1.200 per unit",
#: "$2.350 per ounce", "4.500 €/m²" are thousands (inputs14)
_PER_UNIT = re.compile(
    r"[ \u00a0\u202f]*(?:/|\bper\b|\ba\b)[ \u00a0\u202f]*(?:l|litres?|liters?|gal|gallons?|kWh|therms?|m[³3]|"
    r"shares?|tokens?)(?![\w²])",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    written: float  # the number as written, with its sign, before its scale ("-75" of "-75k")
    scale: float  # 1000 for "k", 1 without a scale
    start: int
    end: int
    money: bool  # marked as money (a currency symbol, code or word)
    # written with one dot group of three digits that may be thousands ("65.000"; not "0.125" nor "1.500 million"):
    # a decimal point, thousands in money (:meth:`as_money`)
    dot_group: bool = False
    unit_price: bool = False  # a price per a unit of a good follows ("€1.789 per litre"): its dot is a decimal point

    @property
    def value(self) -> float:
        return self.written * self.scale

    @property
    def alone(self) -> float:
        """Its value read alone (not as an end of a range): a money amount as :meth:`as_money` reads it."""
        return (self.as_money() if self.money else self).value

    def as_money(self) -> Amount:
        """The amount as a money amount reads it: one dot group of three digits is a thousands separator ("65.000 €",
        "R$ 4.500": no currency evenhand reads has three decimal places), else the amount as it is."""
        if not self.dot_group or self.unit_price:
            return self
        return Amount(self.written * 1000.0, self.scale, self.start, self.end, self.money)




#: words that make a number in their sentence an amount, so that a scale letter after a space scales it ("a budget
#: of 10 M"; "size 10 M" is a size, "1.2 M users" a count)
_AMOUNT_WORDS = re.compile(
    r"\b(?:salar(?:y|ies)|pay|paid|wages?|income|earn(?:s|ed|ings)?|pric(?:e|es|ed|ing)|costs?|budgets?|revenues?|"
    r"sales|profits?|turnover|compensation|rent|fees?|valu(?:ation|ed)|worth|spend(?:ing)?|fund(?:s|ing)?|loans?|"
    r"raise|bonus|offer(?:ed)?|payments?|capital|investment|grants?|deal)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?;\n](?!\d)")
_CONTEXT = 80  # characters either side of a number searched for an amount word, within its sentence


def _amount_context(text: str, start: int, end: int) -> bool:
    """Whether the sentence around ``text[start:end]`` speaks of an amount (:data:`_AMOUNT_WORDS`)."""
    before = text[max(0, start - _CONTEXT) : start]
    ends = list(_SENTENCE_END.finditer(before))
    if ends:
        before = before[ends[-1].end() :]
    after = text[end : end + _CONTEXT]
    stop = _SENTENCE_END.search(after)
    if stop is not None:
        after = after[: stop.start()]
    return bool(_AMOUNT_WORDS.search(before) or _AMOUNT_WORDS.search(after))


def _scale(match: re.Match[str], money: bool, text: str, asked: bool) -> tuple[float, bool]:
    """The scale of a number and whether the letters after it belong to it; a scale letter after a space ("10 M")
    scales only an amount (marked as money, an amount word in its sentence, or a currency or unit asked for:
    ``asked``; stated per a period, "65 K a year"), and elsewhere is the number's own letter (a size, "10 M"; "70 K
    to 75 K" stays a range)."""
    if match["scale"]:
        return _SCALES[match["scale"].lower()], True
    abbr = match["abbr"] or match["spaced"]
    if not abbr:
        return 1.0, False
    per_period = bool(match["spaced"]) and stated_period(text, match.start(), match.end()) != ""  # "65 K a year"
    if match["spaced"] and not (money or asked or per_period or _amount_context(text, match.start(), match.end())):
        return 1.0, match["spaced"] in ("K", "k", "M", "MM")
    if abbr in ("m", "b", "B") and not money:  # "5m" is metres, "3B" a grade; "$5m" is money
        return 1.0, False
    if match["spaced"] and abbr in ("mn", "mil") and not money:  # "5 mn" minutes, "5 mil" thick; "$5 mn" is money
        return 1.0, False
    return _SCALES[abbr.lower()], True


def _plain_digits(match: re.Match[str]) -> str:
    """The number's digits as ``float`` reads them: separators out, a decimal comma made a point; "nan" for a
    number that can be read more than one way (``1,5``)."""
    if match["unreadable"]:
        return "nan"
    if match["plain_comma"] or match["short_comma"]:
        return match["digits"].replace(",", ".")
    if match["decimal_comma"]:
        return re.sub(r"[.' \u00a0\u202f]", "", match["digits"]).replace(",", ".")
    if match["dots"]:
        return match["digits"].replace(".", "")
    return re.sub(r"[,'’ \u00a0\u202f]", "", match["digits"])


#: accounting parentheses: an opening one right before an amount (a currency symbol or code may stand before it,
#: "$(5,000)"), a closing one right after it
_OPENING = re.compile(rf"(?P<outside>{_SYMBOLS}|{_CODES})?{_GAP}\({_GAP}\Z")
_CLOSING = re.compile(rf"{_GAP}\)")
#: what ends the text before a parenthesis that restates a figure just written ("seventy thousand dollars ($70,000)",
#: "70k ($70,000)"): a number, a scale or a currency word
_RESTATED = re.compile(
    rf"(?:\d[kKmMbB]?|\b(?:hundred|thousand|million|billion|trillion|lakhs?|crores?)|\b{_WORDS})\s*\Z"
)


def _accounting(text: str, match: re.Match[str], money: bool) -> tuple[bool, bool, int, int]:
    """Whether an amount is an accounting negative ("($5,000)", "(5,000 USD)", "$(5,000)": an amount marked as money,
    alone in its parentheses, that restates no figure written just before them), whether it is money, and its
    extent with the parentheses."""
    start, end = match.start(), match.end()
    opening = _OPENING.search(text, max(0, start - 8), start)
    closing = _CLOSING.match(text, end)
    if opening is None or closing is None:
        return False, money, start, end
    money = money or bool(opening["outside"])
    if not money or _RESTATED.search(text, 0, opening.start()):
        return False, money, start, end
    return True, money, opening.start(), closing.end()


#: how a reply writes its numbers, from the forms that read one way only: "european" (a decimal comma: "71.300,50",
#: "1.234.567", "65000,50", "12,50 €"), "english" (money with a decimal point or comma thousands: "$12.50", "$71,300",
#: "$71.3k"), "" where it writes neither, or both
EUROPEAN, ENGLISH = "european", "english"
_ENGLISH_MONEY = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.(?:\d{1,2}|\d{4,})|\d{1,2}(?:,\d{2})+,\d{3}(?:\.\d+)?")


#: one comma group of three digits ("1,500"): thousands to an English reader, a decimal comma to a European one; read
#: by the reply's convention (:func:`_conventions`), and no English evidence with the symbol after it ("1,500 €": an
#: English writer puts the euro sign before the number)
_COMMA_GROUP = re.compile(r"[1-9]\d{0,2},\d{3}")


def _own_money(match: re.Match[str]) -> bool:
    return bool(match["symbol"] or match["code1"] or match["code2"] or match["word"] or match["symbol2"])


def _conventions(matches: list[re.Match[str]]) -> str:
    """How the reply writes its numbers (:data:`EUROPEAN`, :data:`ENGLISH` or ""): the evidence that reads a dot group
    ("$1.500") or a short decimal comma ("2,5") of the same reply. English evidence counts in money only: a decimal
    point in "4.5 years" is written by European writers too, a comma thousands never, a decimal comma never by
    English ones."""
    european = any(
        m["decimal_comma"] or m["dots"] or m["plain_comma"] or (m["short_comma"] and _own_money(m)) for m in matches
    )
    english = any(
        _own_money(m) and _ENGLISH_MONEY.fullmatch(m["digits"])
        and not (m["symbol2"] and _COMMA_GROUP.fullmatch(m["digits"]))
        for m in matches
    )  # fmt: skip
    if european == english:
        return ""
    return EUROPEAN if european else ENGLISH


#: a share's sign or word right after a number ("12,5 %", "4,9 Prozent"): a short comma before it is a decimal comma
#: (a list is never a percentage)
_SHARE_AFTER = re.compile(r"[ \u00a0\u202f]?(?:%|(?:percent|per cent|prozent|pour cent|por ciento)\b)", re.IGNORECASE)


def _separator_read(
    match: re.Match[str], convention: str, money: bool, unit_price: bool, share: bool = False
) -> tuple[float, bool]:
    """``(factor, dot_group)``: what a separator that reads two ways makes of the number as ``float`` read it. A dot
    group ("1.500"): thousands (factor 1000) where the currency symbol follows it ("1.500 €") or the reply writes
    the European way, a decimal point where the reply writes its money the English way or it is a price per a unit
    of fuel, energy or shares; else left to :meth:`Amount.as_money` (money: thousands). A short comma ("12,50"): a
    decimal comma in money, in a share (``share``: "12,5 %") or in a European reply, else NaN (a list or a decimal
    comma: not read)."""
    if match["short_comma"]:
        return (1.0 if money or share or convention == EUROPEAN else math.nan), False
    if _DOT_GROUP.fullmatch(match["digits"]) is None or unit_price:
        return 1.0, False
    if match["symbol2"] or convention == EUROPEAN:
        return 1000.0, False
    return 1.0, convention != ENGLISH


def amounts(text: str, asked: bool = False) -> list[Amount]:
    """Every number of ``text``, in order, with its sign, scale and whether it is marked as money (as written: a
    money amount's dot group is read by :meth:`Amount.as_money`, where a range's end may stop it); ``asked``: the
    run asks for an amount (a currency or a unit), so a scale letter after a space scales any number. A separator
    that reads two ways is read from the reply's other numbers (:func:`_conventions`, :func:`_separator_read`).
    Amounts written in words are read beside them (:func:`_word_amounts`)."""
    matches = list(_AMOUNT.finditer(text))
    convention = _conventions(matches)
    out = []
    for match in matches:
        digits = _plain_digits(match)
        negative, money, start, end = _accounting(text, match, _own_money(match))
        scale, scaled = _scale(match, money, text, asked)
        if convention == EUROPEAN and scale == 1.0 and _COMMA_GROUP.fullmatch(match["digits"]):
            digits = match["digits"].replace(",", ".")  # "1,500 €" in a European reply: one and a half euros
        unscaled = not scaled and (match["abbr"] or match["spaced"])  # "5m", "5 m": 5, then "m"
        if unscaled:
            end = match.end("digits")
        negative = negative or bool(match["sign1"] or match["sign2"])
        unit_price = _PER_UNIT.match(text, end) is not None
        # a scale after the number ("$1.500 million"): a decimal point
        share = _SHARE_AFTER.match(text, match.end("digits")) is not None
        factor, dot_group = (
            _separator_read(match, convention, money, unit_price, share) if scale == 1.0 else (1.0, False)
        )
        written = float(digits) * factor * (-1.0 if negative else 1.0)
        if math.isfinite(written * scale) or match["unreadable"] or match["short_comma"]:  # NaN: a number not read
            out.append(Amount(written, scale, start, end, money, dot_group, unit_price))
    words = _word_amounts(text, asked)
    return sorted([*out, *words], key=lambda a: a.start) if words else out


#: a currency after a number in words ("forty thousand dollars", "... USD"), or a symbol before it ("$ forty")
_MONEY_AFTER = re.compile(rf"(?:{_GAP}{_CODES}\b|[ \u00a0\u202f]{_WORDS}\b)", re.IGNORECASE)
_MONEY_BEFORE = re.compile(rf"{_SYMBOLS}{_GAP}\Z")
_WORD_RANGE_GAP = re.compile(r"[ \u00a0\u202f]*(?:-|–|to|and)[ \u00a0\u202f]*", re.IGNORECASE)


def _word_amounts(text: str, asked: bool) -> list[Amount]:
    """The numbers written in words that are amounts (deploy18): marked as money (a currency word or code after
    it, a symbol before it: "forty-eight thousand dollars"), or scaled where the run asks for an amount ("sixty
    thousand"), and the lower end of a range whose upper end is one ("between forty and forty-five thousand
    dollars"). A bare "one" or "three" is no amount."""
    found = word_numbers(text)
    out: list[Amount] = []
    for k, number in enumerate(found):
        money = _money(text, number)
        amount = money or (asked and number.scaled)
        if not amount and k + 1 < len(found) and _WORD_RANGE_GAP.fullmatch(text, number.end, found[k + 1].start):
            amount = _is_amount(text, found[k + 1], asked)
        if amount:
            out.append(Amount(number.written, number.scale, number.start, number.end, money))
    return out


def _money(text: str, number: WordNumber) -> bool:
    return bool(_MONEY_AFTER.match(text, number.end) or _MONEY_BEFORE.search(text, 0, number.start))


def _is_amount(text: str, number: WordNumber, asked: bool) -> bool:
    return _money(text, number) or (asked and number.scaled)


#: The currency each marker stands for, as a finding names it (its code): a symbol, code or word, in lower case
_CURRENCIES: Final = {marker.lower(): code for code, markers in _CURRENCY_LISTS.items()
                      for kind in ("symbols", "codes", "words") for marker in markers.get(kind, ())}  # fmt: skip
#: The symbol a finding writes an amount of a currency with (its code where it has none)
FORMAT_SYMBOLS: Final = {code: c["format"] for code, c in _CURRENCY_LISTS.items() if "format" in c}


def currency_of(text: str) -> str | None:
    """The currency of the first amount of ``text`` marked as money, as a code (``"¥7,000,000"`` is ``"JPY"``,
    ``"65000 euros"`` ``"EUR"``); None where no amount is marked. The number a reply gives is read in its own currency
    (:mod:`evenhand.text.numbers` converts none), so a run whose replies mix currencies compares unlike amounts."""
    for match in _AMOUNT.finditer(text):
        marker = match["symbol"] or match["code1"] or match["code2"] or match["word"] or match["symbol2"]
        if marker:
            return _CURRENCIES.get(marker.lower(), marker.upper())
    return None
