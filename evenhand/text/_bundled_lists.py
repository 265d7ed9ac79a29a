"""The JSON word lists bundled in ``evenhand/data/wordlists/`` (periods, number words, currencies): one reader for
all of them, so each module that reads its list as data does not open the package's files its own way."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def wordlist_json(name: str) -> dict[str, Any]:
    """``evenhand/data/wordlists/<name>`` read as JSON, less its keys that start with ``_`` (comments, sources)."""
    text = resources.files("evenhand.data").joinpath("wordlists").joinpath(name).read_text(encoding="utf-8")
    return {key: value for key, value in json.loads(text).items() if not key.startswith("_")}
