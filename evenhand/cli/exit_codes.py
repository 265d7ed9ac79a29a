"""Exit codes, and which exception means which: the one place the command line sorts failures.

* 0 - success;
* 1 - the assessment ran but a fairness threshold from the config (``thresholds:``) was not met;
* 2 - bad input: an :class:`~evenhand.errors.InputError` (unreadable or invalid config, missing file or column, bad
  option), a config that fails its schema, a usage error;
* 3 - runtime failure: a :class:`~evenhand.errors.RunFailure` (a model, scorer or server failed while the assessment
  ran) or anything unexpected - a bare ``ValueError`` from a bug is not the user's bad input;
* 130 - interrupted (Ctrl-C); 143 - terminated (SIGTERM), which ends a run as Ctrl-C does.
"""

from __future__ import annotations

import enum

import typer
from rich.markup import escape

from evenhand.cli.consoles import err_console
from evenhand.errors import InputError, NoResponsesError


class ExitCode(enum.IntEnum):
    OK = 0
    THRESHOLD_FAILED = 1
    BAD_INPUT = 2
    RUNTIME_FAILURE = 3
    INTERRUPTED = 130  # Ctrl-C, by the shell's convention (128 + SIGINT)
    TERMINATED = 143  # SIGTERM (128 + SIGTERM): a run ended as by Ctrl-C (cli.application.main)


def is_bad_input(exc: BaseException) -> bool:
    """Whether ``exc`` says the input was wrong: an InputError, or a config that fails its schema or its YAML."""
    if isinstance(exc, InputError):
        return True
    from pydantic import ValidationError
    from yaml import YAMLError

    return isinstance(exc, (ValidationError, YAMLError))


def exit_code_for(exc: BaseException) -> ExitCode:
    """The exit code of a failure: bad input 2, interrupted 130, anything else (a run failure, a bug) 3."""
    if isinstance(exc, KeyboardInterrupt):
        return ExitCode.INTERRUPTED
    return ExitCode.BAD_INPUT if is_bad_input(exc) else ExitCode.RUNTIME_FAILURE


def failure_name(exc: BaseException) -> str:
    """The class name a runtime failure is reported under: :class:`~evenhand.errors.NoResponsesError` reads as the
    ``RunFailure`` it always was (it only carries the response frame for a red team), every other its own."""
    return "RunFailure" if isinstance(exc, NoResponsesError) else type(exc).__name__


def print_error(message: str) -> None:
    """One line on stderr: ``error: message`` (printed literally, never read as rich markup), whatever a library's
    message it quotes spans (transformers: "We couldn't connect ...\nCheck your internet connection ...")."""
    from evenhand.generation.breaker import one_line

    err_console.print(f"[bold red]error:[/] {escape(one_line(message))}", highlight=False)


def fail(message: str, code: ExitCode) -> typer.Exit:
    """Print ``message`` as one error line; return the exit to raise (``raise fail(...)``)."""
    print_error(message)
    return typer.Exit(int(code))
