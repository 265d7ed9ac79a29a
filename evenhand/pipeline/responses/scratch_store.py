"""The generation store of :func:`evenhand.assess` when none is named: a temporary file, not the working directory.

From Python nothing is left behind by default: the store (SQLite, which makes generation resumable) is a file in a
new temporary folder, removed when the run has finished. A run that fails or is interrupted keeps it and says where
(one line on stderr, and a note on the exception), so the completed responses are not lost: pass that path as
``store=`` to resume. Give ``store="runs/my.sqlite"`` to keep the responses for good, or ``store=None`` to keep
them in memory only. The command line keeps its own documented default, ``generations.sqlite`` in the output folder.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


class _TemporaryStore:
    """The default of ``assess(store=...)``: a temporary file, removed after a finished run."""

    def __repr__(self) -> str:
        return "<a temporary file, removed after the run>"


TEMPORARY_STORE: Any = _TemporaryStore()


@contextmanager
def scratch_store(store: Any, generating: bool) -> Iterator[Any]:
    """The store to use for ``store``: ``store`` itself unless it is :data:`TEMPORARY_STORE`; then a file in a new
    temporary folder (None when nothing is generated), removed at the end unless the run fails after writing it."""
    if store is not TEMPORARY_STORE:
        yield store
        return
    if not generating:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="evenhand-generations-"))
    path = folder / "generations.sqlite"
    try:
        yield path
    except BaseException as exc:
        if not path.exists():
            shutil.rmtree(folder, ignore_errors=True)
            raise
        advice = f"evenhand: the responses generated so far are kept in {path}; pass store={str(path)!r} to resume"
        print(advice, file=sys.stderr, flush=True)
        if hasattr(exc, "add_note"):  # Python 3.11+: the note shows under the traceback
            exc.add_note(advice)
        raise
    shutil.rmtree(folder, ignore_errors=True)
