"""Reading prompt and response tables (CSV, JSONL, JSON, Parquet, plain text) and the bundled demo set."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

SUFFIXES = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet", ".pq", ".txt")


def read_table(path: str | Path) -> pd.DataFrame:
    """Read a table of prompts or responses; the format follows the file suffix.

    ``.txt`` files hold one prompt per line (column ``prompt``). Raises ``FileNotFoundError`` for a missing file
    and ``ValueError`` for an unknown suffix or an unreadable file, naming the file.
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such file: {p}")
    suffix = p.suffix.lower()
    try:
        if suffix == ".csv":
            return pd.read_csv(p, keep_default_na=False)
        if suffix == ".tsv":
            return pd.read_csv(p, sep="\t", keep_default_na=False)
        if suffix in (".jsonl", ".ndjson"):
            return pd.read_json(p, lines=True, dtype=False)
        if suffix == ".json":
            return pd.read_json(p, dtype=False)
        if suffix in (".parquet", ".pq"):
            return pd.read_parquet(p)
        if suffix == ".txt":
            lines = [line.rstrip("\n") for line in p.read_text(encoding="utf-8").splitlines()]
            return pd.DataFrame({"prompt": [line for line in lines if line.strip()]})
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError) as exc:
        raise ValueError(f"could not read {p} as {suffix[1:]}: {exc}") from exc
    raise ValueError(f"unsupported file type {suffix!r} for {p}; use one of {', '.join(SUFFIXES)}")


def column(frame: pd.DataFrame, name: str, *, source: str, role: str) -> list[object]:
    """Return a column as a list, or raise a ValueError that lists the available columns."""
    if name not in frame.columns:
        cols = ", ".join(map(str, frame.columns))
        raise ValueError(f"{source} has no column {name!r} (needed for {role}); its columns are: {cols}")
    return list(frame[name].tolist())


def demo_dir() -> Path:
    """The folder of the bundled demo use case (prompts and config)."""
    return Path(str(resources.files("evenhand") / "data" / "demo"))


def demo_prompts() -> pd.DataFrame:
    """The bundled demo prompts: 40 customer-outreach requests, some mentioning gender or race."""
    return read_table(demo_dir() / "prompts.jsonl")
