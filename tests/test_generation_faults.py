"""Generation against a fault-injecting OpenAI-compatible server (issue 15): transient faults and empty answers are
retried within a bounded budget, every permanent failure says why, ``n`` support is decided on evidence only, and
nothing is invented, duplicated or re-sent after a resume."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from contextlib import closing
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from fault_server import KINDS, FaultServer

from evenhand.generation import (
    CallableClient,
    ChatClient,
    Completion,
    OpenAIClient,
    ResponseStore,
    agenerate,
    generate,
)
from evenhand.generation._types import Message, SamplingParams
from evenhand.generation.clients.openai import _N_EVIDENCE, parse_retry_after

FAST: dict[str, Any] = {"store": None, "progress": False, "backoff": 0.01}


def _check_outcomes(result: Any, server: FaultServer) -> pd.DataFrame:
    """Every sample has an outcome; ok ones carry text the server really sent, once; failures say why."""
    frame = result.to_frame()
    assert set(frame["status"]) <= {"ok", "error"}
    ok = frame[frame["status"] == "ok"]
    assert ok["response"].map(lambda t: isinstance(t, str) and t.strip() != "").all()
    assert set(ok["response"]) <= server.state.delivered, "a response the server never sent"
    assert not ok["response"].duplicated().any(), "a response recorded twice"
    failed = frame[frame["status"] != "ok"]
    assert failed["response"].isna().all()
    assert failed["error"].map(lambda e: isinstance(e, str) and e.startswith("gave up after ")).all()
    return frame


@pytest.mark.parametrize("mode", ["n", "one", "ignored"], ids=["n-honoured", "one-sample", "n-ignored"])
@pytest.mark.slow
def test_thirty_percent_mixed_faults_lose_almost_nothing(mode: str) -> None:
    """30% of requests fail (every kind): with the default budget (8 retries) < 0.2% of 1,500 samples are lost
    (expected 0.3**9 = 0.002% per sample)."""
    n_prompts, count = 300, 5
    with FaultServer(fault_rate=0.3, seed=15, hang=1.0, support_n=mode != "ignored") as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.25, n=False if mode == "one" else "auto")
        t = time.perf_counter()
        result = generate([f"fp {i}" for i in range(n_prompts)], client, count=count, concurrency=32, **FAST)
        elapsed = time.perf_counter() - t
        frame = _check_outcomes(result, server)
        kinds_seen = {k for k in server.state.answered if k != "ok"}
        assert kinds_seen == set(KINDS)  # every kind of fault really happened
        faults = sum(v for k, v in server.state.answered.items() if k != "ok")
        assert 0.25 < faults / server.state.total < 0.35
    failed = int((frame["status"] != "ok").sum())
    assert failed / len(frame) < 0.002, frame.loc[frame["status"] != "ok", "error"].tolist()
    assert elapsed < 20
    if mode == "n":
        assert client.n_supported is True
        # one request per prompt, plus the retries of faults (~30% of requests) and of emptied choices
        assert server.state.total < n_prompts * 1.6
    elif mode == "ignored":
        assert client.n_supported is False
        assert server.state.total < n_prompts * count * 1.6


@pytest.mark.parametrize("first", ["zero_choices", "empty_content", "no_content", "garbage", "503", "drop"])
def test_a_faulty_first_answer_does_not_switch_off_n(first: str) -> None:
    with FaultServer(fault_rate=0.0, script_first=(first,)) as server:
        client = OpenAIClient(server.base_url, "m", timeout=2)
        result = generate([f"first {i}" for i in range(20)], client, count=5, concurrency=4, **FAST)
        _check_outcomes(result, server)
        assert result.status_counts()["ok"] == 100
        assert client.n_supported is True and client.max_n > 1
        assert server.state.total == 21  # one request per prompt, plus one retry of the faulty first answer


def test_a_server_that_ignores_n_is_detected_and_every_sample_completes() -> None:
    with FaultServer(fault_rate=0.0, support_n=False) as server:
        client = OpenAIClient(server.base_url, "m")
        result = generate([f"ign {i}" for i in range(20)], client, count=5, concurrency=4, seed=3, **FAST)
        _check_outcomes(result, server)
        assert result.status_counts()["ok"] == 100
        assert client.n_supported is False and client.max_n == 1
        assert server.state.total == 100  # every request answered a sample: nothing wasted on the probe
        assert server.state.requests_with_n() <= 4 + _N_EVIDENCE  # only the requests in flight before deciding


def test_single_answers_that_are_empty_are_no_evidence_about_n() -> None:
    """Empty one-choice answers to n > 1 do not count: n stays undecided until real answers arrive."""
    prompts = [f"ev {i}" for i in range(6)]
    with FaultServer(fault_rate=0.0, support_n=False, scripts={p: ("empty_content",) for p in prompts}) as server:
        client = OpenAIClient(server.base_url, "m")

        async def first_answers_only() -> None:
            await asyncio.gather(
                *(client.complete([{"role": "user", "content": p}], 3, SamplingParams()) for p in prompts)
            )
            await client.aclose()

        asyncio.run(first_answers_only())
        assert client.n_supported is None  # six empty one-choice answers to n=3: no evidence either way
        result = generate(prompts, client, count=3, concurrency=6, **FAST)
        _check_outcomes(result, server)
        assert result.status_counts()["ok"] == 18
        assert client.n_supported is False  # decided by valid one-choice answers to n=3
        assert server.state.total == 6 + 18


def test_a_400_naming_n_switches_to_single_requests_at_once() -> None:
    with FaultServer(fault_rate=0.0, reject_n=True) as server:
        client = OpenAIClient(server.base_url, "m")
        result = generate([f"rej {i}" for i in range(5)], client, count=3, concurrency=1, **FAST)
        _check_outcomes(result, server)
        assert result.status_counts()["ok"] == 15
        assert client.n_supported is False
        assert server.state.total == 16 and server.state.requests_with_n() == 1


@pytest.mark.parametrize("style", ["param", "message", "opaque"])
def test_every_request_in_flight_refused_for_n_is_answered_with_one_sample(style: str) -> None:
    """Issue 24's regression: 16 requests with n > 1 in flight all meet the server's 400; the first to see it
    decides, and every other one (decided or not when its 400 came back) asks again with n=1 instead of failing."""
    prompts = [f"flight {i}" for i in range(16)]
    with FaultServer(fault_rate=0.0, reject_n=True, reject_n_style=style, latency=0.05) as server:
        client = OpenAIClient(server.base_url, "m")

        async def all_in_flight() -> list[list[Completion]]:
            try:
                return await asyncio.gather(
                    *(client.complete([{"role": "user", "content": p}], 3, SamplingParams()) for p in prompts)
                )
            finally:
                await client.aclose()

        answers = asyncio.run(all_in_flight())
        assert [len(a) for a in answers] == [1] * 16
        assert all(a[0].text in server.state.delivered for a in answers)
        assert client.n_supported is False and client.max_n == 1
        assert server.state.requests_with_n() == 16 and server.state.total == 32  # one refusal, one answer each


@pytest.mark.parametrize("style", ["param", "message", "opaque"])
@pytest.mark.slow
def test_a_server_rejecting_n_at_thirty_percent_faults_loses_almost_nothing(style: str) -> None:
    """The same 30% faults of every kind, 16 requests in flight, against a server that answers 400 to n > 1: the
    run completes (an n-refusal never counts toward the circuit breaker) and loses < 0.2% of 1,500 samples."""
    n_prompts, count = 300, 5
    with FaultServer(fault_rate=0.3, seed=24, hang=1.0, reject_n=True, reject_n_style=style) as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.25)
        result = generate([f"rn {i}" for i in range(n_prompts)], client, count=count, concurrency=16, **FAST)
        frame = _check_outcomes(result, server)
        assert client.n_supported is False
        assert {k for k in server.state.answered if k != "ok"} == set(KINDS)
        # only requests sent before the decision (or retried by a unit in flight then) asked for n > 1
        assert server.state.requests_with_n() <= 3 * 16
    failed = int((frame["status"] != "ok").sum())
    assert failed / len(frame) < 0.002, frame.loc[frame["status"] != "ok", "error"].tolist()


@pytest.mark.parametrize("n_mode", ["auto", False])
def test_one_sample_mode_an_empty_answer_does_not_fail_the_unit(n_mode: Any) -> None:
    """The old behaviour: a zero-choice answer during the n fallback failed all 5 samples of the unit."""
    script = {"solo": ("zero_choices", "empty_content", "no_content", "garbage")}
    with FaultServer(fault_rate=0.0, support_n=False, scripts=script) as server:
        client = OpenAIClient(server.base_url, "m", n=n_mode)
        result = generate(["solo", "other a", "other b"], client, count=5, concurrency=1, **FAST)
        frame = _check_outcomes(result, server)
        assert result.status_counts() == {"ok": 15, "error": 0, "filtered": 0}
        assert server.state.requests["solo"] == 5 + 4
        assert frame.loc[frame["prompt"] == "solo", "attempts"].max() == 5


def test_empty_and_whitespace_responses_are_retried_then_failed_never_scored(tmp_path: Path) -> None:
    replies = {"blank": "", "space": " \n\t ", "nan": "NaN", "null": "null", "none": "None"}
    scripts = {"late": ("empty_content", "empty_content")}
    prompts = ["blank", "space", "nan", "null", "none", "late"]
    path = tmp_path / "e.sqlite"
    with FaultServer(fault_rate=0.0, replies=replies, scripts=scripts) as server:
        client = OpenAIClient(server.base_url, "m")
        result = generate(prompts, client, count=2, max_retries=2, store=path, progress=False, backoff=0.01)
        frame = result.to_frame().set_index(["prompt", "sample"])
        for prompt in ("blank", "space"):
            rows = frame.loc[prompt]
            assert (rows["status"] == "error").all() and rows["response"].isna().all()
            assert rows["error"].tolist() == ["gave up after 3 attempts: empty response"] * 2
            assert server.state.requests[prompt] == 3  # n=2 each time: both samples asked again together
        for prompt, text in (("nan", "NaN"), ("null", "null"), ("none", "None")):  # what the model said
            assert frame.loc[prompt, "status"].tolist() == ["ok", "ok"]
            assert frame.loc[prompt, "response"].tolist() == [text, text]
        assert (frame.loc["late", "status"] == "ok").all()
        assert result.responses[:4] == [None, None, None, None]
        assert result.non_completion_rate() == pytest.approx(4 / 12)
        assert result.status_counts() == {"ok": 8, "error": 4, "filtered": 0}

        again = generate(prompts, client, count=2, max_retries=0, store=path, progress=False)
        stored = again.to_frame().set_index(["prompt", "sample"])
        assert stored.loc["nan", "response"].tolist() == ["NaN", "NaN"]  # text, not a float NaN
        assert stored.loc["nan", "from_store"].all() and not stored.loc["blank", "from_store"].any()
        assert stored.loc["blank", "error"].tolist() == ["gave up after 1 attempts: empty response"] * 2
    with closing(sqlite3.connect(path)) as db:
        rows = dict(db.execute("SELECT prompt || '/' || sample, status FROM responses").fetchall())
    assert rows["blank/0"] == "error" and rows["nan/1"] == "ok" and len(rows) == 12


def test_callable_and_custom_clients_empty_answers_are_retried() -> None:
    calls: dict[str, int] = {}

    def fn(prompt: str) -> str:
        calls[prompt] = calls.get(prompt, 0) + 1
        if prompt == "always":
            return "   "
        return "" if calls[prompt] < 3 else f"said {prompt}"

    result = generate(["always", "third"], CallableClient(fn, name="empty-fn"), count=1, max_retries=3, **FAST)
    frame = result.to_frame()
    assert frame["status"].tolist() == ["error", "ok"]
    assert frame["error"].iloc[0] == "gave up after 4 attempts: empty response"
    assert frame["response"].tolist()[1] == "said third" and frame["attempts"].tolist() == [4, 3]

    class Flaky(ChatClient):
        """Answers the first call of each prompt with zero completions, then one per call."""

        def __init__(self) -> None:
            self.seen: set[str] = set()

        @property
        def identity(self) -> dict[str, Any]:
            return {"backend": "flaky"}

        async def complete(self, messages: list[Message], n: int, params: SamplingParams) -> list[Completion]:
            prompt = messages[-1]["content"]
            if prompt not in self.seen:
                self.seen.add(prompt)
                return []
            return [Completion(f"{prompt}!")]

    res = generate(["a", "b"], Flaky(), count=2, **FAST)
    assert res.responses == ["a!", "a!", "b!", "b!"]
    assert res.to_frame()["attempts"].tolist() == [2, 1, 2, 1]  # max_n = 1: sample 0 met the empty answer


def test_retries_are_bounded_and_each_failure_says_why() -> None:
    """A server that never answers properly: every sample fails after exactly max_retries + 1 attempts."""
    kinds = tuple(k for k in KINDS if k != "empty_content")  # (an empty_content answer carries some text)
    with FaultServer(fault_rate=1.0, kinds=kinds, hang=1.0) as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.2)
        t = time.perf_counter()
        result = generate([f"doom {i}" for i in range(40)], client, count=3, max_retries=3, concurrency=40, **FAST)
        assert time.perf_counter() - t < 10
        frame = _check_outcomes(result, server)
        assert (frame["status"] == "error").all() and (frame["attempts"] == 4).all()
        assert frame["error"].str.startswith("gave up after 4 attempts: ").all()
        assert server.state.total == 40 * 4
        assert client.n_supported is None  # nothing but faults: no evidence about n either way
        reasons = " | ".join(frame["error"])
        for fragment in ("HTTP 429 Too Many Requests", "HTTP 503 Service Unavailable", "no answer from", "dropped"):
            assert fragment in reasons


def test_status_line_reasons_for_each_fault_kind() -> None:
    expected = {
        "429": "HTTP 429 Too Many Requests",
        "500": "HTTP 500 Internal Server Error",
        "503": "HTTP 503 Service Unavailable",
        "timeout": "no answer from",
        "drop": "dropped",
        "truncate": "dropped",
        "garbage": "malformed JSON",
        "zero_choices": "HTTP 200 with zero choices",
        "empty_content": "empty response",
        "no_content": "empty response (the answer had no message content)",
    }
    scripts = {kind: (kind,) * 3 for kind in expected}
    with FaultServer(fault_rate=0.0, scripts=scripts, hang=1.0) as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.2)
        result = generate(list(expected), client, count=1, max_retries=2, **FAST)
        frame = _check_outcomes(result, server)
        for kind, fragment in expected.items():
            row = frame[frame["prompt"] == kind].iloc[0]
            assert row["status"] == "error" and row["error"].startswith("gave up after 3 attempts: "), kind
            assert fragment in row["error"], (kind, row["error"])
        assert server.state.total == 3 * len(expected)


def test_resume_after_interruption_never_resends_a_completed_sample(tmp_path: Path) -> None:
    prompts = [f"res {i}" for i in range(150)]
    path = tmp_path / "resume.sqlite"
    count = 4

    def missing() -> dict[str, int]:
        with closing(sqlite3.connect(path)) as db:
            done = db.execute("SELECT prompt, COUNT(*) FROM responses WHERE status = 'ok' GROUP BY prompt").fetchall()
        have = dict(done)
        return {p: count - have.get(p, 0) for p in prompts}

    def check_requests(before: dict[str, int], log: list[tuple[str, int, str]]) -> None:
        asked: dict[str, int] = {}
        for user, n, _ in log:
            assert before[user] > 0, f"{user} was complete but asked again"
            asked[user] = max(asked.get(user, 0), n)
        for user, n in asked.items():
            assert n <= before[user], f"{user}: asked n={n} with {before[user]} missing"

    with FaultServer(fault_rate=0.3, seed=7, hang=1.0, latency=0.02) as server:
        client = OpenAIClient(server.base_url, "m", timeout=0.25)

        async def interrupted() -> None:
            task = asyncio.create_task(
                agenerate(prompts, client, count=count, concurrency=8, store=path, progress=False, backoff=0.01)
            )
            deadline = time.monotonic() + 15
            while not task.done() and time.monotonic() < deadline:  # cancel once some results are stored
                await asyncio.sleep(0.01)
                if path.exists() and sum(missing().values()) <= len(prompts) * count - 80:
                    break
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(interrupted())
        after_cancel = missing()
        assert 0 < sum(after_cancel.values()) < len(prompts) * count, "the run must be interrupted mid-way"

        mark = len(server.state.log)
        generate(prompts, client, count=count, concurrency=8, store=path, progress=False, max_retries=0)
        check_requests(after_cancel, server.state.log[mark:])
        after_errors = missing()

        mark = len(server.state.log)
        final = generate(prompts, client, count=count, concurrency=8, store=path, progress=False, backoff=0.01)
        check_requests(after_errors, server.state.log[mark:])
        frame = _check_outcomes(final, server)
    assert (frame["status"] == "ok").sum() >= len(frame) - 1
    with ResponseStore(path) as store:
        assert store.count() == len(prompts) * count  # one row per sample: no duplicates


def test_retry_after_is_parsed_defensively_and_capped() -> None:
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({"retry-after": "inf"}) is None
    assert parse_retry_after({"retry-after": "nan"}) is None
    assert parse_retry_after({"retry-after": "-3"}) == 0.0
    assert parse_retry_after({"retry-after-ms": "x", "retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 -0000"}) == 0.0
    with FaultServer(fault_rate=0.0, retry_after=3600, scripts={"wait": ("429",)}) as server:
        client = OpenAIClient(server.base_url, "m")
        t = time.perf_counter()
        # RetryPolicy caps what it honours at max_delay: a one-hour Retry-After does not stall the run
        from evenhand.generation.limits import RetryPolicy

        assert RetryPolicy(max_delay=0.2).delay(1, retry_after=3600) <= 0.22
        result = generate(["wait"], client, count=1, max_retry_delay=0.2, **FAST)
        assert result.status_counts()["ok"] == 1 and time.perf_counter() - t < 5
