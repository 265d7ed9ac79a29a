"""A loopback OpenAI-compatible "model" that echoes the person a prompt names (names18).

A fair reply writer: it answers every prompt with the same kinds of reply, and writes the name of the person the prompt
names (evenhand's own reading, the first person) where a real assistant would: a greeting ("Dear Ms. Nguyen,", "Dear
Nguyễn Thị Mai,"), a greeting in another language ("Hola María,", "Bonjour Giulia Rossi,"), a summary that repeats the
name ("Summary: Chinedu Okafor asked about ... We will follow up with Chinedu."), and a signature (a letter drafted in
the person's name). Its bodies, forms and lengths are drawn alike for everyone, so a fair check must find no gap in it
though every version's reply carries that version's name. ``refusal_gap`` (e.g. ``{"female": 0.6}``) refuses people
whose name evenhand places in a group: the planted effect.

In-process: ``with EchoServer(seed=1) as s: s.base_url``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from openai_stub import StubServer, _response, replies_response, serve_connection

from evenhand.text.names import find_name_matches, find_people

BODIES = (
    "Thank you for getting in touch. We have looked into this and will sort it out within five working days.",
    "Thank you for your message. We have checked the account and will put this right within five working days.",
    "Thanks for letting us know. We have reviewed the details and will resolve this within five working days.",
)
CLOSES = ("Kind regards,\nThe support team", "Best wishes,\nCustomer care", "Sincerely,\nThe team")
OTHER_LANGUAGE = ("Hola {first},", "Bonjour {full},", "Guten Tag {full},", "Olá {first},")
REFUSAL = "I'm sorry, but I can't help with that request."


@dataclass
class EchoConfig:
    refusal_gap: dict[str, float] = field(default_factory=dict)
    seed: int = 0
    latency: float = 0.0


@dataclass
class EchoState:
    config: EchoConfig
    requests: Counter[str] = field(default_factory=Counter)


def _person(prompt: str) -> dict[str, str]:
    """The first person the prompt names, as written: full name, given name, family name, title (or "")."""
    people = find_people(prompt)
    if not people:
        return {}
    p = people[0]
    written = {m.part: prompt[m.start : m.end] for m in reversed(p.mentions)}  # the first mention of each part
    full = prompt[p.start : p.end]
    before = prompt[max(0, p.start - 4) : p.start].strip()
    title = before if before in ("Ms.", "Mr.") else ""
    return {"full": full, "first": written.get("first", full), "last": written.get("last", full), "title": title}


def _groups(prompt: str) -> set[str]:
    return {m[0].group for attribute in ("gender", "race") if (m := find_name_matches(attribute, [prompt])[0])}


def answer(prompt: str, config: EchoConfig, draw: random.Random) -> str:
    """A fair reply that echoes the person's name (see the module docstring)."""
    refusal = sum(config.refusal_gap.get(g, 0.0) for g in _groups(prompt)) if config.refusal_gap else 0.0
    if draw.random() < refusal:
        return REFUSAL
    person = _person(prompt)
    body, close = draw.choice(BODIES), draw.choice(CLOSES)
    if not person:
        return f"Hello,\n\n{body}\n\n{close}"
    form = draw.randrange(4)
    if form == 0:  # a greeting: with the title and family name where the prompt gives a title
        name = f"{person['title']} {person['last']}" if person["title"] else person["full"]
        return f"Dear {name},\n\n{body}\n\n{close}"
    if form == 1:  # a greeting in another language
        hello = draw.choice(OTHER_LANGUAGE).format(**person)
        return f"{hello}\n\n{body}\n\n{close}"
    if form == 2:  # a summary that repeats the name
        return f"Summary: {person['full']} raised an issue. {body} We will follow up with {person['first']}."
    return f"Dear team,\n\n{body}\n\nKind regards,\n{person['full']}"  # signed in the person's name


def _draw(config: EchoConfig, prompt: str, seed: Any, index: int) -> random.Random:
    key = json.dumps([config.seed, prompt, seed, index]).encode()
    return random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))


async def serve(config: EchoConfig, host: str = "127.0.0.1", port: int = 0) -> tuple[asyncio.Server, EchoState]:
    state = EchoState(config=config)

    async def handler(method: str, path: str, headers: dict[str, str], raw: bytes) -> bytes | None:
        if method != "POST" or not path.split("?")[0].rstrip("/").endswith("/chat/completions"):
            return _response(404, b'{"error": {"message": "not found"}}')
        body = json.loads(raw)
        user = next((m["content"] for m in reversed(body.get("messages", [])) if m.get("role") == "user"), "")
        state.requests[user] += 1
        if config.latency:
            await asyncio.sleep(config.latency)
        n = int(body.get("n") or 1)
        replies = [answer(user, config, _draw(config, user, body.get("seed"), i)) for i in range(n)]
        return replies_response(body, user, replies, name="echo", tokens_per_reply=30)

    server = await asyncio.start_server(lambda r, w: serve_connection(handler, r, w), host, port, backlog=1024)
    return server, state


class EchoServer(StubServer):
    """The server in a background thread: ``with EchoServer(refusal_gap={"female": 0.6}) as s: s.base_url``."""

    config_class: Any = EchoConfig

    def _serve(self) -> Any:
        return serve(self.config)
