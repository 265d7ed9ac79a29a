"""The ``evenhand`` console script's entry point, a module outside the evenhand package (faults17).

pip's console script imports its target's module first: with ``evenhand.cli:main`` that ran the package's
``__init__`` (and ``evenhand.cli``'s) before any code of evenhand could catch a signal, so a Ctrl-C in those first
milliseconds printed a Python traceback and a SIGTERM killed the process without a word. This module imports nothing
of evenhand at its top: :func:`main` catches both, then imports the package and hands over to
:func:`evenhand.cli.main`, which guards the rest of the start-up and the run. What is left unguarded is Python's own
start-up (the interpreter and ``site``), which no program can catch.
"""

from __future__ import annotations

import sys


def main() -> object:
    """``evenhand ...``: a Ctrl-C or SIGTERM while the package imports is the one line ``interrupted`` and exit
    130 (143 for SIGTERM), as later; nothing has been asked of a model yet, so nothing is lost."""
    received: list[int] = []

    def stop(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    try:
        import signal

        signal.signal(signal.SIGTERM, stop)  # evenhand.cli.main replaces it with its own at once
        from evenhand.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(128 + (received[0] if received else 2)) from None  # 2: SIGINT, 15: SIGTERM
    return run()
