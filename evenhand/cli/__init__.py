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

from evenhand.cli.application import app, main
from evenhand.cli.consoles import console, err_console
from evenhand.cli.exit_codes import ExitCode

__all__ = ["ExitCode", "app", "console", "err_console", "main"]
