"""The results document of an assessment (results.json): its schema, its JSON-safe values, its streaming writer and
its loader.

JSON schema ``evenhand/assessment`` version 2 (documented in ``docs/assessment.md``): top-level keys ``schema``,
``schema_version``, ``evenhand_version``, ``created``, ``plan``, ``model``, ``settings``, ``summary``,
``metrics``, ``tests``, ``groups``, ``distributions``, ``pairs``, ``worst_examples``, ``caveats``,
``thresholds`` and (optionally) ``responses``. Numbers that are undefined are ``null`` with a ``reason``.
Since 2.0 every metric row says what it compares as data (``groups``: the pair of groups, ``class``: the class
assessed one-vs-rest) beside the display label ``comparison``, and carries its ``full_name``.
Since 2.1 ``scorer_audit`` holds the audit of the toxicity and sentiment scorers on identity statements.

:class:`~evenhand.pipeline.results.assessment.Assessment` builds the document; this module owns its form, so that a
reader of results files (``evenhand report``, ``evenhand compare``) needs nothing of the run.
"""

from __future__ import annotations

import io
import json
import math
import os
from collections.abc import Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from evenhand._display import report_html
from evenhand._files import atomic_writer, write_text
from evenhand._json import json_safe
from evenhand.errors import InputError, InputFileNotFoundError
from evenhand.pipeline.results.schema import check_results

if TYPE_CHECKING:
    from evenhand.config import RunSettings

SCHEMA = "evenhand/assessment"
SCHEMA_VERSION = "2.1"
#: The schema major versions :func:`load_results` reads (the report renders both).
READABLE_MAJORS = ("1", "2")


def settings_block(settings: RunSettings, described: Mapping[str, Any]) -> dict[str, Any]:
    """results.json's ``settings``: the run's typed settings as the document records them (flat, as in schema 1),
    then what the families described of what they used (``RunContext.described``: the scorers, the labels' words,
    ``k``, ...), which may fill a key the settings leave empty (``k``, ``positive_label``)."""
    gen, sc, st = settings.generation, settings.scoring, settings.statistics
    out: dict[str, Any] = {
        "count": gen.count,
        "counterfactual_count": gen.counterfactual_count or gen.count,
        "toxicity_threshold": sc.toxicity_threshold,
        "stereotype_threshold": sc.stereotype_threshold,
        "sentiment_threshold": sc.sentiment_threshold,
        "ci": st.ci,
        "n_resamples": st.n_resamples,
        "seed": st.seed,
        "ci_method": st.method,
        "k": None,
        "positive_label": None,
    }
    return out | dict(described)


#: Responses serialised per block when results.json is written: bounds the memory of writing (a few MB a block).
RESPONSE_BLOCK = 5_000


def _response_lines(frame: pd.DataFrame, columns: Sequence[str]) -> Iterator[list[str]]:
    """The responses as JSON objects (one string per row, keys in column order), :data:`RESPONSE_BLOCK` rows at a
    time; each value as :func:`json_safe` makes it, so that the objects equal
    ``json_safe(frame.to_dict("records"))``."""
    encode = json.JSONEncoder(ensure_ascii=False).encode  # no indent: the C encoder
    keys = [str(c) for c in columns]
    for start in range(0, len(frame), RESPONSE_BLOCK):
        values = _json_safe_columns(frame.iloc[start : start + RESPONSE_BLOCK], columns)
        yield [encode(dict(zip(keys, row, strict=True))) for row in zip(*values, strict=True)]


def _json_safe_columns(block: pd.DataFrame, columns: Sequence[str]) -> list[list[Any]]:
    """Each column's values as ``json_safe(block.to_dict("records"))`` has them, converted a column at a time:
    ``tolist`` gives Python numbers and texts; other values are boxed as ``to_dict`` boxes them (:func:`_box`)."""
    out = []
    boxed: list[dict[Hashable, Any]] | None = None
    for c in columns:
        dtype = block[c].dtype
        if isinstance(dtype, np.dtype) and dtype.kind == "f":
            out.append([v if math.isfinite(v) else None for v in block[c].tolist()])
        elif isinstance(dtype, np.dtype) and dtype.kind in "iub":
            out.append(block[c].tolist())
        elif isinstance(dtype, np.dtype) and dtype.kind == "O":
            out.append([json_safe(_box(v)) if v is not None and type(v) is not str else v for v in block[c].tolist()])
        elif isinstance(dtype, pd.StringDtype):  # texts; anything else in it is a missing value
            out.append([v if type(v) is str else None for v in block[c].tolist()])
        else:  # other pandas extension types (nullable numbers, categories, time zones): pandas' own boxing
            rows = boxed = boxed if boxed is not None else block.to_dict(orient="records")
            out.append([json_safe(row[c]) for row in rows])
    return out


def _box(value: Any) -> Any:
    """A cell of an object column as ``DataFrame.to_dict`` gives it: ``pd.NA`` is None, NumPy times are pandas'."""
    if value is pd.NA:
        return None
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value)
    if isinstance(value, np.timedelta64):
        return pd.Timedelta(value)
    return value


def write_document(
    handle: IO[str], head: Mapping[str, Any], responses: pd.DataFrame | None, columns: Sequence[str]
) -> None:
    """Write the document ``head`` (JSON-safe, without responses) to ``handle``, then, unless ``responses`` is None,
    the ``columns`` of ``responses`` under ``"responses"``, streamed in blocks of :data:`RESPONSE_BLOCK` rows, one
    response per line: writing holds one block as Python objects at a time and never the whole text."""
    text = json.dumps(head, indent=1, ensure_ascii=False)
    if responses is None:
        handle.write(text)
        return
    assert text.endswith("\n}")  # indent=1: the closing brace on its own line; "responses" goes before it
    handle.write(text[: -len("\n}")] + ',\n "responses": [')
    separator = "\n  "
    for lines in _response_lines(responses, columns):
        handle.write(separator + ",\n  ".join(lines))
        separator = ",\n  "
    handle.write("]\n}" if separator == "\n  " else "\n ]\n}")


def load_results(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a results JSON written by :meth:`Assessment.to_json` or :meth:`Assessment.write_json`, checking the
    schema and its major version."""
    p = Path(path)
    if p.is_dir():
        raise InputError(f"{p} is a folder; give the results.json inside it")
    if not p.is_file():
        raise InputFileNotFoundError(f"no such file: {p}")
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(f"{p} is not valid JSON: {exc}") from None
    except UnicodeDecodeError:
        raise InputError(f"{p} is not a text file (results are UTF-8 JSON)") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(f"{p} is not an evenhand results file (schema {SCHEMA!r} expected)")
    major = str(doc.get("schema_version", "")).split(".")[0]
    if major not in READABLE_MAJORS:
        raise InputError(
            f"{p} has schema version {doc.get('schema_version')}; this evenhand reads versions "
            f"{', '.join(m + '.x' for m in READABLE_MAJORS)}"
        )
    check_results(doc, str(p))
    return doc


class WritesDocument:
    """What an object with a results document does with it: JSON text, an atomically written file, the HTML
    report. A subclass gives :meth:`to_dict` and :meth:`_write_json` (the document, with its responses streamed)."""

    def to_dict(self, *, include_responses: bool = True) -> dict[str, Any]:
        raise NotImplementedError

    def _write_json(self, handle: IO[str], *, include_responses: bool) -> None:
        raise NotImplementedError

    def to_json(self, path: str | os.PathLike[str] | None = None, *, include_responses: bool = True) -> str:
        """Serialise to JSON (and write it to ``path``, atomically, when given); returns the JSON text.

        The document is :meth:`to_dict`'s (``json.loads`` of the text equals it). For a large run that needs no
        text back, :meth:`write_json` writes the same file without ever holding it as one string.
        """
        buffer = io.StringIO()
        self._write_json(buffer, include_responses=include_responses)
        text = buffer.getvalue()
        if path is not None:
            write_text(path, text)
        return text

    def write_json(self, path: str | os.PathLike[str], *, include_responses: bool = True) -> Path:
        """Write :meth:`to_json`'s document to ``path`` atomically and return the path; the responses are streamed
        from the frame in blocks, one response per line, so that writing holds one block as Python objects at a
        time and never the whole text (memory and time: benchmarks/RESULTS.md)."""
        with atomic_writer(path) as handle:
            self._write_json(handle, include_responses=include_responses)
        return Path(path)

    def to_html(self, path: str | os.PathLike[str] | None = None) -> str:
        """The self-contained HTML report (and write it to ``path`` when given); returns the HTML text.

        The report renders :meth:`to_dict`'s document; the renderer is the presentation layer's
        (:func:`evenhand.report.render_html`), reached through :mod:`evenhand._display`."""
        html = report_html(self.to_dict(include_responses=False))
        if path is not None:
            write_text(path, html)
        return html
