"""CSV cells that a spreadsheet would run as formulas, guarded on write and restored on read.

A text cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to Excel, LibreOffice
and Google Sheets (OWASP "CSV injection"): a model's reply such as ``=HYPERLINK(...)`` in responses.csv would run
when a reviewer opens the file. Such a cell is written with a single quote in front (``'=HYPERLINK(...)``), which
spreadsheets show as text. Numbers are never touched: a numeric column stays numeric, and a text cell that is a
plain number (``-0.5``, ``+3``, ``-1e-3``) is data, not a formula.

The guard is undone when evenhand reads back a CSV or TSV it wrote (``evenhand metrics responses.csv``), so its own
files round-trip exactly; a file is evenhand's when its header starts as responses.csv's or metrics.csv's does
(:func:`written_by_evenhand`). A user's own table is read as it is: its cell ``'@alice`` keeps its quote. To keep
the round trip exact, a cell that already starts with quotes before a formula character (``'=x``) gets one more
quote on write, and reading removes exactly one from any cell of that shape.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

_FORMULA_START = "=+-@\t\r"
# one or more quotes, then a formula character: a guarded cell (reading removes one quote)
_GUARDED = re.compile(r"'+[=+\-@\t\r]")
# zero or more quotes, then a formula character: a cell to guard (writing adds one quote)
_NEEDS_GUARD = re.compile(r"'*[=+\-@\t\r]")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def guard_cell(value: Any) -> Any:
    """``value`` as it is safe in a CSV cell: a text cell a spreadsheet would run gets a leading ``'``."""
    if isinstance(value, str) and _NEEDS_GUARD.match(value) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def unguard_cell(value: Any) -> Any:
    """The text :func:`guard_cell` was given (one leading quote removed from a guarded cell)."""
    if isinstance(value, str) and _GUARDED.match(value):
        return value[1:]
    return value


def guard_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every text cell guarded (numeric columns are left as they are)."""
    return _map_text_columns(frame, guard_cell)


def unguard_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` read from a CSV with the guard of :func:`guard_frame` undone in every text column."""
    return _map_text_columns(frame, unguard_cell)


def _map_text_columns(frame: pd.DataFrame, change: Any) -> pd.DataFrame:
    out = frame.copy()
    for name in out.columns:
        column = out[name]
        if column.dtype == object or pd.api.types.is_string_dtype(column.dtype):
            values = column.tolist()
            changed = [change(v) for v in values]
            if changed != values:  # the column keeps its dtype (pandas' str stays str)
                out[name] = pd.Series(changed, index=out.index, dtype=column.dtype)
    return out.rename(columns=change)  # a header is a cell too


#: How the header of a table evenhand writes begins (responses.csv, metrics.csv): the mark that its cells are guarded.
_OWN_HEADERS = (
    ("prompt_id", "attribute", "group", "sample", "prompt", "response", "status", "error"),
    ("metric", "full_name", "key", "family"),
)


def written_by_evenhand(columns: Any) -> bool:
    """Whether a table with these columns is one evenhand wrote (so its text cells carry the guard)."""
    names = tuple(str(c) for c in columns)
    return any(names[: len(header)] == header for header in _OWN_HEADERS)
