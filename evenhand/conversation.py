"""Prompts as deployed assistants receive them: a conversation (system, user and assistant turns, the user's last)
and the documents a retrieval step put beside it (the context), kept apart from the request.

A prompt is either a text (the bare prompt, read as it always was) or a :class:`Conversation`. Every entry point
(``check_ftu``, ``counterfactual_prompts``, ``plan``, ``generate``, ``assess`` and the command line) reads its
prompts with :func:`as_prompt_list`, so they accept the same forms and refuse a malformed one with one line that
names the row and the key:

    >>> as_prompt_list([[{"role": "user", "content": "Hi"}, {"role": "bot", "content": "Hello"}]])
    Traceback (most recent call last):
    ...
    evenhand.errors.InputError: prompts[0]: message 2: 'role' is 'bot'; a role is system, user, assistant or tool

What a model is sent (:meth:`Conversation.messages`) is the turns as OpenAI-style messages, the run's system
prompt first when the conversation has none of its own, and the context where a retrieval-augmented application
puts it: in the last user message, before the request (``context_placement="user"``, the default), or at the end
of the system message (``"system"``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from evenhand._participants import participant_name
from evenhand._validation import _to_list
from evenhand.errors import InputError, InputTypeError

__all__ = [
    "CONTEXT_PLACEMENTS",
    "ROLES",
    "Conversation",
    "Prompt",
    "ToolRequest",
    "Turn",
    "as_prompt",
    "as_prompt_list",
    "build_prompts",
    "has_conversations",
    "parse_context",
    "parse_conversation",
    "plain_text",
    "prompt_messages",
    "prompt_text",
    "request_key",
]

ROLES = ("system", "user", "assistant", "tool")
#: Other names of a role that logs keep: OpenAI's newer models take the system prompt as a "developer" message; it is
#: read, and sent, as the system turn every server takes.
ROLE_ALIASES = {"developer": "system"}
CONTEXT_PLACEMENTS = ("user", "system")
ContextPlacement = Literal["user", "system"]
#: Keeps turns apart in the one text the text core reads (``evenhand.text.turns``); a turn may not hold it.
RESERVED = "\x01"
#: The keys a retrieved document's text may sit under when a document is a record (LangChain's ``page_content``).
_DOCUMENT_TEXT_KEYS = ("text", "content", "page_content")


@dataclass(frozen=True)
class ToolRequest:
    """One tool call an assistant turn made, as an agent's transcript keeps it: the call's ``id`` (which the tool
    turn answering it names), the function's ``name`` and its ``arguments`` as the JSON text the API carries."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class Turn:
    """One message of a conversation: ``role`` (system, user, assistant or tool) and its text; an assistant turn of
    an agent's transcript may hold ``tool_calls``, and a tool turn (a tool's result) names the call it answers
    (``tool_call_id``)."""

    role: str
    content: str
    tool_calls: tuple[ToolRequest, ...] = ()
    tool_call_id: str | None = None
    #: the image parts of the content as given (``image_url``, ``input_image``), each with its position among the
    #: parts and as its JSON text; ``content`` is the text parts, joined
    images: tuple[tuple[int, str], ...] = ()
    #: the participant's ``name`` the message carries (OpenAI's ``{"role": "user", "name": "Emily_Baker", ...}``):
    #: sent as given, and read as the person's name (:func:`spoken_name`)
    name: str | None = None

    def message(self, images: bool = True) -> dict[str, Any]:
        """The turn as an OpenAI-style message: a tool call's id, function and arguments carried as the API
        requires them (an assistant turn that only calls tools has null content); image parts sent as given, in
        their place beside the text (``images=False``: the text alone, for a model that reads text only)."""
        content: Any = _with_images(self.content, self.images) if self.images and images else self.content
        if self.tool_calls:
            calls = [{"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                     for c in self.tool_calls]  # fmt: skip
            named = {"name": self.name} if self.name is not None else {}
            return {"role": self.role, **named, "content": content or None, "tool_calls": calls}
        if self.role == "tool":
            return {"role": "tool", "tool_call_id": self.tool_call_id, "content": content}
        if self.name is not None:
            return {"role": self.role, "name": self.name, "content": content}
        return {"role": self.role, "content": content}


@dataclass(frozen=True)
class Conversation:
    """A request as a deployed assistant receives it: its turns, the last one the user's (the turn the scored reply
    answers), and the retrieved documents (``context``) kept apart from the turns.

    Build one from OpenAI-style messages with :func:`parse_conversation` (or :meth:`from_messages`); a bare text
    with documents is ``Conversation((Turn("user", text),), context=docs)``.
    """

    turns: tuple[Turn, ...]
    context: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        problem = _turns_problem(self.turns) or _context_problem(self.context)
        if problem is not None:
            raise InputError(f"Conversation: {problem}")

    @classmethod
    def from_messages(cls, messages: Any, context: Any = None) -> Conversation:
        """From a list of ``{"role": ..., "content": ...}`` messages and, optionally, documents."""
        return parse_conversation(messages, "messages", context=context)

    @property
    def request(self) -> str:
        """The last user turn: what the scored reply answers."""
        return self.turns[-1].content

    @property
    def system_prompt(self) -> str | None:
        """The conversation's own system prompt (its system turns, joined), None when it has none."""
        system = [t.content for t in self.turns if t.role == "system"]
        return "\n\n".join(system) if system else None

    @property
    def has_images(self) -> bool:
        """Whether a turn holds image parts."""
        return any(t.images for t in self.turns)

    @property
    def has_tool_turns(self) -> bool:
        """Whether the conversation holds an agent's tool calls and their results."""
        return any(t.tool_calls or t.role == "tool" for t in self.turns)

    def replace_texts(
        self,
        turns: Sequence[str],
        context: Sequence[str],
        arguments: Sequence[Sequence[str]] | None = None,
        names: Sequence[str | None] | None = None,
    ) -> Conversation:
        """The same conversation with new turn texts (one per turn, in order) and documents, and, with
        ``arguments``, new arguments of each turn's tool calls (one sequence per turn, one text per call); with
        ``names``, new participant names (one per turn, None where it has none)."""
        if len(turns) != len(self.turns) or len(context) != len(self.context):
            raise InputError("replace_texts needs one text per turn and per document")
        if arguments is None:
            arguments = [[c.arguments for c in t.tool_calls] for t in self.turns]
        if len(arguments) != len(self.turns) or any(
            len(a) != len(t.tool_calls) for a, t in zip(arguments, self.turns, strict=True)
        ):
            raise InputError("replace_texts needs one arguments text per tool call")
        if names is None:
            names = [t.name for t in self.turns]
        if len(names) != len(self.turns):
            raise InputError("replace_texts needs one name (or None) per turn")
        new = [
            replace(t, content=text, tool_calls=tuple(map(_with_arguments, t.tool_calls, args)), name=name)
            for t, text, args, name in zip(self.turns, turns, arguments, names, strict=True)
        ]
        return Conversation(tuple(new), tuple(context))

    def messages(
        self, system_prompt: str | None = None, context_placement: ContextPlacement = "user", images: bool = True
    ) -> list[dict[str, Any]]:
        """The OpenAI-style messages a model is sent: ``system_prompt`` (the run's) first unless the conversation
        has a system turn of its own, then the turns (:meth:`Turn.message`; ``images=False``: their text alone);
        the documents in the last user message before the request (``"user"``) or at the end of the system message
        (``"system"``)."""
        if context_placement not in CONTEXT_PLACEMENTS:
            raise InputError(f"context_placement must be one of {list(CONTEXT_PLACEMENTS)}, got {context_placement!r}")
        turns = list(self.turns)
        block = context_block(self.context) if self.context else None
        if block is not None and context_placement == "user":
            turns[-1] = replace(turns[-1], content=f"{block}\n\n{turns[-1].content}")
        out = [t.message(images) for t in turns]
        if system_prompt is not None and not any(t.role == "system" for t in self.turns):
            out.insert(0, {"role": "system", "content": system_prompt})
        if block is None or context_placement == "user":
            return out
        if out[0]["role"] == "system":  # at the end of the system turn's text, beside its images (if any)
            first = turns[0] if turns[0].role == "system" else Turn("system", out[0]["content"])
            out[0] = replace(first, content=f"{first.content}\n\n{block}").message(images)
        else:
            out.insert(0, {"role": "system", "content": block})
        return out

    def text(self) -> str:
        """Every turn and document as one readable text ("user: ...", "context [1]: ..."), for tables and reports."""
        lines = [f"{t.role}{f' ({t.name})' if t.name else ''}: {t.content}" + " [image]" * len(t.images)
                 + "".join(f" [calls {c.name}({c.arguments})]" for c in t.tool_calls) for t in self.turns]  # fmt: skip
        lines += [f"context [{i}]: {doc}" for i, doc in enumerate(self.context, start=1)]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()


Prompt = str | Conversation


def _with_arguments(call: ToolRequest, arguments: str) -> ToolRequest:
    return replace(call, arguments=arguments)


def context_block(documents: Sequence[str]) -> str:
    """The documents as a retrieval-augmented application writes them into a prompt: numbered, one block each."""
    numbered = "\n\n".join(f"[{i}] {doc}" for i, doc in enumerate(documents, start=1))
    return f"Documents:\n{numbered}"


def prompt_text(prompt: Prompt) -> str:
    """How a prompt reads in a table or a report: a text itself, a conversation :meth:`Conversation.text`."""
    return prompt.text() if isinstance(prompt, Conversation) else prompt


def plain_text(prompt: Prompt) -> str:
    """A prompt's words as one text (its turns and documents, a blank line apart): what a language guess reads."""
    if isinstance(prompt, Conversation):
        return "\n\n".join([t.content for t in prompt.turns] + list(prompt.context))
    return prompt


def prompt_messages(
    prompt: Prompt, system_prompt: str | None = None, context_placement: ContextPlacement = "user", images: bool = True
) -> list[dict[str, Any]]:
    """What a model is sent for ``prompt``: a bare text as the user message after the run's system prompt (as
    always), a conversation as :meth:`Conversation.messages` says."""
    if isinstance(prompt, Conversation):
        return prompt.messages(system_prompt, context_placement, images)
    if system_prompt is None:
        return [{"role": "user", "content": prompt}]
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": prompt}]


def request_key(prompt: Prompt, context_placement: ContextPlacement = "user") -> str:
    """The text that identifies a prompt in the generation store: a bare text is itself (so stores written before
    conversations existed are read as they were); a conversation is its messages as canonical JSON (the run's own
    system prompt is part of the job key, not of this)."""
    if isinstance(prompt, Conversation):
        return json.dumps(prompt.messages(None, context_placement), ensure_ascii=False, separators=(",", ":"))
    return prompt


def has_conversations(prompts: Iterable[Any]) -> bool:
    return any(isinstance(p, Conversation) for p in prompts)


def with_images(prompts: Iterable[Any]) -> int:
    """How many of ``prompts`` hold images."""
    return sum(isinstance(p, Conversation) and p.has_images for p in prompts)


def _with_images(text: str, images: tuple[tuple[int, str], ...]) -> list[dict[str, Any]]:
    """Content parts: the image parts as given, in their places, and the text (one part, where the first text part
    stood; of the type the images' API takes) unless it is empty."""
    parts = [json.loads(image) for _, image in images]
    taken = {position for position, _ in images}
    if text:
        kind = "input_text" if any(p.get("type") == "input_image" for p in parts) else "text"
        parts.insert(next(i for i in range(len(images) + 1) if i not in taken), {"type": kind, "text": text})
    return parts


# ----------------------------------------------------------------------------------------------------------------
# reading and checking


def _turns_problem(turns: Any) -> str | None:
    if not isinstance(turns, tuple) or not turns:
        return "a conversation needs at least one turn"
    for number, turn in enumerate(turns, start=1):
        if not isinstance(turn, Turn):
            return f"message {number} is a {type(turn).__name__}, not a Turn"
        if turn.role not in ROLES:
            return f"message {number}: 'role' is {turn.role!r}; a role is system, user, assistant or tool"
        texts = [turn.content, *(c.arguments for c in turn.tool_calls)]
        if not isinstance(turn.content, str):
            return f"message {number}: 'content' is a {type(turn.content).__name__}, not a text"
        if any(RESERVED in text for text in texts if isinstance(text, str)):
            return (
                f"message {number}: 'content' holds the control character U+0001, which evenhand uses to keep turns "
                "apart; remove it"
            )
    problem = _tool_turns_problem(turns)
    if problem is not None:
        return problem
    last = turns[-1]
    if last.role != "user":
        return (
            f"the last message is the {last.role}'s; a conversation ends with the user turn the reply answers "
            f"(message {len(turns)})"
        )
    if not last.content.strip() and not last.images:
        return f"the last user turn (message {len(turns)}) is empty"
    return None


def _tool_turns_problem(turns: tuple[Turn, ...]) -> str | None:
    """Where an agent's transcript breaks what a chat API requires of tool turns: tool calls only on assistant
    turns, each answered by a tool turn naming its id before the next turn of another role, and a tool turn only
    after the call it answers."""
    open_calls: dict[str, int] = {}  # call id -> the message that made it, until a tool turn answers it
    for number, turn in enumerate(turns, start=1):
        if turn.role != "tool" and open_calls:
            pending, made = next(iter(open_calls.items()))
            return (
                f"message {made}: tool call {pending!r} has no tool result (a 'tool' message with that "
                f"'tool_call_id') before message {number}"
            )
        if turn.tool_calls and turn.role != "assistant":
            return f"message {number}: only an assistant turn makes tool calls, not the {turn.role}'s"
        for call in turn.tool_calls:
            if call.id in open_calls:
                return f"message {number}: two tool calls have the id {call.id!r}"
            open_calls[call.id] = number
        if turn.role == "tool":
            if turn.tool_call_id not in open_calls:
                return (
                    f"message {number}: a tool result's 'tool_call_id' ({turn.tool_call_id!r}) names no tool call of "
                    "the assistant turn before it"
                )
            del open_calls[turn.tool_call_id]
    return None


def _context_problem(context: Any) -> str | None:
    if not isinstance(context, tuple):
        return "context must be a tuple of texts"
    for number, doc in enumerate(context, start=1):
        if not isinstance(doc, str):
            return f"context document {number} is a {type(doc).__name__}, not a text"
        if RESERVED in doc:
            return f"context document {number} holds the control character U+0001; remove it"
    return None


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:
        import pandas as pd

        return value is pd.NA or value is pd.NaT
    except ImportError:  # pragma: no cover - pandas is a dependency
        return False


def _is_sequence(value: Any) -> bool:
    """A list of messages as JSON, Parquet (a NumPy array) or Python gives it."""
    return isinstance(value, (list, tuple)) or (getattr(value, "ndim", 0) == 1 and hasattr(value, "tolist"))


#: The types of a text part of a message's content: Chat Completions' "text", the Responses API's "input_text" (a
#: user's) and "output_text" (an assistant's); and of an image part (Chat Completions', the Responses API's).
_TEXT_PARTS = ("text", "input_text", "output_text")
_IMAGE_PARTS = ("image_url", "input_image")


def _content_parts(content: Any) -> tuple[str, tuple[tuple[int, str], ...]] | None:
    """A message's content as its text (a string, or its text parts joined) and its image parts (position, JSON
    text); None when it is neither (a number, null, a part of another kind)."""
    if isinstance(content, str):
        return content, ()
    if not _is_sequence(content):
        return None
    parts = list(content)
    if not parts or not all(isinstance(p, Mapping) and p.get("type") in (*_TEXT_PARTS, *_IMAGE_PARTS) for p in parts):
        return None
    texts = [p.get("text") for p in parts if p["type"] in _TEXT_PARTS]
    if not all(isinstance(t, str) for t in texts):
        return None
    images = tuple((i, json.dumps(p, sort_keys=True)) for i, p in enumerate(parts) if p["type"] in _IMAGE_PARTS)
    return "".join(texts), images


def _turn(message: Any, number: int, where: str) -> Turn:
    if isinstance(message, Turn):
        return message
    if not isinstance(message, Mapping):
        raise InputTypeError(
            f"{where}: message {number} is a {type(message).__name__}, not a message ({{'role': ..., 'content': ...}})"
        )
    if "role" not in message:
        raise InputError(f"{where}: message {number} has no 'role' key; give one of system, user, assistant, tool")
    role = ROLE_ALIASES.get(message["role"], message["role"]) if isinstance(message["role"], str) else message["role"]
    if role not in ROLES:
        hint = " (a function result is read as a 'tool' message with a 'tool_call_id')" if role == "function" else ""
        raise InputError(
            f"{where}: message {number}: 'role' is {role!r}; a role is system, user, assistant or tool{hint}"
        )
    calls = _tool_requests(message, number, where) if role == "assistant" else ()
    if "content" not in message and not calls:
        raise InputError(f"{where}: message {number} has no 'content' key; give its text")
    content = message.get("content")
    if role == "tool" and _is_json_result(content):
        # a tool's result as agent frameworks log it, an object or an array: the JSON text a chat API takes
        content = json.dumps(content, ensure_ascii=False, default=_json_scalar)
    read = ("", ()) if calls and content is None else _content_parts(content)
    if read is None:
        kind = type(content).__name__ if content is not None else "null"
        raise InputTypeError(f"{where}: message {number}: 'content' is {_article(kind)}, not a text")
    text, images = read
    if role != "tool":
        return Turn(role, text, calls, images=images, name=participant_name(message, number, where))
    call_id = message.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        raise InputError(
            f"{where}: message {number}: a tool result needs its 'tool_call_id' (the id of the call it answers)"
        )
    return Turn(role, text, tool_call_id=call_id, images=images)


def _is_json_result(content: Any) -> bool:
    """Whether a tool turn's content is a JSON object or array (not a text, nor a list of content parts)."""
    if isinstance(content, Mapping):
        return True
    return _is_sequence(content) and (not len(content) or _content_parts(content) is None)


def _json_scalar(value: Any) -> Any:
    """A value JSON does not write by itself, as Parquet or pandas give it (a NumPy number or array): as Python's."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"a tool result holds {_article(type(value).__name__)}, which JSON cannot write")


def _tool_requests(message: Mapping[str, Any], number: int, where: str) -> tuple[ToolRequest, ...]:
    """The tool calls of an assistant message as OpenAI's API writes them (``[{"id", "type": "function",
    "function": {"name", "arguments"}}]``); arguments given as an object are kept as their JSON text."""
    raw = message.get("tool_calls")
    if raw is None:
        return ()
    if not _is_sequence(raw):
        raise InputTypeError(f"{where}: message {number}: 'tool_calls' is {_article(type(raw).__name__)}, not a list")
    calls = []
    for k, call in enumerate(list(raw), start=1):
        function = call.get("function") if isinstance(call, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        call_id = call.get("id") if isinstance(call, Mapping) else None
        if not isinstance(name, str) or not isinstance(call_id, str) or not call_id:
            raise InputError(
                f"{where}: message {number}: tool call {k} needs an 'id' and a 'function' with a 'name' "
                "({'id': ..., 'type': 'function', 'function': {'name': ..., 'arguments': ...}})"
            )
        arguments = function.get("arguments", "{}") if isinstance(function, Mapping) else "{}"
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments, ensure_ascii=False)
        calls.append(ToolRequest(call_id, name, arguments))
    return tuple(calls)


def _article(kind: str) -> str:
    return kind if kind == "null" else (f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}")


def parse_context(value: Any, where: str) -> tuple[str, ...]:
    """Retrieved documents from a cell: a text (one document), a list of texts, or a list of records holding the
    text under ``text``, ``content`` or ``page_content`` (or one such record); a record without such a key (a JSON
    record a retrieval step or lookup returned, ``{"customer": {"name": ...}}``) is one document, its JSON text, as a
    tool result given as an object is (deploy18); missing or blank: none."""
    if _is_missing(value):
        return ()
    if isinstance(value, str):
        return (value,) if value.strip() else ()
    if isinstance(value, Mapping):
        value = [value]  # one record alone in its cell: one document
    if not _is_sequence(value):
        raise InputTypeError(f"{where}: the context is {_article(type(value).__name__)}, not a text or a list of texts")
    documents: list[str] = []
    for number, doc in enumerate(list(value), start=1):
        if isinstance(doc, Mapping):
            key = next((k for k in _DOCUMENT_TEXT_KEYS if k in doc), None)
            doc = doc[key] if key is not None else _json_text(doc, f"{where}: context document {number}")
        if not isinstance(doc, str):
            raise InputTypeError(f"{where}: context document {number} is {_article(type(doc).__name__)}, not a text")
        if doc.strip():
            documents.append(doc)
    return tuple(documents)


def _json_text(value: Any, where: str) -> str:
    """A JSON record as the text a model is sent (a chat API takes text); one line naming ``where`` if it is no JSON."""
    try:
        return json.dumps(value, ensure_ascii=False, default=_json_scalar)
    except (TypeError, ValueError) as error:
        raise InputTypeError(f"{where} is a record JSON cannot write: {error}") from None


def parse_conversation(messages: Any, where: str, *, context: Any = None) -> Conversation:
    """A :class:`Conversation` from OpenAI-style messages (a list of ``{"role", "content"}`` mappings, a NumPy
    array of them as Parquet gives it, or :class:`Turn` objects), checked: one :class:`InputError` naming ``where``,
    the message and the key for the first problem."""
    if isinstance(messages, Conversation):
        turns, documents = messages.turns, messages.context
    else:
        if not _is_sequence(messages):
            raise InputTypeError(f"{where} is {_article(type(messages).__name__)}, not a list of messages")
        items = list(messages)
        if not items:
            raise InputError(f"{where}: the list of messages is empty")
        turns = tuple(_turn(m, number, where) for number, m in enumerate(items, start=1))
        documents = ()
    if context is not None:
        documents = documents + parse_context(context, where)
    problem = _turns_problem(turns) or _context_problem(documents)
    if problem is not None:
        raise InputError(f"{where}: {problem}")
    return Conversation(turns, documents)


def as_prompt(value: Any, where: str) -> Prompt:
    """One prompt: a text, or a conversation (a list of messages, a record, a :class:`Conversation`), checked;
    ``where`` names it in the error."""
    if isinstance(value, (str, Conversation)):  # a Conversation checked itself when it was made
        return value
    if isinstance(value, Mapping) and ("turns" in value or "messages" in value):
        # a conversation as a record: {"messages": [...], "context": [...]}, or as a Conversation dumps itself
        # (dataclasses.asdict, pydantic's model_dump: {"turns": [...], "context": [...]})
        extra = sorted(set(value) - {"turns", "messages", "context"})
        if extra or ("turns" in value and "messages" in value):
            raise InputError(f"{where}: a conversation record holds 'messages' (or 'turns') and 'context' only, not "
                             f"{', '.join(repr(k) for k in extra) or 'both turns and messages'}")  # fmt: skip
        messages = value["turns"] if "turns" in value else value["messages"]
        return parse_conversation(messages, where, context=value.get("context"))
    if _is_sequence(value):
        if len(value) and all(isinstance(v, str) for v in value):
            raise InputTypeError(
                f"{where} is a list of texts; a conversation is a list of messages ({{'role': ..., 'content': ...}})"
            )
        return parse_conversation(value, where)
    hint = "; replace missing values with '' or drop them" if _is_missing(value) else ""
    raise InputTypeError(
        f"{where} is {type(value).__name__} ({value!r:.60}), expected str or a list of messages{hint}"
    )


def as_prompt_list(prompts: Any, name: str = "prompts", *, allow_empty: bool = False) -> list[Prompt]:
    """``prompts`` as a list of texts and :class:`Conversation`\\ s (a list of messages becomes one, checked); the
    first problem raises one line naming ``name[i]``, the message and the key."""
    items = _to_list(prompts, name)
    if not items and not allow_empty:
        raise InputError(f"{name} is empty: pass at least one prompt")
    if all(isinstance(item, str) for item in items):  # texts, as they are (the common case, without a name per item)
        return list(items)
    return [as_prompt(item, f"{name}[{i}]") for i, item in enumerate(items)]


def build_prompts(
    prompts: Sequence[Any],
    *,
    context: Sequence[Any] | None = None,
    system_prompts: Sequence[Any] | None = None,
    where: Any = None,
) -> list[Prompt]:
    """Prompts with their own documents and system prompts (columns of a prompts file, or lists aligned with the
    prompts): a prompt that gets either becomes a :class:`Conversation`; one without stays as it is. ``where(i)``
    names row ``i`` in errors (default ``prompts[i]``)."""
    locate = where or (lambda i: f"prompts[{i}]")
    for extra, label in ((context, "context"), (system_prompts, "system_prompts")):
        if extra is not None and len(extra) != len(prompts):
            raise InputError(f"{label} has {len(extra)} entries for {len(prompts)} prompts")
    out: list[Prompt] = []
    for i, value in enumerate(prompts):
        prompt = as_prompt(value, locate(i))
        documents = parse_context(context[i], locate(i)) if context is not None else ()
        system = system_prompts[i] if system_prompts is not None else None
        if system is not None and not _is_missing(system) and not isinstance(system, str):
            raise InputTypeError(f"{locate(i)}: the system prompt is {_article(type(system).__name__)}, not a text")
        system = system if isinstance(system, str) and system.strip() else None
        if not documents and system is None:
            out.append(prompt)
            continue
        conversation = prompt if isinstance(prompt, Conversation) else Conversation((Turn("user", prompt),))
        turns = conversation.turns
        if system is not None:
            if conversation.system_prompt is not None:
                raise InputError(
                    f"{locate(i)}: the conversation has a system turn and a system prompt is given beside it; keep one"
                )
            turns = (Turn("system", system), *turns)
        out.append(parse_conversation(Conversation(turns, conversation.context + documents), locate(i)))
    return out
