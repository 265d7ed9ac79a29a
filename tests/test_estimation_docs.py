"""The examples in docs/estimation.md and docs/regulation.md, and the docstrings of the modules behind them, run as
written."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.mark.parametrize("name", ["estimation.md", "regulation.md"])
def test_doc_examples_run(name: str) -> None:
    text = (DOCS / name).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    namespace: dict[str, object] = {}
    for block in blocks:  # the blocks build on each other, like a notebook
        exec(compile(block, str(DOCS / name), "exec"), namespace)


@pytest.mark.parametrize(
    "module",
    [
        "evenhand.text.numbers",
        "evenhand.text.periods",
        "evenhand.metrics.estimation",
        "evenhand.metrics.impact_ratio",
        "evenhand.stats._estimate_floor",
    ],
)
def test_docstring_examples_hold(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and not result.failed
