"""A rich progress bar (done / failed / rate / ETA) that the runner can switch off."""

from __future__ import annotations

from typing import Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.text import Text


class _RateColumn(ProgressColumn):
    def render(self, task: Any) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- /s" if speed is None else f"{speed:.1f}/s", style="progress.data.speed")


class RunProgress:
    """Thin wrapper so the runner does not care whether a bar is shown."""

    def __init__(self, total: int, description: str, enabled: bool, already_done: int = 0) -> None:
        self._progress: Progress | None = None
        self._failed = 0
        if enabled and total > 0:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("[red]{task.fields[failed]} failed"),
                _RateColumn(),
                TextColumn("ETA"),
                TimeRemainingColumn(),
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

    def advance(self, done: int, failed: int) -> None:
        if self._progress is not None:
            self._failed += failed
            self._progress.update(self._task, advance=done, failed=self._failed)
