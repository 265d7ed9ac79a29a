"""Generation under sustained faults: the run-wide circuit breaker stops a run that cannot succeed (the same refusal
for every prompt, a server that died mid-run) in bounded time, keeps everything finished, and a re-run resumes with
no duplicates; a content filter or one bad prompt never trips it; the CLI says so in one line (exit 3), no secret."""

from __future__ import annotations

import base64
import json
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.generation import GenerationStoppedError, OpenAIClient, generate
from evenhand.generation._types import ConnectionFailedError, GenerationError, NoAnswerError, RetryableError
from evenhand.generation.breaker import PERMISSION_LIMIT, CircuitBreaker, resolve_limit

FAST: dict[str, Any] = {"progress": False, "backoff": 0.01}
KEY = "sk-canary-breaker-key-5f1e"
PASSWORD = "pw-canary-breaker-77"
HEADER = "hdr-canary-breaker-31"


def _rows(path: Path) -> list[tuple[str, int, str, str | None]]:
    with closing(sqlite3.connect(path)) as db:
        return db.execute("SELECT prompt, sample, status, response FROM responses ORDER BY prompt, sample").fetchall()


# ------------------------------------------------------------------------------------------- the breaker's rules


def test_refusals_trip_on_different_prompts_only() -> None:
    unauthorized = GenerationError("HTTP 401 Unauthorized from http://h/v1: bad key", status=401, detail="bad key")
    breaker = CircuitBreaker(resolve_limit("auto", 8))
    assert breaker.outage_limit == 10 and breaker.refusal_limit == 3
    assert breaker.refused("a", unauthorized) is None
    assert breaker.refused("a", unauthorized) is None  # the same prompt again (its other samples): counts once
    assert breaker.refused("b", unauthorized) is None
    trip = breaker.refused("c", unauthorized)
    assert trip is not None and trip.status == 401
    assert "3 different prompts in a row were refused with HTTP 401" in trip.cause and "API key" in trip.cause

    bad_setting = GenerationError("HTTP 400: max_tokens too large", status=400, detail="max_tokens too large")
    fresh = CircuitBreaker(20)
    assert [fresh.refused(p, bad_setting) for p in "ab"] == [None, None]
    assert fresh.refused("c", bad_setting) is not None  # the same 400 for 3 prompts before any success
    after_success = CircuitBreaker(20)
    after_success.alive()
    assert all(after_success.refused(p, bad_setting) is None for p in "abcdef")  # then a 400 is about a prompt

    per_prompt = CircuitBreaker(20)  # messages that differ (they name the prompt): never the same refusal
    assert all(per_prompt.refused(p, GenerationError("x", status=400, detail=f"bad {p}")) is None for p in "abcdef")
    no_status = CircuitBreaker(20)  # a callable's exception: not a server's refusal
    assert all(no_status.refused(p, GenerationError("ValueError: boom")) is None for p in "abcdef")
    interrupted = CircuitBreaker(20)
    for p in "abcdef":  # a success between refusals restarts the count
        assert interrupted.refused(p, unauthorized) is None
        interrupted.alive()


def test_outages_count_units_without_answer_or_with_5xx() -> None:
    breaker = CircuitBreaker(3)
    assert breaker.gave_up(RetryableError("HTTP 503", status=503)) is None
    assert breaker.gave_up(RetryableError("HTTP 429", status=429)) is None  # rate limited: neither counts nor resets
    assert breaker.gave_up(RetryableError("empty response")) is None
    assert breaker.gave_up(NoAnswerError("connection to h dropped")) is None
    trip = breaker.gave_up(ConnectionFailedError("cannot connect to h"))
    assert trip is not None and "3 requests in a row got no answer or a 5xx" in trip.cause
    assert "cannot connect to h" in trip.cause
    breaker = CircuitBreaker(2)
    breaker.gave_up(RetryableError("HTTP 500", status=500))
    breaker.alive()
    assert breaker.gave_up(RetryableError("HTTP 500", status=500)) is None
    off = CircuitBreaker(None)
    assert off.refusal_limit is None
    assert all(off.gave_up(RetryableError("HTTP 500", status=500)) is None for _ in range(50))


@pytest.mark.parametrize("value", [0, -1, True, "sometimes", 2.5])
def test_bad_limits_are_refused_in_one_line(value: Any) -> None:
    with pytest.raises(ValueError, match=r"^max_consecutive_failures must be a positive int, 'auto' or None, got"):
        generate(["x"], lambda p: p, count=1, store=None, max_consecutive_failures=value, progress=False)


# ---------------------------------------------------------------------------------- against a loopback server


@pytest.mark.parametrize("concurrency", [1, 8])
@pytest.mark.parametrize("status", ["401", "403", "404"])
def test_a_refusal_for_every_request_stops_after_three(status: str, concurrency: int, tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    prompts = [f"auth {i}" for i in range(60)]
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind=status) as server:
        client = OpenAIClient(server.base_url, "m", api_key=KEY)
        t = time.perf_counter()
        with pytest.raises(GenerationStoppedError) as caught:
            generate(prompts, client, count=2, concurrency=concurrency, store=path, **FAST)
        assert time.perf_counter() - t < 5
        hits = server.state.total
    # the requests in flight, plus one sent by each worker whose request was refused before the third refusal
    assert 3 <= hits <= concurrency + 2 and (hits == 3 or concurrency > 1), hits
    err = caught.value
    message = str(err)
    assert "\n" not in message and KEY not in message
    assert err.status == int(status) and f"HTTP {status}" in message
    assert message.startswith("generation stopped early: 3 different prompts in a row were refused with HTTP ")
    assert err.done == 0 and err.failed + err.not_attempted == 120 and err.failed <= 2 * hits
    assert f"completed samples are kept in {path}" in message
    if status == "401":
        assert "Incorrect API key provided: Bearer [redacted]" in message  # the server's echo of the key, scrubbed
    assert sum(1 for _, _, s, _ in _rows(path) if s == "error") == err.failed


def test_a_key_revoked_mid_run_stops_too(tmp_path: Path) -> None:
    path = tmp_path / "g.sqlite"
    with FaultServer(fault_rate=0.0, fail_after=5, fail_kind="401") as server:
        client = OpenAIClient(server.base_url, "m", api_key=KEY)
        with pytest.raises(GenerationStoppedError) as caught:
            generate([f"rev {i}" for i in range(40)], client, count=1, concurrency=1, store=path, **FAST)
        assert server.state.total == 5 + 3
    assert (caught.value.done, caught.value.failed, caught.value.not_attempted) == (5, 3, 32)
    assert sum(1 for _, _, s, _ in _rows(path) if s == "ok") == 5


def test_a_403_firewall_refusing_some_prompts_after_successes_does_not_trip() -> None:
    """A gateway may answer 403 to sensitive prompts, even several neighbours (the counterfactual versions of one
    prompt): with answered prompts between such runs of refusals, every prompt is still asked."""
    prompts = [f"fw {i}" for i in range(40)]
    refused = {p for i, p in enumerate(prompts) if 3 <= i < 3 + PERMISSION_LIMIT - 1 or i % 5 == 0}
    with FaultServer(fault_rate=0.0, scripts={p: ("403",) for p in refused}) as server:
        client = OpenAIClient(server.base_url, "m", api_key=KEY)
        result = generate(prompts, client, count=1, concurrency=1, store=None, **FAST)
        assert server.state.total == len(prompts)
    assert result.status_counts() == {"ok": len(prompts) - len(refused), "error": len(refused), "filtered": 0}


@pytest.mark.parametrize("concurrency", [1, 8])
def test_a_key_losing_its_permission_mid_run_stops_on_identical_403s(concurrency: int, tmp_path: Path) -> None:
    """After successes, the same 403 for PERMISSION_LIMIT (10) different prompts in a row, no answer in between:
    the key lost its permission; the run stops instead of failing every prompt left one by one."""
    path = tmp_path / "g.sqlite"
    with FaultServer(fault_rate=0.0, fail_after=5, fail_kind="403") as server:
        client = OpenAIClient(server.base_url, "m", api_key=KEY)
        with pytest.raises(GenerationStoppedError) as caught:
            generate([f"perm {i}" for i in range(60)], client, count=1, concurrency=concurrency, store=path, **FAST)
        hits = server.state.total
    err = caught.value
    assert 5 + PERMISSION_LIMIT <= hits <= 5 + PERMISSION_LIMIT + concurrency, hits
    assert err.done == 5 and err.status == 403 and err.not_attempted > 0
    message = str(err)
    assert "\n" not in message and KEY not in message
    assert message.startswith(f"generation stopped early: {PERMISSION_LIMIT} different prompts in a row were refused")
    assert "HTTP 403 Forbidden" in message and "the key may have lost its permission mid-run" in message
    assert sum(1 for _, _, s, _ in _rows(path) if s == "ok") == 5


def test_identical_403s_after_a_success_count_in_a_row_of_answers() -> None:
    forbidden = GenerationError("HTTP 403 Forbidden: denied", status=403, detail="denied")
    breaker = CircuitBreaker(resolve_limit("auto", 16))
    assert [breaker.refused(p, forbidden) for p in "ab"] == [None, None]
    assert breaker.refused("c", forbidden) is not None  # before any success: 3 are a key without permission
    breaker = CircuitBreaker(resolve_limit("auto", 16))
    breaker.alive()
    assert breaker.permission_limit == PERMISSION_LIMIT
    assert all(breaker.refused(f"p{i}", forbidden) is None for i in range(PERMISSION_LIMIT - 1))
    breaker.alive()  # an answered prompt between them: a firewall refusing some prompts, the count restarts
    assert all(breaker.refused(f"q{i}", forbidden) is None for i in range(PERMISSION_LIMIT - 1))
    assert breaker.refused("q0", forbidden) is None  # the same prompt again (another sample): counts once
    other = GenerationError("HTTP 403 Forbidden: blocked", status=403, detail="blocked")
    assert breaker.refused("r", other) is None  # another message: another streak
    assert all(breaker.refused(f"s{i}", forbidden) is None for i in range(PERMISSION_LIMIT - 1))
    trip = breaker.refused("last", forbidden)
    assert trip is not None and trip.status == 403 and f"{PERMISSION_LIMIT} different prompts" in trip.cause
    bad_prompt = GenerationError("HTTP 400: bad", status=400, detail="bad")
    assert all(breaker.refused(f"b{i}", bad_prompt) is None for i in range(30))  # 400s after a success: as before
    strict = CircuitBreaker(2)  # a limit below 10 applies to 403s after a success too
    strict.alive()
    assert strict.refused("a", forbidden) is None and strict.refused("b", forbidden) is not None


def test_without_the_breaker_every_prompt_is_refused_one_by_one() -> None:
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="401") as server:
        client = OpenAIClient(server.base_url, "m", api_key=KEY)
        result = generate([f"off {i}" for i in range(10)], client, count=1, store=None,
                          max_consecutive_failures=None, **FAST)  # fmt: skip
        assert server.state.total == 10
    assert result.status_counts() == {"ok": 0, "error": 10, "filtered": 0}


def test_content_filter_on_every_prompt_does_not_trip() -> None:
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="content_filter") as server:
        client = OpenAIClient(server.base_url, "m", n=False)
        result = generate([f"cf {i}" for i in range(30)], client, count=2, store=None, concurrency=4, **FAST)
        assert server.state.total == 60
    assert result.status_counts() == {"ok": 0, "error": 0, "filtered": 60}


def test_a_400_naming_each_prompt_does_not_trip() -> None:
    """Every prompt refused, each with its own message (it names the prompt): bad prompts, not a bad setting."""
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="400") as server:
        client = OpenAIClient(server.base_url, "m", n=False)
        result = generate([f"bad {i}" for i in range(12)], client, count=2, store=None, concurrency=1, **FAST)
        assert server.state.total == 24
    frame = result.to_frame()
    assert (frame["status"] == "error").all() and frame["error"].str.contains("HTTP 400 Bad Request").all()


def test_one_bad_prompt_refused_for_every_sample_does_not_trip() -> None:
    prompts = ["the bad one"] + [f"fine {i}" for i in range(9)]
    with FaultServer(fault_rate=0.0, scripts={"the bad one": ("400",) * 20}) as server:
        client = OpenAIClient(server.base_url, "m", n=False)  # one request per sample: 5 refusals of that prompt
        result = generate(prompts, client, count=5, store=None, concurrency=1, **FAST)
        assert server.state.requests["the bad one"] == 5
    frame = result.to_frame()
    bad = frame["prompt"] == "the bad one"
    assert (frame.loc[bad, "status"] == "error").all() and (frame.loc[~bad, "status"] == "ok").all()


@pytest.mark.parametrize("kind", ["503", "drop", "timeout"])
@pytest.mark.server
def test_a_server_that_dies_mid_run_stops_in_bounded_time_and_resumes(kind: str, tmp_path: Path) -> None:
    """The server answers M requests, then nothing but ``kind``: the run stops after about one retry budget (not
    one per unit left), keeps exactly the M completed requests, and a re-run against the healed server completes the
    rest, never asking again for a completed sample and never storing one twice."""
    path = tmp_path / "dead.sqlite"
    prompts = [f"die {i}" for i in range(200)]
    m, count, concurrency, retries = 10, 2, 20, 5
    with FaultServer(fault_rate=0.0, fail_after=m, fail_kind=kind, hang=1.0) as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.2)
        t = time.perf_counter()
        with pytest.raises(GenerationStoppedError) as caught:
            generate(prompts, client, count=count, concurrency=concurrency, max_retries=retries, store=path, **FAST)
        elapsed = time.perf_counter() - t
        after_death = server.state.total - m
        err = caught.value
        stored = _rows(path)
        ok = [r for r in stored if r[2] == "ok"]
        assert len(ok) == m * count and err.done == m * count  # n honoured: one request answered both samples
        assert {r[3] for r in ok} <= server.state.delivered
        assert err.failed == sum(r[2] == "error" for r in stored) and err.failed >= 2 * concurrency  # units of 2
        assert err.not_attempted == len(prompts) * count - err.done - err.failed > 0
        message = str(err)
        assert "\n" not in message
        assert f"the server stopped answering: {concurrency} requests in a row got no answer or a 5xx" in message
        assert f"{err.done} of {len(prompts) * count} samples done, {err.failed} failed" in message
        # about one retry budget of the units in flight; without the breaker: 190 units x 6 attempts
        assert after_death <= 2 * concurrency * (retries + 1)  # the default limit is the concurrency here
        assert elapsed < 8, elapsed

        server.config.fail_after = None  # healed
        done_before = {r[0] for r in ok}
        mark = len(server.state.log)
        result = generate(prompts, client, count=count, concurrency=concurrency, store=path, **FAST)
        asked = {user for user, _, _ in server.state.log[mark:]}
        assert not asked & done_before, "a completed prompt was asked again"
        assert result.status_counts() == {"ok": len(prompts) * count, "error": 0, "filtered": 0}
        responses = result.responses
        assert len(set(responses)) == len(responses) and set(responses) <= server.state.delivered
    final = _rows(path)
    assert len(final) == len(prompts) * count and all(r[2] == "ok" for r in final)  # one row per sample


@pytest.mark.parametrize("kind", ["garbage", "zero_choices"])
def test_a_server_whose_answers_are_never_completions_stops_early(kind: str, tmp_path: Path) -> None:
    """A 2xx that is not a chat completion (not JSON, no choices) for every request is a server, proxy or base_url
    problem, never the prompt's: units that end on it count as an outage, so the run stops after about one retry
    budget instead of spending every prompt's (before: 60 units x 6 attempts, and no stop at all)."""
    path = tmp_path / "g.sqlite"
    retries, concurrency = 5, 4
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind=kind) as server:
        client = OpenAIClient(server.base_url, "m", n=False)
        with pytest.raises(GenerationStoppedError) as caught:
            generate([f"fmt {i}" for i in range(60)], client, count=1, concurrency=concurrency, max_retries=retries,
                     store=path, **FAST)  # fmt: skip
        hits = server.state.total
    assert hits <= (10 + concurrency) * (retries + 1), hits
    message = str(caught.value)
    assert "\n" not in message and "not a chat completion" in message and "base_url" in message
    assert caught.value.not_attempted > 0


def test_the_default_limit_follows_concurrency() -> None:
    assert resolve_limit("auto", 4) == 10 and resolve_limit("auto", 64) == 64 and resolve_limit(5, 64) == 5
    assert resolve_limit(None, 64) is None


# ------------------------------------------------------------------------------------------------------- the CLI


@pytest.mark.parametrize("credentials", ["api key", "URL password"])
def test_cli_exit_3_in_one_line_without_secrets(credentials: str, tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("BREAKER_TEST_KEY", KEY)
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to customer {i} about the loan." for i in range(30)))
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="401") as server:
        base_url = server.base_url
        if credentials == "URL password":
            base_url = base_url.replace("http://", f"http://svc:{PASSWORD}@")
        config = {
            "use_case": {"task": "text_generation", "attributes": ["gender"]},
            "prompts": {"path": "prompts.txt"},
            "model": {"provider": "openai", "base_url": base_url, "model": "m", "api_key_env": "BREAKER_TEST_KEY",
                      "concurrency": 2, "options": {"headers": {"X-Tenant-Token": HEADER}}},
            "generation": {"count": 2, "progress": False},
            "output": {"dir": "out"},
        }  # fmt: skip
        cfg = tmp_path / "config.yaml"
        cfg.write_text(json.dumps(config))  # JSON is YAML
        result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
        hits = server.state.total
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert 3 <= hits <= 4
    # the failure is one line (the pre-run estimate, "estimate: ...", precedes it)
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("estimate: ")]
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith("assessment failed: generation stopped early: 3 different prompts in a row were refused")
    assert "HTTP 401 Unauthorized" in line and "Incorrect API key provided" in line
    assert "run the same `evenhand assess` command again to resume" in line
    assert "Traceback" not in result.output
    basic = base64.b64encode(f"svc:{PASSWORD}".encode()).decode()
    for secret in (KEY, PASSWORD, HEADER, basic):
        assert secret not in result.output and secret not in result.stderr


def _one_at_a_time(base_url: str, **generation: Any) -> dict[str, Any]:
    """A config against the fault server at ``base_url``: prompts.txt, the key in BREAKER_TEST_KEY, one request at a
    time, one answer per prompt (``generation`` adds keys of its section)."""
    return {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "base_url": base_url, "model": "m", "api_key_env": "BREAKER_TEST_KEY",
                  "concurrency": 1},
        "generation": {"count": 1, "progress": False, **generation},
        "output": {"dir": "out"},
    }  # fmt: skip


def test_a_401_without_a_key_names_the_variable_that_is_not_set(tmp_path: Path, monkeypatch: Any) -> None:
    """The newcomer's mistake: `export OPENAI_API_KEY=...` forgotten (or another variable named in api_key_env). The
    server's 401 says only "Incorrect API key"; the line says that no key was sent and which variable is unset."""
    monkeypatch.delenv("BREAKER_TEST_KEY", raising=False)
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to customer {i} about the loan." for i in range(6)))
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="401") as server:
        config = _one_at_a_time(server.base_url)
        cfg = tmp_path / "config.yaml"
        cfg.write_text(json.dumps(config))
        result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    (line,) = [line for line in result.stderr.splitlines() if line.startswith("assessment failed")]
    assert "HTTP 401 Unauthorized" in line
    assert "no API key was sent: the environment variable BREAKER_TEST_KEY (api_key_env) is not set" in line
    monkeypatch.setenv("BREAKER_TEST_KEY", KEY)  # a key that was sent and refused: no such words, and no key shown
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="401") as server:
        config["model"]["base_url"] = server.base_url  # type: ignore[index]
        cfg.write_text(json.dumps(config))
        result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out2"), "--no-progress"])
    assert result.exit_code == ExitCode.RUNTIME_FAILURE and "no API key was sent" not in result.stderr
    assert KEY not in result.stderr


@pytest.mark.parametrize("limit", [None, 20])
def test_the_config_key_reaches_generation(limit: int | None, tmp_path: Path, monkeypatch: Any) -> None:
    """``generation.max_consecutive_failures`` in a config: null lets every prompt be refused one by one, a number
    is the limit; a value that is not a positive whole number is exit 2 naming the key."""
    monkeypatch.setenv("BREAKER_TEST_KEY", KEY)
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to customer {i} about the loan." for i in range(12)))
    with FaultServer(fault_rate=0.0, fail_after=0, fail_kind="401") as server:
        config = _one_at_a_time(server.base_url, max_consecutive_failures=limit)
        cfg = tmp_path / "config.yaml"
        cfg.write_text(json.dumps(config))
        result = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out"), "--no-progress"])
        hits = server.state.total
    if limit is None:  # never stopped early: every original prompt was asked (and refused) once
        assert hits >= 12 and "generation stopped early" not in result.stderr
    else:  # 3 refusals of different prompts in a row stop it whatever the outage limit
        assert result.exit_code == ExitCode.RUNTIME_FAILURE and hits == 3, (hits, result.stderr)
    config["generation"]["max_consecutive_failures"] = 0  # type: ignore[index]
    cfg.write_text(json.dumps(config))
    bad = CliRunner().invoke(app, ["assess", str(cfg), "--out", str(tmp_path / "out2"), "--no-progress"])
    assert bad.exit_code == ExitCode.BAD_INPUT
    assert "generation.max_consecutive_failures: must be a positive whole number" in bad.stderr
