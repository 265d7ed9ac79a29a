"""The ``evenhand`` typer application: its commands, ``--version`` and ``--debug``, one-line usage errors, and the
console script's entry point (:func:`main`)."""

from __future__ import annotations

import importlib
import os
import signal
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape

from evenhand._version import __version__
from evenhand.cli.commands.assess import assess
from evenhand.cli.commands.compare import compare
from evenhand.cli.commands.demo import demo
from evenhand.cli.commands.metrics import metrics
from evenhand.cli.commands.plan import plan
from evenhand.cli.commands.redteam import redteam
from evenhand.cli.commands.report import report
from evenhand.cli.consoles import console, err_console
from evenhand.cli.examples import examples_epilog
from evenhand.cli.exit_codes import ExitCode, exit_code_for, print_error


def _click_exceptions() -> Any:
    """The click exceptions module the installed typer raises from (typer 0.24+ vendors click as typer._click)."""
    try:
        return importlib.import_module("typer._click.exceptions")
    except ImportError:  # older typer: click itself
        return importlib.import_module("click.exceptions")


class _OneLineUsageErrors(typer.core.TyperGroup):
    """Usage errors (a flag's value of the wrong type or out of range, an unknown option or command) as one line
    on stderr, like every other bad input, instead of a usage block and a panel:
    ``error: evenhand demo: Invalid value for '--limit': ...`` (exit code 2). A bad input no command caught
    (an :class:`~evenhand.errors.InputError`) is one line and exit code 2 as well."""

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        where = {"args": args, "prog_name": prog_name, "complete_var": complete_var, **extra}
        from evenhand.cli.help_format import use_plain_help, wide_terminal

        if not wide_terminal():  # rich's help panels cut option names with "…" when narrow (and in CI logs)
            use_plain_help(self)
        if not standalone_mode:
            return super().main(**where, standalone_mode=False, windows_expand_args=windows_expand_args)
        try:
            code = super().main(**where, standalone_mode=False, windows_expand_args=windows_expand_args)
        except _click_exceptions().UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError" or exc.ctx is None:  # `evenhand` alone: typer's help
                return super().main(**where, standalone_mode=True, windows_expand_args=windows_expand_args)
            command = escape(exc.ctx.command_path)
            hint = f" (`{command} --help` says what it takes, with examples)"  # what to do next
            err_console.print(f"[bold red]error:[/] {command}: {escape(exc.format_message())}{hint}", highlight=False)
            sys.exit(exc.exit_code)
        except typer.Abort as exc:  # a question got no answer: end of input (bad input) or Ctrl-C (interrupted)
            if isinstance(exc.__context__, KeyboardInterrupt):  # click raises Abort from None, keeping the context
                err_console.print("interrupted", highlight=False)
                sys.exit(int(ExitCode.INTERRUPTED))
            print_error("no answer (end of input); answer on a terminal or give flags")
            sys.exit(int(ExitCode.BAD_INPUT))
        except Exception as exc:  # by class: bad input is one line and 2; anything else goes on to main()
            if exit_code_for(exc) != ExitCode.BAD_INPUT:
                raise
            print_error(str(exc))
            sys.exit(int(ExitCode.BAD_INPUT))
        sys.exit(code if isinstance(code, int) else 0)


app = typer.Typer(
    name="evenhand",
    cls=_OneLineUsageErrors,
    help=(
        "Use-case-level bias and fairness assessment of LLMs (plan, assess, redteam, metrics, report, compare, demo). "
        "Exit codes: 0 ok, 1 a threshold you set failed, 2 bad input or config, 3 runtime failure, "
        "130 interrupted (143 on SIGTERM)."
    ),
    epilog=examples_epilog(""),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
for _command in (assess, redteam, metrics, report, plan, demo, compare):  # the order of --help
    app.command(epilog=examples_epilog(_command.__name__))(_command)


def debug_from_env() -> bool:
    """``EVENHAND_DEBUG`` set to anything but empty, ``0``, ``false``, ``no`` or ``off``."""
    return os.environ.get("EVENHAND_DEBUG", "").strip().lower() not in ("", "0", "false", "no", "off")


#: Whether an unexpected error shows its traceback (``--debug`` or ``EVENHAND_DEBUG``).
DEBUG = {"on": debug_from_env()}


def _version(value: bool) -> None:
    if value:
        console.print(f"evenhand {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show the traceback of an unexpected error.")] = False,
) -> None:
    """Use-case-level bias and fairness assessment of LLMs, following the paper's decision framework."""
    DEBUG["on"] = debug or debug_from_env()  # the documented variable counts too


def _terminate_as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM (a cancelled CI job, ``kill``, a container stopped) ends the run as Ctrl-C does: SIGINT's handler
    runs (asyncio's, during generation, cancels the run at its next await, so every reply received is committed
    first; elsewhere a KeyboardInterrupt), and :func:`main` exits 143 instead of 130. The default action killed the
    process where it stood, without a word about what the store keeps.

    SIGINT's handler is called here rather than SIGINT raised: a process started in the background by a script
    (``evenhand assess c.yaml &``) inherits SIGINT *ignored*, so a raised SIGINT did nothing and the run went on to
    its end after the supervisor's SIGTERM. Where SIGINT has no Python handler (ignored, or the system default), the
    KeyboardInterrupt is raised directly: asyncio then cancels every task (each reply received is committed)."""
    TERMINATED["on"] = True
    on_interrupt = signal.getsignal(signal.SIGINT)
    if callable(on_interrupt):
        on_interrupt(signal.SIGINT, frame)
        return
    raise KeyboardInterrupt


#: Whether SIGTERM ended this process (its exit code is then ExitCode.TERMINATED, 143).
TERMINATED = {"on": False}


def main(argv: list[str] | None = None) -> Any:
    """Entry point of the ``evenhand`` console script: an unexpected error is one line on stderr and exit code 3
    (the traceback only with ``--debug`` or ``EVENHAND_DEBUG=1``); exit code 1 stays "a threshold failed"; Ctrl-C
    exits 130 and SIGTERM 143, each saying what the store keeps."""
    TERMINATED["on"] = False
    try:
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    except ValueError:  # called outside the main thread (an embedding program): its own handling stays
        previous = None
    try:
        return app(args=argv if argv is not None else sys.argv[1:], prog_name="evenhand")
    except SystemExit as done:
        if TERMINATED["on"] and done.code == ExitCode.INTERRUPTED:
            raise SystemExit(int(ExitCode.TERMINATED)) from None
        raise
    except KeyboardInterrupt:
        err_console.print("interrupted", highlight=False)
        code = ExitCode.TERMINATED if TERMINATED["on"] else ExitCode.INTERRUPTED
        raise SystemExit(int(code)) from None
    except Exception as exc:
        if DEBUG["on"]:
            raise
        err_console.print(
            f"[bold red]error:[/] unexpected {type(exc).__name__}: {escape(str(exc))} (rerun with --debug for the "
            "traceback)",
            highlight=False,
        )
        raise SystemExit(int(ExitCode.RUNTIME_FAILURE)) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
