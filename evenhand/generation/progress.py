"""A rich progress bar (done / failed / rate / ETA) on stderr that the runner can switch off.

Progress is never written to stdout: stdout carries results only, so ``evenhand assess ... > results.txt`` and
pipes get no bar. Off a terminal (CI logs, redirected stderr) and in a Jupyter kernel (where rich would draw
through ipywidgets, an extra install) the progress is plain text on stderr instead: a line at most every few
seconds while the work runs and one line when it ends, which needs nothing beyond the standard library.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.text import Text


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- /s" if speed is None else f"{speed:.1f}/s", style="progress.data.speed")


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


class RunProgress:
    """Thin wrapper so the runner does not care whether a bar is shown."""

    def __init__(self, total: int, description: str, enabled: bool, already_done: int = 0) -> None:
        self._progress: Progress | None = None
        self._text: TextProgress | None = None
        self._failed = 0
        if enabled and total > 0 and (in_notebook() or not sys.stderr.isatty()):
            self._text = TextProgress(total, description, already_done)
        elif enabled and total > 0:
            from rich.console import Console

            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"),
                _RateColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=False,
            )
            self._task = self._progress.add_task(description, total=total, completed=already_done, failed=0)

    def __enter__(self) -> RunProgress:
        if self._progress is not None:
            self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
        if self._text is not None:
            self._text.close()

    def advance(self, done: int, failed: int) -> None:
        if self._text is not None:
            self._text.update(done, failed)
        if self._progress is not None:
            self._failed += failed
            self._progress.update(self._task, advance=done, failed=self._failed)
