"""The two consoles of the command line: results on stdout, status and errors on stderr.

On a terminal, tables and text wrap to its width; off a terminal (CI logs, pipes, files) to
:data:`OFF_TERMINAL_WIDTH` columns (issue 37: a plan printed lines of 1,194 characters). Tables fold what does not
fit into more lines of the same cell, so nothing is cut. Every error is one line on stderr, easy to grep in scripts.
"""

from __future__ import annotations

import sys

from rich.console import Console

#: The width of the results off a terminal, where there is none to read.
OFF_TERMINAL_WIDTH = 100

console = Console(width=None if sys.stdout.isatty() else OFF_TERMINAL_WIDTH)
err_console = Console(stderr=True, soft_wrap=True)  # one line per error: easy to grep in scripts
