"""Secrets never leave the process: canary values in the API key variable, headers, extra_body and URL credentials
appear in no output (results.json, report.html, metrics.csv, console, the SQLite store, error messages), even when
the server echoes the whole request back in its errors."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _loopback import JsonHandler, serving
from typer.testing import CliRunner

from evenhand._redact import (
    REDACTED,
    is_secret_key,
    redact_mapping,
    redact_text,
    redact_url,
    secret_values,
)
from evenhand.cli import ExitCode, app

KEY = "CANARY-KEY-7f3a9c1e5b"
HEADER = "CANARY-HEADER-2d8e4f6a"
BODY = "CANARY-BODY-9b1c3e5d"
PASSWORD = "CANARY-PW-4a6c8e0f"
CANARIES = (KEY, HEADER, BODY, PASSWORD)
FAST = {"progress": False, "backoff": 0.01, "max_retries": 1}


# ---------------------------------------------------------------------------------------------- the helper itself


def test_secret_key_names() -> None:
    for name in ("api_key", "X-Api-Key", "apiKey", "Authorization", "access_token", "client_secret", "password",
                 "sig", "X-Amz-Signature", "user_token", "OPENAI_API_KEY", "auth_header", "Cookie"):  # fmt: skip
        assert is_secret_key(name), name
    for name in ("model", "base_url", "max_tokens", "api_key_env", "token_limit", "key_id", "api-version", "top_k"):
        assert not is_secret_key(name), name


def test_redact_url() -> None:
    assert redact_url("https://u:pw@h:8/v1?api-key=abc&x=1") == "https://h:8/v1?api-key=***&x=1"
    assert redact_url("http://user:p%40ss@[::1]:8080/v1?sig=abc&sv=2") == "http://[::1]:8080/v1?sig=***&sv=2"
    assert redact_url("https://h/v1#access_token=abc&state=1") == "https://h/v1#access_token=***&state=1"
    assert redact_url("http://localhost:11434/v1") == "http://localhost:11434/v1"
    assert redact_url("https://h/openai?api-version=2024-06-01") == "https://h/openai?api-version=2024-06-01"


def test_a_function_key_in_the_query_is_a_secret_of_the_url() -> None:
    """Azure Functions (and OAuth redirects) carry their key as ``?code=``: masked in a URL and scrubbed from text,
    while a mapping's ``code`` key (a status code, a language code) stays what it is."""
    url = "https://fn.azurewebsites.net/api/v1?code=FNKEY-CANARY-9187&x=1"
    assert redact_url(url) == "https://fn.azurewebsites.net/api/v1?code=***&x=1"
    assert "FNKEY-CANARY-9187" in secret_values({"base_url": url})
    assert "FNKEY" not in redact_text("HTTP 404 from https://fn.azurewebsites.net/api/v1?code=FNKEY-CANARY-9187")
    assert redact_mapping({"error": {"code": "rate_limit"}}) == {"error": {"code": "rate_limit"}}


def test_redact_mapping_keeps_names_hides_values() -> None:
    spec = {
        "provider": "openai",
        "model": "m",
        "base_url": f"http://user:{PASSWORD}@h/v1?key={KEY}",
        "headers": {"X-Tenant": HEADER, "Accept": "application/json"},
        "extra_body": {"user": {"token": BODY}, "top_k": 5},
        "token": KEY,
        "max_tokens": 7,
        "options": [{"password": PASSWORD}],
    }
    out = redact_mapping(spec)
    assert out == {
        "provider": "openai",
        "model": "m",
        "base_url": "http://h/v1?key=***",
        "headers": {"X-Tenant": REDACTED, "Accept": REDACTED},
        "extra_body": {"user": {"token": REDACTED}, "top_k": REDACTED},
        "token": REDACTED,
        "max_tokens": 7,
        "options": [{"password": REDACTED}],
    }
    assert spec["headers"]["X-Tenant"] == HEADER  # a copy: the spec itself still works


def test_secret_values_and_redact_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CANARY_ENV", KEY)
    spec = {
        "base_url": f"http://bob:{PASSWORD}@h/v1",
        "api_key_env": "CANARY_ENV",
        "headers": {"X-Tenant": f"Bearer {HEADER}"},
        "extra_body": {"nested": [BODY]},
    }
    secrets = secret_values(spec)
    assert {KEY, HEADER, BODY, PASSWORD} <= secrets and "bob" not in secrets
    basic = base64.b64encode(f"bob:{PASSWORD}".encode()).decode()
    message = (
        f"HTTP 401: key {KEY} header Bearer {HEADER} body {json.dumps({'x': BODY})} url http://bob:{PASSWORD}@h/v1 "
        f"basic {basic} quoted {PASSWORD.replace('-', '%2D')}"
    )
    scrubbed = redact_text(message, secrets)
    assert not any(c in scrubbed for c in CANARIES) and basic not in scrubbed, scrubbed
    assert "http://h/v1" in scrubbed and "HTTP 401" in scrubbed
    # without known secrets: URL credentials and bearer tokens still go
    generic = redact_text(f"GET https://u:{PASSWORD}@h/x?token={KEY} with Bearer {HEADER}")
    assert not any(c in generic for c in CANARIES), generic


# ------------------------------------------------------------------------------- a server that echoes everything


class _EchoHandler(JsonHandler):
    """An OpenAI-compatible server that answers prompts containing [[401]] / [[400]] / [[403]] with that status and
    an error message quoting every request header and the whole body (the worst case for a leak)."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        body = json.loads(raw)
        user = body["messages"][-1]["content"]
        echo = f"headers={dict(self.headers.items())} body={raw.decode()}"
        for code in (401, 400, 403):
            if f"[[{code}]]" in user:
                self.reply(code, {"error": {"message": f"rejected: {echo}"}})
                return
        reply = {"role": "assistant", "content": f"Thanks, dear customer. {len(user)}"}
        self.reply(200, {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}], "usage": {}})


@pytest.fixture(scope="module")
def echo_server() -> Iterator[str]:
    with serving(_EchoHandler) as url:
        yield url


def _assert_no_canary(text: str | bytes, where: str) -> None:
    data = text.encode() if isinstance(text, str) else text
    for canary in CANARIES:
        assert canary.encode() not in data, f"{canary} leaked into {where}"


def _all_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def _config(tmp_path: Path, base_url: str, *, with_key: bool) -> Path:
    prompts = ["Write to Mrs. Lee about her loan.", "Thank the customer. [[401]]", "Write to her. [[400]]",
               "Write to Mr. Park about his card.", "Remind her of the meeting. [[403]]", "Greet him."]  # fmt: skip
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n")
    model = {
        "provider": "openai",
        "base_url": base_url,
        "model": "echo-model",
        "api_key_env": "CANARY_LLM_KEY" if with_key else "EVENHAND_TEST_NO_SUCH_KEY",
        "options": {"headers": {"X-Tenant-Token": HEADER, "X-Trace": f"trace {HEADER}"},
                    "extra_body": {"user": BODY, "metadata": {"session": BODY}}},
    }  # fmt: skip
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": model,
        "generation": {"count": 1, "counterfactual_count": 1, "progress": False},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 20},
        "output": {"dir": "out", "include_responses": True},
    }
    path = tmp_path / "config.json.yaml"
    path.write_text(json.dumps(config))  # JSON is YAML
    return path


@pytest.mark.parametrize("where", ["api key, headers, body", "URL credentials, headers, body"])
@pytest.mark.pipeline
def test_cli_assess_leaks_no_canary(
    where: str, echo_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_key = where.startswith("api key")
    base_url = echo_server if with_key else echo_server.replace("http://", f"http://svc:{PASSWORD}@")
    monkeypatch.setenv("CANARY_LLM_KEY", KEY)
    cfg = _config(tmp_path, base_url, with_key=with_key)
    result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code in (ExitCode.OK, ExitCode.THRESHOLD_FAILED), result.output
    _assert_no_canary(result.output, "the console")
    _assert_no_canary(getattr(result, "stderr", "") or "", "stderr")
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    errors = [r.get("error") for r in doc.get("responses", []) if r.get("error")]
    assert len(errors) >= 3 and all("rejected" in e for e in errors)  # the echo reached us, scrubbed
    model = doc["model"]
    assert model["headers"] == {"X-Tenant-Token": REDACTED, "X-Trace": REDACTED}
    assert model["extra_body"] == {"user": REDACTED, "metadata": {"session": REDACTED}}
    assert model["base_url"] == echo_server
    files = _all_bytes(tmp_path / "out")
    assert {"results.json", "metrics.csv", "report.html"} <= {Path(p).name for p in files}
    assert any(Path(p).name.startswith("generations.sqlite") for p in files)
    for path, data in files.items():
        _assert_no_canary(data, path)


@pytest.mark.pipeline
def test_python_api_and_store(echo_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import evenhand

    monkeypatch.setenv("CANARY_LLM_KEY", KEY)
    spec = {
        "provider": "openai",
        "base_url": echo_server.replace("http://", f"http://svc:{PASSWORD}@"),
        "model": "echo-model",
        "api_key_env": "EVENHAND_TEST_NO_SUCH_KEY",
        "headers": {"X-Api-Key": KEY, "X-Tenant": HEADER},
        "extra_body": {"user": BODY},
    }
    a = evenhand.assess(
        client=spec,
        prompts=["Write to Mrs. Lee.", "Thank him. [[401]]", "Write to Mr. Lee.", "Greet her."],
        task="text_generation",
        attributes=["gender"],
        count=1,
        store=tmp_path / "g.sqlite",
        progress=False,
        n_resamples=20,
        embedder=False,
    )
    assert a.meta["model"]["headers"] == {"X-Api-Key": REDACTED, "X-Tenant": REDACTED}
    _assert_no_canary(json.dumps(a.meta, default=str), "Assessment.meta")
    a.to_json(tmp_path / "r.json", include_responses=True)
    a.to_html(tmp_path / "r.html")
    assert "rejected" in (tmp_path / "r.json").read_text()
    for path, data in _all_bytes(tmp_path).items():
        _assert_no_canary(data, path)


def test_client_errors_name_no_secret(echo_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.generation import OpenAIClient, ServerUnreachableError, generate, get_client

    client = OpenAIClient(
        echo_server, "m", api_key=KEY, headers={"X-Tenant": HEADER}, extra_body={"user": BODY}, timeout=5
    )
    frame = generate(["a [[401]]", "b [[400]]", "c"], client, count=1, store=None, **FAST).to_frame()
    assert frame["status"].tolist() == ["error", "error", "ok"]
    assert all("rejected: headers=" in e for e in frame["error"][:2])
    _assert_no_canary(frame.to_string() + repr(client) + client.describe() + json.dumps(client.identity), "errors")

    # an unreachable server: the exception names the URL without its credentials
    dead = OpenAIClient(f"http://svc:{PASSWORD}@127.0.0.1:9/v1", "m", headers={"X-Tenant": HEADER}, timeout=2)
    with pytest.raises(ServerUnreachableError) as unreachable:
        generate(["x"], dead, count=1, store=None, **FAST)
    _assert_no_canary(str(unreachable.value), "ServerUnreachableError")
    assert "127.0.0.1:9" in str(unreachable.value)

    # a spec the factory rejects: the message keeps no secret of the spec
    monkeypatch.setenv("CANARY_LLM_KEY", KEY)
    bad_specs = [
        {"provider": "openai", "base_url": f"ftp://svc:{PASSWORD}@h/v1", "model": "m"},
        {"provider": "openai", "base_url": "http://h/v1", "model": "m", "headers": {"X": HEADER}, "bogus": BODY},
        {"provider": "openai", "base_url": "http://h/v1", "model": "m", "api_key": KEY},
    ]
    for bad in bad_specs:
        with pytest.raises(ValueError) as rejected:
            get_client(bad)
        _assert_no_canary(str(rejected.value), f"the error for {sorted(bad)}")


@pytest.mark.slow
def test_langchain_errors_and_identity_hide_secrets() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models.fake_chat_models import FakeListChatModel
    from pydantic import SecretStr

    from evenhand.generation import LangChainClient, generate

    class Leaky(FakeListChatModel):
        api_key: SecretStr = SecretStr(KEY)
        default_headers: dict[str, str] = {"X-Tenant": HEADER}  # noqa: RUF012 - a pydantic field
        extra_body: dict[str, str] = {"user": BODY}  # noqa: RUF012 - a pydantic field

        @property
        def _identifying_params(self) -> dict[str, Any]:
            return {"model_name": "leaky", "default_headers": self.default_headers, "extra_body": self.extra_body}

        async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
            raise PermissionError(f"401: key {KEY} rejected for headers {self.default_headers} body {self.extra_body}")

    client = LangChainClient(Leaky(responses=["x"]))
    assert client.identity["default_headers"] == {"X-Tenant": REDACTED} and client.identity["body_sha256"]
    frame = generate(["p"], client, count=1, store=None, **FAST).to_frame()
    assert frame["status"].tolist() == ["error"] and "PermissionError: 401" in frame["error"][0]
    _assert_no_canary(frame.to_string() + json.dumps(client.identity), "LangChain errors and identity")


def test_url_credentials_and_an_api_key_are_refused_at_once_without_secrets(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from evenhand.generation.clients.openai import OpenAIClient

    with pytest.raises(ValueError, match="Authorization") as both:
        OpenAIClient(f"http://svc:{PASSWORD}@127.0.0.1:9/v1", "m", api_key=KEY)
    _assert_no_canary(str(both.value), "the credentials conflict")
    # an ambient key in the environment does not override credentials written into the URL
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    client = OpenAIClient(f"http://svc:{PASSWORD}@127.0.0.1:9/v1", "m")
    assert "Authorization" not in client._headers()


def test_public_config_redacts_nested_secrets() -> None:
    from evenhand.generation.clients.base import public_config

    shown = public_config({"backend": "custom", "options": {"auth": {"api_key": KEY}, "url": f"http://u:{PASSWORD}@h"}})
    _assert_no_canary(json.dumps(shown), "public_config")


class _OddBodies(JsonHandler):
    """faults14's new failures: a 200 in undeclared Latin-1 ([[latin1]]) and one larger than the client's limit
    ([[huge]]), each quoting the request's headers and body, the worst case for a leak."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        echo = f"headers={dict(self.headers.items())} body={raw.decode()} café"
        content = {"role": "assistant", "content": echo}
        data = json.dumps({"choices": [{"index": 0, "message": content}]}, ensure_ascii=False)
        encoded = data.encode("latin-1", "replace") if "[[latin1]]" in raw.decode() else (data + " " * 4096).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(encoded)))
        self.end_headers()
        self.wfile.write(encoded)


def test_undecodable_and_oversized_bodies_fail_naming_no_secret() -> None:
    from evenhand.generation import OpenAIClient, generate

    with serving(_OddBodies) as url:
        secret_url = url.replace("http://", f"http://svc:{PASSWORD}@")
        client = OpenAIClient(secret_url, "m", headers={"X-Tenant": HEADER}, extra_body={"user": BODY}, timeout=5,
                              max_body_bytes=4096)  # fmt: skip
        frame = generate(["a [[latin1]]", "b [[huge]]"], client, count=1, store=None, **FAST).to_frame()
        keyed = OpenAIClient(url, "m", api_key=KEY, extra_body={"user": BODY}, timeout=5, max_body_bytes=4096)
        keyed_frame = generate(["a [[latin1]]", "b [[huge]]"], keyed, count=1, store=None, **FAST).to_frame()
    for result in (frame, keyed_frame):
        assert result["status"].tolist() == ["error", "error"], result["error"].tolist()
        assert "not valid UTF-8" in result["error"][0] and "larger than 4 KiB" in result["error"][1]
        _assert_no_canary(result.to_string(), "the encoding and size errors")


def test_config_number_errors_name_no_secret(tmp_path: Path) -> None:
    """A bad number beside credentials in the same section: the one line names the key and the number only."""
    from evenhand.config import ConfigError, load_config

    model = {"provider": "openai", "base_url": f"http://svc:{PASSWORD}@127.0.0.1:9/v1", "model": "m",
             "seed": 10**40, "options": {"headers": {"X-Tenant": HEADER}, "extra_body": {"user": BODY},
                                         "timeout": "60", "max_body_bytes": -1}}  # fmt: skip
    path = tmp_path / "c.yaml"
    config = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]}, "model": model}
    path.write_text(json.dumps(config))
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert "model.seed" in str(refused.value)
    _assert_no_canary(str(refused.value), "a config number error")
    model["seed"] = 1
    config = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]}, "model": model}
    path.write_text(json.dumps(config))
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert "model.options.timeout" in str(refused.value)
    _assert_no_canary(str(refused.value), "a config option error")


@pytest.mark.parametrize("name", ["session", "access", "k", "license", "sid", "ticket", "x-goog-user", "tenant"])
def test_a_query_value_under_a_name_that_is_no_credential_word_is_masked_too(name: str) -> None:
    """faults17: only query names that read as credentials (``key``, ``token``, ``sig`` ...) were masked, so a
    gateway's ``?session=<id>`` or ``?access=<key>`` reached the public URL (the store's job key, results, errors)
    and a reply or error body that echoed it. Now every value of four characters or more is masked unless its name
    is one known to carry no secret (``api-version``, ``model`` ...); short values (``x=1``) stay readable."""
    url = f"https://gw.example/v1?{name}=CANARY-QS-5521&api-version=2024-06-01&x=1"
    assert redact_url(url) == f"https://gw.example/v1?{name}=***&api-version=2024-06-01&x=1"
    assert "CANARY-QS-5521" in secret_values({"base_url": url})
    assert "CANARY" not in redact_text(f"HTTP 404 from {url}")
