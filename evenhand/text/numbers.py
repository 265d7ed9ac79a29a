"""Numbers from LLM replies: the amount an assistant advises ("I'd offer $71,300"), estimates or scores.

:func:`parse_numbers` reads one number per reply, for a whole column of replies at once (each distinct reply is read
once: answers repeat). What it reads:

* in a reply that marks its answer ("Final answer: $60,000", "**Offer:** $70k", a table row "| Offer | ... |"),
  the numbers after its last such marker that has one (a figure cited before the answer is not the answer);
* the first number, or with ``currency`` set the first amount marked as money (``$``, ``€``, ``USD``, ``dollars``,
  ...), with ``unit`` set the first number followed by that unit ("12 years", "a 5-year term"; ``%`` also "5
  percent", "5 per cent", "5 pct"); the first number when none is marked;
* thousands separators (``71,300``, ``71'300``, ``85’000``, ``71 300``, also with a no-break or thin space) and a
  period as the decimal point, except in an amount marked as money with one dot group of three digits
  (``65.000 €``, ``R$ 4.500``, ``60.000-70.000 €``: thousands, as German, Dutch or Brazilian replies write them; no
  currency read here has three decimal places), never after a leading zero (``$0.125``), before a scale
  (``$1.500 million``) or in a price per a unit of a good (``€1.789 per litre``, ``$3.499/gal``, ``$4.250 per
  share``; "€1.200 per unit" is thousands: a unit says nothing of a price's level); a bare "$1.500" is read as
  thousands; where the reply's other numbers show how it writes (European "1.234,56", "12,50 €"; English money
  "$12.50", "$71,300"), a dot group and a short decimal comma ("12,50 €") are read its way
  (:func:`evenhand.text.amounts.amounts`; docs/estimation.md, "A dot or a comma that reads two ways");
* scales: ``$71.3k``, ``1.2M``, ``2 million``, ``$1.5bn``, ``₹12 lakh``, ``₹1.2 crore`` (a lowercase ``m`` or
  ``b`` only beside a currency, since "5m" is more often metres), also after a space where the number is an amount
  (``$1.5 bn``, "a salary of 50 K", "65 K a year", or any number with ``currency`` or ``unit`` set; "size 10 M" and
  "1.2 M users" are a size and a count; ``mn`` and ``mil`` after a space only beside a currency: "5 mn" is
  minutes), never the start of a word ("50 kids", "50 km") nor "K-12";
* a space after a currency (``$ 50,000``, ``€ 50 000``, ``USD 50k``);
* ranges, to their midpoint: ``$70,000-$75,000``, ``70-75k`` (the scale of the upper end applies to both),
  ``70,000 to 75,000``, ``between 70 and 75``; also where each end states its period ("$4k a month to $5k a month",
  "$20/hr-$25/hr": per that period; ends per two periods that convert, "$48,000 a year to $5,000 a month", per the
  upper end's, the lower converted; two that do not are no range; a period after the lower end alone is the range's,
  "$4k a month to $5,000"); range words of German, French and Spanish replies ("zwischen 60.000 und 65.000 €",
  "60.000 bis 65.000 €", "entre 60 000 et 65 000 €", "de 60.000 a 65.000 €");
* of an amount per an hour beside one per a month ("$25 an hour or $4,000 a month"), the one per the period compared
  (or one that converts to it): an hour does not convert to a month, so only that one compares with other replies;
* negative numbers: ``-5``, ``−5`` (the minus sign), ``-$5``, ``$-5``; a hyphen inside a word is no sign ("COVID-19");
  accounting parentheses around an amount marked as money, alone in them (``($5,000)``, ``(5,000 USD)``,
  ``$(5,000)``), unless they restate a figure written just before ("seventy thousand dollars ($70,000)");
* an amount stated per a period ("$4,000 a month", "$25/hr", "an annual salary of $70k";
  :mod:`evenhand.text.periods`), converted to the period compared (``period``; unset, the period the replies state
  most often when they state two or more); an hour or a day converts only to itself, so such an amount compared per
  another period is not read (status :data:`OTHER_PERIOD`), never compared as it is;
* with ``json_field`` (a dotted path, read by :func:`evenhand.structured.json_field`: a JSON reply, a fenced block
  or the JSON in a sentence, and a tool call's arguments), the field of a JSON reply instead of the text:
  a JSON number as it is, a JSON string read as above ("$71.3k"); a reply without the field is not read otherwise;
  a bare name the JSON holds in two or more places at different depths is not read either (:data:`FIELD_IN_PLACES`,
  its `matched` text names the places: give one as a dotted path).

Nothing is guessed: a reply without a number gets NaN and the status :data:`NO_NUMBER` (or :data:`NO_FIELD`), which
the estimation metrics count per group. Grouping that reads only one way is read: European (``71.300,50``,
``1.234.567``, ``71 300,50``, and a decimal comma after a plain integer of four or more digits, ``65000,50``) and
Indian (``12,00,000``), and a short decimal comma before a share's sign or word (``12,5 %``, ``4,9 Prozent``: a list
is never a percentage). A number that reads more than one way (``1,5``: a decimal comma or a list; ``1.2.3``) is not
read, and if it is the number chosen the reply has none (never its first part).
English words for numbers are read where they are an amount (:func:`evenhand.text.amounts.amounts`: "forty-eight
thousand dollars"; with ``currency`` or ``unit`` set also "sixty thousand"); a bare "one" or "three" is none.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.errors import InputError, InputTypeError
from evenhand.structured import MISSING, FieldInPlaces, answer_starts, parse_path
from evenhand.structured import json_field as read_json_field  # the parameter json_field below is its path
from evenhand.text.amounts import FORMAT_SYMBOLS, amounts
from evenhand.text.periods import PERIODS, conversion, period_after, period_name, stated_period

FloatArray = npt.NDArray[np.float64]

#: The status of each reply: a single number, a range read as its midpoint, no number, no such JSON field, no reply,
#: and an amount stated per a period that does not convert to the one compared ("$25 an hour" compared per year).
NUMBER: Final = "number"
RANGE: Final = "range"
NO_NUMBER: Final = "no number"
NO_FIELD: Final = "no JSON field"
FIELD_IN_PLACES: Final = "JSON field in two places"
NO_REPLY: Final = "no reply"
OTHER_PERIOD: Final = "other period"
STATUSES: Final = (NUMBER, RANGE, NO_NUMBER, NO_FIELD, FIELD_IN_PLACES, NO_REPLY, OTHER_PERIOD)

#: what joins two amounts into a range: a dash, "to", German "bis"; "and" (und, et, y) only after "between"
#: (zwischen, entre); "a" (à) only after Spanish or French "de" ("de 60.000 a 65.000 €")
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to|bis|and|und|et|y|a|à)\s*", re.IGNORECASE)
_AND = ("and", "und", "et", "y")
_BETWEEN = re.compile(r"\b(?:between|zwischen|entre)\s*$", re.IGNORECASE)
_FROM_DE = re.compile(r"\b(?:de|desde)\s*$", re.IGNORECASE)

@dataclass(frozen=True)
class ParsedNumbers:
    """One number per reply (NaN where there is none), with how it was read.

    Attributes:
        values: the numbers (float64; NaN where the status is not :data:`NUMBER` or :data:`RANGE`).
        status: one of :data:`STATUSES` per reply.
        matched: the text the number was read from (the JSON value's text for a JSON field), "" where none.
        marked: where the number was marked as asked (as money with ``currency``, followed by the unit with
            ``unit``, a JSON field's value); True wherever nothing was asked for, False where no number was read.
        stated: the period each reply states its number per ("month" for "$4,000 a month"), "" where none.
        period: the period the numbers are compared per (every stated one converted to it; a number that states
            none is taken to be per it), None when no period was set and the replies state at most one.
    """

    values: FloatArray
    status: npt.NDArray[np.object_]
    matched: list[str]
    marked: npt.NDArray[np.bool_] | None = None
    stated: list[str] | None = None
    period: str | None = None

    def __len__(self) -> int:
        return int(self.values.size)

    @property
    def parsed(self) -> npt.NDArray[np.bool_]:
        """Where a number was read."""
        return np.asarray(~np.isnan(self.values))

    def counts(self) -> dict[str, int]:
        """How many replies have each status (every status, 0 included)."""
        found = pd.Series(self.status).value_counts()
        return {s: int(found.get(s, 0)) for s in STATUSES}

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"value": self.values, "status": self.status, "matched": self.matched})

    def unmarked(self) -> npt.NDArray[np.bool_]:
        """Where a number was read that is not marked as asked (the first number, when none was marked)."""
        marked = self.marked if self.marked is not None else np.ones(self.values.size, dtype=bool)
        return np.asarray(self.parsed & ~marked)


_Candidate = tuple[float, str, bool, int, int, str | None]


def _candidates(text: str, asked: bool = False) -> list[_Candidate]:
    """The numbers of ``text`` with two neighbours joined into a range where the text between them says so
    ("70-75k", "70,000 to 75,000", "between 70 and 75", "zwischen 60.000 und 65.000 €"): ``(value, status, money,
    start, end, period)`` in order; ``period`` is the period a range is stated per when only its lower end states it,
    else None (the period stated after ``end``)."""
    found = amounts(text, asked)
    out: list[_Candidate] = []
    i = 0
    while i < len(found):
        low = found[i]
        if i + 1 < len(found):
            high = found[i + 1]
            # "$4k a month to $5k a month": each end states its period; the range is per the upper end's
            low_period, low_end = period_after(text, low.end)
            high_period = stated_period(text, high.start, high.end)
            # a period on the lower end only is the range's ("$4k a month to $5,000")
            per = conversion(low_period, high_period) if low_period and high_period else 1.0
            gap = text[low_end : high.start]
            joined = _RANGE_GAP.fullmatch(gap) if per is not None else None
            word = gap.strip().lower()
            if joined and word in _AND and not _BETWEEN.search(text[: low.start]):
                joined = None  # "5 years and $70k" are two numbers; "between 5 and 7" is a range
            if joined and word in ("a", "à") and not _FROM_DE.search(text[: low.start]):
                joined = None  # "3 a 4": two numbers; "de 3 a 4" is a range
            if joined and per is not None:
                # "60.000-70.000 €": the currency marks both ends; "€1.749-1.789 per litre": the unit prices both
                if (low.money or high.money) and not high.unit_price:
                    low, high = low.as_money(), high.as_money()
                # "70-75k": the upper end's scale applies to a lower end written without one
                low_value = low.written * (high.scale if low.scale == 1.0 else low.scale) * per
                period = low_period if low_period and not high_period else None
                money = low.money or high.money
                out.append(((low_value + high.value) / 2.0, RANGE, money, low.start, high.end, period))
                i += 2
                continue
        out.append((low.alone, NUMBER, low.money, low.start, low.end, None))
        i += 1
    return out


#: A share written with the sign or in words: unit "%" (or "percent") reads "5%", "5 percent", "5 per cent", "5 pct"
_PERCENT = re.compile(r"[ \u00a0\u202f]*(?:%|(?:percent|per cent|pct)\b)", re.IGNORECASE)


def _unit_pattern(unit: str) -> re.Pattern[str]:
    if " ".join(unit.lower().split()) in ("%", "percent", "per cent", "pct"):
        return _PERCENT
    stem = re.escape(unit.strip().rstrip("s"))
    # "12 years", and "a 5-year term" (a hyphen, or the non-breaking one, joins a number to its unit)
    return re.compile(rf"(?:[ \u00a0\u202f]*|[-\u2010\u2011])(?:{stem})s?\b", re.IGNORECASE)


def _read_text(
    text: str, currency: bool, unit: re.Pattern[str] | None, compared: str | None = None
) -> tuple[float, str, str, bool, str]:
    """``(value, status, matched, marked, the period the value is stated per or "")`` of one reply's text;
    ``compared``: the period the run compares per, where the amount first read is stated per one that does not
    convert to it ("$25 an hour or $4,000 a month" compared per month): the reply's amount per a period that does,
    when it has one, is read instead."""
    found = _candidates(text, currency or unit is not None)
    for start in reversed(answer_starts(text)):  # "The median is $65,000. Final answer: $60,000": the answer is read
        answered = [c for c in found if c[3] >= start]
        if answered:
            found = answered
            break
    if not found:
        return math.nan, NO_NUMBER, "", False, ""
    chosen = found[0]
    if currency:
        chosen = next((c for c in found if c[2]), chosen)
    elif unit is not None:
        chosen = next((c for c in found if unit.match(text, c[4])), chosen)
    if compared is not None and conversion(_stated(text, chosen) or compared, compared) is None:
        comparable = (c for c in found if _stated(text, c) and conversion(_stated(text, c), compared) is not None)
        chosen = next((c for c in comparable if c[2] or not currency), chosen)
    marked = chosen[2] if currency else bool(unit.match(text, chosen[4])) if unit is not None else True
    value, status, _, start, end, _ = chosen
    if math.isnan(value):  # the chosen number is one that cannot be read ("1,5"): nothing is guessed
        return math.nan, NO_NUMBER, text[start:end], False, ""
    return value, status, text[start:end], marked, _stated(text, chosen)


def _stated(text: str, candidate: _Candidate) -> str:
    """The period a candidate is stated per ("" where none): a range's lower end's, else what follows it."""
    return candidate[5] if candidate[5] is not None else stated_period(text, candidate[3], candidate[4])


def _read_json(text: str, parts: tuple[str | int, ...], currency: bool, unit: re.Pattern[str] | None) -> tuple[
    float, str, str, bool, str
]:  # fmt: skip
    value = read_json_field(text, parts)
    if value is MISSING:
        return math.nan, NO_FIELD, "", False, ""
    if isinstance(value, FieldInPlaces):  # never a guess between two places: they are named instead
        return math.nan, FIELD_IN_PLACES, ", ".join(value.places), False, ""
    if isinstance(value, bool) or value is None:
        return math.nan, NO_NUMBER, str(value).lower() if value is not None else "null", False, ""
    if isinstance(value, (int, float)):
        number = float(value)
        finite = math.isfinite(number)
        return (number, NUMBER, repr(value), True, "") if finite else (math.nan, NO_NUMBER, repr(value), False, "")
    if isinstance(value, str):
        number, status, _, _, stated = _read_text(value, currency, unit)
        return number, status, value, not math.isnan(number), stated  # the field itself marks what it holds
    return math.nan, NO_NUMBER, "", False, ""


def _compared_period(stated: list[str], period: str | None) -> str | None:
    """The period the numbers are compared per: the one set, else, when the replies state two or more, the one
    they state most often (a tie: the longer period); None when none is set and the replies state at most one (the
    numbers are compared as written)."""
    if period is not None:
        return period
    counts = pd.Series([s for s in stated if s]).value_counts()
    if len(counts) < 2:
        return None
    return max(counts.index, key=lambda p: (counts[p], -PERIODS.index(p)))


def _to_period(
    values: FloatArray, status: npt.NDArray[np.object_], stated: list[str], compared: str | None
) -> tuple[FloatArray, npt.NDArray[np.object_]]:
    """The numbers converted from the period each states to ``compared``; one whose period does not convert is not
    read (NaN, :data:`OTHER_PERIOD`): numbers per two periods are never compared as they are."""
    if compared is None:
        return values, status
    factors = np.array([1.0 if not s else (conversion(s, compared) or math.nan) for s in stated], dtype=np.float64)
    other = np.isnan(factors) & ~np.isnan(values)
    return np.where(other, math.nan, values * np.where(np.isnan(factors), 1.0, factors)), np.where(
        other, OTHER_PERIOD, status
    )


def parse_numbers(
    replies: Any,
    *,
    json_field: str | None = None,
    currency: str | None = None,
    unit: str | None = None,
    period: str | None = None,
) -> ParsedNumbers:
    """Read one number from each reply (see the module docstring for what is read).

    Args:
        replies: the replies (list, tuple, NumPy array or pandas Series of str); a missing reply (None, NaN) gets
            the status :data:`NO_REPLY`.
        json_field: a dotted path ("offer.salary"): read that field of each reply's JSON instead of the text.
        currency: the currency of the amounts ("$", "USD", "€", ...): a number marked as money is preferred to
            an earlier unmarked one ("5 years of experience: $71,300" gives 71300).
        unit: a unit word ("years", "days", "%"): a number followed by it is preferred (when no currency is set).
        period: the period the numbers are compared per ("year", "month", "week", "day", "hour"; also "annual",
            "per month", ...): a number stated per another period is converted to it ("$4,000 a month" is 48,000
            per year), or not read (status :data:`OTHER_PERIOD`) where the two do not convert (an hour or a day into
            anything else); a number that states no period is taken to be per it. None: when the replies state two
            or more periods, they are compared per the one stated most often (:attr:`ParsedNumbers.period`).

    Returns:
        :class:`ParsedNumbers`, aligned with ``replies``.

    >>> parse_numbers(["I'd offer $71,300.", "$70k-$75k", "I can't say.", '{"offer": 7.5}']).values.tolist()
    [71300.0, 72500.0, nan, 7.5]
    """
    if isinstance(replies, (str, bytes)):
        raise InputTypeError("replies must be a sequence of texts, not a single text")
    series = pd.Series(list(replies.tolist() if hasattr(replies, "tolist") else replies), dtype=object)
    parts = parse_path(json_field) if json_field is not None else None
    if currency is not None and not str(currency).strip():
        raise InputError("currency is empty: give a symbol or code such as '$' or 'USD', or leave it out")
    unit_pattern = _unit_pattern(unit) if unit is not None and str(unit).strip() else None
    try:
        wanted = period_name(str(period)) if period is not None else None
    except ValueError as exc:
        raise InputError(f"period: {exc}") from None
    money = currency is not None
    present = ~series.isna().to_numpy()
    texts = series[present]
    if len(texts) and pd.api.types.infer_dtype(texts, skipna=False) != "string":
        where = np.flatnonzero(present).tolist()
        i, r = next((i, r) for i, r in zip(where, texts, strict=True) if not isinstance(r, str))
        raise InputTypeError(f"replies[{i}] is {type(r).__name__} ({r!r:.60}), expected a text (or None)")
    n = len(series)
    values = np.full(n, math.nan)
    status = np.full(n, NO_REPLY, dtype=object)
    matched = np.full(n, "", dtype=object)
    marked = np.zeros(n, dtype=bool)
    stated = np.full(n, "", dtype=object)
    if len(texts):
        codes, distinct = pd.factorize(texts)
        read = [
            _read_json(t, parts, money, unit_pattern) if parts is not None else _read_text(t, money, unit_pattern)
            for t in distinct
        ]
        if parts is None:  # an amount per a period that does not convert to the one compared: one that does, if any
            compared = _compared_period(np.array([r[4] for r in read], dtype=object)[codes].tolist(), wanted)
            read = [_read_text(t, money, unit_pattern, compared) if r[4] and compared and conversion(r[4], compared)
                    is None else r for t, r in zip(distinct, read, strict=True)]  # fmt: skip
        values[present] = np.array([r[0] for r in read], dtype=np.float64)[codes]
        status[present] = np.array([r[1] for r in read], dtype=object)[codes]
        matched[present] = np.array([r[2] for r in read], dtype=object)[codes]
        marked[present] = np.array([r[3] for r in read], dtype=bool)[codes]
        stated[present] = np.array([r[4] for r in read], dtype=object)[codes]
    periods = stated.tolist()
    compared = _compared_period(periods, wanted)
    values, status = _to_period(values, status, periods, compared)
    return ParsedNumbers(values, status, matched.tolist(), marked, periods, compared)


def stated_in_request(parsed: ParsedNumbers, requests: Sequence[str | None]) -> npt.NDArray[np.bool_]:
    """Where the number read from a reply is one its request states ("... for someone with 5 years of experience"
    answering a request "with 5 years of experience"), in any form the request writes it ("$70k" for 70,000):
    what a refusal that repeats the request gives instead of an estimate. False where no number was read.

    >>> stated_in_request(parse_numbers(["I can't advise on 5 years.", "70,000"]), ["5 years?", "5 years?"]).tolist()
    [True, False]
    """
    out = np.zeros(len(parsed), dtype=bool)
    stated = parsed.stated or [""] * len(parsed)
    for i in np.flatnonzero(parsed.parsed).tolist():
        request = requests[i]
        if isinstance(request, str):
            value = float(parsed.values[i])
            # the number as the reply writes it too ("$4,000 a month" repeated, read as 48,000 in a run per year)
            factor = conversion(stated[i], parsed.period) if stated[i] and parsed.period else None
            values = (value,) if not factor else (value, value / factor)
            out[i] = any(math.isclose(a.alone, v, rel_tol=1e-9) for a in amounts(request) for v in values)
    return out


def parse_number(
    reply: str,
    *,
    json_field: str | None = None,
    currency: str | None = None,
    unit: str | None = None,
    period: str | None = None,
) -> float:
    """The number of one reply (NaN when there is none); see :func:`parse_numbers`.

    >>> parse_number("Between $70,000 and $80,000, depending on experience.")
    75000.0
    """
    return float(parse_numbers([reply], json_field=json_field, currency=currency, unit=unit, period=period).values[0])


def format_amount(value: float, *, currency: str | None = None, unit: str | None = None) -> str:
    """A number as a finding writes it: in the answers' currency or unit, with thousands separators, three
    significant figures below 100 (``format_amount(71300, currency="USD")`` is ``"$71,300"``; ``12.46`` with
    ``unit="years"`` is ``"12.5 years"``; ``-5`` with ``"$"`` is ``"-$5"``; NaN is ``"n/a"``).

    >>> format_amount(71300.4, currency="$"), format_amount(12.46, unit="years"), format_amount(0.25, unit="%")
    ('$71,300', '12.5 years', '0.25%')
    """
    if value is None or not math.isfinite(value):
        return "n/a"
    magnitude = abs(value)
    digits = f"{magnitude:,.0f}" if magnitude >= 100 else f"{magnitude:.3g}"
    sign = "-" if value < 0 and digits.strip("0.,") else ""
    code = (currency or "").strip()
    symbol = FORMAT_SYMBOLS.get(code.upper(), code if code and not code.isalpha() else None)
    if symbol:
        text = f"{sign}{symbol}{digits}"
    elif code:
        text = f"{sign}{digits} {code}"
    else:
        text = f"{sign}{digits}"
    if unit and unit.strip():
        text += unit.strip() if unit.strip() == "%" else f" {unit.strip()}"
    return text
