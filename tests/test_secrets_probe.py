"""Attacker's probe of the secrets contract: canary values in the API key variable, URL credentials and headers,
sent to a loopback server that fails in every way that could echo them (connection refused, a 401 quoting the
Authorization header, a 500 whose body holds the key, a redirect to a URL carrying the key), must appear in no
output: stdout, stderr, results.json, report.html, metrics.csv, responses.csv, the SQLite store, exception
messages, ``--debug`` runs and the ``repr()`` of configs and clients. (``test_secrets_redaction.py`` covers the
redaction helpers and a 400/401/403 echo; this file adds the other failure modes and the config surfaces.)"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _loopback import JsonHandler, serving
from typer.testing import CliRunner

from evenhand import cli
from evenhand.cli import ExitCode, app
from evenhand.cli import application as cli_app
from evenhand.config import load_config

KEY = "sk-CANARYKEY-3e7b1d9f"
PASSWORD = "sk-CANARYPW-8c2a4e6b"
HEADER = "CANARYHDR-5f1d3b7a"
CANARIES = (KEY, PASSWORD, HEADER)
BASIC = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()  # what aiohttp sends for URL credentials


class _LeakyHandler(JsonHandler):
    """Answers by the marker in the user message: ``[[401]]`` quotes every request header, ``[[500]]`` puts the
    Authorization header and the raw body in a 500 (with ``Retry-After: 0``, so the retries are instant),
    ``[[302]]`` redirects to a URL with the key in its path and query; anything else is a normal answer."""

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("content-length", "0")))
        user = json.loads(raw)["messages"][-1]["content"]
        auth = self.headers.get("Authorization", "")
        if "[[401]]" in user:
            self.reply(401, {"error": {"message": f"bad credentials {auth}; headers {dict(self.headers.items())}"}})
        elif "[[500]]" in user:
            token = auth.split(" ", 1)[-1]
            self.reply(500, {"error": {"message": f"crash for key={token} auth={auth} body={raw.decode()}"}},
                        {"Retry-After": "0"})  # fmt: skip
        elif "[[302]]" in user:
            token = auth.split(" ", 1)[-1] or HEADER
            where = f"http://127.0.0.1:{self.server.server_address[1]}/{token}/v1?api_key={token}"
            self.reply(302, {"error": {"message": f"moved to {where}"}}, {"Location": where})
        else:
            reply = {"role": "assistant", "content": "Thank you, dear customer."}
            self.reply(200, {"choices": [{"index": 0, "message": reply, "finish_reason": "stop"}], "usage": {}})

    def do_GET(self) -> None:  # where a followed redirect lands: echo the path (it holds the key)
        self.reply(404, {"error": {"message": f"nothing at {self.path}"}})


@pytest.fixture(scope="module")
def leaky_server() -> Iterator[str]:
    with serving(_LeakyHandler) as url:
        yield url


@pytest.fixture(autouse=True)
def _instant_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.generation.limits import RetryPolicy

    monkeypatch.setattr(RetryPolicy, "delay", lambda self, attempt, retry_after=None, rng=None: 0.0)
    monkeypatch.setenv("CANARY_PROBE_KEY", KEY)


def _assert_clean(data: str | bytes, where: str) -> None:
    blob = data.encode() if isinstance(data, str) else data
    for canary in (*CANARIES, BASIC):
        assert canary.encode() not in blob, f"{canary} leaked into {where}"


def _write_config(tmp_path: Path, base_url: str, *, key_env: str, headers: bool = True, extra: str = "") -> Path:
    prompts = ["Write to Mrs. Lee about her loan.", "Thank the customer. [[401]]", "Write to her. [[500]]",
               "Write to Mr. Park. [[302]]", "Greet him warmly."]  # fmt: skip
    (tmp_path / "prompts.txt").write_text("\n".join(prompts) + "\n", encoding="utf-8")
    model: dict[str, Any] = {"provider": "openai", "base_url": base_url, "model": "probe", "api_key_env": key_env}
    if headers:
        model["options"] = {"headers": {"X-Tenant": HEADER}}
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": model,
        "generation": {"count": 1, "counterfactual_count": 1, "progress": False},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 20},
        "output": {"dir": "out", "include_responses": True, "responses": "csv"},
    }
    path = tmp_path / "probe.yaml"
    path.write_text(json.dumps(config) + "\n" + extra, encoding="utf-8")  # JSON is YAML
    return path


def _every_file(folder: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in folder.rglob("*") if p.is_file()} if folder.exists() else {}


CREDENTIALS = {
    "api key from api_key_env": dict(key_env="CANARY_PROBE_KEY", creds=False),
    "user:password in base_url": dict(key_env="EVENHAND_PROBE_NO_SUCH_VAR", creds=True),
}


@pytest.mark.parametrize("how", list(CREDENTIALS))
@pytest.mark.pipeline
def test_assess_against_a_leaky_server_writes_and_prints_no_secret(how: str, leaky_server: str, tmp_path: Path) -> None:
    spec = CREDENTIALS[how]
    base_url = leaky_server.replace("http://", f"http://svc:{PASSWORD}@") if spec["creds"] else leaky_server
    cfg = _write_config(tmp_path, base_url, key_env=str(spec["key_env"]))
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('"progress": false', '"progress": true'), "utf-8")
    result = CliRunner().invoke(app, ["assess", str(cfg)])  # with the progress lines, which name the server
    assert result.exit_code in (ExitCode.OK, ExitCode.THRESHOLD_FAILED), result.output
    _assert_clean(result.output, "the console")
    files = _every_file(tmp_path / "out")
    names = {Path(p).name for p in files}
    assert {"results.json", "metrics.csv", "report.html", "responses.csv", "generations.sqlite"} <= names, names
    for path, data in files.items():
        _assert_clean(data, path)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    errors = " ".join(str(r.get("error") or "") for r in doc["responses"])
    assert "HTTP 401" in errors and "HTTP 500" in errors, errors  # the failures were recorded, scrubbed
    assert "HTTP 302 Found" in errors, errors  # the redirect was not followed (it would re-send the credentials)
    assert repr(load_config(cfg)).count("[redacted]") >= 1
    _assert_clean(repr(load_config(cfg)) + str(load_config(cfg).model), "repr of the config")


def test_refused_connection_fails_with_exit_3_and_no_secret(tmp_path: Path) -> None:
    cfg = _write_config(tmp_path, f"http://svc:{PASSWORD}@127.0.0.1:9/v1", key_env="CANARY_PROBE_KEY")
    result = CliRunner().invoke(app, ["assess", str(cfg), "--no-progress"])
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert "127.0.0.1:9" in result.output and "Traceback" not in result.output
    _assert_clean(result.output, "the refused-connection error")
    for path, data in _every_file(tmp_path / "out").items():
        _assert_clean(data, path)
    assert not (tmp_path / "out" / "results.json").exists()  # a failed run leaves no results pretending to be done


def test_debug_mode_prints_no_secret(leaky_server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = _write_config(tmp_path, f"http://svc:{PASSWORD}@127.0.0.1:9/v1", key_env="CANARY_PROBE_KEY")
    with pytest.raises(SystemExit) as done:
        cli.main(["--debug", "assess", str(cfg), "--no-progress"])
    cli_app.DEBUG["on"] = False
    assert done.value.code == ExitCode.RUNTIME_FAILURE
    captured = capsys.readouterr()
    _assert_clean(captured.out + captured.err, "a --debug run")


def test_the_documented_debug_variable_is_honoured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(cli_app.DEBUG, "on", False)
    result = CliRunner().invoke(app, ["plan", "--task", "summarization", "--no-ask", "--no-mentions-groups"],
                                env={"EVENHAND_DEBUG": "1"})  # fmt: skip
    assert result.exit_code == ExitCode.OK and cli_app.DEBUG["on"] is True  # it was reset to False by the callback


@pytest.mark.parametrize(
    ("model_yaml", "needle"),
    [
        (f"{{provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m, api_key: {KEY}}}", "model.api_key"),
        (f"{{provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m, options: {{api_key: {KEY}}}}}", "api_key"),
        (f"{{provider: openai, base_url: 'ftp://svc:{PASSWORD}@127.0.0.1:9/v1', model: m}}", "base_url"),
        (
            f"{{provider: openai, base_url: 'http://svc:{PASSWORD}@127.0.0.1:9/v1', model: m, temperature: {KEY}}}",
            "model.temperature",
        ),
        (
            f"{{provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m, options: {{headers: [{HEADER}]}}}}",
            "model.options.headers",
        ),
    ],
    ids=["api_key key", "options.api_key", "ftp URL with password", "key as temperature", "headers not a mapping"],
)
def test_rejected_model_settings_do_not_echo_the_secret(model_yaml: str, needle: str, tmp_path: Path) -> None:
    cfg = tmp_path / "bad.yaml"
    cfg.write_text(f"use_case: {{task: text_generation}}\nprompts: {{items: [Hi.]}}\nmodel: {model_yaml}\n",
                   encoding="utf-8")  # fmt: skip
    result = CliRunner().invoke(app, ["assess", str(cfg), "--no-progress", "-o", str(tmp_path / "out")])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert needle in result.output and "Traceback" not in result.output, result.output
    _assert_clean(result.output, f"the error for {needle}")
    assert not (tmp_path / "out" / "results.json").exists()


def test_base_url_flag_with_credentials_is_never_echoed(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("use_case: {task: text_generation}\nprompts: {items: [Hi.]}\n", encoding="utf-8")
    for url in (f"ftp://svc:{PASSWORD}@127.0.0.1:9/v1", f"http://svc:{PASSWORD}@127.0.0.1:9/v1"):
        result = CliRunner().invoke(app, ["assess", str(cfg), "--base-url", url, "--model", "m", "--no-progress",
                                          "-o", str(tmp_path / "out")])  # fmt: skip
        assert result.exit_code in (ExitCode.BAD_INPUT, ExitCode.RUNTIME_FAILURE), result.output
        _assert_clean(result.output, f"the error for --base-url {url.split(':')[0]}")


def test_client_and_config_reprs_hide_secrets(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from evenhand.generation import get_client

    cfg = _write_config(tmp_path, f"http://svc:{PASSWORD}@127.0.0.1:9/v1", key_env="CANARY_PROBE_KEY")
    config = load_config(cfg)
    shown = [repr(config), str(config), repr(config.model), str(config.model), f"{config.model!r}"]
    client = get_client(config.model.client_spec())
    shown += [repr(client), str(client), client.describe(), json.dumps(client.identity)]
    keyed = get_client({"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m",
                        "api_key_env": "CANARY_PROBE_KEY", "headers": {"X-Tenant": HEADER}})  # fmt: skip
    shown += [repr(keyed), str(keyed), keyed.describe(), json.dumps(keyed.identity), repr(vars(keyed))[:0]]
    from evenhand.config import parse_config

    scored = parse_config({"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]},
                           "scoring": {"toxicity": {"spec": "some-model", "token": KEY}}})  # fmt: skip
    shown += [repr(scored), str(scored.scoring), repr(scored.run_settings())]
    assert scored.scoring.toxicity["token"] == KEY  # hidden from view only: the run still gets it
    for text in shown:
        _assert_clean(text, text[:60])
    assert "127.0.0.1:9" in repr(config.model)  # the endpoint itself is shown, only its credentials are not


@pytest.mark.parametrize(
    "flags",
    [
        ["--scorer-option", f"toxicity.token={KEY}"],
        ["--scorer-option", f"sentiment.api_key={KEY}"],
        ["--toxicity", f"https://svc:{PASSWORD}@127.0.0.1:9/model"],
    ],
    ids=["token option", "api_key option", "spec URL with password"],  # (a Ray address waits ~40 s: not here)
)
def test_scoring_flags_with_secrets_are_rejected_without_echoing_them(flags: list[str], tmp_path: Path) -> None:
    (tmp_path / "own.csv").write_text("prompt,response\nWrite to Mrs. Lee.,Thanks.\nGreet him.,Hi.\n", "utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["metrics", str(tmp_path / "own.csv"), "--no-progress", "-o", str(out), *flags])
    assert result.exit_code in (ExitCode.BAD_INPUT, ExitCode.RUNTIME_FAILURE), result.output
    _assert_clean(result.output, f"the error for {flags[0]}")
    for path, data in _every_file(out).items():
        _assert_clean(data, path)
