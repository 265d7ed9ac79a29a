"""An optional on-disk cache of scores and embeddings (SQLite, one file, safe across processes).

Rows are keyed by (namespace, SHA-256 of the text); the namespace is the scorer's ``cache_key`` (backend, model,
settings), so two models never share entries. Values are float64 vectors stored as raw bytes.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputTypeError

CacheLike = Union[None, bool, str, "os.PathLike[str]", "ScoreCache"]

_SQL_CHUNK = 500  # stay well under SQLite's bound-parameter limit


def default_cache_path() -> Path:
    """``$EVENHAND_CACHE_DIR/scores.sqlite``, else ``~/.cache/evenhand/scores.sqlite``."""
    root = os.environ.get("EVENHAND_CACHE_DIR") or Path.home() / ".cache" / "evenhand"
    return Path(root) / "scores.sqlite"


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class ScoreCache:
    """Persistent ``(namespace, text) -> float vector`` store. Open one per file and share it between scorers."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        with self._lock, self._db:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS scores ("
                "namespace TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (namespace, key))"
            )

    def get_many(self, namespace: str, texts: Sequence[str]) -> dict[int, npt.NDArray[np.float64]]:
        """Return ``{position: vector}`` for the texts found in ``namespace``."""
        keys = [_digest(t) for t in texts]
        position = {k: i for i, k in enumerate(keys)}
        found: dict[int, npt.NDArray[np.float64]] = {}
        with self._lock:
            for start in range(0, len(keys), _SQL_CHUNK):
                chunk = keys[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, value FROM scores WHERE namespace = ? AND key IN ({marks})", [namespace, *chunk]
                )
                for key, value in rows:
                    found[position[key]] = np.frombuffer(value, dtype="<f8").astype(np.float64)
        return found

    def put_many(self, namespace: str, texts: Sequence[str], values: npt.NDArray[Any]) -> None:
        """Store one row per text; ``values`` has shape (n,) or (n, d)."""
        arr = np.asarray(values, dtype="<f8").reshape(len(texts), -1)
        rows = [(namespace, _digest(t), arr[i].tobytes()) for i, t in enumerate(texts)]
        with self._lock, self._db:
            self._db.executemany("INSERT OR REPLACE INTO scores (namespace, key, value) VALUES (?, ?, ?)", rows)

    def clear(self, namespace: str | None = None) -> None:
        """Delete every entry, or only those of one namespace."""
        with self._lock, self._db:
            if namespace is None:
                self._db.execute("DELETE FROM scores")
            else:
                self._db.execute("DELETE FROM scores WHERE namespace = ?", [namespace])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM scores").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __repr__(self) -> str:
        return f"ScoreCache({str(self.path)!r})"


def open_cache(cache: CacheLike) -> ScoreCache | None:
    """Normalise a ``cache=`` argument: None/False, True (default file), a path, or a :class:`ScoreCache`."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return ScoreCache(default_cache_path())
    if isinstance(cache, ScoreCache):
        return cache
    if isinstance(cache, (str, os.PathLike)):
        return ScoreCache(cache)
    raise InputTypeError(f"cache must be None, True/False, a file path or a ScoreCache; got {type(cache).__name__}")
