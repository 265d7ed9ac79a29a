"""A rich progress bar (done / failed / rate / ETA) on stderr that the runner can switch off.

Progress is never written to stdout: stdout carries results only, so ``evenhand assess ... > results.txt`` and
pipes get no bar. Off a terminal (CI logs, redirected stderr) and in a Jupyter kernel (where rich would draw
through ipywidgets, an extra install) the progress is plain text on stderr instead: a line at most every few
seconds while the work runs and one line when it ends, which needs nothing beyond the standard library.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.text import Text

# the plain-text progress and the notebook test live in the base layer, where the scorers use them too
from evenhand._progress import TextProgress, in_notebook

__all__ = ["RunProgress", "TextProgress", "in_notebook"]


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- /s" if speed is None else f"{speed:.1f}/s", style="progress.data.speed")


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
