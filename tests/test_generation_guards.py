"""Generation fails fast and sends nothing where it should not go (issue 24): a closed port stops a run in seconds
(Python API and CLI, one line, exit 3), a redirect of a POST is never followed (the credentials stay home), and a
LangChain model's name reaches the results."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from _loopback import JsonHandler, serving
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.generation import (
    ChatClient,
    Completion,
    GenerationStoppedError,
    OpenAIClient,
    ServerUnreachableError,
    generate,
)
from evenhand.generation._types import ConnectionFailedError, Message, RetryableError, SamplingParams
from evenhand.generation.breaker import UNREACHABLE_ATTEMPTS
from evenhand.generation.clients.base import model_name_of

KEY = "sk-canary-guards-key-9d3a"
FAST: dict[str, Any] = {"store": None, "progress": False}


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:  # a port nobody listens on (bound, then released)
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ------------------------------------------------------------------------------------------------ a closed port


@pytest.mark.server
def test_a_closed_port_fails_in_seconds_from_python(closed_port: int) -> None:
    """Nothing has ever answered: after UNREACHABLE_ATTEMPTS refused connections (default backoff), not the whole
    retry budget of 9 attempts (about a minute of backoff)."""
    client = OpenAIClient(f"http://127.0.0.1:{closed_port}/v1", "m", api_key=KEY)
    t = time.perf_counter()
    with pytest.raises(ServerUnreachableError) as caught:
        generate([f"p {i}" for i in range(50)], client, count=3, concurrency=8, **FAST)
    elapsed = time.perf_counter() - t
    assert elapsed < 8, elapsed  # about 1.6 s (backoff 0.25 + 0.5 + 1 s, jitter takes a quarter off on average)
    message = str(caught.value)
    assert "\n" not in message and KEY not in message
    assert f"127.0.0.1:{closed_port}" in message
    assert f"is unreachable after {UNREACHABLE_ATTEMPTS} attempts: cannot connect to" in message


@pytest.mark.server
def test_a_closed_port_fails_in_seconds_from_the_cli(closed_port: int, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("GUARDS_TEST_KEY", KEY)
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to customer {i} about the loan." for i in range(20)))
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "base_url": f"http://127.0.0.1:{closed_port}/v1", "model": "m",
                  "api_key_env": "GUARDS_TEST_KEY"},
        "generation": {"count": 2, "progress": False},
        "output": {"dir": "out"},
    }  # fmt: skip
    cfg = tmp_path / "config.yaml"
    cfg.write_text(json.dumps(config))  # JSON is YAML
    t = time.perf_counter()
    result = CliRunner().invoke(app, ["assess", str(cfg), "--no-progress"])
    elapsed = time.perf_counter() - t
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert elapsed < 15, elapsed  # about 3 s on an idle machine (imports included); before: a minute of backoff
    # the failure is one line (the pre-run estimate, "estimate: ...", may precede it)
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("estimate: ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("assessment failed: ServerUnreachableError: ")
    assert f"127.0.0.1:{closed_port}" in lines[0] and "unreachable after" in lines[0]
    assert KEY not in result.output and "Traceback" not in result.output


def test_refused_connections_after_an_answer_get_the_whole_budget() -> None:
    """Once anything has answered (here a 503), refused connections may be a restart, not a wrong address: the
    whole retry budget applies, as before."""

    class AnsweredOnceThenRefuses(ChatClient):
        calls = 0

        @property
        def identity(self) -> dict[str, Any]:
            return {"backend": "answered-once"}

        async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
            type(self).calls += 1
            if type(self).calls == 1:
                raise RetryableError("HTTP 503 Service Unavailable from h: loading", status=503)
            raise ConnectionFailedError("cannot connect to h: refused")

    with pytest.raises(ServerUnreachableError, match="unreachable after 7 attempts: cannot connect to h"):
        generate(["only"], AnsweredOnceThenRefuses(), count=1, max_retries=6, backoff=0.001, **FAST)
    assert AnsweredOnceThenRefuses.calls == 7


# ------------------------------------------------------------------------------------------------ redirects


class _Redirecting(JsonHandler):
    """``/v1/chat/completions`` answers with the status in the prompt (``[[307]]``, ``[[308]]``, ``[[302]]``) and a
    Location on the same host, ``/landing/v1/chat/completions``; the landing endpoint records what it received."""

    landed: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        if self.path.startswith("/landing"):
            type(self).landed.append(dict(self.headers.items()))
            reply = {"role": "assistant", "content": "landed"}
            self.reply(200, {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}]})
            return
        user = json.loads(raw)["messages"][-1]["content"]
        status = int(user.split("[[")[1].split("]]")[0])
        port = self.server.server_address[1]
        where = f"http://127.0.0.1:{port}/landing/v1/chat/completions?token={KEY}"
        self.reply(status, {"error": {"message": f"moved to {where}"}}, {"Location": where})

    def do_GET(self) -> None:  # a 302 followed as a GET would land here
        type(self).landed.append(dict(self.headers.items()))
        self.reply(404, {"error": {"message": "nothing here"}})


@pytest.fixture
def redirecting() -> Iterator[str]:
    _Redirecting.landed = []
    with serving(_Redirecting) as url:
        yield url


@pytest.mark.parametrize("status", [307, 308, 302])
def test_a_redirect_of_a_post_is_not_followed(status: int, redirecting: str) -> None:
    client = OpenAIClient(redirecting, "m", api_key=KEY)
    result = generate([f"go [[{status}]]"], client, count=2, max_consecutive_failures=None, **FAST)
    assert _Redirecting.landed == []  # nothing reached the landing endpoint: no request, no Authorization header
    frame = result.to_frame()
    assert (frame["status"] == "error").all() and (frame["attempts"] == 1).all()  # not retried
    error = frame["error"].iloc[0]
    assert error.startswith(f"HTTP {status} ") and "does not follow redirects of a POST" in error
    assert f"to {redirecting.rsplit('/v1', 1)[0]}/..." in error  # the origin only: a path or query may hold a token
    assert KEY not in error and "landing" not in error


def test_redirects_for_every_prompt_stop_the_run_naming_base_url(redirecting: str) -> None:
    client = OpenAIClient(redirecting, "m", api_key=KEY)
    with pytest.raises(GenerationStoppedError) as caught:
        generate([f"p{i} [[307]]" for i in range(10)], client, count=1, concurrency=1, **FAST)
    assert "3 different prompts in a row were refused with HTTP 307 Temporary Redirect" in str(caught.value)
    assert "check base_url" in str(caught.value) and KEY not in str(caught.value)
    assert _Redirecting.landed == []


# ------------------------------------------------------------------------------------------------ LangChain name


def test_a_langchain_models_name_is_read_from_any_of_its_spellings() -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from evenhand.generation import LangChainClient
    from evenhand.pipeline.responses.sources import Generated

    class NamedModelName(FakeListChatModel):
        model_name: str = "gpt-4o-mini"

    class NamedModel(FakeListChatModel):
        model: str = "claude-3-5-haiku"

    class NamedModelId(FakeListChatModel):
        model_id: str = "anthropic.claude-v2"

    for cls, name in ((NamedModelName, "gpt-4o-mini"), (NamedModel, "claude-3-5-haiku"),
                      (NamedModelId, "anthropic.claude-v2")):  # fmt: skip
        chat_model = cls(responses=["hi"])
        assert model_name_of(chat_model) == name
        client = LangChainClient(chat_model)
        assert client.model == name and name in client.describe()
        for given in (chat_model, client):
            assert Generated(given).describe() == {"provider": type(given).__name__, "model": name}
    assert model_name_of(FakeListChatModel(responses=["x"])) == ""  # no name at all: "" as before
    assert model_name_of(object()) == ""
