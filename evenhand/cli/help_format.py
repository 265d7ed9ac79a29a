"""``--help`` that is never cut: plain wrapped text unless a wide terminal shows typer's rich panels.

Typer's rich help lays the options out in a table whose columns shrink to the width and end in "…": at 80 columns,
or in a CI log (which rich sizes at 80), ``--prompt-id-column`` became ``--prompt-id-colu…`` and a help text's last
word was lost. Click's plain formatter wraps words instead and never drops a character, so it is used wherever
the panels would not fit: off a terminal and on a terminal narrower than :data:`RICH_HELP_MIN_COLUMNS`.
"""

from __future__ import annotations

import inspect
import shutil
import sys
from typing import Any

#: The narrowest terminal on which every command's rich help fits without an ellipsis (measured on `metrics`, the
#: widest: 140 columns show it whole, 120 cut two cells).
RICH_HELP_MIN_COLUMNS = 140


def wide_terminal() -> bool:
    """Whether stdout is a terminal wide enough for the rich help panels."""
    return sys.stdout.isatty() and shutil.get_terminal_size().columns >= RICH_HELP_MIN_COLUMNS


def use_plain_help(group: Any) -> None:
    """Switch ``group`` (a typer group) and its commands to click's plain help, each command listed with its whole
    first sentence (click would shorten it to fit one line, ending in "...")."""
    group.rich_markup_mode = None
    for command in getattr(group, "commands", {}).values():
        command.rich_markup_mode = None
        if not command.short_help and command.help:
            first = inspect.cleandoc(command.help).split("\n\n")[0].replace("\n", " ")
            command.short_help = first.split(". ")[0].rstrip(".")
        use_plain_help(command)  # a nested group's own commands
