"""The examples in docs/text.md and the text modules' docstrings run and hold."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest
from _doc_prints import check_printed, prints_and_comments

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


#: the comments of docs/text.md that describe what a print shows rather than show it
DESCRIBED = {"a person whose name signals a group gets a name of all the version's groups"}


def test_the_docs_print_what_their_comments_show() -> None:
    """newcomer17: the template example's comment named "Latanya Muhammad" where the seeded fill prints "Aniya
    Muhammad"; every commented print shows its comment's text now."""
    checked = 0
    for printed, comment in prints_and_comments(DOC.read_text(encoding="utf-8"), DOC.name):
        if comment not in DESCRIBED:
            check_printed(printed, comment)
            checked += 1
    assert checked >= 5
