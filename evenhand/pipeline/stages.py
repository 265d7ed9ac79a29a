"""Progress over the stages of a run after generation: scoring, metrics and statistics, per family, with an ETA.

A stage that knows how much work it has (``stage(name, total=n)``, then ``advance()``) shows its own progress and
an estimate of the time left; so does the scoring inside a stage (the running stage installs itself as the progress
reporter of :mod:`evenhand._progress`, where the scoring engine finds it and reports its batches instead of drawing
a bar of its own). The estimate is the linear extrapolation of the stage so far: ``ETA = elapsed * (total - done) /
done``.

On a terminal a rich bar shows the stage running, how many stages are left and, for the running stage, done/total
and the ETA. Elsewhere (CI logs, pipes, Jupyter, where rich would need ipywidgets) plain lines go to stderr: at most
one every ``every`` seconds while a long stage runs (``evenhand: metrics: counterfactual 1200/7500, ETA 41 s``) and
one per finished stage with its time, so a long run shows where it is without cursor tricks.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from evenhand._progress import reporting_to

T = TypeVar("T")

#: Seconds between two progress lines of one stage off a terminal.
TEXT_EVERY = 5.0


class StageProgress:
    """The running stage's progress: ``advance(n)``; ``work(total, label)`` starts a counted part of the stage."""

    def __init__(self, name: str, total: int | None, owner: Stages) -> None:
        self.name, self.owner = name, owner
        self.label = name
        self.total, self.done = total or 0, 0
        self._started = self._last = time.monotonic()
        self._row: Any = None
        if owner.enabled and total:
            self._show()

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left by linear extrapolation, None before the first unit of work is done."""
        if self.done <= 0 or self.total <= 0:
            return None
        elapsed = (now if now is not None else time.monotonic()) - self._started
        return max(0.0, elapsed * (self.total - self.done) / self.done)

    def advance(self, n: int = 1) -> None:
        if not self.owner.enabled or not self.total:
            return
        self.done = min(self.total, self.done + n)
        bar = self.owner._bar
        if bar is not None:
            if self._row is not None:
                bar.update(self._row, completed=self.done)
            return
        now = time.monotonic()
        if now - self._last >= self.owner.every and self.done < self.total:
            self._last = now
            eta = self.eta(now)
            tail = f", ETA {eta:.0f} s" if eta is not None else ""
            print(f"evenhand: {self.label} {self.done}/{self.total}{tail}", file=sys.stderr, flush=True)

    @contextmanager
    def work(self, total: int, label: str) -> Iterator[Callable[[int], None]]:
        """A counted part of the stage (e.g. one scorer's texts): its own done/total and ETA; yields ``advance``."""
        # the stage's own row stays on the bar (its count resumes after the part): the part gets a row of its own
        previous = (self.label, self.total, self.done, self._started, self._row)
        self.label, self.total, self.done, self._row = f"{self.name}: {label}", total, 0, None
        self._started = self._last = time.monotonic()
        if self.owner.enabled and total:
            self._show()
        try:
            yield self.advance
        finally:
            self._hide()
            self.label, self.total, self.done, self._started, self._row = previous

    def _show(self) -> None:
        bar = self.owner._bar
        if bar is None:
            return
        self._hide()
        self._row = bar.add_task(self.label, total=self.total, eta=True)

    def _hide(self) -> None:
        if self._row is not None and self.owner._bar is not None:
            self.owner._bar.remove_task(self._row)
        self._row = None


_RUNNING: ContextVar[StageProgress | None] = ContextVar("evenhand_running_stage", default=None)


def running_stage() -> StageProgress | None:
    """The stage running in this context, if a pipeline run is in one (the scoring engine reports to it)."""
    return _RUNNING.get()


def advance_stage(n: int = 1) -> None:
    """Count ``n`` units of work of the running stage (nothing when no stage runs)."""
    stage = _RUNNING.get()
    if stage is not None:
        stage.advance(n)


def counted(items: Iterable[T], counts: Callable[[T], bool]) -> Iterator[T]:
    """``items``, advancing the running stage by one after the work on each item that ``counts``."""
    for item in items:
        yield item
        if counts(item):
            advance_stage()


class Stages:
    """``with Stages(total, enabled) as stages: with stages.stage("metrics: toxicity", total=n) as st: ...``."""

    def __init__(self, total: int, enabled: bool, every: float | None = None) -> None:
        self.total, self.enabled = total, enabled and total > 0
        self.every = TEXT_EVERY if every is None else every
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
                _eta_column(),
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
    def stage(self, name: str, total: int | None = None) -> Iterator[StageProgress]:
        started = time.perf_counter()
        if self._bar is not None:
            self._bar.update(self._task, description=name)
        progress = StageProgress(name, total, self)
        token = _RUNNING.set(progress)
        try:
            with reporting_to(progress):  # the scoring inside the stage reports to it (evenhand/_progress.py)
                yield progress
        finally:
            _RUNNING.reset(token)
            progress._hide()
        if self._bar is not None:
            self._bar.advance(self._task)
        elif self.enabled:
            print(f"evenhand: {name} done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def _eta_column() -> Any:
    from rich.progress import ProgressColumn
    from rich.text import Text

    class EtaColumn(ProgressColumn):
        """``ETA 0:00:41`` on a stage's counted row (rich's own estimate, from recent speed); blank on the others."""

        def render(self, task: Any) -> Text:
            if not task.fields.get("eta"):
                return Text("")
            left = task.time_remaining
            if left is None:
                return Text("ETA -:--:--", style="progress.remaining")
            minutes, seconds = divmod(int(left), 60)
            hours, minutes = divmod(minutes, 60)
            return Text(f"ETA {hours}:{minutes:02d}:{seconds:02d}", style="progress.remaining")

    return EtaColumn()
