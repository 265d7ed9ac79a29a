"""SQLite store and resume: nothing completed is requested twice, kill -9 loses nothing, no duplicates."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from openai_stub import StubServer

from evenhand.generation import (
    CallableClient,
    OpenAIClient,
    ResponseStore,
    RetryableError,
    generate,
    generate_counterfactual,
)

FAST = {"progress": False, "backoff": 0.01}


@pytest.fixture(scope="module")
def stub() -> Iterator[StubServer]:
    with StubServer(latency=0.002) as server:
        yield server


def _rows(path: Path) -> list[tuple[str, int, str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT prompt, sample, status FROM responses").fetchall()


def test_rerun_requests_nothing_and_reads_from_store(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m")
    path = tmp_path / "g.sqlite"
    first = generate(["s1", "s2"], client, count=3, store=path, **FAST)
    before = stub.state.total
    again = generate(["s1", "s2"], client, count=3, store=path, **FAST)
    assert stub.state.total == before
    assert again.responses == first.responses
    assert again.to_frame()["from_store"].all() and not first.to_frame()["from_store"].any()
    assert again.job == first.job


def test_more_samples_later_only_requests_the_new_ones(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m", n=False)
    path = tmp_path / "g.sqlite"
    generate(["grow"], client, count=2, store=path, **FAST)
    generate(["grow"], client, count=5, store=path, **FAST)
    assert stub.state.requests["grow"] == 5
    assert len(_rows(path)) == 5


def test_a_different_configuration_is_a_different_job(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m")
    path = tmp_path / "g.sqlite"
    a = generate(["cfg"], client, count=1, store=path, **FAST)
    b = generate(["cfg"], client, count=1, store=path, temperature=0.5, **FAST)
    c = generate(["cfg"], client, count=1, store=path, system_prompt="x", **FAST)
    d = generate(["cfg"], OpenAIClient(stub.base_url, "other"), count=1, store=path, **FAST)
    assert len({a.job, b.job, c.job, d.job}) == 4
    with ResponseStore(path) as store:
        assert len(store.jobs()) == 4 and store.count() == 4


def test_errors_are_stored_and_retried_on_rerun(tmp_path: Path) -> None:
    with StubServer() as server:
        client = OpenAIClient(server.base_url, "m")
        path = tmp_path / "g.sqlite"
        first = generate(["flaky [[500x2]]"], client, count=1, store=path, max_retries=0, **FAST)
        assert first.status_counts()["error"] == 1
        assert _rows(path)[0][2] == "error"
        kept = generate(["flaky [[500x2]]"], client, count=1, store=path, max_retries=0, retry_failed=False, **FAST)
        assert kept.to_frame()["from_store"].all() and server.state.total == 1
        second = generate(["flaky [[500x2]]"], client, count=1, store=path, max_retries=3, **FAST)
        assert second.status_counts()["ok"] == 1
        assert _rows(path) == [("flaky [[500x2]]", 0, "ok")]  # the error row was replaced, not duplicated
        assert second.to_frame()["attempts"].iloc[0] == 2  # this run: one more 500, then success


def test_filtered_results_are_final(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m")
    path = tmp_path / "g.sqlite"
    generate(["nope [[filter]]"], client, count=2, store=path, **FAST)
    generate(["nope [[filter]]"], client, count=2, store=path, **FAST)
    assert stub.state.requests["nope [[filter]]"] == 1


def test_duplicate_prompts_get_their_own_samples(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m", n=False)
    result = generate(["dup", "dup"], client, count=1, store=tmp_path / "g.sqlite", **FAST)
    assert stub.state.requests["dup"] == 2 and len(_rows(tmp_path / "g.sqlite")) == 2
    assert result.to_frame()["prompt_id"].tolist() == [0, 1]


def test_counterfactual_resume_is_per_group(tmp_path: Path, stub: StubServer) -> None:
    client = OpenAIClient(stub.base_url, "m")
    path = tmp_path / "g.sqlite"
    generate_counterfactual({"a": ["cf he"], "b": ["cf she"]}, client, count=2, store=path, **FAST)
    generate_counterfactual({"a": ["cf he"], "b": ["cf she"], "c": ["cf they"]}, client, count=2, store=path, **FAST)
    assert stub.state.requests["cf he"] == 1 and stub.state.requests["cf they"] == 1


_CHILD = """
import sys
from evenhand.generation import OpenAIClient, generate
url, path = sys.argv[1], sys.argv[2]
prompts = [f"kill test {i}" for i in range(300)]
generate(prompts, OpenAIClient(url, "m", n=False), count=2, concurrency=4, store=path, progress=False)
"""


@pytest.mark.subprocess
def test_sigkill_mid_run_loses_nothing_and_resume_skips_completed(tmp_path: Path) -> None:
    path = tmp_path / "killed.sqlite"
    with StubServer(latency=0.01) as server:
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        child = subprocess.Popen([sys.executable, "-c", _CHILD, server.base_url, str(path)], env=env)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if path.exists():
                    try:
                        if len(_rows(path)) >= 60:
                            break
                    except sqlite3.OperationalError:  # schema not created yet
                        pass
                time.sleep(0.02)
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
        assert child.returncode == -signal.SIGKILL
        done = {(p, s) for p, s, status in _rows(path) if status == "ok"}
        assert 60 <= len(done) < 600, "the child must be killed mid-run"
        time.sleep(0.3)  # let the server read whatever the child had already sent
        seen_before = dict(server.state.requests)

        prompts = [f"kill test {i}" for i in range(300)]
        result = generate(prompts, OpenAIClient(server.base_url, "m", n=False), count=2, store=path, **FAST)
        assert result.status_counts()["ok"] == 600
        rows = _rows(path)
        assert len(rows) == 600 and len({(p, s) for p, s, _ in rows}) == 600  # no duplicates
        completed_prompts = {p for p, _ in done if (p, 0) in done and (p, 1) in done}
        for prompt in completed_prompts:  # a fully completed prompt was never requested again
            assert server.state.requests[prompt] == seen_before[prompt]
        asked_again = sum(server.state.requests[p] - seen_before.get(p, 0) for p in prompts)
        assert asked_again == 600 - len(done)  # exactly the missing samples, one request each


@given(
    n_prompts=st.integers(1, 5),
    count=st.integers(1, 4),
    first=st.sets(st.tuples(st.integers(0, 4), st.integers(0, 3)), max_size=12),
)
def test_property_resume_requests_exactly_the_missing_samples(
    n_prompts: int, count: int, first: set[tuple[int, int]]
) -> None:
    """Whatever subset a first run completed, the second run asks for exactly the rest, once each."""
    prompts = [f"q{i}" for i in range(n_prompts)]
    done = {(f"q{p}", s) for p, s in first if p < n_prompts and s < count}

    def first_run(prompt: str, seed: int | None = None) -> str:  # seed = 0 + sample index
        if (prompt, seed) not in done:
            raise RetryableError("interrupted")
        return f"{prompt}/{seed}"

    calls: list[tuple[str, int | None]] = []

    def second_run(prompt: str, seed: int | None = None) -> str:
        calls.append((prompt, seed))
        return f"{prompt}/{seed}"

    with ResponseStore(":memory:") as store:
        opts: dict[str, Any] = {"count": count, "store": store, "progress": False, "seed": 0, "max_retries": 0}
        generate(prompts, CallableClient(first_run, name="model"), **opts)
        result = generate(prompts, CallableClient(second_run, name="model"), **opts)
    expected = {(p, s) for p in prompts for s in range(count)} - done
    assert sorted(calls) == sorted(expected)
    assert result.responses == [f"{p}/{s}" for p in prompts for s in range(count)]
