"""English numbers written in words ("forty-eight thousand", "one hundred and twenty"), read from a text
(:func:`word_numbers`). Whether such a number is an amount (marked as money, or scaled where an amount is asked) is
:func:`evenhand.text.amounts.amounts`' decision, which reads these beside the numbers in digits. The words are data
(evenhand/data/wordlists/number_words.json)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from evenhand.text._bundled_lists import wordlist_json

_LISTS: Final = wordlist_json("number_words.json")
_UNITS: Final[dict[str, int]] = _LISTS["units"]
_TENS: Final[dict[str, int]] = _LISTS["tens"]
_HUNDRED: Final[str] = _LISTS["hundred"]
_SCALES: Final[dict[str, int]] = _LISTS["scales"]
_TOKEN: Final = "(?:" + "|".join(sorted([*_UNITS, *_TENS, _HUNDRED, *_SCALES], key=len, reverse=True)) + ")"
#: a run of number words, a hyphen or spaces between them, "and" between two ("one hundred and twenty"; where "and"
#: does not follow "hundred" the run is two numbers: "between forty and forty-five thousand")
_RUN: Final = re.compile(rf"\b{_TOKEN}(?:(?:-|[ \u00a0]+|[ \u00a0]+and[ \u00a0]+){_TOKEN})*\b", re.IGNORECASE)
_WORD: Final = re.compile(rf"\band\b|{_TOKEN}", re.IGNORECASE)


@dataclass(frozen=True)
class WordNumber:
    """A number in words: ``written`` before its trailing scale (48 of "forty-eight thousand", whose ``scale`` is
    1000; ``scale`` 1 without one, or where scales were combined: "two million five hundred thousand"), where it
    stands in the text and whether it ends with a scale word."""

    written: float
    scale: float
    start: int
    end: int

    @property
    def scaled(self) -> bool:
        return self.scale != 1.0


def word_numbers(text: str) -> list[WordNumber]:
    """Every number written in words in ``text``, in order. A run of words that cannot be one number is split where
    it stops being one ("forty forty-five" is two; "thousand" alone is none)."""
    out: list[WordNumber] = []
    for run in _RUN.finditer(text):
        out.extend(_numbers_of(text, run.start(), run.end()))
    return out


def _numbers_of(text: str, start: int, end: int) -> list[WordNumber]:
    tokens = [(m.group().lower(), m.start(), m.end()) for m in _WORD.finditer(text, start, end)]
    out: list[WordNumber] = []
    i = 0
    while i < len(tokens):
        read = _read(tokens, i)
        if read is None:
            i += 1
            continue
        number, i = read
        out.append(number)
    return out


def _read(tokens: list[tuple[str, int, int]], first: int) -> tuple[WordNumber, int] | None:
    """The longest number from ``tokens[first]`` on, and the index after it; None where none starts there."""
    total, current, last, scales = 0, 0, "", 0
    trailing: tuple[int, int] | None = None  # (the number before its scale, the scale) of "forty-eight thousand"
    end, i = first, first
    while i < len(tokens):
        word = tokens[i][0]
        if word == "and":
            if last != "hundred" or i + 1 >= len(tokens) or tokens[i + 1][0] not in (*_UNITS, *_TENS):
                break
            i += 1
            continue
        if word in _UNITS and (last in ("", "hundred", "scale") or (last == "tens" and _UNITS[word] < 10)):
            current, last = current + _UNITS[word], "unit"
        elif word in _TENS and last in ("", "hundred", "scale"):
            current, last = current + _TENS[word], "tens"
        elif word == _HUNDRED and last in ("unit", "tens") and 0 < current < 100:
            current, last = current * 100, "hundred"
        elif word in _SCALES and last in ("unit", "tens", "hundred") and current > 0:
            trailing = (current, _SCALES[word]) if scales == 0 and total == 0 else None
            total, current, last, scales = total + current * _SCALES[word], 0, "scale", scales + 1
        else:
            break
        i += 1
        end = i
    if end == first:
        return None
    value = total + current
    _, start, _ = tokens[first]
    stop = tokens[end - 1][2]
    if trailing is not None and current == 0:
        return WordNumber(float(trailing[0]), float(trailing[1]), start, stop), end
    return WordNumber(float(value), 1.0, start, stop), end
