"""A chat-completions stream (server-sent events) read back into the one answer it spells out.

evenhand asks for whole answers, but some servers and gateways stream whatever they are asked (or a user's
``extra_body`` asks for ``stream: true``). Each ``data:`` event holds a chunk whose choices carry a ``delta``: pieces
of the content, of a refusal, and of tool calls (by their ``index``: the id and name once, the arguments in pieces).
:func:`assemble_stream` joins them into the payload a non-streaming server would have sent. A stream that stops
before its ``data: [DONE]`` event, with a choice still unfinished (no ``finish_reason``), was cut short: it is no
answer, since its text is only the beginning of one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class _Call:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _Choice:
    role: str = "assistant"
    content: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, _Call] = field(default_factory=dict)
    finish_reason: str | None = None

    def add(self, delta: dict[str, Any]) -> None:
        if isinstance(delta.get("role"), str):
            self.role = delta["role"]
        for key, pieces in (("content", self.content), ("refusal", self.refusal)):
            if isinstance(delta.get(key), str):
                pieces.append(delta[key])
        for position, call in enumerate(delta.get("tool_calls") or []):
            if not isinstance(call, dict):
                continue
            index = call.get("index", position)
            into = self.calls.setdefault(index if isinstance(index, int) else position, _Call())
            into.id = call.get("id") or into.id
            function = call.get("function")
            if not isinstance(function, dict):
                continue
            if isinstance(function.get("name"), str):
                into.name += function["name"]
            if isinstance(function.get("arguments"), str):
                into.arguments.append(function["arguments"])

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": self.role, "content": "".join(self.content) if self.content else None}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        if self.calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": "".join(c.arguments)}}
                for _, c in sorted(self.calls.items())
            ]
        return message


def is_event_stream(content_type: str | None, body: str) -> bool:
    """Whether a body (decoded) is a stream of server-sent events: said by its Content-Type, or starting with
    ``data:``."""
    return (content_type or "").lower().startswith("text/event-stream") or body.lstrip().startswith("data:")


def assemble_stream(body: str) -> tuple[dict[str, Any], bool]:
    """``(payload, complete)``: the chat completion the events spell out (``choices`` with whole messages, the
    last ``usage`` sent), and whether the stream was complete (its ``[DONE]`` event, or every choice finished).

    ``body`` is the decoded text (the caller decodes it strictly: a lenient decoding stored replies with U+FFFD in
    them). Raises ``ValueError`` for an event whose data is not JSON (the caller's "malformed answer")."""
    choices: dict[int, _Choice] = {}
    usage: Any = None
    done = False
    for line in body.splitlines():
        if not line.startswith("data:"):
            continue  # comments (":"), event names, ids, retry hints and the blank lines between events
        data = line[len("data:") :].strip()
        if data == "[DONE]":
            done = True
            continue
        if not data:
            continue
        chunk = json.loads(data)
        if not isinstance(chunk, dict):
            raise ValueError(f"an event's data is {type(chunk).__name__}, not a chunk")
        usage = chunk.get("usage") or usage
        for position, choice in enumerate(chunk.get("choices") or []):
            if not isinstance(choice, dict):
                continue
            index = choice.get("index", position)
            state = choices.setdefault(index if isinstance(index, int) else position, _Choice())
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else choice.get("message")
            if isinstance(delta, dict):
                state.add(delta)
            if isinstance(choice.get("finish_reason"), str):
                state.finish_reason = choice["finish_reason"]
    complete = done or (bool(choices) and all(c.finish_reason for c in choices.values()))
    payload = {
        "choices": [
            {"index": i, "message": c.message(), "finish_reason": c.finish_reason} for i, c in sorted(choices.items())
        ],
        "usage": usage if isinstance(usage, dict) else {},
    }
    return payload, complete
