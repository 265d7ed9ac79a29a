"""Progress reporting that every layer may use, without knowing who shows it.

Work that counts its units (a scorer's batches, a generation run) asks :func:`current_reporter` whether someone
above it shows progress (a pipeline stage, with its ETA); the one who shows it installs itself with
:func:`reporting_to` for the time the work runs. So a lower layer reports to a higher one without importing it:
the pipeline passes its reporter down through this module, the scorers never look the pipeline up.

Off a terminal and in a Jupyter kernel (where rich would draw through ipywidgets, an extra install) progress is
plain text on stderr instead (:class:`TextProgress`), which needs nothing beyond the standard library.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Protocol, runtime_checkable

__all__ = ["ProgressReporter", "TextProgress", "current_reporter", "in_notebook", "reporting_to"]


@runtime_checkable
class ProgressReporter(Protocol):
    """Who shows progress: ``work(total, label)`` opens a counted part of the work and yields ``advance(n)``."""

    def work(self, total: int, label: str) -> AbstractContextManager[Callable[[int], None]]: ...


# a context variable, not a global: concurrent runs (threads, asyncio tasks) each report to their own reporter
_REPORTER: ContextVar[ProgressReporter | None] = ContextVar("evenhand_progress_reporter", default=None)


def current_reporter() -> ProgressReporter | None:
    """The reporter installed by :func:`reporting_to` in this context, None when nobody above shows progress."""
    return _REPORTER.get()


@contextmanager
def reporting_to(reporter: ProgressReporter | None) -> Iterator[None]:
    """Send the progress of the work done inside the block to ``reporter`` (None: to nobody above)."""
    token = _REPORTER.set(reporter)
    try:
        yield
    finally:
        _REPORTER.reset(token)


def in_notebook() -> bool:
    """Whether this runs inside a Jupyter kernel (IPython's ``ZMQInteractiveShell``), where rich needs ipywidgets."""
    ipython = sys.modules.get("IPython")
    get_ipython = getattr(ipython, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    return type(shell).__name__ == "ZMQInteractiveShell"


class TextProgress:
    """Plain-text progress on stderr (off a terminal, in notebooks): ``evenhand: generating 120/755, 3 failed,
    12.3/s, ETA 52 s``, at most one line every ``every`` seconds, and a last line when done."""

    def __init__(self, total: int, description: str, already_done: int = 0, every: float = 5.0) -> None:
        self.total, self.description, self.every = total, description, every
        self.done, self.failed, self._start_done = already_done, 0, already_done
        self._started = self._last = time.monotonic()

    def update(self, done: int, failed: int) -> None:
        self.done, self.failed = self.done + done, self.failed + failed
        now = time.monotonic()
        if now - self._last >= self.every and self.done < self.total:
            self._last = now
            self._write(now)

    def close(self) -> None:
        self._write(time.monotonic(), final=True)

    def _write(self, now: float, final: bool = False) -> None:
        elapsed = max(now - self._started, 1e-9)
        rate = (self.done - self._start_done) / elapsed
        line = f"evenhand: {self.description} {self.done}/{self.total}, {self.failed} failed, {rate:.1f}/s"
        if final:
            line += f", {elapsed:.1f} s"
        elif rate > 0:
            line += f", ETA {(self.total - self.done) / rate:.0f} s"
        print(line, file=sys.stderr, flush=True)
