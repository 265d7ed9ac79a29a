"""The examples in docs/estimation.md and docs/regulation.md, and the docstrings of the modules behind them, run as
written."""

from __future__ import annotations

import ast
import contextlib
import doctest
import importlib
import io
import itertools
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


#: the comments of docs/estimation.md that describe what a print shows rather than show it
DESCRIBED = {"the LL144 table (scoring rates): regulation.md"}


def _prints_and_comments(text: str) -> list[tuple[str, str]]:
    """Run the doc's blocks in order; (what each commented print printed, its comment: the one on its last line and
    the comment lines right after it, joined)."""
    namespace: dict[str, object] = {"__name__": "__doc_example__"}
    shown = []
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        lines = block.splitlines()
        for node in ast.parse(block).body:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(ast.Module([node], type_ignores=[]), "estimation.md", "exec"), namespace)
            end = node.end_lineno or node.lineno
            said = [lines[end - 1].split("# ", 1)[1]] if "# " in lines[end - 1] else []
            said += [line.strip()[2:] for line in itertools.takewhile(lambda x: x.startswith("# "), lines[end:])]
            call = getattr(node, "value", None)
            if said and isinstance(call, ast.Call) and getattr(call.func, "id", None) == "print":
                shown.append((" ".join(out.getvalue().split()), " ".join(" ".join(said).split())))
    return shown


@pytest.mark.pipeline
def test_estimation_doc_prints_what_its_comments_show() -> None:
    """newcomer17: the concern's sentence in the comment showed 5.4% and means of $72,... and $76,... where the
    example prints 3.9%, $73,167 and $76,167. Every commented print shows the comment's text (a number's explanation
    after ": " aside), with "..." or "[...]" standing for what is left out."""
    checked = 0
    for printed, comment in _prints_and_comments((DOCS / "estimation.md").read_text(encoding="utf-8")):
        if comment in DESCRIBED:
            continue
        said = comment.split(": ", 1)[0] if re.match(r"[-+\d]", comment) else comment
        position = 0
        for fragment in re.split(r"\[\.\.\.\]|\.\.\.", said):
            found = printed.find(fragment.strip(), position)
            assert found >= 0, (fragment.strip(), printed)
            position = found + len(fragment.strip())
        checked += 1
    assert checked >= 7
