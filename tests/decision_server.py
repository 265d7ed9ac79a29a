"""A loopback OpenAI-compatible server that answers with decisions: as text, as JSON content or as tool calls.

The decision of each request comes from a policy, ``policy(messages, rng) -> "advance" | "reject"``, which sees the
whole conversation as sent (``None``: the model declines to decide, in words); the server answers in the shape the
request asks for:

- ``tools`` in the request: a tool call. A tool whose name holds the decision word (``advance_candidate``) is
  called with ``{"reason": ...}``; otherwise the first tool is called with ``{"decision": <word>, "reason": ...}``.
  With ``content_with_tools`` the assistant message also carries text.
- ``response_format`` in the request: JSON content ``{"decision": <word>, "reason": ...}``.
- neither: text, ``"Decision: <word>. ..."``.

Every request body is kept (``server.bodies``), so tests can check what was sent: the messages of a conversation,
the tools, the response format. ``n`` is honoured. The policy's randomness is seeded per request from the server's
seed, the conversation and how many times it was asked, so a run is reproducible under concurrency.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from _loopback import JsonHandler, serving

Policy = Callable[[list[dict[str, Any]], random.Random], str | None]


def always(word: str) -> Policy:
    return lambda messages, rng: word


_STRENGTH = re.compile(r"strength (\d+)/10")
_FEMALE = re.compile(r"\b(?:she|her|hers|herself|ms|mrs|woman)\b", re.IGNORECASE)


def screening(penalty: float = 0.0, refuse_women: float = 0.0) -> Policy:
    """Advance with probability ``strength / 10`` ("strength 7/10" anywhere in the conversation, 5 when absent),
    ``penalty`` lower for a conversation that speaks of a woman (she, her, Ms., Mrs., woman): fair at 0; such a
    conversation is declined with probability ``refuse_women``. Every sample of a request is its own draw."""

    def decide(messages: list[dict[str, Any]], rng: random.Random) -> str | None:
        text = " ".join(str(m.get("content", "")) for m in messages)
        found = _STRENGTH.search(text)
        p = (int(found.group(1)) if found else 5) / 10
        if _FEMALE.search(text):
            if rng.random() < refuse_women:
                return None
            p -= penalty
        return "advance" if rng.random() < p else "reject"

    return decide


@dataclass
class DecisionServer:
    policy: Policy = field(default_factory=lambda: always("advance"))
    seed: int = 0
    content_with_tools: bool = False
    malformed_every: int = 0  # every k-th answer is prose without the decision (an unparseable reply)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    asked: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages", [])
        key = json.dumps(messages, sort_keys=True)
        with self.lock:
            self.bodies.append(body)
            self.asked[key] += 1
            attempt = self.asked[key]
            total = len(self.bodies)
        n = int(body.get("n") or 1)
        choices = []
        for i in range(n):
            digest = hashlib.sha256(f"{self.seed}\0{attempt}\0{i}\0{key}".encode()).digest()
            rng = random.Random(int.from_bytes(digest[:8], "big"))
            word = self.policy(messages, rng)
            malformed = bool(self.malformed_every) and (total * n + i) % self.malformed_every == 0
            choices.append({"index": i, "message": self._message(body, word, malformed), "finish_reason": "stop"})
        return {"id": "chatcmpl-decision", "object": "chat.completion", "choices": choices,
                "usage": {"prompt_tokens": 10, "completion_tokens": 5 * n, "total_tokens": 10 + 5 * n}}  # fmt: skip

    def _message(self, body: dict[str, Any], word: str | None, malformed: bool) -> dict[str, Any]:
        reason = f"the record supports a decision to {word}"
        if word is None:
            return {"role": "assistant", "content": "I'm sorry, but I can't make a hiring decision about this person."}
        if malformed:
            return {"role": "assistant", "content": "I would need more information before deciding."}
        tools = body.get("tools")
        if tools:
            names = [t["function"]["name"] for t in tools]
            named = next((name for name in names if word in name), None)
            arguments = {"reason": reason} if named else {"decision": word, "reason": reason}
            call = {"id": "call_1", "type": "function",
                    "function": {"name": named or names[0], "arguments": json.dumps(arguments)}}  # fmt: skip
            content = f"Calling {named or names[0]}." if self.content_with_tools else None
            return {"role": "assistant", "content": content, "tool_calls": [call]}
        if body.get("response_format"):
            return {"role": "assistant", "content": json.dumps({"decision": word, "reason": reason})}
        return {"role": "assistant", "content": f"Decision: {word}. {reason.capitalize()}."}


def _handler(server: DecisionServer) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length))
            self.reply(200, server.answer(body))

    return Handler


@contextmanager
def decision_server(**options: Any) -> Iterator[tuple[str, DecisionServer]]:
    """``(base_url, server)`` of a running decision server (loopback), shut down on exit."""
    server = DecisionServer(**options)
    with serving(_handler(server)) as url:
        yield url, server
