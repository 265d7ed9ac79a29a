"""The OpenAI-compatible client against servers that answer in ways the stub does not: a ``base_url`` that carries a
query string (a gateway's ``?api-version=`` or ``?code=``), a reply in a declared non-UTF-8 encoding, a server that
streams (server-sent events) though nobody asked it to, or cuts such a stream short. Each server here is a loopback
``http.server`` with a bounded life (``_loopback.serving``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from _loopback import JsonHandler, serving

from evenhand.generation import OpenAIClient, generate

FAST = {"store": None, "progress": False, "backoff": 0.01, "max_retries": 1}
REPLY = "Café für Frau Müller, naïve résumé"


def _choice(content: str) -> dict[str, Any]:
    return {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}


class _Recorder(JsonHandler):
    """Answers every POST to ``.../chat/completions`` (any query) with REPLY; records the request line's target."""

    targets: list[str] = []  # noqa: RUF012 -- one list per subclass, set by the tests

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.targets.append(self.path)
        if self.path.split("?", 1)[0].endswith("/chat/completions"):
            self.reply(200, {"choices": [_choice(REPLY)], "usage": {}})
        else:
            self.reply(404, {"error": {"message": f"nothing at {self.path}"}})


@pytest.fixture
def recorder() -> Iterator[tuple[str, list[str]]]:
    class Handler(_Recorder):
        targets: list[str] = []  # noqa: RUF012

    with serving(Handler) as url:
        yield url, Handler.targets


def test_a_base_url_with_a_query_string_keeps_the_path_before_the_query(recorder: tuple[str, list[str]]) -> None:
    url, targets = recorder
    client = OpenAIClient(f"{url}?api_key=GATEWAY-SECRET-4411&team=a", "m", timeout=5)
    frame = generate(["Hello"], client, count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert targets == ["/v1/chat/completions?api_key=GATEWAY-SECRET-4411&team=a"]
    assert "GATEWAY-SECRET" not in client.public_url + repr(client) + json.dumps(client.identity)
    assert client.public_url.endswith("/v1/chat/completions?api_key=***&team=a")


def test_azure_s_api_version_joins_a_query_the_base_url_already_has(recorder: tuple[str, list[str]]) -> None:
    url, targets = recorder
    client = OpenAIClient(f"{url}/?team=a", "dep", api_version="2024-06-01", timeout=5)
    frame = generate(["Hello"], client, count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert targets == ["/v1/openai/deployments/dep/chat/completions?team=a&api-version=2024-06-01"]


def test_url_credentials_and_an_authorization_header_are_refused_at_once() -> None:
    with pytest.raises(ValueError, match="Authorization") as both:
        OpenAIClient("http://svc:PW-CANARY-8812@127.0.0.1:9/v1", "m", headers={"authorization": "Bearer HDR-CANARY-77"})
    assert "CANARY" not in str(both.value)


class _Latin1(JsonHandler):
    """A 200 whose JSON is encoded in ISO-8859-1 and says so in its Content-Type."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        data = json.dumps({"choices": [_choice(REPLY)]}, ensure_ascii=False).encode("latin-1")
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=ISO-8859-1")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def test_a_reply_in_its_declared_encoding_is_read_in_that_encoding() -> None:
    with serving(_Latin1) as url:
        frame = generate(["Hello"], OpenAIClient(url, "m", timeout=5), count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert frame["response"].tolist() == [REPLY]


