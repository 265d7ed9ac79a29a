"""The examples in docs/text.md and the text modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "text.md"


@pytest.mark.parametrize("index", range(len(re.findall(r"```python\n", DOC.read_text()))))
def test_docs_examples_run(index: int) -> None:
    block = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[index]
    exec(compile(block, f"{DOC.name}[{index}]", "exec"), {})


@pytest.mark.parametrize(
    "module",
    [
        "evenhand.text.ftu",
        "evenhand.text.counterfactual",
        "evenhand.text.lexicon",
        "evenhand.text.lexicon_model",
        "evenhand.text.language",
        "evenhand.text.cues",
        "evenhand.metrics.judged_pairs",
    ],
)
def test_docstring_examples(module: str) -> None:
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
