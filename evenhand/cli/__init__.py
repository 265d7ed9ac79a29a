"""The ``evenhand`` command line: plan, assess, metrics, report, compare and demo.

Exit codes (scripts can rely on them; :mod:`evenhand.cli.exit_codes` sorts failures by class):

* 0 - success;
* 1 - the assessment ran but a fairness threshold from the config (``thresholds:``) was not met;
* 2 - bad input: unreadable or invalid config, missing file or column, bad option;
* 3 - runtime failure: a model, scorer or server failed while the assessment ran.

The package: :mod:`~evenhand.cli.application` (the typer app and :func:`main`), ``commands/`` (one module per command),
:mod:`~evenhand.cli.options` (options shared by commands, the scoring flags declared once),
:mod:`~evenhand.cli.translate` (flags -> config), :mod:`~evenhand.cli.running` (a config run, its outputs and exit
code), :mod:`~evenhand.cli.planner` (the interactive planner), :mod:`~evenhand.cli.rendering` (tables),
:mod:`~evenhand.cli.exit_codes` (exception -> exit code).
"""

from __future__ import annotations

import signal
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evenhand.cli.application import app
    from evenhand.cli.consoles import console, err_console
    from evenhand.cli.exit_codes import ExitCode

__all__ = ["ExitCode", "app", "console", "err_console", "main"]

#: where each public name is defined: imported when first used, so that the console script's ``from evenhand.cli
#: import main`` imports nothing heavy before :func:`main` can catch a Ctrl-C
_LAZY = {
    "app": "evenhand.cli.application",
    "console": "evenhand.cli.consoles",
    "err_console": "evenhand.cli.consoles",
    "ExitCode": "evenhand.cli.exit_codes",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_LAZY[name]), name)


def main(argv: list[str] | None = None) -> Any:
    """Entry point of ``python -m evenhand`` (and, through :mod:`evenhand_entry`, of the ``evenhand`` console
    script): :func:`evenhand.cli.application.main`, imported here, inside the handling of Ctrl-C and SIGTERM.
    Importing the command line (typer, rich, every command) takes a second or more on a cold disk; a Ctrl-C pressed
    then printed a Python traceback (faults14) and a SIGTERM killed the process without a word (faults17). Now each
    is one line and exit 130 (143 for SIGTERM), as during a run; the application then installs its own handling."""
    received: list[int] = []

    def stop(signum: int, frame: Any) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    previous: Any = None
    try:
        try:
            previous = signal.signal(signal.SIGTERM, stop)
        except ValueError:  # called outside the main thread (an embedding program): its own handling stays
            previous = None
        from evenhand.cli.application import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        # ExitCode.INTERRUPTED or TERMINATED, which is not imported yet
        raise SystemExit(128 + (received[0] if received else signal.SIGINT)) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return run(argv)
