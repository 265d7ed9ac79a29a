"""A loopback OpenAI-compatible chat-completions server for tests and benchmarks.

Plain asyncio HTTP/1.1 with keep-alive (no framework), so it is fast enough for the 5,000-request benchmark and
has no dependencies. Behaviour is configured globally (latency, random 429/500 rates, ``n`` support) and per
prompt through directives embedded in the user message, so tests are deterministic:

- ``[[429xK]]`` / ``[[500xK]]``: the first K attempts for this prompt fail with that status (429 carries
  ``Retry-After``).
- ``[[timeout]]`` (sleep past any client timeout), ``[[malformed]]`` (invalid JSON body), ``[[drop]]`` (close the
  connection without answering), ``[[filter]]`` (``finish_reason: content_filter``), ``[[400]]`` (a 400 error).
- ``[[azurefilter]]``: Azure's 400 with ``code: content_filter``.
- ``[[refusal]]``: a structured-outputs refusal: ``content`` null, the words in the message's ``refusal``.
- ``[[hang]]``: every attempt sleeps 30 s (used by the resume test to keep a run busy).

Messages are checked as OpenAI's API checks them (a 400 naming the problem): content a text or parts, null only
on an assistant turn that calls tools; each tool call answered by a ``tool`` message naming its id before any other
turn, and no ``tool`` message without the call it answers.

``GET /stats`` returns request counts per user message. Run standalone with
``python tests/openai_stub.py --port 0 --latency 0.05`` (prints ``PORT <n>`` on stdout), or in-process with
:class:`StubServer` (a background thread running its own event loop).
"""

from __future__ import annotations

import argparse
import asyncio
import http
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import Self

_DIRECTIVE = re.compile(r"\[\[(\w+?)(?:x(\d+))?\]\]")


@dataclass
class StubConfig:
    latency: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    retry_after: float = 0.01
    support_n: bool = True
    reject_n: bool = False  # answer 400 to n > 1, like servers that validate the parameter
    seed: int = 0
    fail_first_requests: int = 0  # the first K requests of the server's life fail with 500 (resume tests)


@dataclass
class StubState:
    config: StubConfig
    requests: Counter[str] = field(default_factory=Counter)  # user message -> attempts seen
    total: int = 0
    status_counts: Counter[int] = field(default_factory=Counter)
    auth_headers: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    bodies: list[dict[str, Any]] = field(default_factory=list)
    rng: random.Random = field(default_factory=random.Random)


def _completion(body: dict[str, Any], user: str, n: int, finish: str, refusal: bool = False) -> dict[str, Any]:
    seed = body.get("seed")
    choices = [
        {
            "index": i,
            "message": {
                "role": "assistant",
                "content": None if finish == "content_filter" or refusal else f"echo: {user} #{i} s{seed}",
                **({"refusal": "I'm sorry, I can't help with that."} if refusal else {}),
            },
            "finish_reason": finish,
        }
        for i in range(n)
    ]
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "model": body.get("model", "stub"),
        "choices": choices,
        "usage": {
            "prompt_tokens": len(user.split()),
            "completion_tokens": 3 * n,
            "total_tokens": len(user.split()) + 3 * n,
        },
    }


def messages_problem(messages: Any) -> str | None:
    """What OpenAI's chat API would refuse in ``messages`` (None when they are valid)."""
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty list"
    open_calls: set[str] = set()
    for i, m in enumerate(messages):
        role, content = m.get("role"), m.get("content")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{i}]: invalid role {role!r}"
        if open_calls and role != "tool":
            return f"messages[{i}]: tool calls {sorted(open_calls)} have no tool response"
        calls = m.get("tool_calls") or []
        if calls and role != "assistant":
            return f"messages[{i}]: only assistant messages have tool_calls"
        if content is None and not calls:
            return f"messages[{i}]: content is null"
        if content is not None and not isinstance(content, (str, list)):
            return f"messages[{i}]: content must be a string or a list of parts"
        for call in calls:
            function = call.get("function") or {}
            if not call.get("id") or call.get("type") != "function" or not isinstance(function.get("arguments"), str):
                return f"messages[{i}]: a tool call needs an id, type 'function' and arguments as a string"
            open_calls.add(call["id"])
        if role == "tool":
            if m.get("tool_call_id") not in open_calls:
                return f"messages[{i}]: tool message does not answer a preceding tool call"
            open_calls.discard(m["tool_call_id"])
    return f"tool calls {sorted(open_calls)} have no tool response" if open_calls else None


def _text_of(content: Any) -> str:
    """A message's words: a text, or its text parts joined."""
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def _response(status: int, payload: bytes, extra: str = "") -> bytes:
    try:
        reason = http.HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n{extra}\r\n"
    )
    return head.encode() + payload


def replies_response(
    body: dict[str, Any], user: str, replies: list[str], *, name: str, tokens_per_reply: int
) -> bytes:
    """A 200 chat completion holding ``replies`` (one choice each) for a request ``body`` whose user turn is ``user``:
    the reply the seeded loopback servers (tests/name_audit_server.py, tests/echo_server.py) send once they have
    drawn their answers."""
    choices = [{"index": i, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
               for i, reply in enumerate(replies)]  # fmt: skip
    words, completion = len(user.split()), tokens_per_reply * len(replies)
    usage = {"prompt_tokens": words, "completion_tokens": completion, "total_tokens": words + completion}
    payload = {"id": name, "object": "chat.completion", "model": body.get("model", name), "choices": choices,
               "usage": usage}  # fmt: skip
    return _response(200, json.dumps(payload).encode())


class Truncated(bytes):
    """A reply the connection loop writes only in part (this prefix) before closing the connection."""


Handler = Callable[[str, str, dict[str, str], bytes], Awaitable[bytes | None]]


async def _handle_one(state: StubState, method: str, path: str, headers: dict[str, str], raw: bytes) -> bytes | None:
    cfg = state.config
    if method == "GET" and path.startswith("/stats"):
        payload = {"total": state.total, "requests": dict(state.requests), "status": dict(state.status_counts)}
        return _response(200, json.dumps(payload).encode())
    if method != "POST" or not path.split("?")[0].rstrip("/").endswith("/chat/completions"):
        return _response(404, b'{"error": {"message": "not found"}}')
    body = json.loads(raw)
    state.total += 1
    state.bodies.append(body)
    if "authorization" in headers:
        state.auth_headers.append(headers["authorization"])
    if "api-key" in headers:
        state.auth_headers.append("api-key " + headers["api-key"])
    state.paths.append(path)
    messages = body.get("messages", [])
    problem = messages_problem(messages)
    if problem is not None:
        return _response(400, json.dumps({"error": {"message": problem, "type": "invalid_request_error"}}).encode())
    user = next((_text_of(m["content"]) for m in reversed(messages) if m.get("role") == "user"), "")
    state.requests[user] += 1
    attempt = state.requests[user]
    directives = {name: int(k) if k else 1 for name, k in _DIRECTIVE.findall(user)}

    if cfg.latency:
        await asyncio.sleep(cfg.latency)
    if state.total <= cfg.fail_first_requests:
        return _response(500, b'{"error": {"message": "warming up"}}')
    if "hang" in directives:
        await asyncio.sleep(30)
    for code in (429, 500):
        if attempt <= directives.get(str(code), 0):
            state.status_counts[code] += 1
            extra = f"Retry-After: {cfg.retry_after}\r\n" if code == 429 else ""
            return _response(code, b'{"error": {"message": "scripted failure"}}', extra)
    if "400" in directives:
        return _response(400, b'{"error": {"message": "bad request: scripted"}}')
    if "azurefilter" in directives:  # Azure OpenAI refuses the prompt itself with a 400 and this code
        return _response(400, b'{"error": {"code": "content_filter", "message": "filtered by policy"}}')
    if cfg.reject_n and int(body.get("n") or 1) > 1:
        return _response(400, b'{"error": {"message": "n must be 1"}}')
    if "timeout" in directives:
        await asyncio.sleep(10)
    if "drop" in directives:
        return None
    if "malformed" in directives:
        return _response(200, b'{"choices": [ this is not json')
    roll = state.rng.random()
    if roll < cfg.rate_429:
        state.status_counts[429] += 1
        return _response(429, b'{"error": {"message": "rate limited"}}', f"Retry-After: {cfg.retry_after}\r\n")
    if roll < cfg.rate_429 + cfg.rate_500:
        state.status_counts[500] += 1
        return _response(500, b'{"error": {"message": "server error"}}')
    n = int(body.get("n") or 1)
    if n > 1 and not cfg.support_n:
        n = 1  # like servers that silently ignore ``n``
    finish = "content_filter" if "filter" in directives else "stop"
    state.status_counts[200] += 1
    return _response(200, json.dumps(_completion(body, user, n, finish, "refusal" in directives)).encode())


async def serve_connection(handler: Handler, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """HTTP/1.1 keep-alive loop: ``handler(method, path, headers, body)`` answers each request; None drops the
    connection without an answer, a :class:`Truncated` reply is written and then the connection is cut."""
    try:
        while True:
            line = await reader.readline()
            if not line:
                break
            method, path, _ = line.decode().split(" ", 2)
            headers: dict[str, str] = {}
            while True:
                h = await reader.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode().partition(":")
                headers[k.strip().lower()] = v.strip()
            raw = await reader.readexactly(int(headers.get("content-length", "0")))
            out = await handler(method, path, headers, raw)
            if out is None:  # drop the connection on demand
                writer.transport.abort()
                return
            writer.write(out)
            await writer.drain()
            if isinstance(out, Truncated):
                writer.transport.abort()
                return
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, asyncio.CancelledError):
        pass  # a client that went away, or the server shutting down
    finally:
        writer.close()


async def serve(config: StubConfig, host: str = "127.0.0.1", port: int = 0) -> tuple[asyncio.Server, StubState]:
    state = StubState(config=config, rng=random.Random(config.seed))

    async def handler(method: str, path: str, headers: dict[str, str], raw: bytes) -> bytes | None:
        return await _handle_one(state, method, path, headers, raw)

    server = await asyncio.start_server(lambda r, w: serve_connection(handler, r, w), host, port, backlog=1024)
    return server, state


class StubServer:
    """Run the stub in a background thread: ``with StubServer(latency=0.01) as s: s.base_url``."""

    config_class: Any = StubConfig

    def __init__(self, **config: Any) -> None:
        self.config = self.config_class(**config)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self.state: Any
        self.port = 0

    def _serve(self) -> Coroutine[Any, Any, tuple[asyncio.Server, Any]]:
        return serve(self.config)

    def __enter__(self) -> Self:
        self._thread.start()
        fut = asyncio.run_coroutine_threadsafe(self._serve(), self._loop)
        self._server, self.state = fut.result(timeout=10)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def __exit__(self, *exc: object) -> None:
        async def _stop() -> None:
            self._server.close()
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(_stop(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--rate-429", type=float, default=0.0)
    parser.add_argument("--rate-500", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.01)
    parser.add_argument("--no-n", action="store_true", help="ignore the n parameter (one choice per request)")
    parser.add_argument("--fail-first", type=int, default=0)
    args = parser.parse_args()
    config = StubConfig(
        latency=args.latency,
        rate_429=args.rate_429,
        rate_500=args.rate_500,
        retry_after=args.retry_after,
        support_n=not args.no_n,
        fail_first_requests=args.fail_first,
    )

    async def _run() -> None:
        server, _ = await serve(config, port=args.port)
        print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(_run())


if __name__ == "__main__":
    main()
