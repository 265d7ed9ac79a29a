"""Reading prompt and response tables (CSV, JSONL, JSON, Parquet, plain text) and the bundled demo set."""

from __future__ import annotations

import ast
import codecs
import csv
import json
import re
from collections.abc import Callable, Collection
from importlib import resources
from pathlib import Path
from typing import Any

import pandas as pd

from evenhand._formula_guard import unguard_frame, written_by_evenhand
from evenhand.conversation import Prompt, build_prompts, parse_context
from evenhand.errors import InputError, InputFileNotFoundError, InputTypeError
from evenhand.structured import message_reply_text

SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet", ".pq", ".txt")


def read_table(path: str | Path, *, text_columns: Collection[str] = ()) -> pd.DataFrame:
    """Read a table of prompts or responses; the format follows the file suffix.

    ``.txt`` files hold one prompt per line (column ``prompt``). Text is UTF-8 (a byte-order mark and CRLF line ends
    are fine). Raises ``FileNotFoundError`` for a missing file and ``ValueError`` for a folder, an unknown suffix or
    an unreadable file, with one line that names the file.

    ``text_columns`` (ids) are read as the text the file writes, in every format: a CSV's ``007`` stays "007" (not
    the integer 7, which "7" would share), a JSON number or a Parquet integer is its digits ("7", never "7.0"), a
    missing value stays missing. A named column the file lacks is left to the reader that needs it.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p} is a folder; give a file ({', '.join(SUFFIXES)})")
    if not p.is_file():
        raise InputFileNotFoundError(f"no such file: {p}")
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"unsupported file type {suffix!r} for {p}; use one of {', '.join(SUFFIXES)}")
    if suffix in _TEXT_SUFFIXES:
        _check_text_bytes(p)
    try:
        table = _read(p, suffix, frozenset(text_columns))
    except UnicodeDecodeError:  # (a UTF-16/32 byte-order mark was named by _check_text_bytes)
        raise InputError(f"{p} is not UTF-8 text ({_first_bad_byte(p)}); save it as UTF-8") from None
    except (ValueError, TypeError, OSError, pd.errors.ParserError) as exc:
        # pandas and pyarrow messages can span lines (a quoted row, a schema): one line, naming the file
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise InputError(f"could not read {p} as {suffix[1:]}: {detail}") from None
    if not isinstance(table, pd.DataFrame):  # a JSON document that is one value, e.g. 5 or "text"
        raise InputError(f"could not read {p} as {suffix[1:]}: expected a table (rows of columns)")
    for name in text_columns:
        if name in table.columns:
            table[name] = pd.Series([_as_text(v) for v in table[name]], index=table.index, dtype=object)
    return table


def _as_text(value: Any) -> Any:
    """An id as its text: a whole number without a decimal point (JSON's 7; an integer column with a gap, which
    pandas holds as floats: 7.0), any other value as written; a missing one (None, NaN) as None."""
    if isinstance(value, str) or _is_container(value):
        return value
    if is_missing(value):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


#: Byte-order marks of the wide encodings (Excel's "Unicode text", PowerShell's default), longest first.
_WIDE_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)  # fmt: skip


def _wide_encoding(p: Path) -> str | None:
    """The encoding, "UTF-16" or "UTF-32", when the file starts with that encoding's byte-order mark, else None."""
    with p.open("rb") as handle:
        start = handle.read(4)
    return next((name for mark, name in _WIDE_MARKS if start.startswith(mark)), None)


_TEXT_SUFFIXES = frozenset(SUFFIXES) - {".parquet", ".pq"}
_CHUNK = 2**20


def _check_text_bytes(p: Path) -> None:
    """Refuse a text file that is UTF-16/32 (by its byte-order mark) or holds a NUL byte anywhere. A NUL is never
    part of a prompt or a reply: it is UTF-16 text saved without a byte-order mark (every other byte), a binary file,
    or damage. Read as UTF-8, such a file became prompts like ``W\\x00r\\x00i\\x00...``, sent to the model and
    scored, exit 0 (faults17). JSON's escaped ``\\u0000`` is text the file means, and is read."""
    wide = _wide_encoding(p)
    if wide is not None:
        raise InputError(f"{p} is {wide} text (its byte-order mark says so); save it as UTF-8")
    lines_before = 0
    with p.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            at = chunk.find(b"\x00")
            if at >= 0:
                line = lines_before + chunk.count(b"\n", 0, at) + 1
                raise InputError(
                    f"{p} holds a NUL byte on line {line} (UTF-16 text saved without a byte-order mark, or not a "
                    "text file?); save it as UTF-8 text"
                )
            lines_before += chunk.count(b"\n")


def _first_bad_byte(p: Path) -> str:
    """Where the file stops being UTF-8, by line (a parser's own offset counts from the start of its chunk)."""
    data = p.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"byte 0x{data[exc.start]:02x} on line {line}, e.g. latin-1 or Windows-1252"
    return "a byte that is not UTF-8"


def _read(p: Path, suffix: str, text_columns: frozenset[str]) -> pd.DataFrame:
    if suffix in (".csv", ".tsv"):
        _check_header(p, "\t" if suffix == ".tsv" else ",")
        table = pd.read_csv(p, sep="\t" if suffix == ".tsv" else ",", keep_default_na=False, encoding="utf-8-sig",
                            dtype=dict.fromkeys(text_columns, str))  # fmt: skip
        # a text cell evenhand wrote as '=... (so that no spreadsheet runs it) is read as the text it guarded; a
        # user's own table is read as written
        return unguard_frame(table) if written_by_evenhand(table.columns) else table
    if suffix in (".jsonl", ".ndjson"):
        return _read_json_lines(p)
    if suffix == ".json":
        with p.open("rb") as handle:  # the first bytes tell a table from a single value (5, "text", null)
            start = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
        if start not in (b"[", b"{"):
            raise InputError("expected a JSON array of records or an object of columns")
        return pd.read_json(p, dtype=False, encoding="utf-8-sig")
    if suffix in (".parquet", ".pq"):
        return pd.read_parquet(p)
    lines = p.read_text(encoding="utf-8-sig").splitlines()  # .txt: one prompt per line
    return pd.DataFrame({"prompt": [line for line in lines if line.strip()]})


def _check_header(p: Path, sep: str) -> None:
    """A header that names a column twice is refused: pandas would read the first as it is named and rename the
    second (``response.1``), so a run would read one of two columns without a word."""
    with p.open(encoding="utf-8-sig", newline="") as handle:
        header = next(csv.reader(handle, delimiter=sep), [])
    seen: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if name in seen:
            raise InputError(
                f"column {name!r} appears twice in its header (columns {seen[name]} and {position}); rename or "
                "remove one, evenhand cannot tell which to read"
            )
        seen[name] = position


def _object_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose every key is given once (``json.loads`` keeps the last of two silently)."""
    record: dict[str, Any] = {}
    for key, value in pairs:
        if key in record:
            raise _DuplicateKey(key)
        record[key] = value
    return record


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _read_json_lines(p: Path) -> pd.DataFrame:
    """JSON Lines, one object per line (blank lines skipped); a broken line is named by its number, so a file
    of thousands of rows is fixable (pandas only says where in the whole text it stopped)."""
    records = []
    for number, line in enumerate(p.read_text(encoding="utf-8-sig").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, object_pairs_hook=_object_once)
        except json.JSONDecodeError as exc:
            raise InputError(f"line {number} is not valid JSON ({exc.msg}, column {exc.colno})") from None
        except _DuplicateKey as twice:
            raise InputError(f"line {number} has the key {twice.key!r} twice; keep one, evenhand cannot tell which to "
                             "read") from None  # fmt: skip
        if not isinstance(record, dict):
            raise InputError(f"line {number} is a JSON {type(record).__name__}, expected an object of columns")
        records.append(record)
    return pd.DataFrame.from_records(records)


def column(frame: pd.DataFrame, name: str, *, source: str, role: str, named_by: str = "") -> list[object]:
    """Return a column as a list, or raise a ValueError that lists the available columns.

    Some roles have rules of their own, checked here so that every reader gets them: ``prompts`` must hold a prompt
    in every row (a text, or a list of messages that :func:`prompt_column` reads), ``responses`` text or nothing (a
    missing response is a failed request; an assistant message of a chat log is read as its reply), and ``prompt
    ids`` one distinct value per row; a cell that is a list or a mapping (from JSON) is never text. ``named_by``: the
    setting (or flag) that named the column, which a missing column's message names with the fix.
    """
    if name not in frame.columns:
        cols = ", ".join(map(str, frame.columns))
        fix = f"{role}, named by {named_by}; name the column that holds them there, or add it" if named_by else role
        raise InputError(f"{source} has no column {name!r} (needed for {fix}); its columns are: {cols}")
    values = list(frame[name].tolist())
    if role == "responses":  # a chat log keeps each reply as the assistant message the server sent
        values = [_logged_reply(value) for value in values]
    check = _ROLE_CHECKS.get(role)
    if check is not None:
        problem = check(values)
        if problem is not None:
            raise InputError(f"{source}: column {name!r} ({role}): {problem}")
    return values


def _logged_reply(value: Any) -> Any:
    """A response cell as a reply: an OpenAI-style assistant message (a JSONL log's ``{"role": "assistant",
    "content": ..., "tool_calls": [...]}``, or its JSON text in a CSV log, or the Python literal pandas' ``to_csv``
    writes of it) as the text the OpenAI client keeps it as
    (:func:`evenhand.structured.message_reply_text`: its content, its tool calls); any other cell as it is."""
    message = value
    if isinstance(value, str) and value.lstrip().startswith("{") and '"assistant"' in value:
        try:
            message = json.loads(value)
        except ValueError:
            return value
    elif isinstance(value, str) and value.lstrip().startswith("{") and "'assistant'" in value:
        try:  # a frame of messages saved with to_csv writes each as Python writes a dict: {'role': 'assistant', ...}
            message = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            return value
    if isinstance(message, dict) and message.get("role") == "assistant":
        return message_reply_text(message)
    return value


def is_missing(value: Any) -> bool:
    """None, NaN or blank text: no value in this cell (CSV blanks are read as ``""``, JSON nulls as None/NaN)."""
    if isinstance(value, str):
        return not value.strip()
    if _is_container(value):  # a value, if a wrong one (reported as such)
        return False
    return bool(pd.isna(value))  # None, NaN, pd.NA, NaT


def _is_container(value: Any) -> bool:
    """A list, tuple, mapping or array (JSON arrays, Parquet list columns); NumPy scalars have ``ndim`` 0."""
    return isinstance(value, (list, tuple, dict)) or bool(getattr(value, "ndim", False))


def _not_scalar(values: list[object]) -> str | None:
    for row, value in enumerate(values, start=1):
        if _is_container(value):
            return f"row {row} holds a {type(value).__name__}, not a text"
    return None


def _every_row_given(values: list[object]) -> str | None:
    """A prompt in every row: a text, or a list of messages (read by :func:`prompt_column`); and not a column of
    numbers only, which is another column named by mistake (an id, a label), judged on the text of each value so
    that a CSV's ``123`` (read as a number), a JSON ``123`` and a JSON ``"123"`` are judged alike."""
    for row, value in enumerate(values, start=1):
        if is_missing(value):
            return f"row {row} is empty; every row needs one"
    if values and all(_is_number_text(value) for value in values):
        return (f"every row is a number (row 1: {str(values[0]).strip()!r}), not a prompt; name the column that "
                "holds the prompts' texts")  # fmt: skip
    return None


_NUMBER_TEXT = re.compile(r"[-+]?(?:\d[\d,_' ]*)?\.?\d+(?:[eE][-+]?\d+)?")


def _is_number_text(value: object) -> bool:
    """A cell whose whole text is a number (``123``, ``-4.5``, ``1,000``); a bool is not one."""
    return not isinstance(value, bool) and not _is_container(value) and bool(_NUMBER_TEXT.fullmatch(str(value).strip()))


def _distinct_ids(values: list[object]) -> str | None:
    """Every prompt has an id, and its own: an id is kept beside every response (``prompt_key``) to join them back
    to your records, so a shared one would join a response to two prompts. Names the first shared ids."""
    rows: dict[str, list[int]] = {}
    for row, value in enumerate(values, start=1):
        if is_missing(value):
            return f"row {row} has no id; every prompt needs one"
        rows.setdefault(str(value), []).append(row)
    shared = {key: found for key, found in rows.items() if len(found) > 1}
    if shared:
        key, found = min(shared.items(), key=lambda item: item[1][1])  # the first repeat in the file
        also = "; ".join(f"{k!r} (rows {', '.join(map(str, r[:3]))}{', ...' if len(r) > 3 else ''})"
                         for k, r in list(shared.items())[:3])  # fmt: skip
        more = f" ({len(shared)} ids are shared: {also}{'; ...' if len(shared) > 3 else ''})" if len(shared) > 1 else ""
        return f"rows {found[0]} and {found[1]} share the id {key!r}{more}; each prompt needs its own"
    return _not_scalar(values)


#: role -> a check of its values that returns the problem (rows counted from 1, the first row after a header)
_ROLE_CHECKS: dict[str, Callable[[list[object]], str | None]] = {
    "prompts": _every_row_given,
    "responses": _not_scalar,
    "system prompts": _not_scalar,
    "prompt ids": _distinct_ids,
}


def prompt_column(
    frame: pd.DataFrame,
    name: str,
    *,
    source: str,
    context_column: str | None = None,
    system_prompt_column: str | None = None,
) -> list[Prompt]:
    """The prompts of a table: texts (a number among texts is read as its text; a column of numbers only is an
    error), or conversations (a list of messages per row,
    from JSONL, JSON or Parquet; in CSV their JSON text), with the retrieved documents and the system prompt of each
    row when their columns are named. A malformed one is one line naming the file, the column, the row and the key
    (``p.jsonl: column 'messages' (prompts): row 3: message 2 has no 'role' key; ...``)."""
    values = [v if _is_container(v) else _conversation_text(str(v))
              for v in column(frame, name, source=source, role="prompts")]  # fmt: skip
    context = None
    if context_column is not None:
        cells = column(frame, context_column, source=source, role="retrieved documents")
        context = [parse_context(v, f"{source}: column {context_column!r} (context): row {i}")
                   for i, v in enumerate(cells, start=1)]  # fmt: skip
    system = None
    if system_prompt_column is not None:
        system = column(frame, system_prompt_column, source=source, role="system prompts")
        for row, value in enumerate(system, start=1):  # named by its own column, not the prompts'
            if not is_missing(value) and not isinstance(value, str):
                raise InputTypeError(f"{source}: column {system_prompt_column!r} (system prompts): row {row}: the "
                                     f"system prompt is {type(value).__name__!r}, not a text")  # fmt: skip
    return build_prompts(values, context=context, system_prompts=system,
                         where=lambda i: f"{source}: column {name!r} (prompts): row {i + 1}")  # fmt: skip


def _conversation_text(text: str) -> str | list[Any]:
    """A cell whose whole text is a JSON list of messages (objects with a ``role`` or ``content``) is that
    conversation: a CSV or TSV cell cannot hold a list, so a conversation there is its JSON text. Any other text,
    JSON or not, is the prompt as written."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return text
    try:
        parsed = json.loads(stripped)
    except ValueError:
        return text
    is_messages = isinstance(parsed, list) and bool(parsed)
    if is_messages and all(isinstance(m, dict) and ("role" in m or "content" in m) for m in parsed):
        return parsed  # checked as a conversation by build_prompts, row and key named
    return text


def demo_dir() -> Path:
    """The folder of the bundled demo use case (prompts and config)."""
    return Path(str(resources.files("evenhand") / "data" / "demo"))


def demo_prompts() -> pd.DataFrame:
    """The bundled demo prompts: 40 customer-outreach requests, some mentioning gender or race."""
    return read_table(demo_dir() / "prompts.jsonl")
