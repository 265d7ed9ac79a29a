"""Reading one field of a JSON reply by a dotted path (``"offer.salary"``, ``"candidates.0.score"``).

An assistant asked for JSON answers in several ways: the bare object, the object in a Markdown code fence
(```` ```json ... ``` ````), or a sentence around it ("Here is my answer: {...}"). :func:`find_json` takes the first
of those that parses; :func:`read_json_field` follows the path into it. Neither guesses: a reply without JSON, or
without the field, gives :data:`MISSING`, which callers count as unparsed.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from evenhand.errors import InputError, InputTypeError


class _Missing:
    """The marker of a field that is not there (JSON's own ``null`` is a value: ``None``)."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


#: What :func:`find_json` and :func:`read_json_field` return when there is no JSON, or no such field.
MISSING: Final = _Missing()

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\r?\n?(.*?)```", re.DOTALL)
_MAX_STARTS = 50  # a reply with more opening brackets than this is prose with brackets, not a JSON answer
_DECODER = json.JSONDecoder()


def split_path(path: str) -> tuple[str, ...]:
    """``"offer.salary"`` -> ``("offer", "salary")``; a path is non-empty text whose dot-separated parts are
    non-empty (an integer part indexes a list: ``"items.0.price"``). Raises InputError naming the path."""
    if not isinstance(path, str):
        raise InputTypeError(f"a JSON field path is text such as 'offer.salary', got {type(path).__name__}")
    parts = tuple(part.strip() for part in path.strip().split("."))
    if not path.strip() or any(not part for part in parts):
        raise InputError(f"JSON field path {path!r} is not a dotted path such as 'offer.salary' or 'items.0.price'")
    return parts


def find_json(text: str) -> Any:
    """The JSON value a reply holds: the whole reply, else the first code fence that parses, else the first object
    or array in the text that parses (a sentence around it is allowed); :data:`MISSING` when none does."""
    stripped = text.strip()
    if not stripped:
        return MISSING
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for fenced in _FENCE.findall(text):
        try:
            return json.loads(fenced.strip())
        except ValueError:
            continue
    starts = [m.start() for m in re.finditer(r"[{\[]", text)][:_MAX_STARTS]
    for start in starts:
        try:
            value, _ = _DECODER.raw_decode(text, start)
        except ValueError:
            continue
        return value
    return MISSING


def follow_path(value: Any, parts: tuple[str, ...]) -> Any:
    """The value at ``parts`` inside a parsed JSON value (dict keys; integer parts index lists, negative ones
    from the end); :data:`MISSING` when a step is absent."""
    for part in parts:
        if isinstance(value, dict):
            if part not in value:
                return MISSING
            value = value[part]
        elif isinstance(value, list):
            try:
                value = value[int(part)]
            except (ValueError, IndexError):
                return MISSING
        else:
            return MISSING
    return value


def read_json_field(text: str, path: str | tuple[str, ...]) -> Any:
    """The value of the field ``path`` (dotted, see :func:`split_path`) in the JSON of a reply, or
    :data:`MISSING` when the reply holds no JSON or the JSON has no such field.

    >>> read_json_field('Sure: {"offer": {"salary": 71300, "currency": "USD"}}', "offer.salary")
    71300
    >>> read_json_field("I would offer about $70k.", "offer.salary")
    MISSING
    """
    parts = split_path(path) if isinstance(path, str) else path
    found = find_json(text)
    return MISSING if found is MISSING else follow_path(found, parts)
