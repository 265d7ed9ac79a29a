"""The OpenAI-compatible client against servers that answer in ways the stub does not: a ``base_url`` that carries a
query string (a gateway's ``?api-version=`` or ``?code=``), a reply in a declared non-UTF-8 encoding, a server that
streams (server-sent events) though nobody asked it to, or cuts such a stream short. Each server here is a loopback
``http.server`` with a bounded life (``_loopback.serving``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
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


def _events(chunks: list[dict[str, Any]], *, done: bool) -> bytes:
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return ("".join(lines) + ("data: [DONE]\n\n" if done else "")).encode()


def _delta(content: str | None = None, finish: str | None = None, **delta: Any) -> dict[str, Any]:
    if content is not None:
        delta["content"] = content
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


WHOLE_STREAM = [_delta(role="assistant", content="Dear Mrs. "), _delta("Lee, thank you."), _delta(finish="stop")]
TOOL_STREAM = [
    _delta(role="assistant", tool_calls=[{"index": 0, "id": "c1", "type": "function",
                                          "function": {"name": "decide", "arguments": '{"appr'}}]),
    _delta(tool_calls=[{"index": 0, "function": {"arguments": 'ove": true}'}}]),
    _delta(finish="tool_calls"),
]  # fmt: skip


def _streaming(body: bytes, requests: list[int]) -> type[JsonHandler]:
    class Handler(JsonHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            requests.append(1)
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def test_a_server_that_streams_unasked_is_read_as_its_whole_reply() -> None:
    requests: list[int] = []
    with serving(_streaming(_events(WHOLE_STREAM, done=True), requests)) as url:
        frame = generate(["Hello"], OpenAIClient(url, "m", timeout=5), count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert frame["response"].tolist() == ["Dear Mrs. Lee, thank you."]
    assert frame["finish_reason"].tolist() == ["stop"] and len(requests) == 1


def test_a_streamed_tool_call_is_assembled_from_its_pieces() -> None:
    with serving(_streaming(_events(TOOL_STREAM, done=True), [])) as url:
        frame = generate(["Decide"], OpenAIClient(url, "m", timeout=5), count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert json.loads(frame["response"][0]) == {"tool_calls": [{"name": "decide", "arguments": {"approve": True}}]}


@pytest.mark.parametrize("cut", [1, 2], ids=["after one piece", "after two pieces"])
def test_a_stream_cut_short_is_no_answer_and_is_retried_not_kept_as_a_partial_reply(cut: int) -> None:
    requests: list[int] = []
    with serving(_streaming(_events(WHOLE_STREAM[:cut], done=False), requests)) as url:
        frame = generate(["Hello"], OpenAIClient(url, "m", timeout=5), count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["error"] and frame["response"].isna().all()
    assert "ended before its last event" in frame["error"][0]
    assert len(requests) == 2  # asked again (max_retries=1), never stored as "Dear Mrs. "


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), 0.0])
def test_a_timeout_that_is_no_time_is_refused(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        OpenAIClient("http://127.0.0.1:9/v1", "m", timeout=timeout)


def test_an_extra_body_that_is_no_mapping_is_refused() -> None:
    with pytest.raises(ValueError, match="extra_body must be a mapping"):
        OpenAIClient("http://127.0.0.1:9/v1", "m", extra_body="stream")  # type: ignore[arg-type]


KEY = "sk-ECHOCANARY-4242"
TOKEN = "HDRCANARY-2222"


class _EchoingCredentials(JsonHandler):
    """A 200 whose reply quotes the credentials it received (a debugging proxy, a model told to repeat its input):
    the Authorization header and a secret header."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        echoed = f"Dear customer. (debug: {self.headers.get('Authorization')} {self.headers.get('X-Api-Token')})"
        self.reply(200, {"choices": [_choice(echoed)], "usage": {}})


def test_credentials_a_server_echoes_in_its_reply_never_reach_the_store(tmp_path: Path) -> None:
    store = tmp_path / "g.sqlite"
    with serving(_EchoingCredentials) as url:
        client = OpenAIClient(url, "m", api_key=KEY, headers={"X-Api-Token": TOKEN, "X-Team": "blue-team"}, timeout=5)
        frame = generate(["Hello"], client, count=1, **{**FAST, "store": store}).to_frame()
    assert frame["status"].tolist() == ["ok"]
    assert frame["response"][0] == "Dear customer. (debug: Bearer [redacted] [redacted])"
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert KEY.encode() not in stored and TOKEN.encode() not in stored


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r", " "])
def test_a_key_read_with_its_line_end_is_sent_without_it(ending: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key read from a file or a CRLF .env keeps its line end: aiohttp refused every request ("Forbidden control
    character detected in headers"), each prompt failed, and no line said that the key was the cause."""
    monkeypatch.setenv("EVENHAND_PROBE_KEY", KEY + ending)
    with serving(_EchoingCredentials) as url:
        client = OpenAIClient(url, "m", api_key_env="EVENHAND_PROBE_KEY", timeout=5)
        frame = generate(["Hello"], client, count=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"], frame["error"].tolist()
    assert frame["response"][0].startswith("Dear customer. (debug: Bearer [redacted]")


def test_a_key_or_header_with_a_control_character_inside_is_refused_naming_it_not_quoting_it() -> None:
    with pytest.raises(ValueError, match="api_key holds a control character") as key:
        OpenAIClient("http://127.0.0.1:9/v1", "m", api_key="sk-ECHO\nCANARY")
    with pytest.raises(ValueError, match="headers 'X-Api-Token' holds a control character") as header:
        OpenAIClient("http://127.0.0.1:9/v1", "m", headers={"X-Api-Token": "HDR\r\nCANARY"})
    assert "CANARY" not in str(key.value) + str(header.value)


class _EchoingEveryHeader(JsonHandler):
    """A 200 whose reply quotes an organisation header (a name that is no credential word) and a 400 that does."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        echoed = f"Dear customer. (debug: org {self.headers.get('X-Org-Id')})"
        if "[[400]]" in raw.decode():
            self.reply(400, {"error": {"message": echoed}})
        else:
            self.reply(200, {"choices": [_choice(echoed)], "usage": {}})


def test_a_configured_header_value_is_masked_in_replies_as_in_errors(tmp_path: Path) -> None:
    """One rule (faults18): every header value the user configured may be a token, whatever the header's name, so a
    server that echoes it leaves it neither in an error nor in a reply (before: errors only; replies kept it)."""
    org = "abc123secret"
    store = tmp_path / "g.sqlite"
    with serving(_EchoingEveryHeader) as url:
        client = OpenAIClient(url, "m", headers={"X-Org-Id": org}, timeout=5)
        frame = generate(["Hello", "Hi [[400]]"], client, count=1, **{**FAST, "store": store}).to_frame()
    assert frame["status"].tolist() == ["ok", "error"]
    assert frame["response"][0] == "Dear customer. (debug: org [redacted])"
    assert org not in str(frame["error"][1]) and "org [redacted]" in str(frame["error"][1])
    assert org.encode() not in b"".join(p.read_bytes() for p in tmp_path.iterdir())


class _EndlessStream(JsonHandler):
    """A 200 event stream that never sends its last event: slowly (an event every 50 ms) or as fast as it can. The
    handler stops after 20 s whatever happens (bounded), or when the client hangs up."""

    fast = False

    def do_POST(self) -> None:
        import time

        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        event = b'data: {"choices": [{"index": 0, "delta": {"content": "word "}}]}\n\n'
        deadline = time.monotonic() + 20
        try:
            while time.monotonic() < deadline:
                self.wfile.write(event * (200 if self.fast else 1))
                self.wfile.flush()
                if not self.fast:
                    time.sleep(0.05)
        except OSError:
            pass
        self.close_connection = True


@pytest.mark.parametrize("fast", [False, True])
def test_a_stream_that_never_ends_is_bounded_by_the_timeout_or_the_body_limit(fast: bool) -> None:
    """faults18 sweep (sound): a server streaming forever costs at most the client's timeout (slow) or its
    max_body_bytes (fast) per attempt; the prompt fails with its reason, the run goes on."""
    import time

    handler = type("Endless", (_EndlessStream,), {"fast": fast})
    with serving(handler) as url:
        client = OpenAIClient(url, "m", timeout=1.5, max_body_bytes=256 * 1024)
        started = time.monotonic()
        frame = generate(["Hello"], client, count=1, **FAST).to_frame()
        took = time.monotonic() - started
    assert frame["status"].tolist() == ["error"]
    assert took < 10, took
    error = str(frame["error"][0]).lower()
    assert ("within 1.5 s" in error) if not fast else ("bytes" in error or "limit" in error), error


class _AnswersFromTheChoice(JsonHandler):
    """A 200 whose reply is one of the words the request's guided_choice offered, and quotes its api_key field."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        self.reply(200, {"choices": [_choice(f"{body['guided_choice'][0]} (debug: {body['api_key']})")], "usage": {}})


def test_extra_body_words_a_reply_is_asked_to_use_stay_in_the_reply_its_credentials_do_not() -> None:
    """extra_body holds what a reply is made of (vLLM's guided_choice, a JSON schema's keys): its words stay in the
    reply, or no decision could be read; a value under a credential-named key is masked as before (lead, after
    faults18 masked every extra_body value in replies)."""
    with serving(_AnswersFromTheChoice) as url:
        body = {"guided_choice": ["approve", "deny"], "api_key": "sk-zz9"}
        client = OpenAIClient(url, "m", timeout=5, extra_body=body)
        frame = generate(["Decide"], client, count=1, **FAST).to_frame()
    assert frame["response"][0] == "approve (debug: [redacted])"
