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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evenhand.errors import InputError, InputTypeError, RunFailure

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

    def __init__(self, path: str | os.PathLike[str] = DEFAULT_STORE, *, busy_timeout: float = 30.0) -> None:
        """``busy_timeout``: seconds to wait for a lock another process holds before failing (StoreLockedError)."""
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: we issue BEGIN/COMMIT ourselves so each batch is exactly one transaction.
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=busy_timeout)
        with self._guard():
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
                # NORMAL in WAL mode: a committed transaction survives a killed process (the OS has the WAL pages);
                # only a power cut can lose the last commits. Per-commit fsync would cost ~ms per response.
                self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """SQLite's errors about the file itself, said as what they mean for the run (faults17): a damaged file is
        bad input naming it (a rerun cannot mend it; before, exit 3 advised one), a lock another process holds is a
        runtime failure naming the store. Other errors pass unchanged. The file is never removed or rewritten."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            kind = _file_problem(exc)
            if kind == "damaged":
                raise StoreDamagedError(
                    f"generation store {self.path} is damaged ({exc}): SQLite cannot read it, so its replies cannot "
                    "be resumed; move it aside (or restore a copy) and run again to generate afresh"
                ) from None
            if kind == "full":
                raise StoreFullError(
                    f"generation store {self.path}: the disk is full ({exc}); every reply committed before is kept "
                    "there: free some space and run the same command again to resume"
                ) from None
            if kind == "locked":
                raise StoreLockedError(
                    f"generation store {self.path} is locked by another process (another run writing into the same "
                    "store?): wait for it to end, or give this run another store (generation.store)"
                ) from None
            raise

    def __repr__(self) -> str:
        return f"ResponseStore({self.path!r})"

    def register_job(self, job: str, config: dict[str, Any]) -> None:
        with self._guard():
            self._db.execute(
                "INSERT OR IGNORE INTO jobs VALUES (?, ?, ?)", (job, json.dumps(config, sort_keys=True), time.time())
            )

    def load(self, job: str) -> dict[tuple[str, int, str, int], sqlite3.Row]:
        """All stored outcomes of ``job`` keyed by (prompt_hash, occurrence, group, sample)."""
        with self._guard():
            cur = self._db.execute("SELECT * FROM responses WHERE job = ?", (job,))
            cur.row_factory = sqlite3.Row
            return {(r["prompt_hash"], r["occurrence"], r["grp"], r["sample"]): r for r in cur.fetchall()}

    def write(self, outcomes: Sequence[StoredOutcome]) -> None:
        """Commit ``outcomes`` in one transaction (returns only once they are durable against a crash)."""
        if not outcomes:
            return
        with self._guard():
            self._db.execute("BEGIN")
            try:
                self._db.executemany(_UPSERT, [o.row() for o in outcomes])
            except BaseException:
                if self._db.in_transaction:  # SQLite rolls back by itself on some errors (a full disk)
                    self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def jobs(self) -> list[tuple[str, dict[str, Any]]]:
        with self._guard():
            return [(j, json.loads(c)) for j, c in self._db.execute("SELECT job, config FROM jobs ORDER BY created")]

    def count(self, job: str | None = None, statuses: Iterable[str] = ("ok", "filtered", "error")) -> int:
        args: list[Any] = list(statuses)
        sql = f"SELECT COUNT(*) FROM responses WHERE status IN ({','.join('?' * len(args))})"
        if job is not None:
            sql += " AND job = ?"
            args.append(job)
        with self._guard():
            return int(self._db.execute(sql, args).fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> ResponseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StoreDamagedError(InputError):
    """The store's file is not readable as SQLite past its header (cut short, zeroed pages): exit 2, naming it."""


class StoreFullError(RunFailure):
    """The disk holding the store is full (or its size limit reached): exit 3, naming it."""


class StoreLockedError(RunFailure):
    """Another process held the store's lock for longer than the store waits: exit 3, naming it."""


# SQLite's primary result codes (sqlite3.SQLITE_* exists from Python 3.11 on): a file that is no database or is
# corrupt; a lock held by another connection
_DAMAGED_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB
_LOCKED_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED
_FULL_CODE = 13  # SQLITE_FULL


def _file_problem(exc: sqlite3.DatabaseError) -> str | None:
    """"damaged", "full", "locked" or None for an SQLite error, by its result code (its message on Python 3.10)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        primary = code & 0xFF  # an extended code carries its primary code in the low byte
        if primary == _FULL_CODE:
            return "full"
        return "damaged" if primary in _DAMAGED_CODES else "locked" if primary in _LOCKED_CODES else None
    text = str(exc).lower()
    if "malformed" in text or "not a database" in text:
        return "damaged"
    return "full" if "disk is full" in text else "locked" if "locked" in text else None


def open_store(store: ResponseStore | str | os.PathLike[str] | None) -> tuple[ResponseStore, bool]:
    """Return ``(store, owned)``; ``None`` means an in-memory store (nothing persisted)."""
    if isinstance(store, ResponseStore):
        return store, False
    if store is None or store is False:
        return ResponseStore(":memory:"), True
    if isinstance(store, (str, os.PathLike)):
        return ResponseStore(store), True
    raise InputTypeError(f"store must be a path, a ResponseStore or None, got {type(store).__name__}")
