"""Mask the personal names of counterfactual versions in replies, so that replies compare without the name they echo.

Two counterfactual versions of "Write a rejection email to Lakisha Washington." differ by the name; a fair model's
replies ("Dear Lakisha, ..." / "Dear Greg, ...") then differ by the name they echo, and every comparison of the
versions' replies (similarity, sentiment, toxicity, refusal, length) would read that echo as a difference that two
replies to the same version do not have. :func:`mask_names` replaces every form of the names swapped in a prompt's
versions (and of the original name) by one placeholder, the same for every version: the full name, its first and
last name alone, each with a possessive ("Lakisha's", "James'", "James's" all become "[NAME]'s"), as written or in
capitals ("LAKISHA"), with or without diacritics (a reply that writes "José García" for the prompt's "Jose
Garcia"). Lower-case words ("baker") are never masked: a name that is also a word is masked only where it is written
as a name.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from typing import Any

from evenhand._validation import as_text_list
from evenhand.errors import InputError
from evenhand.text._names_data import plain_letters
from evenhand.text.lexicon_model import TYPOGRAPHIC_APOSTROPHES, spellings

__all__ = ["NAME_PLACEHOLDER", "mask_names", "name_forms"]

#: What every masked name becomes.
NAME_PLACEHOLDER = "[NAME]"

_PART = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*")
# a capitalised word (letters, inner apostrophes or hyphens: "O'Brien", "Al-Farsi", "Łukasz"), and a possessive after it
# (the capital first, then the look-behind: a scan for a character class is much faster than one that starts with a
# look-behind)
_WORD = re.compile(r"[A-ZÀ-ÖØ-ÞĀ-ɏḀ-ỿ](?<![\w-].)(?<!\w['’].)(?:[^\W\d_]|['’-](?=[^\W\d_]))*")
_POSSESSIVE = re.compile(r"['’]s?(?![\w-])")
_GAP = re.compile(r"[ \t]+")  # the words of one full name stand on one line


def name_forms(names: Collection[str]) -> frozenset[str]:
    """The words of ``names`` that are masked: each part of two letters or more (a first or last name; not an
    initial such as "R."), as written and in capitals, and a part with an apostrophe with each of them (O'Brien,
    O’Brien, Oʼbrien: a reply may write another one than the prompt), and each without its diacritics ("García" and
    "Garcia": a reply may restore or drop the accents, :func:`_known`). A full name is masked as a run of these
    words."""
    parts = {_straight(part) for name in names for part in _PART.findall(name) if len(part) >= 2}
    forms = {form for part in parts | {p.upper() for p in parts} for form in spellings(part)}
    return frozenset(forms | {plain_letters(form) for form in forms})  # "García" masks "Garcia" too


def _known(word: str, forms: frozenset[str]) -> bool:
    """True when ``word`` is one of ``forms``, or is one of them written with other diacritics: a reply writes
    "García" for the prompt's "Garcia", or "Jose" for its "José" (``forms`` holds each name's plain form too)."""
    return word in forms or (not word.isascii() and plain_letters(word) in forms)


def _straight(part: str) -> str:
    """``part`` with the straight apostrophe where it has a typographic one."""
    for mark in TYPOGRAPHIC_APOSTROPHES:
        part = part.replace(mark, "'")
    return part


def _separator(texts: list[str]) -> str:
    """A character that no text holds, to join them by (NUL, almost always)."""
    for code in itertools.chain((0, 0x1F, 0x1E), range(0xE000, 0xF900)):
        if not any(chr(code) in text for text in texts):
            return chr(code)
    raise InputError("the texts hold every separator character tried: mask fewer texts at a time")


def _mask(texts: list[str], forms: Sequence[frozenset[str]], placeholder: str) -> list[str]:
    """Each text with each run of its ``forms`` (words a space apart: a full name) replaced by one placeholder; all
    texts are scanned at once, joined by a character none of them holds."""
    sep = _separator(texts)
    joined = sep.join(texts)
    ends = list(itertools.accumulate(len(t) + 1 for t in texts))  # where each text ends (its separator) in ``joined``
    pieces: list[str] = []
    last = 0
    run_end = -1  # where the last masked run ends (its placeholder has no possessive yet)
    owner = 0
    for match in _WORD.finditer(joined):
        start = match.start()
        while ends[owner] <= start:
            owner += 1
        own = forms[owner]
        word = match.group()
        if not word[0].isupper():  # the first letter's Latin Extended blocks hold lower case too ("ăn")
            continue
        end = match.end()
        if not _known(word, own):
            if not word.endswith(("'s", "’s")) or not _known(word[:-2], own):
                continue
            word, end = word[:-2], end - 2  # "Greg's" (an inner "'s" is read as part of the word)
        mark = _POSSESSIVE.match(joined, end)
        if run_end >= 0 and _GAP.fullmatch(joined, run_end, start):
            pieces.pop()  # the next word of the same full name: one placeholder for the run
        else:
            pieces.append(joined[last:start])
        if mark is not None and (len(mark.group()) == 2 or word.lower().endswith("s")):
            pieces.append(placeholder + "'s")
            last, run_end = mark.end(), -1
        else:
            pieces.append(placeholder)
            last, run_end = end, end
    if not pieces:
        return texts
    pieces.append(joined[last:])
    return "".join(pieces).split(sep)


def mask_names(
    texts: Any, names: Sequence[Collection[str]] | Collection[str], *, placeholder: str = NAME_PLACEHOLDER
) -> list[str]:
    """Replace every form of the given personal names in each text by ``placeholder``.

    Args:
        texts: list, tuple, NumPy array or pandas Series of strings (replies).
        names: per text, the full names to mask ("Lakisha Washington", "Greg Baker": every version's name of the
            prompt the text replies to, :meth:`~evenhand.text.counterfactual.CounterfactualPrompts.swapped_names`);
            or one collection of names for every text (a set, frozenset or tuple of strings).
        placeholder: what a name becomes (default ``"[NAME]"``).

    Returns:
        The texts with each full name, first name, last name (capitalised whole words, as written or in capitals)
        and their possessives replaced, with or without diacritics: ``"Lakisha Washington"``, ``"Lakisha"``,
        ``"WASHINGTON"``, ``"García"`` for a prompt's "Garcia" -> ``"[NAME]"``,
        ``"Lakisha's"``, ``"James'"`` -> ``"[NAME]'s"``; the words of one full name become one placeholder. The rest
        of each text is kept byte for byte; a text with no name to mask is returned as it is.

    >>> mask_names(["Dear Lakisha, thank you.", "Dear Greg Baker, Greg's file is ready."],
    ...            [("Lakisha Washington", "Greg Baker")] * 2)
    ['Dear [NAME], thank you.', "Dear [NAME], [NAME]'s file is ready."]
    """
    out = as_text_list(texts, "texts", allow_empty=True)
    if isinstance(names, str):
        raise InputError("names must be a collection of names (per text, or one for all texts), not one string")
    if isinstance(names, (set, frozenset, tuple)) and all(isinstance(n, str) for n in names):
        per_text: Sequence[Collection[str]] = [names] * len(out)
    else:
        per_text = list(names)
        if len(per_text) != len(out):
            raise InputError(f"names has {len(per_text)} entries for {len(out)} texts: give one collection per text")
    cache: dict[frozenset[str], frozenset[str]] = {}
    forms: list[frozenset[str]] = []
    for i, own in enumerate(per_text):
        if isinstance(own, str):
            raise InputError(f"names[{i}] must be a collection of names, not the string {own!r}")
        key = frozenset(own)
        found = cache.get(key)
        if found is None:
            found = cache[key] = name_forms(key)
        forms.append(found)
    if not any(forms):
        return out
    return _mask(out, forms, placeholder)
