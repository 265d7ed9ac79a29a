"""preflight17: `evenhand assess` that cannot reach its model (closed port, a host that does not resolve, a bad key,
a wrong model name) fails before the scorers load, with its one line and exit code, and sends no completion."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _loopback import JsonHandler, serving
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.pipeline.families import FAMILY_TYPES

runner = CliRunner()
KEY = "sk-preflight-secret-0042"
PROMPTS = Path(evenhand.__file__).parent / "data" / "demo" / "prompts.jsonl"


class _Server(JsonHandler):
    """``GET /models`` lists ``served``; a completion is answered with ``post_status`` (counted in ``posts``)."""

    models_status = 200
    served: tuple[str, ...] = ("served-model",)
    post_status = 200
    posts: list[str] = []  # noqa: RUF012 - a class per test (below)

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/models"):
            if self.models_status == 401:
                self.reply(401, {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}})
            elif self.models_status == 200:
                self.reply(200, {"object": "list", "data": [{"id": m, "object": "model"} for m in self.served]})
            else:
                self.reply(self.models_status, {"error": {"message": "no such route"}})
        else:
            self.reply(404, {"error": {"message": "no such route"}})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        type(self).posts.append(body["model"])
        if self.post_status == 200:
            n = int(body.get("n") or 1)
            text = body["messages"][-1]["content"]
            choices = [{"index": i, "message": {"role": "assistant", "content": f"Thanks: {text[:40]}"},
                        "finish_reason": "stop"} for i in range(n)]  # fmt: skip
            self.reply(200, {"choices": choices, "usage": {"prompt_tokens": 5, "completion_tokens": 5}})
        else:
            self.reply(self.post_status, {"error": {"message": "refused", "code": "model_not_found"}})


def _handler(**attrs: Any) -> type[_Server]:
    return type("Scripted", (_Server,), {"posts": [], **attrs})


@pytest.fixture
def no_scorers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Loading a scorer fails the test: the failures below must come before it."""

    def build(self: Any, *args: Any) -> None:
        raise AssertionError(f"the {type(self).__name__} scorers were loaded before the server was checked")

    for family in FAMILY_TYPES:
        monkeypatch.setattr(family, "build", build)
    yield


def _config(tmp_path: Path, base_url: str, model: str = "served-model", options: str = "") -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "version: 1\n"
        "use_case: {name: preflight, task: text_generation, attributes: [gender], counterfactual_invariance: true}\n"
        f"prompts: {{path: {PROMPTS}, column: prompt, limit: 3}}\n"
        f"model: {{provider: openai, base_url: '{base_url}', model: {model}, api_key_env: PREFLIGHT_KEY,"
        f" max_tokens: 8{options}}}\n"
        "generation: {count: 2, counterfactual_count: 2, progress: false}\n"
        "statistics: {ci: null}\n"
        f"output: {{dir: {tmp_path / 'out'}}}\n"
    )
    return cfg


def _assess(cfg: Path, key: str | None = KEY) -> Any:
    env = {"PREFLIGHT_KEY": key} if key is not None else {"PREFLIGHT_KEY": None}
    return runner.invoke(app, ["assess", str(cfg), "--no-progress"], env=env)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_refused_connection_exit_3_names_the_url_before_the_scorers(tmp_path: Path, no_scorers: None) -> None:
    port = _closed_port()
    result = _assess(_config(tmp_path, f"http://user:pw-secret@127.0.0.1:{port}/v1"))
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output  # one line
    assert f"127.0.0.1:{port}/v1/chat/completions is unreachable after 4 attempts" in lines[0]
    assert "pw-secret" not in result.output and KEY not in result.output


def test_unresolvable_host_exit_3_before_the_scorers(tmp_path: Path, no_scorers: None) -> None:
    result = _assess(_config(tmp_path, "http://evenhand-nowhere.invalid:8000/v1"))
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert "evenhand-nowhere.invalid:8000/v1/chat/completions is unreachable" in result.output


def test_refused_key_exit_2_names_the_variable_and_sends_no_completion(tmp_path: Path, no_scorers: None) -> None:
    handler = _handler(models_status=401, post_status=401)
    with serving(handler) as url:
        result = _assess(_config(tmp_path, url))
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "refused the credentials (HTTP 401 Unauthorized: Incorrect API key provided)" in result.output
    assert "check the key in the environment variable PREFLIGHT_KEY (model.api_key_env)" in result.output
    assert "Traceback" not in result.output and KEY not in result.output
    assert handler.posts == []  # no completion was asked (nothing paid)


def test_unset_key_says_the_variable_is_not_set(tmp_path: Path, no_scorers: None) -> None:
    with serving(_handler(models_status=401)) as url:
        result = _assess(_config(tmp_path, url), key=None)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "the environment variable PREFLIGHT_KEY (model.api_key_env) is not set" in result.output


@pytest.mark.pipeline
def test_model_not_listed_is_a_warning_and_the_requests_decide(tmp_path: Path) -> None:
    """A model the list does not name is said at once (``model.model``, what the server lists) but not refused:
    servers that ignore the name list another and answer (next test); one that really lacks it refuses the first
    requests, and the circuit breaker stops the run (exit 3) as it did before the check."""
    handler = _handler(post_status=404)
    said = "model.model: the server at .* does not list 'no-such-model' \\(it lists 'served-model'\\)"
    with serving(handler) as url, pytest.warns(UserWarning, match=said):
        result = _assess(_config(tmp_path, url, model="no-such-model"))
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert 1 <= len(handler.posts) <= 10 and KEY not in result.output
    ignores = tmp_path / "ignores"
    ignores.mkdir()
    with serving(_handler(served=("something-else",))) as url, pytest.warns(UserWarning, match="does not list"):
        result = _assess(_config(ignores, url, model="no-such-model"))  # a server that ignores the name: it runs
    assert result.exit_code == ExitCode.OK, result.output


@pytest.mark.pipeline
def test_model_check_can_be_skipped_and_tags_count(tmp_path: Path) -> None:
    """A server that ignores the model name lists another (TGI): ``check_model: false`` runs it; Ollama's ``:latest``
    tag is the name without it."""
    with serving(_handler(served=("tgi-served",))) as url:
        result = _assess(_config(tmp_path, url, model="tgi", options=", options: {check_model: false}"))
    assert result.exit_code == ExitCode.OK, result.output
    with serving(_handler(served=("llama3.2:latest",))) as url:
        result = _assess(_config(tmp_path, url, model="llama3.2"))
    assert result.exit_code == ExitCode.OK, result.output


def test_server_without_model_list_is_not_refused(tmp_path: Path, no_scorers: None) -> None:
    """No list (404), a key that may chat but not list (403): the check decides nothing, the run goes on (here to
    the scorers, which the fixture stops)."""
    for status in (404, 403):
        with serving(_handler(models_status=status)) as url:
            result = _assess(_config(tmp_path, url))
        assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
        assert "scorers were loaded before the server was checked" in result.output


@pytest.mark.pipeline
def test_stored_responses_resume_without_the_server(tmp_path: Path) -> None:
    """A run whose responses are all in the store sends nothing: it needs no server and is not refused."""
    handler = _handler()
    with serving(handler) as url:
        cfg = _config(tmp_path, url)
        first = _assess(cfg)
        assert first.exit_code == ExitCode.OK, first.output
    assert handler.posts
    port = url.split(":")[2].split("/")[0]
    cfg.write_text(cfg.read_text().replace(url, f"http://127.0.0.1:{port}/v1"))  # the same URL, nobody there now
    again = _assess(cfg)
    assert again.exit_code == ExitCode.OK, again.output


@pytest.mark.subprocess
def test_unreachable_server_fails_without_importing_the_scorers(tmp_path: Path) -> None:
    """In a fresh interpreter: the failure comes before torch, transformers or a scorer module is imported."""
    cfg = _config(tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    driver = (
        "import runpy, sys\n"
        f"sys.argv = ['evenhand', 'assess', {str(cfg)!r}, '--no-progress']\n"
        "try:\n    runpy.run_module('evenhand', run_name='__main__')\nexcept SystemExit as exc:\n    code = exc.code\n"
        "heavy = ('torch', 'transformers', 'sentence_transformers',"
        " 'evenhand.scorers.toxicity', 'evenhand.scorers.sentiment')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules], 'EXIT', code)\n"
    )
    done = subprocess.run([sys.executable, "-c", driver], capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "PREFLIGHT_KEY": KEY})  # fmt: skip
    assert "LOADED [] EXIT 3" in done.stdout, done.stdout + done.stderr


def test_model_names_as_servers_list_them() -> None:
    from evenhand.generation.preflight import _served_models, _serves

    assert _serves(["models/gemini-1.5-flash"], "gemini-1.5-flash")
    assert _serves(["openai/*"], "openai/gpt-4o") and not _serves(["openai/*"], "gpt-4o")
    assert not _serves(["llama3.2:3b"], "llama3.2")
    assert _served_models(b'{"data": [{"id": "a"}], "has_more": true}') == []  # a page: not the whole list
    assert _served_models(b"<html>") == [] and _served_models(b'{"data": "x"}') == []


def test_a_connection_that_only_times_out_decides_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    from evenhand.generation import OpenAIClient, preflight

    async def never(*args: Any, **kwargs: Any) -> Any:
        raise asyncio.TimeoutError

    monkeypatch.setattr(preflight.asyncio, "open_connection", never)
    listed: list[str] = []

    async def listing(client: Any) -> None:
        listed.append(client.model)

    monkeypatch.setattr(preflight, "_check_model_list", listing)
    preflight.check_reachable(OpenAIClient("http://127.0.0.1:9/v1", "m"))  # no raise, and no model list asked
    assert listed == []


def _with_judge(cfg: Path, judge_url: str) -> Path:
    judge = f"judge: {{provider: openai, base_url: '{judge_url}', model: served-model, api_key_env: PREFLIGHT_KEY}}\n"
    cfg.write_text(cfg.read_text() + judge)
    return cfg


def test_a_dead_judge_fails_before_the_scorers_and_any_completion(tmp_path: Path, no_scorers: None) -> None:
    """faults18: the judge was not probed; a dead one was found only after every scorer had loaded."""
    port = _closed_port()
    handler = _handler()
    with serving(handler) as url:
        result = _assess(_with_judge(_config(tmp_path, url), f"http://u:judge-pw@127.0.0.1:{port}/v1"))
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("assessment failed: ServerUnreachableError: judge: "), result.output
    assert f"127.0.0.1:{port}/v1/chat/completions is unreachable" in lines[0]
    assert "judge-pw" not in result.output and KEY not in result.output
    assert handler.posts == []


def test_a_judge_refusing_its_key_names_the_judges_variable(tmp_path: Path, no_scorers: None) -> None:
    with serving(_handler()) as url, serving(_handler(models_status=401)) as judge_url:
        result = _assess(_with_judge(_config(tmp_path, url), judge_url))
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "check the key in the environment variable PREFLIGHT_KEY (judge.api_key_env)" in result.output
