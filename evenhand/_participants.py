"""A message's participant ``name`` (OpenAI's ``{"role": "user", "name": "Emily_Baker", ...}``, deploy18): read
from a message, read as the text core reads a name (``_`` as a space), and a changed name written back in the form the
API takes."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from evenhand.errors import InputError

__all__ = ["participant_name", "spoken_name", "written_name"]


def participant_name(message: Mapping[str, Any], number: int, where: str) -> str | None:
    """A message's ``name`` (the participant), None where it has none (absent or null, as a table's empty cell)."""
    name = message.get("name")
    if name is None or (isinstance(name, float) and math.isnan(name)):
        return None
    if not isinstance(name, str) or not name.strip():
        kind = type(name).__name__
        shown = repr(name) if isinstance(name, str) else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"
        raise InputError(f"{where}: message {number}: 'name' is {shown}; a participant's name is a text")
    return name


#: what OpenAI's API accepts as a participant's name
_API_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def spoken_name(name: str) -> str:
    """A participant's name as the text core reads it: ``"Emily_Baker"`` is ``"Emily Baker"``."""
    return name.replace("_", " ")


def written_name(spoken: str, original: str) -> str:
    """A changed name (``"Gregory Baker"``) written back the way ``original`` was (``"Gregory_Baker"``), in the
    characters the API accepts where the original was so (accents dropped: ``"Zoë"`` is ``"Zoe"``); the original
    itself where the text core left it as it was."""
    if spoken == spoken_name(original):
        return original
    written = spoken.strip().replace(" ", "_")
    if _API_NAME.fullmatch(original) is None:
        return written
    ascii_name = unicodedata.normalize("NFKD", written).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9_-]+", "_", ascii_name)[:64] or original
