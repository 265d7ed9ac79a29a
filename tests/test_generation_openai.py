"""OpenAI-compatible client and runner behaviour against the loopback stub server."""

from __future__ import annotations

import socket
import time
import warnings
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from openai_stub import StubServer

from evenhand.generation import (
    OpenAIClient,
    ResponseStore,
    ServerUnreachableError,
    generate,
)
from evenhand.generation.clients.openai import parse_retry_after

KEY = "sk-test-DO-NOT-LEAK-1234567890"
FAST = {"store": None, "progress": False, "backoff": 0.01}


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer(latency=0.002, retry_after=0.01) as server:
        yield server


@pytest.fixture
def client(stub: StubServer) -> OpenAIClient:
    return OpenAIClient(stub.base_url, "stub-model", api_key=KEY, timeout=5)


def test_one_row_per_prompt_and_sample(client: OpenAIClient) -> None:
    result = generate(["alpha", "beta"], client, count=3, **FAST)
    frame = result.to_frame()
    assert list(frame.columns[:7]) == ["prompt_id", "prompt", "group", "sample", "response", "status", "error"]
    assert frame["prompt_id"].tolist() == [0, 0, 0, 1, 1, 1]
    assert frame["sample"].tolist() == [0, 1, 2] * 2
    assert frame["group"].isna().all()
    assert (frame["status"] == "ok").all()
    assert result.responses[0].startswith("echo: alpha")
    assert len(set(result.responses[:3])) == 3  # the n parameter returned three distinct choices
    assert result.non_completion_rate() == 0.0
    usage = result.token_usage()
    assert usage["completion_tokens"] == 18 and usage["total_tokens"] == usage["prompt_tokens"] + 18


@pytest.mark.parametrize("container", [list, tuple, np.array, pd.Series])
def test_accepts_sequences(client: OpenAIClient, container: type) -> None:
    result = generate(container(["a", "b"]), client, count=1, **FAST)
    assert [r.split(" #")[0] for r in result.responses] == ["echo: a", "echo: b"]


def test_bad_input_is_rejected(client: OpenAIClient) -> None:
    with pytest.raises(ValueError, match="prompts is empty"):
        generate([], client, **FAST)
    with pytest.raises(ValueError, match="count must be >= 1"):
        generate(["a"], client, count=0, **FAST)
    with pytest.raises(TypeError, match="count must be an int"):
        generate(["a"], client, count=2.5, **FAST)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"prompts\[1\] is NoneType"):
        generate(["a", None], client, **FAST)
    with pytest.raises(ValueError, match="temperature"):
        generate(["a"], client, temperature=-1, **FAST)
    with pytest.raises(ValueError, match="base_url"):
        OpenAIClient("localhost:8000", "m")


def test_temperature_zero_with_many_samples_warns(client: OpenAIClient) -> None:
    with pytest.warns(UserWarning, match="temperature=0"):
        generate(["a"], client, count=2, temperature=0, **FAST)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        generate(["a"], client, count=1, temperature=0, **FAST)


def test_retries_429_and_500_then_succeeds(stub: StubServer, client: OpenAIClient) -> None:
    result = generate(["r1 [[429x2]]", "r2 [[500x1]]"], client, count=1, **FAST)
    assert result.status_counts() == {"ok": 2, "error": 0, "filtered": 0}
    assert result.to_frame()["attempts"].tolist() == [3, 2]
    assert stub.state.requests["r1 [[429x2]]"] == 3


def test_retry_after_is_honoured(stub: StubServer) -> None:
    with StubServer(retry_after=0.3) as slow:
        client = OpenAIClient(slow.base_url, "m")
        t = time.perf_counter()
        generate(["w [[429x1]]"], client, count=1, **FAST)
        assert time.perf_counter() - t >= 0.3


@pytest.mark.parametrize(
    ("prompt", "fragment"),
    [
        ("e1 [[500x99]]", "HTTP 500"),
        ("e2 [[malformed]]", "malformed JSON"),
        ("e3 [[drop]]", "dropped"),
    ],
)
def test_final_failure_is_recorded_not_faked(client: OpenAIClient, prompt: str, fragment: str) -> None:
    result = generate([prompt], client, count=2, max_retries=2, **FAST)
    frame = result.to_frame()
    assert (frame["status"] == "error").all()
    assert frame["response"].isna().all() and result.responses == [None, None]
    assert fragment in frame["error"].iloc[0] and "gave up after 3 attempts" in frame["error"].iloc[0]
    assert KEY not in frame["error"].iloc[0]
    assert result.non_completion_rate() == 1.0


def test_timeout_is_retried_then_recorded(stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m", timeout=0.2)
    result = generate(["t [[timeout]]"], client, count=1, max_retries=1, **FAST)
    assert result.to_frame()["error"].iloc[0].startswith("gave up after 2 attempts: no answer")


def test_content_filter_and_bad_request_are_not_retried(stub: StubServer, client: OpenAIClient) -> None:
    result = generate(["cf [[filter]]", "bad [[400]]"], client, count=2, **FAST)
    frame = result.to_frame()
    assert frame["status"].tolist() == ["filtered", "filtered", "error", "error"]
    assert frame["attempts"].tolist() == [1, 1, 1, 1]
    assert result.non_completion_rate() == 1.0


def test_a_structured_outputs_refusal_is_the_reply(client: OpenAIClient) -> None:
    # content null, the words in "refusal": it was no answer, retried and recorded as a failed request (review10)
    frame = generate(["r [[refusal]]"], client, count=1, max_retries=1, **FAST).to_frame()
    assert frame["status"].tolist() == ["ok"] and frame["response"].tolist() == ["I'm sorry, I can't help with that."]


def test_n_parameter_folds_samples_into_one_request(client: OpenAIClient, stub: StubServer) -> None:
    generate(["fold me"], client, count=5, **FAST)
    assert stub.state.requests["fold me"] == 1


def test_falls_back_to_separate_calls_when_n_is_ignored() -> None:
    with StubServer(support_n=False) as server:
        client = OpenAIClient(server.base_url, "m")
        result = generate(["p", "q"], client, count=4, seed=7, **FAST)
        assert result.status_counts()["ok"] == 8
        # the probe with n=4 came back with one choice: one request per sample from then on
        assert server.state.requests["p"] + server.state.requests["q"] == 8
        seeds = sorted(b.get("seed") for b in server.state.bodies if b["messages"][-1]["content"] == "q")
        assert len(set(seeds)) == len(seeds)  # each sample its own seed, so samples can differ
        assert len(set(result.responses[:4])) == 4


def test_system_prompt_and_sampling_are_sent(stub: StubServer, client: OpenAIClient) -> None:
    generate(["sys check"], client, count=1, system_prompt="Be brief.", temperature=0.7, max_tokens=12, **FAST)
    body = next(b for b in stub.state.bodies if b["messages"][-1]["content"] == "sys check")
    assert body["messages"][0] == {"role": "system", "content": "Be brief."}
    assert body["temperature"] == 0.7 and body["max_tokens"] == 12 and body["model"] == "stub-model"
    assert f"Bearer {KEY}" in stub.state.auth_headers


def test_key_comes_from_environment(monkeypatch: pytest.MonkeyPatch, stub: StubServer) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "sk-from-env")
    client = OpenAIClient(stub.base_url, "m", api_key_env="MY_LLM_KEY")
    assert "sk-from-env" not in repr(client) and "sk-from-env" not in str(client.identity)
    generate(["env key"], client, count=1, **FAST)
    assert "Bearer sk-from-env" in stub.state.auth_headers


def test_key_is_never_written_to_the_store(tmp_path, client: OpenAIClient) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "g.sqlite"
    generate(["k1", "k2 [[400]]"], client, count=1, store=path, progress=False)
    with ResponseStore(path) as store:
        store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for file in tmp_path.iterdir():
        assert KEY.encode() not in file.read_bytes()


def test_unreachable_server_raises_clear_error() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = OpenAIClient(f"http://127.0.0.1:{port}/v1", "m", api_key=KEY)
    with pytest.raises(ServerUnreachableError, match=rf"127\.0\.0\.1:{port}.*unreachable after 2 attempts") as info:
        generate(["a", "b"], client, count=1, max_retries=1, **FAST)
    assert KEY not in str(info.value)


def test_progress_bar_runs(client: OpenAIClient, capsys: pytest.CaptureFixture[str]) -> None:
    generate(["bar"], client, count=2, store=None, progress=True)
    captured = capsys.readouterr()
    assert "2/2" in captured.err and captured.out == ""  # progress on stderr: stdout carries results only


def test_parse_retry_after() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({}) is None
    date = parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert date == 0.0  # a date in the past: retry now


def test_azure_url_and_header() -> None:
    with StubServer() as server:
        base = server.base_url.rsplit("/v1", 1)[0]
        client = OpenAIClient(base, "my-deployment", api_key=KEY, api_version="2024-06-01")
        result = generate(["az"], client, count=1, **FAST)
        assert result.status_counts()["ok"] == 1
        assert server.state.paths == ["/openai/deployments/my-deployment/chat/completions?api-version=2024-06-01"]
        assert server.state.auth_headers == [f"api-key {KEY}"]


def test_azure_content_filter_error_is_filtered(client: OpenAIClient) -> None:
    result = generate(["az [[azurefilter]]"], client, count=1, **FAST)
    assert result.to_frame()["status"].tolist() == ["filtered"]
    assert result.to_frame()["attempts"].tolist() == [1]


def test_server_rejecting_n_falls_back_to_single_requests() -> None:
    with StubServer(reject_n=True) as server:
        client = OpenAIClient(server.base_url, "m")
        result = generate(["rj1", "rj2"], client, count=3, concurrency=1, **FAST)
        assert result.status_counts()["ok"] == 6
        assert client.max_n == 1
        assert server.state.status_counts[200] == 6  # one rejected probe, then one request per sample
        assert sum(b.get("n", 1) > 1 for b in server.state.bodies) == 1


def test_credentials_in_the_url_never_reach_results_or_store(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from evenhand.generation.clients.openai import redact_url

    assert redact_url("https://u:pw@h:8/v1?api-key=abc&x=1") == "https://h:8/v1?api-key=***&x=1"
    with StubServer() as server:
        client = OpenAIClient(server.base_url.replace("http://", "http://user:hunter2@"), "m")
        assert "hunter2" not in repr(client) and "hunter2" not in client.describe()
        path = tmp_path / "u.sqlite"
        result = generate(["u1", "u2 [[400]]"], client, count=1, store=path, progress=False)
        assert result.status_counts() == {"ok": 1, "error": 1, "filtered": 0}
        assert "hunter2" not in result.to_frame().to_string() and "hunter2" not in str(result.client)
        with ResponseStore(path) as store:
            store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert all(b"hunter2" not in f.read_bytes() for f in tmp_path.iterdir())


def test_extra_body_is_sent_but_only_its_hash_is_stored(stub: StubServer, tmp_path) -> None:
    secret = "tok-very-secret-42"
    client = OpenAIClient(stub.base_url, "m", api_key=KEY, extra_body={"user_token": secret, "top_k": 5})
    assert secret not in str(client.identity) and client.identity["extra_body_sha256"]
    same = OpenAIClient(stub.base_url, "m", api_key=KEY, extra_body={"top_k": 5, "user_token": secret})
    other = OpenAIClient(stub.base_url, "m", api_key=KEY, extra_body={"user_token": "another", "top_k": 5})
    assert same.identity == client.identity != other.identity
    assert OpenAIClient(stub.base_url, "m", api_key=KEY).identity["extra_body_sha256"] is None
    path = tmp_path / "gen.sqlite"
    generate(["xb"], client, count=1, store=path, progress=False)
    body = next(b for b in stub.state.bodies if b["messages"][-1]["content"] == "xb")
    assert body["user_token"] == secret and body["top_k"] == 5  # still sent with the request
    stored = b"".join(p.read_bytes() for p in tmp_path.iterdir())
    assert secret.encode() not in stored
