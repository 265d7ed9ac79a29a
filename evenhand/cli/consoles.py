"""The two consoles of the command line: results on stdout, status and errors on stderr.

Off a terminal (CI logs, pipes) nothing is cut: tables take the width they need instead of the default 80 columns.
Every error is one line on stderr, easy to grep in scripts.
"""

from __future__ import annotations

import sys

from rich.console import Console

console = Console(width=None if sys.stdout.isatty() else 1_000)
err_console = Console(stderr=True, soft_wrap=True)  # one line per error: easy to grep in scripts
