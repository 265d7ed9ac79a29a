"""A fault-injecting OpenAI-compatible loopback server (issue 15), for tests and ``bench_generation.py --faults``.

A share ``fault_rate`` of all chat-completion requests fails, each with one kind drawn from ``kinds``:

- ``429`` (with ``Retry-After``), ``500``, ``503``: error statuses;
- ``timeout``: the server sleeps ``hang`` seconds before answering (set it above the client's timeout);
- ``drop``: the connection is closed without an answer; ``truncate``: the body is cut off half-way;
- ``garbage``: a 200 whose body is not JSON; ``zero_choices``: a 200 with ``"choices": []``;
- ``empty_content``: a 200 where some (at least one) of the choices carry ``""``; ``no_content``: a 200 whose
  choices have no message content (``message`` null or without ``content``).

The draw for a request depends only on ``seed``, the user message and how many requests that message has had,
so a run is reproducible whatever order concurrent requests arrive in. ``n`` is honoured (``support_n=False``
answers one choice whatever ``n`` asks, like servers that ignore it; ``reject_n=True`` answers 400 to ``n > 1``,
in the words ``reject_n_style`` picks: ``"param"`` names it in ``error.param``, ``"message"`` only in the message,
like vLLM (``'n' other than 1 is not supported``), ``"opaque"`` not at all).
Every answer text is unique (``answer to <prompt> #<choice> r<request>``) and recorded in ``delivered``, so a test
can prove that no response was invented or duplicated. Scripted faults: ``script_first`` (kinds for the first
requests of the server's life, ``"ok"`` for none) and ``scripts`` (kinds for a message's first attempts);
``replies`` fixes the content of a message's answers (``""``, ``"NaN"``...).

Sustained faults (the circuit-breaker tests): after ``fail_after`` requests answered ``"ok"`` every later request
gets ``fail_kind`` (``fail_after=0``: all of them), a fault kind or a refusal: ``401`` (its message quotes the
``Authorization`` header it received, the worst case for a leak), ``403``, ``404`` (model not found), ``400`` (its
message names the prompt) or ``content_filter`` (Azure's 400 with that code). Set ``config.fail_after = None`` to
heal the server.

In-process: ``with FaultServer(fault_rate=0.3, seed=1) as s: s.base_url``; standalone:
``python tests/fault_server.py --fault-rate 0.3 --seed 1`` prints ``PORT <n>``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from openai_stub import StubServer, Truncated, _response, serve_connection

KINDS = (
    "429", "500", "503", "timeout", "drop", "truncate", "garbage", "zero_choices", "empty_content", "no_content",
)  # fmt: skip
REFUSALS = ("400", "401", "403", "404", "content_filter")  # non-retryable answers, never drawn at random
N_REFUSALS = {  # the 400 of a server that rejects n > 1, by how it says so
    "param": {"message": "'n' must be 1 for this model", "param": "n"},
    "message": {"message": "'n' other than 1 is not supported", "type": "BadRequestError"},
    "opaque": {"message": "Invalid request", "type": "BadRequestError"},
}


@dataclass
class FaultConfig:
    fault_rate: float = 0.3
    kinds: tuple[str, ...] = KINDS
    seed: int = 0
    latency: float = 0.0
    retry_after: float = 0.01
    hang: float = 1.0
    support_n: bool = True
    reject_n: bool = False
    reject_n_style: str = "param"
    script_first: tuple[str, ...] = ()
    scripts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    replies: dict[str, str] = field(default_factory=dict)
    fail_after: int | None = None
    fail_kind: str = "503"

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; known: {KINDS}")
        if self.reject_n_style not in N_REFUSALS:
            raise ValueError(f"unknown reject_n_style {self.reject_n_style!r}; known: {sorted(N_REFUSALS)}")
        if self.fail_kind not in KINDS + REFUSALS:
            raise ValueError(f"unknown fail_kind {self.fail_kind!r}; known: {KINDS + REFUSALS}")


@dataclass
class FaultState:
    config: FaultConfig
    total: int = 0
    requests: Counter[str] = field(default_factory=Counter)  # user message -> requests
    answered: Counter[str] = field(default_factory=Counter)  # "ok" or fault kind -> requests
    log: list[tuple[str, int, str]] = field(default_factory=list)  # (user message, n asked, kind) in arrival order
    delivered: set[str] = field(default_factory=set)  # every non-empty text sent in a complete 200 answer

    def requests_with_n(self) -> int:
        return sum(n > 1 for _, n, _ in self.log)


def _draw(cfg: FaultConfig, state: FaultState, user: str, attempt: int) -> tuple[str, random.Random]:
    rng = random.Random(f"{cfg.seed}|{user}|{attempt}")
    if cfg.fail_after is not None and state.answered["ok"] >= cfg.fail_after:
        return cfg.fail_kind, rng
    if state.total <= len(cfg.script_first):
        return cfg.script_first[state.total - 1], rng
    script = cfg.scripts.get(user, ())
    if attempt <= len(script):
        return script[attempt - 1], rng
    if rng.random() < cfg.fault_rate:
        return rng.choice(cfg.kinds), rng
    return "ok", rng


def _answer(
    cfg: FaultConfig, body: dict[str, Any], user: str, attempt: int, kind: str, rng: random.Random
) -> tuple[bytes, list[str]]:
    """The 200 answer and the texts it carries."""
    n = max(1, int(body.get("n") or 1))
    if not cfg.support_n:
        n = 1
    texts = [cfg.replies.get(user, f"answer to {user} #{i} r{attempt}") for i in range(n)]
    if kind == "empty_content":
        blank = [rng.random() < 0.5 for _ in range(n)]
        if not any(blank):
            blank[rng.randrange(n)] = True
        texts = ["" if b else t for t, b in zip(texts, blank, strict=True)]
    choices: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        message: dict[str, Any] | None = {"role": "assistant", "content": text}
        if kind == "no_content":
            message = None if i % 2 else {"role": "assistant"}
        choices.append({"index": i, "message": message, "finish_reason": "stop"})
    if kind == "zero_choices":
        choices = []
    payload = {
        "id": f"chatcmpl-fault-{user[:20]}-{attempt}",
        "object": "chat.completion",
        "model": body.get("model", "fault"),
        "choices": choices,
        "usage": {"prompt_tokens": len(user.split()), "completion_tokens": 3 * len(choices)},
    }
    carried = [] if kind in ("no_content", "zero_choices") else [t for t in texts if t.strip()]
    return _response(200, json.dumps(payload).encode()), carried


def _refusal(kind: str, user: str, headers: dict[str, str]) -> bytes:
    key = headers.get("authorization", "")
    error: dict[str, str] = {
        "401": {"message": f"Incorrect API key provided: {key}", "code": "invalid_api_key"},
        "403": {"message": "Access denied: this key may not use the model"},
        "404": {"message": "The model `m` does not exist", "code": "model_not_found"},
        "400": {"message": f"Invalid prompt: {user!r} cannot be processed"},
        "content_filter": {"message": "The prompt was filtered", "code": "content_filter"},
    }[kind]
    return _response(400 if kind == "content_filter" else int(kind), json.dumps({"error": error}).encode())


async def _handle(state: FaultState, method: str, path: str, headers: dict[str, str], raw: bytes) -> bytes | None:
    cfg = state.config
    if method == "GET" and path.startswith("/stats"):
        stats = {"total": state.total, "answered": dict(state.answered), "with_n": state.requests_with_n()}
        return _response(200, json.dumps(stats).encode())
    if method != "POST" or not path.split("?")[0].rstrip("/").endswith("/chat/completions"):
        return _response(404, b'{"error": {"message": "not found"}}')
    body = json.loads(raw)
    state.total += 1
    messages = body.get("messages", [])
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    state.requests[user] += 1
    attempt = state.requests[user]
    kind, rng = _draw(cfg, state, user, attempt)
    n = int(body.get("n") or 1)
    state.answered[kind] += 1
    state.log.append((user, n, kind))
    if cfg.latency:
        await asyncio.sleep(cfg.latency)
    if kind == "timeout":
        await asyncio.sleep(cfg.hang)
        return _response(504, b'{"error": {"message": "too late"}}')
    if kind == "drop":
        return None
    if kind in ("429", "500", "503"):
        extra = f"Retry-After: {cfg.retry_after}\r\n" if kind == "429" else ""
        return _response(int(kind), b'{"error": {"message": "injected fault"}}', extra)
    if kind == "garbage":
        return _response(200, b'{"choices": [ <html>502 Bad Gateway</html>')
    if kind in REFUSALS:
        return _refusal(kind, user, headers)
    if cfg.reject_n and n > 1:
        return _response(400, json.dumps({"error": N_REFUSALS[cfg.reject_n_style]}).encode())
    answer, texts = _answer(cfg, body, user, attempt, kind, rng)
    if kind == "truncate":
        head, _, payload = answer.partition(b"\r\n\r\n")
        return Truncated(head + b"\r\n\r\n" + payload[: len(payload) // 2])
    state.delivered.update(texts)
    return answer


async def serve(config: FaultConfig, host: str = "127.0.0.1", port: int = 0) -> tuple[asyncio.Server, FaultState]:
    state = FaultState(config=config)

    async def handler(method: str, path: str, headers: dict[str, str], raw: bytes) -> bytes | None:
        return await _handle(state, method, path, headers, raw)

    server = await asyncio.start_server(lambda r, w: serve_connection(handler, r, w), host, port, backlog=1024)
    return server, state


class FaultServer(StubServer):
    """The fault server in a background thread: ``with FaultServer(fault_rate=0.3) as s: s.base_url``."""

    config_class = FaultConfig

    def _serve(self) -> Any:
        return serve(self.config)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated fault kinds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--retry-after", type=float, default=0.01)
    parser.add_argument("--hang", type=float, default=1.0, help="seconds a 'timeout' fault sleeps")
    parser.add_argument("--no-n", action="store_true", help="ignore the n parameter (one choice per request)")
    parser.add_argument("--reject-n", choices=sorted(N_REFUSALS), help="answer 400 to n > 1, worded this way")
    args = parser.parse_args()
    config = FaultConfig(
        reject_n=args.reject_n is not None,
        reject_n_style=args.reject_n or "param",
        fault_rate=args.fault_rate,
        kinds=tuple(k for k in args.kinds.split(",") if k),
        seed=args.seed,
        latency=args.latency,
        retry_after=args.retry_after,
        hang=args.hang,
        support_n=not args.no_n,
    )

    async def _run() -> None:
        server, _ = await serve(config, port=args.port)
        print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(_run())


if __name__ == "__main__":
    main()
