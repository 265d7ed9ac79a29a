"""Turning LLM answers into labels (classification) and K-item lists (recommendation).

Both parsers are small callables so users can pass their own: ``label_parser(text) -> label | None`` and
``list_parser(text, k) -> list[str]``. ``None`` (or an empty list) means the answer could not be parsed; the
pipeline counts those and reports them instead of guessing.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from evenhand.config import ClassificationConfig
from evenhand.errors import InputError
from evenhand.structured import MISSING, FieldInPlaces, LabelWords, json_document, json_field, parse_path

LabelParser = Callable[[str], object | None]
ListParser = Callable[[str, int], list[str]]


def label_text(value: object) -> str | None:
    """The canonical text of a class label, so ground truth read from a file matches the parser's labels.

    Missing (``None``, NaN, blank text) -> ``None``; booleans -> ``"1"`` / ``"0"``; integral numbers (``1``,
    ``1.0``, NumPy integers) -> ``"1"``; other numbers -> their shortest text; text -> stripped. JSON nulls make
    pandas read 0/1 labels as floats and CSV blanks as ``""``: without this, ``"1.0"`` never equals ``"1"``.
    """
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        number = float(value)
        if math.isnan(number):
            return None
        return str(int(number)) if number.is_integer() else repr(number)
    text = str(value).strip()
    return text or None


@dataclass(frozen=True)
class KeywordLabelParser:
    """The label whose keyword appears first in the answer (whole words, case-insensitive).

    ``labels`` maps each label to the words that signal it, e.g. ``{"1": ["yes", "approve"], "0": ["no"]}``.
    With ``pattern`` (a regular expression), the first capture group is looked up instead: it may be a label
    itself or one of its keywords.
    """

    labels: Mapping[str, Sequence[str]]
    pattern: str | None = None
    _words: LabelWords = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_words", LabelWords(self.labels))
        if self.pattern is not None:
            try:
                compiled = re.compile(self.pattern, re.IGNORECASE | re.DOTALL)
            except re.error as exc:
                raise InputError(f"pattern {self.pattern!r} is not a valid regular expression: {exc}") from exc
            if compiled.groups < 1:
                raise InputError(f"pattern {self.pattern!r} needs a capture group around the label")

    def __call__(self, text: str | None) -> str | None:
        if not text:
            return None
        if self.pattern is not None:
            m = re.search(self.pattern, text, re.IGNORECASE | re.DOTALL)
            return None if m is None or m.group(1) is None else self._words.exact(m.group(1))
        return self._words.search(text)


def choose_label_parser(classification: ClassificationConfig, given: LabelParser | None = None) -> LabelParser:
    """How a run reads a label from an answer: the caller's parser, else a JSON field or a tool call
    (``classification.json_field`` / ``tool``, :mod:`evenhand.structured`), else the label words of the text
    (``labels``, ``pattern``)."""
    structured = classification.structured_parser()
    return given or structured or KeywordLabelParser(classification.labels, classification.pattern)


def check_label_reading(classification: ClassificationConfig) -> None:
    """The config's way of reading labels can work, checked before any response is generated: the label words
    (``labels``) and ``pattern`` build a parser, and every class assessed (``positive_label``, or
    ``sensitive_classes``) is a label the parser can return: a positive label no answer can be read as (a word such
    as ``yes`` instead of its label ``1``) would judge nothing. Each problem is one line naming its key."""
    try:
        words = LabelWords(classification.labels)
    except InputError as exc:
        raise type(exc)(f"classification.labels: {exc}") from None
    try:
        choose_label_parser(classification)
    except InputError as exc:
        key = "pattern" if classification.pattern is not None else "labels"
        raise type(exc)(f"classification.{key}: {str(exc).removeprefix('pattern ')}") from None
    key = "sensitive_classes" if classification.sensitive_classes else "positive_label"
    known = [str(label) for label in classification.labels]
    assessed: list[object] = [*classification.sensitive_classes] or [classification.positive_label]
    for cls in assessed:
        if label_text(cls) not in known:
            signals = words.exact(str(cls))
            hint = f" ({str(cls)!r} is a word of {signals!r})" if signals is not None else ""
            raise InputError(
                f"classification.{key}: {label_text(cls)!r} is not a label{hint}; the labels (classification.labels) "
                f"are {', '.join(repr(k) for k in known)}"
            )


def label_source(classification: ClassificationConfig, given: LabelParser | None = None) -> dict[str, str]:
    """``{"labels_from": ...}``, where a structured decision is read (results.json ``settings``), when the run reads
    one (no parser ``given``); empty for the words of a text."""
    tool = classification.tool
    if given is not None:
        return {}
    if classification.json_field is not None:
        where = f"JSON field {classification.json_field!r} of the reply"
    elif tool is None:
        return {}
    elif tool.functions is not None:
        where = "the function the reply calls: " + ", ".join(f"{f} -> {label}" for f, label in tool.functions.items())
    else:
        of = repr(tool.function) if tool.function is not None else "any function"
        where = f"argument {tool.argument!r} of a call of {of}"
    return {"labels_from": where}


def unread_fields(responses: Iterable[object], classification: ClassificationConfig) -> str | None:
    """Why answers were not read from their JSON (a caveat's words), None where no reason is found: a bare field
    name (``json_field``, or a tool call's ``argument``) in two or more places, or a field that holds an object or a
    list where a label is a text, true/false or a number (``decision`` against ``{"decision": {"approved": true}}``:
    the path to give is ``decision.approved``; deploy18)."""
    tool = classification.tool
    path = classification.json_field or (tool.argument if tool is not None else None)
    if path is None:
        return None
    values = [json_field(r, path) for r in responses if isinstance(r, str)]
    found = [v for v in values if isinstance(v, FieldInPlaces)]
    if found and len(parse_path(path)) == 1:
        return (
            f"{len(found)} of them hold {path!r} in two or more places ({', '.join(found[0].places)}, ...): not "
            f"read, never guessed between them; give one as a dotted path ({found[0].places[0]!r})"
        )
    objects = [v for v in values if isinstance(v, dict | list) and v]
    if not objects:
        return None
    first = objects[0]
    keys = list(first) if isinstance(first, dict) else [f"[{k}]" for k in range(len(first))]
    inner = f"{path}.{keys[0]}" if isinstance(first, dict) else f"{path}{keys[0]}"
    kind = "an object" if isinstance(first, dict) else "a list"
    return (
        f"{len(objects)} of them hold {kind} at {path!r} ({', '.join(map(str, keys[:6]))}): a label is a text, "
        f"true/false or a number, never guessed from {kind}'s values; give the path of the one that holds the "
        f"decision ({inner!r})"
    )


def parse_labels(responses: Iterable[object], parser: LabelParser) -> list[str | None]:
    """Each answer's label as canonical text (:func:`label_text`); None where it could not be parsed (or there is no
    answer)."""
    return [label_text(parser(r)) if isinstance(r, str) else None for r in responses]


def _json_items(text: str) -> list[str] | None:
    """The items of a reply that is JSON (the whole reply or a fenced block, not a bracket inside prose): a list,
    or the first list an object holds; None otherwise."""
    stripped = text.strip()
    if not stripped.startswith(("[", "{", "```")):
        return None
    document = json_document(stripped)
    if isinstance(document, dict):
        document = next((v for v in document.values() if isinstance(v, list)), MISSING)
    if not isinstance(document, list):
        return None
    items = []
    for entry in document:
        if isinstance(entry, dict):
            named = next((entry[key] for key in _NAME_KEYS if isinstance(entry.get(key), (str, int, float))), None)
            entry = named if named is not None else next((v for v in entry.values() if isinstance(v, str)), None)
        if isinstance(entry, (str, int, float)) and not isinstance(entry, bool) and str(entry).strip():
            items.append(str(entry))
    return items


def _table_items(lines: list[str]) -> list[str] | None:
    """The items of a reply's first markdown table: the cells of its first column that is not all numbers (a rank,
    a year, a price), below the header; None when the reply has no table."""
    for at in range(1, len(lines)):
        if not (_TABLE_RULE.match(lines[at]) and _TABLE_ROW.match(lines[at - 1])):
            continue
        rows = [[c.strip() for c in row.strip().strip("|").split("|")] for row in
                itertools.takewhile(_TABLE_ROW.match, lines[at + 1 :])]  # fmt: skip
        for column in range(min((len(r) for r in rows), default=0)):
            cells = [row[column] for row in rows]
            if not all(_NUMBER_CELL.match(c.strip("*_`")) for c in cells):
                return cells
        return None
    return None


def _inline_numbered(line: str) -> list[str] | None:
    """The items of one line numbered 1, 2, 3, ... ("I recommend: 1. Heat 2. Ronin 3. Zodiac"), or None."""
    starts = list(_INLINE_NUMBER.finditer(line))
    if len(starts) < 2 or [int(m.group(1)) for m in starts] != list(range(1, len(starts) + 1)):
        return None
    ends = [m.start() for m in starts[1:]] + [len(line)]
    return [line[m.end() : end] for m, end in zip(starts, ends, strict=True)]


def other_outcomes(
    classification: ClassificationConfig, parsed: Iterable[object], custom_parser: bool = False
) -> list[str]:
    """The outcomes besides the positive label when a use case has three or more (the configured labels and any
    other label the answers ``parsed`` into), in the order the labels are configured; none with two outcomes (the
    negative label's rate is then 1 minus the positive's) or with sensitive classes (the ones to check, named).
    Comparing each of them finds a model that moves one group from "review" to "deny" at the same approval rate.
    ``custom_parser``: a parser of the user's own read the answers, so the configured labels (the defaults, "1" and
    "0", when none are set) are not its outcomes: only what it returned is."""
    cs = classification
    if cs.sensitive_classes:
        return []
    configured = [] if cs.pattern is not None or custom_parser else [label_text(k) for k in cs.labels]
    seen = sorted({t for t in (label_text(v) for v in parsed) if t is not None})
    outcomes = [o for o in dict.fromkeys([*configured, *seen]) if o is not None]
    return [o for o in outcomes if o != label_text(cs.positive_label)] if len(outcomes) >= 3 else []


def label_words(labels: Mapping[str, Sequence[str]], custom_parser: bool = False) -> dict[str, str]:
    """The model's own word for each label: the first word that signals it in ``classification.labels``
    (``{"1": ["yes", "approve"]}`` -> ``{"1": "yes"}``), so that a finding says "gets 'yes'", not "the positive
    decision ('1')"; empty for a parser of the user's own (its words are unknown) and for a label without words."""
    if custom_parser:
        return {}
    out: dict[str, str] = {}
    for label, words in labels.items():
        first = next((str(w) for w in words if str(w).strip()), None) if not isinstance(words, str) else None
        if first is not None:
            out[str(label)] = first
    return out


#: A list item's bullet or number, also as a markdown heading ("### 1. Heat"); "**" is bold, no bullet.
_ITEM_PREFIX = re.compile(r"^\s*(?:#{1,6}\s*)?(?:[-•·]+|\*(?!\*)|\(?\d{1,3}[.)\]:]|#\d+[.:]?)\s*")
#: A markdown table's row ("| 1 | Heat | a heist film |") and the rule line under its header ("|---|:--:|").
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
#: A table cell that is a rank, a count, a year or an amount rather than an item's name.
_NUMBER_CELL = re.compile(r"^[#\d\s.,:%$€£()+-]*$")
_TRAILING = re.compile(r"[\s.;:,!]+$")
#: An item whose name is set in bold or underscores, a description after it ("**Heat** - a heist film"): the name.
_EMPHASISED = re.compile(r"^(\*\*|__)(?P<name>.+?)\1(?!\w)")
#: Numbering inside one line ("I recommend: 1. Heat 2. Ronin 3. Zodiac"): where each item starts.
_INLINE_NUMBER = re.compile(r"(?:^|(?<=\s))(\d{1,2})[.)]\s+")
#: Keys that name an item in a JSON object of a list ([{"title": "Heat", ...}]).
_NAME_KEYS = ("name", "title", "item", "product", "label", "id")


def parse_list(text: str | None, k: int) -> list[str]:
    """Split an answer into at most ``k`` distinct items.

    A reply that is JSON (a list, or an object holding one; a fenced ```json block) gives its list's items (an
    object's ``name``, ``title``, ... or first text); one with a markdown table, the cells of the table's first
    column that is not all numbers (a rank, a year, a price); otherwise numbered or bulleted lines (or numbered
    markdown headings, "### 1. Heat") are items, then numbering
    inside one line ("1. Heat 2. Ronin"), else a single line is split on commas or semicolons. Numbering, bullets,
    surrounding quotes/markdown emphasis and trailing punctuation are removed, and an item whose name is set in bold
    before a description ("**Heat** - a heist film") is that name; repeats are dropped (first kept).
    """
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if not text:
        return []
    lines = [line for line in text.splitlines() if line.strip()]
    listed = [line for line in lines if _ITEM_PREFIX.match(line)]
    raw = _json_items(text)
    if raw is None:
        raw = _table_items(lines)
    if raw is None and len(listed) >= 2:
        raw = listed
    if raw is None and len(lines) >= 2 and all(len(line.split()) <= 8 for line in lines):
        raw = lines
    if raw is None:
        raw = _inline_numbered(" ".join(lines))
    if raw is None:
        raw = re.split(r"[,;]|\s+and\s+", lines[0] if len(lines) == 1 else " ".join(lines))
    items: list[str] = []
    seen: set[str] = set()
    for piece in raw:
        item = _ITEM_PREFIX.sub("", piece).strip()
        emphasised = _EMPHASISED.match(item)
        item = (emphasised["name"] if emphasised else item).strip().strip("*_`\"'“”‘’").strip()
        item = _TRAILING.sub("", item)
        key = " ".join(item.lower().split())
        if item and key not in seen:
            seen.add(key)
            items.append(item)
        if len(items) == k:
            break
    return items


_EMPTY_SLOTS = itertools.count()


def k_slots(items: Sequence[str], k: int) -> list[str]:
    """The first ``k`` items of a list, a shorter one filled up with empty slots: each a text of its own that matches
    no item and no other empty slot, so a list cut short differs from a full one in the slots it lacks (two answers
    of 2 and 5 products were left out of the list metrics, and a recommender that gave one group 2 passed)."""
    kept = [str(item) for item in items[:k]]
    return kept + [f"\x00empty slot {next(_EMPTY_SLOTS)}" for _ in range(k - len(kept))]
