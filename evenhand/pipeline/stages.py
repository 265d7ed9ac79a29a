"""Progress over the stages of a run after generation: scoring, metrics and statistics, per family.

On a terminal a bar shows the stage running and how many are left; elsewhere (CI logs, pipes, Jupyter, where rich
would need ipywidgets) one line per finished stage goes to stderr with its time, so that a long run shows where it
is without cursor tricks.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class Stages:
    """``with Stages(total, enabled) as stages: with stages.stage("scoring: toxicity"): ...``."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Stages:
        from evenhand.generation.progress import in_notebook

        if self.enabled and sys.stderr.isatty() and not in_notebook():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._bar.start()
            self._task = self._bar.add_task("assessing", total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        if self._bar is not None:
            self._bar.update(self._task, description=name)
        yield
        if self._bar is not None:
            self._bar.advance(self._task)
        elif self.enabled:
            print(f"evenhand: {name} done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
