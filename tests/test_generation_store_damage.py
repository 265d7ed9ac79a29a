"""A generation store that is damaged or locked at resume (faults17). A store cut short (a disk that filled, a copy
interrupted) or with zeroed pages failed the run with exit 3 and ``DatabaseError: database disk image is malformed;
the responses generated so far are kept in ...: run the same command again to resume``: advice that fails again at
every rerun. A store another run holds locked ended in a bare ``OperationalError: database is locked``. Now a damaged
store is bad input (exit 2), one line naming the file, what is wrong and what to do; a locked one is a runtime
failure (exit 3) naming the store and the likely cause. The file is never removed or rewritten."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from openai_stub import StubServer
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.errors import InputError, RunFailure
from evenhand.generation import OpenAIClient, generate
from evenhand.generation.store import ResponseStore

PROMPTS = [f"Write to Mrs. Lee about loan {i}." for i in range(12)]


@pytest.fixture(scope="module")
def stub() -> StubServer:
    with StubServer() as server:
        yield server


def _filled_store(path: Path, url: str) -> bytes:
    generate(PROMPTS, OpenAIClient(url, "m", timeout=10), count=1, store=path, progress=False)
    with sqlite3.connect(path) as db:  # everything into the main file, as a copied store would be
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path.read_bytes()


def _damage(data: bytes, how: str) -> bytes:
    if how == "cut":
        return data[: len(data) // 2]
    return data[:4096] + b"\x00" * (len(data) - 4096)  # zeroed pages after the header


@pytest.mark.parametrize("how", ["cut", "zeroed"])
def test_a_damaged_store_is_bad_input_naming_the_file(how: str, tmp_path: Path, stub: StubServer) -> None:
    store = tmp_path / "g.sqlite"
    data = _damage(_filled_store(store, stub.base_url), how)
    store.write_bytes(data)
    with pytest.raises(InputError) as caught:
        with ResponseStore(store) as opened:
            opened.load("anything")
    message = str(caught.value)
    assert str(store) in message and "damaged" in message and "move it aside" in message, message
    assert store.read_bytes() == data  # left as it was: whatever can be salvaged from it is still there


@pytest.mark.pipeline
def test_the_command_line_says_it_in_one_line_with_exit_2_and_no_resume_advice(
    tmp_path: Path, stub: StubServer
) -> None:
    (tmp_path / "prompts.txt").write_text("\n".join(PROMPTS) + "\n", encoding="utf-8")
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "base_url": stub.base_url, "model": "m"},
        "generation": {"count": 1, "progress": False},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 20},
        "output": {"dir": "out"},
    }
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps(config), encoding="utf-8")
    first = CliRunner().invoke(app, ["assess", str(cfg)])
    assert first.exit_code == ExitCode.OK, first.output
    store = tmp_path / "out" / "generations.sqlite"
    with sqlite3.connect(store) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.write_bytes(_damage(store.read_bytes(), "cut"))
    result = CliRunner().invoke(app, ["assess", str(cfg)])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error")]
    assert len(lines) == 1 and "generations.sqlite" in lines[0] and "damaged" in lines[0], result.output
    assert "run the same command again" not in result.output and "Traceback" not in result.output


def test_a_store_another_process_holds_locked_is_a_runtime_failure_naming_it(tmp_path: Path) -> None:
    store = tmp_path / "g.sqlite"
    ResponseStore(store).close()
    holder = sqlite3.connect(store, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(RunFailure) as caught:
            opened = ResponseStore(store, busy_timeout=0.2)
            opened.register_job("anything", {})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    message = str(caught.value)
    assert str(store) in message and "locked by another process" in message, message


def test_a_full_disk_is_a_runtime_failure_naming_the_store_and_the_replies_committed_before_stay(
    tmp_path: Path,
) -> None:
    """SQLite's "database or disk is full" (here: a page limit standing in for the disk) is said as what it is, a
    runtime failure naming the store; every batch committed before it is still there for the rerun."""
    from evenhand.generation.store import StoredOutcome

    def outcome(i: int) -> StoredOutcome:
        return StoredOutcome("job", f"h{i}", 0, "", 0, "x" * 2000, "y" * 2000, "ok", None, "stop", 1, 1, 1, 0.1)

    path = tmp_path / "g.sqlite"
    store = ResponseStore(path)
    store.write([outcome(0)])
    store._db.execute("PRAGMA max_page_count = 12")  # the disk "fills" a few pages on
    with pytest.raises(RunFailure) as caught:
        for start in range(1, 200, 10):  # bounded: the page limit is reached long before
            store.write([outcome(i) for i in range(start, start + 10)])
    message = str(caught.value)
    assert str(path) in message and "full" in message, message
    assert store.count("job") >= 1  # what was committed before the disk filled is kept
    store.close()
