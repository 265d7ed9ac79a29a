"""SQLite store of generation outcomes: the resume point of every job.

One row per (job, prompt, occurrence, group, sample). ``job`` hashes the model configuration, system prompt and
sampling settings; ``occurrence`` separates repeated copies of the same prompt text. The database runs in WAL
mode and every completed result is committed before it is reported, so a process killed at any moment (kill -9)
loses nothing that was reported done; the primary key makes duplicates impossible. Successful and filtered
results are never overwritten; an earlier error row is replaced when a retry succeeds.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evenhand.errors import InputTypeError

DEFAULT_STORE = "evenhand_generations.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS jobs (job TEXT PRIMARY KEY, config TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS responses (
    job TEXT NOT NULL, prompt_hash TEXT NOT NULL, occurrence INTEGER NOT NULL, grp TEXT NOT NULL,
    sample INTEGER NOT NULL, prompt TEXT NOT NULL, response TEXT, status TEXT NOT NULL, error TEXT,
    finish_reason TEXT, prompt_tokens INTEGER, completion_tokens INTEGER, attempts INTEGER NOT NULL,
    latency_s REAL, created REAL NOT NULL,
    PRIMARY KEY (job, prompt_hash, occurrence, grp, sample)
) WITHOUT ROWID;
"""

_UPSERT = """
INSERT INTO responses VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT (job, prompt_hash, occurrence, grp, sample) DO UPDATE SET
    response=excluded.response, status=excluded.status, error=excluded.error,
    finish_reason=excluded.finish_reason, prompt_tokens=excluded.prompt_tokens,
    completion_tokens=excluded.completion_tokens, attempts=responses.attempts + excluded.attempts,
    latency_s=excluded.latency_s, created=excluded.created
WHERE responses.status = 'error'
"""


def prompt_hash(prompt: str) -> str:
    return hashlib.sha256(prompt.encode("utf-8")).hexdigest()[:24]


def job_key(config: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=repr).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class StoredOutcome:
    """One sample's outcome as written to the store."""

    job: str
    prompt_hash: str
    occurrence: int
    group: str
    sample: int
    prompt: str
    response: str | None
    status: str
    error: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    attempts: int
    latency_s: float | None

    def row(self) -> tuple[Any, ...]:
        return (
            self.job, self.prompt_hash, self.occurrence, self.group, self.sample, self.prompt, self.response,
            self.status, self.error, self.finish_reason, self.prompt_tokens, self.completion_tokens, self.attempts,
            self.latency_s, time.time(),
        )  # fmt: skip


class ResponseStore:
    """Persistent (file) or throw-away (``":memory:"``) store of outcomes; safe to reopen and resume."""

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_STORE) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves so each batch is exactly one transaction.
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a committed transaction survives a killed process (the OS has the WAL pages);
            # only a power cut can lose the last commits. Per-commit fsync would cost ~ms per response.
            self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)

    def __repr__(self) -> str:
        return f"ResponseStore({self.path!r})"

    def register_job(self, job: str, config: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO jobs VALUES (?, ?, ?)", (job, json.dumps(config, sort_keys=True), time.time())
        )

    def load(self, job: str) -> dict[tuple[str, int, str, int], sqlite3.Row]:
        """All stored outcomes of ``job`` keyed by (prompt_hash, occurrence, group, sample)."""
        cur = self._db.execute("SELECT * FROM responses WHERE job = ?", (job,))
        cur.row_factory = sqlite3.Row
        return {(r["prompt_hash"], r["occurrence"], r["grp"], r["sample"]): r for r in cur.fetchall()}

    def write(self, outcomes: Sequence[StoredOutcome]) -> None:
        """Commit ``outcomes`` in one transaction (returns only once they are durable against a crash)."""
        if not outcomes:
            return
        self._db.execute("BEGIN")
        try:
            self._db.executemany(_UPSERT, [o.row() for o in outcomes])
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def jobs(self) -> list[tuple[str, dict[str, Any]]]:
        return [(j, json.loads(c)) for j, c in self._db.execute("SELECT job, config FROM jobs ORDER BY created")]

    def count(self, job: str | None = None, statuses: Iterable[str] = ("ok", "filtered", "error")) -> int:
        args: list[Any] = list(statuses)
        sql = f"SELECT COUNT(*) FROM responses WHERE status IN ({','.join('?' * len(args))})"
        if job is not None:
            sql += " AND job = ?"
            args.append(job)
        return int(self._db.execute(sql, args).fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_store(store: ResponseStore | str | os.PathLike[str] | None) -> tuple[ResponseStore, bool]:
    """Return ``(store, owned)``; ``None`` means an in-memory store (nothing persisted)."""
    if isinstance(store, ResponseStore):
        return store, False
    if store is None or store is False:
        return ResponseStore(":memory:"), True
    if isinstance(store, (str, os.PathLike)):
        return ResponseStore(store), True
    raise InputTypeError(f"store must be a path, a ResponseStore or None, got {type(store).__name__}")
