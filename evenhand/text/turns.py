"""A conversation as the text core reads it: every turn and document in one text, so that a person is found, and
changed, the same way in all of them ("Emily Baker" in the first turn and "Emily" or "she" in the third).

The parts are joined with :data:`SEPARATOR`: a line break (so a part's first word starts a sentence, as it does
alone) around a control character that is neither a word character nor whitespace, so no lexicon term, name or
look-ahead runs from one part into the next. A bare text is its own layout: the text core reads it exactly as
before.
"""

from __future__ import annotations

import bisect
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from evenhand._participants import spoken_name, written_name
from evenhand.conversation import RESERVED, Conversation, Prompt, with_images
from evenhand.errors import InputError

SEPARATOR = f"\n{RESERVED}\n"


class Location(NamedTuple):
    """Where in a prompt something was found: a turn (``kind="turn"``, its position and role), the arguments of a
    tool call an assistant turn made (``kind="call"``, the turn's position and role, ``call`` the call's position
    in it), the participant ``name`` a turn carries (``kind="name"``, the turn's position and role) or a retrieved
    document (``kind="context"``, its position in the context; ``role`` None). A bare text is turn 0, the user's."""

    kind: str
    position: int
    role: str | None
    call: int = 0

    def describe(self) -> str:
        """``"turn 3 (user)"``, ``"tool call 1 of turn 2 (assistant)"`` or ``"context document 1"`` (counted from
        1, as a reader counts)."""
        if self.kind == "context":
            return f"context document {self.position + 1}"
        if self.kind == "call":
            return f"tool call {self.call + 1} of turn {self.position + 1} ({self.role})"
        if self.kind == "name":
            return f"the name of turn {self.position + 1} ({self.role})"
        return f"turn {self.position + 1} ({self.role})"


BARE = Location("turn", 0, "user")


@dataclass(frozen=True)
class Layout:
    """One prompt's parts in one text: ``parts[k]`` starts at ``starts[k]`` of ``text``."""

    text: str
    parts: tuple[Location, ...]
    starts: tuple[int, ...]  # increasing: the parts in the order of the text (not of the conversation)

    def locate(self, start: int, end: int) -> tuple[Location, int, int]:
        """The part that holds ``text[start:end]``, and the span inside that part."""
        k = bisect.bisect_right(self.starts, start) - 1
        return self.parts[k], start - self.starts[k], end - self.starts[k]


def layout(prompt: Prompt, *, system: bool = True) -> Layout:
    """The text the text core reads for ``prompt``: a bare text itself; a conversation's user, assistant and tool
    turns (a turn's participant ``name`` before its words, "Emily_Baker" read as "Emily Baker"; an assistant turn's
    tool calls' arguments after them), then its documents, then its system turns
    (only with ``system``), a :data:`SEPARATOR` apart. The order puts
    the people the conversation is about before those its system prompt names (an assistant's persona, "You are
    Sarah, a recruiter"), so that a prompt's subject (the first person named) is found in the conversation."""
    if not isinstance(prompt, Conversation):
        return Layout(prompt, (BARE,), (0,))
    parts: list[Location] = []
    texts: list[str] = []
    for i, turn in enumerate(prompt.turns):
        if turn.role != "system":
            _name_part(turn.name, i, turn.role, parts, texts)
            parts.append(Location("turn", i, turn.role))
            texts.append(turn.content)
            for k, call in enumerate(turn.tool_calls):  # a lookup's arguments name the person as the turns do
                parts.append(Location("call", i, turn.role, k))
                texts.append(call.arguments)
    for j, doc in enumerate(prompt.context):
        parts.append(Location("context", j, None))
        texts.append(doc)
    for i, turn in enumerate(prompt.turns):
        if system and turn.role == "system":
            _name_part(turn.name, i, turn.role, parts, texts)
            parts.append(Location("turn", i, turn.role))
            texts.append(turn.content)
    starts, position = [], 0
    for text in texts:
        starts.append(position)
        position += len(text) + len(SEPARATOR)
    return Layout(SEPARATOR.join(texts), tuple(parts), tuple(starts))


def _name_part(name: str | None, position: int, role: str, parts: list[Location], texts: list[str]) -> None:
    """A turn's participant name as a part of its own (a speaker is a person the conversation names)."""
    if name is not None:
        parts.append(Location("name", position, role))
        texts.append(spoken_name(name))


def layouts_of(prompts: Sequence[Prompt], reader: str, *, system: bool = True) -> list[Layout]:
    """:func:`layout` of each prompt; where some hold images, one warning that ``reader`` (what reads the text:
    "the FTU check reads") read their text only."""
    pictured = with_images(prompts)
    if pictured:
        warnings.warn(
            f"{pictured} prompt(s) hold images: {reader} their text only; the images were not read",
            UserWarning,
            stacklevel=3,
        )
    return [layout(p, system=system) for p in prompts]


def rebuild(prompt: Prompt, shape: Layout, text: str) -> Prompt:
    """``prompt`` with the parts of ``shape`` replaced by the parts of ``text`` (a changed ``shape.text``); parts
    the layout left out (system turns) stay as written."""
    if not isinstance(prompt, Conversation):
        return text
    pieces = text.split(SEPARATOR)
    if len(pieces) != len(shape.parts):  # never expected: a separator is neither matched nor written by a change
        raise InputError("a counterfactual change crossed the boundary between two turns")
    turns = [t.content for t in prompt.turns]
    arguments = [[c.arguments for c in t.tool_calls] for t in prompt.turns]
    context = list(prompt.context)
    names = [t.name for t in prompt.turns]
    for where, piece in zip(shape.parts, pieces, strict=True):
        if where.kind == "turn":
            turns[where.position] = piece
        elif where.kind == "name":
            names[where.position] = written_name(piece, prompt.turns[where.position].name or "")
        elif where.kind == "call":
            arguments[where.position][where.call] = piece
        else:
            context[where.position] = piece
    return prompt.replace_texts(turns, context, arguments, names)
