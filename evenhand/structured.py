"""Structured replies: a value read from a JSON answer by a dotted path, and tool calls.

A deployed assistant often gives its decision as JSON (``{"decision": "advance", "reason": ...}``) or as a call of a
tool (``advance_candidate(...)``). Everything here is pure text handling, shared by every layer that reads replies:

* :func:`json_field` reads the value at a dotted path (``"decision"``, ``"result.score"``, ``"offers.0.amount"`` or
  ``"offers[0].amount"``) from the JSON a reply holds: the whole reply, a fenced code block, or the first JSON object
  in the text. Classification maps that value to a label (:class:`JsonFieldLabelParser`); a numeric task reads a
  number from it.
* A reply that calls tools is kept as one text (the generation store keeps texts): :func:`tool_reply_text` writes
  ``{"content": ..., "tool_calls": [{"name": ..., "arguments": {...}}]}``, :func:`tool_calls_in` reads it back, and
  :class:`ToolCallLabelParser` reads a label from which function was called or from one of its arguments.

* :func:`answer_text` is a reply's answer: a reasoning model that writes its deliberation into the reply
  (``<think>...</think>``) is read by what follows it, by every reader (the response frame holds the answer).

A reply that holds no such value gives None (a parser's "could not parse"): the pipeline counts those per group, it
never guesses.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from evenhand.errors import InputError, InputTypeError

__all__ = [
    "MISSING",
    "REASONING_ONLY",
    "FieldInPlaces",
    "JsonFieldLabelParser",
    "LabelWords",
    "ToolCall",
    "ToolCallLabelParser",
    "answer_starts",
    "answer_text",
    "json_document",
    "json_field",
    "message_reply_text",
    "openai_tool_calls",
    "parse_path",
    "read_path",
    "tool_calls_in",
    "tool_reply_text",
]


class _Missing:
    """The value of a path a document does not have (``None`` is a value: JSON's null)."""

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Final = _Missing()


@dataclass(frozen=True)
class FieldInPlaces:
    """What a bare field name reads where the document holds that key in two or more places at different depths
    (``{"applicant": {"decision": ...}, "review": {"decision": ...}}``): no value, never a guess between them; the
    places (dotted paths) say why, and which path to give instead."""

    places: tuple[str, ...]

    def __bool__(self) -> bool:
        return False

    def reason(self) -> str:
        return f"the field is in {len(self.places)} places ({', '.join(self.places)}): give one as a dotted path"


_MAX_PLACES = 4096  # values visited when a bare name is looked for at any depth (bounds the work on a huge document)
_FENCED = re.compile(r"```[ \t]*(?:json|JSON|javascript|js)?[ \t]*\r?\n?(.*?)```", re.DOTALL)
_PATH_PART = re.compile(r"\[(-?\d+)\]|([^.\[\]]+)")
# a whole path: a key or [n], then ".key" or "[n]" parts (no empty part: "a..b", ".a", "a." are typos)
_PATH = re.compile(r"(?:[^.\[\]]+|\[-?\d+\])(?:\.[^.\[\]]+|\[-?\d+\])*")
_MAX_STARTS = 64  # objects tried in a long reply before giving up (bounds the work on a reply of many braces)


#: The tags reasoning models wrap their deliberation in when it is written into the reply (DeepSeek-R1, Qwen3 and
#: their distillations served without a reasoning parser).
_REASONING_TAG = r"think|thinking|reasoning|thought"
#: A reply's leading reasoning block, opened in the reply: the opening tag and its closing one.
_REASONING_BLOCK = re.compile(rf"\s*<(?:{_REASONING_TAG})>.*?</(?:{_REASONING_TAG})>\s*", re.IGNORECASE | re.DOTALL)
_REASONING_OPENED = re.compile(rf"\s*<(?:{_REASONING_TAG})>", re.IGNORECASE)
_OPENING_TAG = re.compile(rf"<(?:{_REASONING_TAG})>", re.IGNORECASE)
#: A closing tag alone that ends a block the chat template opened (DeepSeek-R1 style servers leave only
#: ``</think>`` in the reply), where reasoning models write it: at the start of a line ("...\n</think>\n\nYes"),
#: right after a sentence at the end of a line ("... It is fine.</think>\n\nYes"), or after the deliberation's last
#: word with the answer after it, starting anew ("so yes</think> Yes", "so yes </think> Yes", "so yes</think>\n\nyes":
#: on the same line or the next with a capital, a digit, a brace or a mark, or after a blank line); whitespace
#: around the tag changes nothing (inputs14: "so yes </think> Yes" was read whole). One inside a sentence ("close
#: the block with </think> and answer", "`</think>`", "the tag is </think>.", "notes with </think>\nbefore the
#: decision") is a reply writing about the tag, not the end of its reasoning: a quote stands before the tag it names,
#: or the sentence goes on after it.
_STARTS_ANEW = r"""(?-i:[A-Z0-9{\[*#"“'])"""
_TEMPLATE_BLOCK_END = re.compile(
    rf"(?:(?:\A|\n)[ \t]*</(?:{_REASONING_TAG})>|(?<=[.!?…])[ \t]*</(?:{_REASONING_TAG})>[ \t]*(?=\n|\Z)"
    rf"|(?<=[\w.!?…,;:])[ \t]*</(?:{_REASONING_TAG})>"
    rf"(?=[ \t]*{_STARTS_ANEW}|[ \t]*\n[ \t]*{_STARTS_ANEW}|[ \t]*\n[ \t]*\n\s*\S))\s*",
    re.IGNORECASE,
)
#: Why a reply that is all reasoning has no answer (the response frame's ``error``).
REASONING_ONLY: Final = "no answer after the reasoning block"


def answer_text(reply: str) -> str:
    """The answer of a reply: what follows a leading reasoning block (``<think>...</think>``), else the reply as
    written; ``""`` for a reply cut inside its reasoning (an opening tag never closed). What the model deliberated is
    not what it answered: every reader (label words, JSON, refusals, toxicity, sentiment, length) reads the answer.
    A closing tag alone ends a block the chat template opened only where reasoning models write it (a line of its
    own, or after a sentence at a line's end); inside a sentence it is a reply writing about the tag.

    >>> answer_text("<think>Say no? The record is fine.</think>\\n\\nYes")
    'Yes'
    """
    if _REASONING_OPENED.match(reply) is not None:
        block = _REASONING_BLOCK.match(reply)
        return reply[block.end() :] if block is not None else ""
    # a closing tag alone ends a block the template opened where it stands apart from the sentences around it, and
    # never after an opening tag the reply wrote after its start ("wrap it in <think> and </think> tags")
    end = _TEMPLATE_BLOCK_END.search(reply)
    if end is not None and _OPENING_TAG.search(reply, 0, end.start()) is None:
        return reply[end.end() :]
    return reply


def json_document(text: str | None) -> Any:
    """The JSON a reply holds, or :data:`MISSING`: the whole reply, else the first fenced code block (```json), else
    the first ``{...}`` object that parses (models often write a sentence around it), else the first ``[...]`` list
    that does (an object first: "per policy [3]: {...}" is read as its object)."""
    if not isinstance(text, str) or not text.strip():
        return MISSING
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    for block in _FENCED.findall(text):
        try:
            return json.loads(block)
        except ValueError:
            continue
    for opening in "{[":
        document = _first_parsed(text, opening)
        if document is not MISSING:
            return document
    return MISSING


def _first_parsed(text: str, opening: str) -> Any:
    """The first JSON value in ``text`` that starts at an ``opening`` bracket and parses, or :data:`MISSING`."""
    decoder = json.JSONDecoder()
    start = text.find(opening)
    tried = 0
    while start >= 0 and tried < _MAX_STARTS:
        try:
            document, _ = decoder.raw_decode(text, start)
            return document
        except ValueError:
            tried += 1
            start = text.find(opening, start + 1)
    return MISSING


def parse_path(path: str) -> tuple[str | int, ...]:
    """``"offers.0.amount"`` or ``"offers[0].amount"`` -> ``("offers", 0, "amount")``; a part of digits is a list
    position (and a key of those digits in an object); space around a part is dropped (``" offer . salary "``).
    Raises InputError naming the path when it is empty or has an empty part ("a..b", ".a", "a.")."""
    if not isinstance(path, str):
        raise InputTypeError(
            f"a JSON field path is a dotted path such as 'decision' or 'result.label', got {type(path).__name__}"
        )
    parts: list[str | int] = []
    for number, word in _PATH_PART.findall(path.strip()) if _PATH.fullmatch(path.strip()) else ():
        if number:
            parts.append(int(number))
        else:
            word = word.strip()
            parts.append(int(word) if re.fullmatch(r"-?\d+", word) else word)
    if not parts or any(p == "" for p in parts):
        raise InputError(f"a JSON field path is a dotted path such as 'decision' or 'result.label', got {path!r}")
    return tuple(parts)


def read_path(document: Any, path: str | Sequence[str | int]) -> Any:
    """The value at ``path`` in a parsed JSON document, or :data:`MISSING`. Keys match exactly, else ignoring case
    when that names one key; a number is a list position (negative from the end) or a key of those digits. A bare
    name (``"decision"``) that the top level does not hold is looked for at any depth (``{"result": {"decision":
    ...}}``, inside lists too): found in one place, its value; in two or more, :class:`FieldInPlaces` (no value)."""
    parts = parse_path(path) if isinstance(path, str) else tuple(path)
    if len(parts) == 1 and isinstance(parts[0], str):
        key = _key_in(document, parts[0]) if isinstance(document, Mapping) else MISSING
        return document[key] if key is not MISSING else _anywhere(document, parts[0])
    value = document
    for part in parts:
        if isinstance(value, Mapping):
            key = _key_in(value, str(part))
            if key is MISSING:
                return MISSING
            value = value[key]
        elif isinstance(value, list) and isinstance(part, int) and -len(value) <= part < len(value):
            value = value[part]
        else:
            return MISSING
    return value


def _key_in(mapping: Mapping[Any, Any], key: str) -> Any:
    """The key of ``mapping`` that is ``key``: exactly, else ignoring case when that names one; else MISSING."""
    if key in mapping:
        return key
    folded = [k for k in mapping if isinstance(k, str) and k.casefold() == key.casefold()]
    return folded[0] if len(folded) == 1 else MISSING


def _anywhere(document: Any, key: str) -> Any:
    """The value of ``key`` found at any depth of ``document`` (each object's key as :func:`_key_in` finds it):
    MISSING where no object holds it, :class:`FieldInPlaces` where two or more do."""
    found: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [("", document)]
    visited = 0
    while stack and visited < _MAX_PLACES:
        where, value = stack.pop()
        visited += 1
        if isinstance(value, Mapping):
            held = _key_in(value, key)
            if held is not MISSING:
                found.append((f"{where}.{held}".lstrip("."), value[held]))
            stack.extend((f"{where}.{k}".lstrip("."), v) for k, v in reversed(list(value.items())))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(value))))
    if not found:
        return MISSING
    return found[0][1] if len(found) == 1 else FieldInPlaces(tuple(sorted(w for w, _ in found)))


def json_field(text: str | None, path: str | Sequence[str | int]) -> Any:
    """The value at ``path`` in the JSON ``text`` holds (:func:`json_document`), or :data:`MISSING` (a bare name in
    two or more places: :class:`FieldInPlaces`, see :func:`read_path`). A reply of
    tool calls is read as the arguments of the calls that hold the path (``{"decision": ...}`` passed to a tool reads
    the same; parallel calls, a lookup before the decision, read the decision), :data:`MISSING` when two of them give
    it two values; when none holds it, the JSON in the reply's words beside the calls.

    >>> json_field('Sure. {"decision": "advance", "score": {"value": 7}}', "score.value")
    7
    >>> json_field("no JSON here", "decision")
    MISSING
    """
    calls = tool_calls_in(text)
    if calls:
        # parallel calls (a lookup, then the decision): the calls that hold the path; two values say two things
        values = [v for v in (read_path(c.arguments, path) for c in calls) if v is not MISSING]
        if values:
            in_places = next((v for v in values if isinstance(v, FieldInPlaces)), None)
            if in_places is not None:  # a call holding the name twice says no one thing
                return in_places
            return values[0] if all(v == values[0] for v in values) else MISSING
        text = _content_beside_calls(str(text))  # no call holds it: a JSON answer in the words beside them
    document = json_document(text)
    return MISSING if document is MISSING else read_path(document, path)


# ----------------------------------------------------------------------------------------------------------------
# tool calls


@dataclass(frozen=True)
class ToolCall:
    """One call of a tool in a reply: the function's name and its arguments (parsed JSON; the raw text when the
    model wrote arguments that are not JSON)."""

    name: str
    arguments: Any = field(default_factory=dict)


_TOOL_CALLS = "tool_calls"


def tool_reply_text(content: str | None, calls: Sequence[ToolCall]) -> str:
    """A reply with tool calls as the one text it is stored and shown as:
    ``{"content": "...", "tool_calls": [{"name": "advance_candidate", "arguments": {...}}]}`` (no ``content`` key
    when the reply had no text). Read it back with :func:`tool_calls_in`."""
    document: dict[str, Any] = {}
    if content is not None and content.strip():
        document["content"] = content
    document[_TOOL_CALLS] = [{"name": c.name, "arguments": c.arguments} for c in calls]
    return json.dumps(document, ensure_ascii=False)


def tool_calls_in(text: str | None) -> tuple[ToolCall, ...] | None:
    """The tool calls of a reply written by :func:`tool_reply_text`, or of an OpenAI-style assistant message kept as
    JSON as a server sent it (a chat log's ``{"role": "assistant", "content": null, "tool_calls": [{"function":
    {"name": ..., "arguments": "<JSON text>"}}]}``, or the older ``function_call``), in order; None when the reply is
    neither."""
    if not isinstance(text, str) or "_call" not in text or not text.lstrip().startswith("{"):
        return None
    try:
        document = json.loads(text)
    except ValueError:
        return None
    if isinstance(document, dict) and _is_assistant_message(document):
        return openai_tool_calls(document) or None
    calls = document.get(_TOOL_CALLS) if isinstance(document, dict) else None
    if not isinstance(calls, list) or not set(document) <= {"content", _TOOL_CALLS}:
        return None
    out = []
    for call in calls:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return None
        out.append(ToolCall(call["name"], call.get("arguments", {})))
    return tuple(out)


def _content_beside_calls(text: str) -> str | None:
    """The words of a reply of tool calls (:func:`tool_calls_in` read it), None without any."""
    document = json.loads(text)
    if _is_assistant_message(document):
        document = json.loads(message_reply_text(document) or "{}")
    content = document.get("content")
    return content if isinstance(content, str) else None


def _is_assistant_message(document: Mapping[str, Any]) -> bool:
    """An OpenAI-style assistant message that calls tools: ``role`` assistant (or none), and ``tool_calls`` entries
    that hold a ``function`` or a ``function_call`` (what :func:`tool_reply_text` writes holds neither)."""
    if document.get("role", "assistant") != "assistant":
        return False
    raw = document.get(_TOOL_CALLS)
    by_entries = isinstance(raw, list) and bool(raw) and all(isinstance(c, Mapping) and "function" in c for c in raw)
    return by_entries or isinstance(document.get("function_call"), Mapping)


def message_reply_text(message: Mapping[str, Any]) -> str | None:
    """The text an OpenAI-style assistant message is kept as: its ``content`` (a text, or text parts joined), or
    with tool calls :func:`tool_reply_text` of both; without content its ``refusal`` (structured outputs refuse
    there: a refusal, never a failed request); None when it holds none of them (no reply). What the OpenAI client
    stores and what a responses table's message cell (a chat log) is read as."""
    content = message.get("content")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": "..."}]
        parts = [p.get("text") if isinstance(p, Mapping) else p for p in content]
        content = "".join(p for p in parts if isinstance(p, str)) if parts else None
    content = content if isinstance(content, str) else None
    refusal = message.get("refusal")
    if (content is None or not content.strip()) and isinstance(refusal, str) and refusal.strip():
        content = refusal
    calls = openai_tool_calls(message)
    return tool_reply_text(content, calls) if calls else content


def openai_tool_calls(message: Mapping[str, Any]) -> tuple[ToolCall, ...]:
    """The tool calls of an OpenAI-style assistant message (``tool_calls``, or the older ``function_call``), their
    arguments parsed from the JSON text the API sends (kept as text when it does not parse)."""
    raw = message.get("tool_calls")
    entries = [c.get("function") for c in raw if isinstance(c, Mapping)] if isinstance(raw, list) else []
    legacy = message.get("function_call")
    if not entries and isinstance(legacy, Mapping):
        entries = [legacy]
    out = []
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("name"), str):
            continue
        arguments = _decoded(entry.get("arguments", {}))
        if isinstance(arguments, str) and arguments.lstrip().startswith("{"):
            arguments = _decoded(arguments)  # some servers' tool parsers encode them twice: a JSON text's JSON text
        out.append(ToolCall(entry["name"], arguments))
    return tuple(out)


def _decoded(arguments: Any) -> Any:
    """A call's arguments parsed from the JSON text the API sends (``{}`` for a blank one); the model's text as it
    wrote it when it does not parse (a path into it finds nothing); anything else as it is."""
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments


# ----------------------------------------------------------------------------------------------------------------
# labels


#: A negation that governs the word after it: "not", "never", "cannot", "-n't", then at most three words in the same
#: clause ("would not recommend that we advance").
_NEGATED = re.compile(r"(?:\bnot|n['’]t|\bnever|\bcannot|\bno)(?:\s+[\w'’-]+){0,3}\s*$", re.IGNORECASE)
#: "no" before a noun says there is none of it ("no problems", "no reason to deny"): no answer, and a negation of what
#: follows; "No.", "No, ...", "No I would not" and "No way" are the answer
_NO_BEFORE_A_NOUN = re.compile(
    r"no[ \t]+(?!(?:i|we|you|he|she|they|it|this|that|way|not|sorry|thanks?)\b)[a-z]", re.IGNORECASE
)

#: Where a reply gives its answer after reasoning, a table of criteria or a cited figure: "Final answer: yes",
#: "**Decision:** deny", "| **Offer** | $72,000 |", a heading "## Final answer". What is read after the last such
#: marker is the reply's answer (:func:`answer_starts`), so that a criterion's "No" or a benchmark's "$65,000"
#: earlier in the reply is not taken for it.
_DECIDING_WORD = r"(?:final\s+)?(?:answer|decision|verdict)"
_ANSWER_WORD = (
    r"(?:final\s+)?(?:answer|decision|verdict|recommendation|conclusion|outcome|estimate|offer|salary|price|figure)"
)


def _marker(word: str) -> re.Pattern[str]:
    """The marks of an answer named by ``word``: "Word:", "**Word:**", a table row's first cell, a heading."""
    return re.compile(
        rf"\b{word}[\"']?\s*(?:\*\*|__)?\s*[:：]"  # Decision: / **Decision:** / Decision**: / "decision":
        rf"|\|\s*(?:\*\*|__)?{word}(?:\*\*|__)?\s*\|"  # a table row's first cell
        rf"|^[ \t]*#{{1,6}}[ \t]*{word}[ \t]*#*[ \t]*$",  # a heading
        re.IGNORECASE | re.MULTILINE,
    )


_ANSWER_MARKER = _marker(_ANSWER_WORD)
#: The markers that name the decision itself ("Decision:", "Final answer:", "Verdict:"): a label after one is the
#: answer, whatever a "Recommendation:", "Conclusion:" or "Outcome:" after it advises ("**Decision:** Deny\n\n
#: **Recommendation:** Approve if the applicant adds a co-signer" is a denial)
_DECISION_MARKER = _marker(_DECIDING_WORD)


def answer_starts(text: str) -> list[int]:
    """Where the answers a reply marks start, in order: just after each "Final answer:", "**Decision:**",
    "Offer:", a table row or a heading that names the answer. A reader reads after the last one where what it reads
    stands, else the whole reply.

    >>> answer_starts("Median: $65,000. Final answer: $60,000")
    [30]
    """
    return [m.end() for m in _ANSWER_MARKER.finditer(text)]


@dataclass(frozen=True)
class LabelWords:
    """Each label and the words that signal it (``{"1": ["yes", "advance"], "0": ["no", "reject"]}``): a value is
    a label when it is one of them (case and surrounding space aside), else the label whose word appears first in
    it as a whole word."""

    labels: Mapping[str, Sequence[str]]
    _lookup: dict[str, str] = field(init=False, repr=False, compare=False)
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)
    _choice: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.labels:
            raise InputError("labels is empty: map each label to the words that signal it")
        lookup: dict[str, str] = {}
        for label, words in self.labels.items():
            if isinstance(words, str):
                raise InputTypeError(f"labels[{label!r}] must be a list of words, not a single string")
            for word in [label, *words]:
                key = str(word).strip().lower()
                if key in lookup and lookup[key] != label:
                    raise InputError(f"keyword {word!r} signals both {lookup[key]!r} and {label!r}")
                lookup[key] = label  # as given (a caller may key labels by number)
        object.__setattr__(self, "_lookup", lookup)
        alternatives = "|".join(re.escape(w) for w in sorted(lookup, key=len, reverse=True))
        word = rf"(?<!\w)(?:{alternatives})(?!\w)"
        object.__setattr__(self, "_regex", re.compile(word, re.IGNORECASE))
        object.__setattr__(self, "_choice", re.compile(rf"{word}(?:,?\s*(?:/|\||\bor\b)\s*{word})+", re.IGNORECASE))

    def exact(self, word: str) -> str | None:
        """The label ``word`` is, or signals as a whole (case and surrounding space aside)."""
        return self._lookup.get(word.strip().lower())

    def search(self, text: str) -> str | None:
        """The label whose word appears first in ``text`` (whole words, case-insensitive), leaving out a word that a
        negation governs ("I would not advance her": not "advance"; its opposite is not always one label) and "no"
        before a noun ("I see no problems. Yes.": "yes"). A reply that marks its answer ("Final answer:",
        "**Decision:**", a table row or heading "Decision") is read after its last marker that a label follows: the
        checks or reasoning before it are not the answer; a marker that names the decision ("Decision:", "Final
        answer:") before one that advises ("Recommendation:", "Conclusion:")."""
        deciding = [m.end() for m in _DECISION_MARKER.finditer(text)]
        advising = [s for s in answer_starts(text) if s not in deciding]
        for start in [*reversed(deciding), *reversed(advising)]:
            label, seen = self._first_label(text, start)
            if seen:  # a label word follows the marker: the answer is there (None if it is negated)
                return label
        return self._first_label(text, 0)[0]

    def _first_label(self, text: str, start: int) -> tuple[str | None, bool]:
        """The first label word from ``start`` that no negation governs, and whether any label word stands there."""
        seen = False
        choices = self._choices(text, start)
        for m in self._regex.finditer(text, start):
            if m.group(0).lower() == "no" and _NO_BEFORE_A_NOUN.match(text, m.start()):
                continue  # the word "no" itself; a label word "no hire" is read as written
            if any(low <= m.start() < high for low, high in choices):
                continue
            seen = True
            if not _NEGATED.search(text, max(start, m.start() - 60), m.start()):
                return self._lookup[m.group(0).lower()], True
        return None, seen

    def _choices(self, text: str, start: int) -> list[tuple[int, int]]:
        """Where ``text`` quotes a choice between labels rather than making one: words of two or more labels joined
        by "/", "|" or "or" ("Decision: [yes/no]", "Yes / No (circle one)", "answer yes or no"). A form the reply
        fills in or the question it repeats is no answer; read as one, a form quoted after the answer ("No. Please
        record it: Decision: [yes/no]") gave every reply its first option."""
        return [
            m.span()
            for m in self._choice.finditer(text, start)
            if len({self._lookup[w.group(0).lower()] for w in self._regex.finditer(m.group(0))}) > 1
        ]

    def of_value(self, value: Any) -> str | None:
        """The label a JSON value stands for: a text (exactly, else by its first label word), a boolean (``true``
        / ``false``), a number (``1``, ``0``, ``2.5``); None for null, objects, lists and what signals no label."""
        if isinstance(value, bool):
            return self.exact("true" if value else "false") or self.exact("1" if value else "0")
        if isinstance(value, (int, float)):
            if isinstance(value, float) and not math.isfinite(value):
                return None
            return self.exact(str(int(value)) if float(value).is_integer() else repr(float(value)))
        if isinstance(value, str):
            return self.exact(value) or self.search(value)
        return None


@dataclass(frozen=True)
class JsonFieldLabelParser:
    """The label of a JSON reply's field: ``JsonFieldLabelParser("decision", {"1": ["advance"], "0": ["reject"]})``
    reads ``{"decision": "advance"}`` as ``"1"``; a reply without the field, or whose value signals no label, is
    None (unparsed). A reply of tool calls is read as its first call's arguments."""

    path: str
    labels: Mapping[str, Sequence[str]]
    _words: LabelWords = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parse_path(self.path)
        object.__setattr__(self, "_words", LabelWords(self.labels))

    def __call__(self, text: str | None) -> str | None:
        value = json_field(text, self.path)
        return None if value is MISSING else self._words.of_value(value)


@dataclass(frozen=True)
class ToolCallLabelParser:
    """The label of a reply that calls a tool: by which function it calls (``functions={"advance_candidate": "1",
    "reject_candidate": "0"}``: the first call of one of them), or by one argument of a call (``function=
    "record_decision", argument="decision"``, its value read as :class:`JsonFieldLabelParser` reads a field, through
    ``labels``; ``function=None``: any call that has the argument). A reply that calls none of them, or whose calls
    signal two labels, is None (unparsed)."""

    functions: Mapping[str, str] | None = None
    function: str | None = None
    argument: str | None = None
    labels: Mapping[str, Sequence[str]] | None = None
    _words: LabelWords | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_function = self.functions is not None
        if by_function == (self.argument is not None):
            raise InputError("a tool decision names either functions (function -> label) or an argument to read")
        if by_function and not self.functions:
            raise InputError("tool functions is empty: map each function's name to the label it means")
        if self.argument is not None:
            parse_path(self.argument)
            if not self.labels:
                raise InputError("a tool argument's value is read through labels: give the label words")
        object.__setattr__(self, "_words", LabelWords(self.labels) if self.labels else None)

    def __call__(self, text: str | None) -> str | None:
        calls = tool_calls_in(text) or ()
        if self.functions is not None:
            said: set[str | None] = {str(self.functions[c.name]) for c in calls if c.name in self.functions}
        else:
            values = [read_path(c.arguments, self.argument or "") for c in calls
                      if self.function is None or c.name == self.function]  # fmt: skip
            words = self._words
            said = {words.of_value(v) for v in values if v is not MISSING} - {None} if words is not None else set()
        return next(iter(said)) if len(said) == 1 else None  # calls of two decisions say two things: unparsed
