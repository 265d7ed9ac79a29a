"""The examples in docs/scorers.md that run offline run as written, in order, and print what their comments say.

The blocks that need a model from the internet or a folder of your own (`# online`, `/models/...`) are left out.
A ``print(...)`` whose comment is a printed value (``# [0.786 0.114]``, ``# (2, 384)``) must print exactly that; every
decimal number a print's comment shows must be one the print shows, at the comment's precision.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "scorers.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
OFFLINE = [block for block in BLOCKS if "# online" not in block and "/models/" not in block]
DECIMAL = re.compile(r"-?\d+\.\d+")
CACHE_PATH = '"/tmp/evenhand-scores.sqlite"'


def _printed_with_comments(block: str, namespace: dict[str, Any], name: str) -> list[tuple[str, str]]:
    """Run ``block`` statement by statement; (what each commented ``print(...)`` printed, its comment)."""
    lines = block.splitlines()
    shown = []
    for node in ast.parse(block).body:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(ast.Module([node], type_ignores=[]), name, "exec"), namespace)
        last = lines[(node.end_lineno or node.lineno) - 1]
        is_print = isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
        if is_print and getattr(node.value.func, "id", None) == "print" and "# " in last:  # type: ignore[attr-defined]
            shown.append((out.getvalue().strip(), last.split("# ", 1)[1].strip()))
    return shown


def _check(printed: str, comment: str) -> None:
    if comment.startswith(("[", "(")):
        assert printed == comment, (printed, comment)
    values = [float(v) for v in DECIMAL.findall(printed)]
    for said in DECIMAL.findall(comment):
        places = len(said.split(".")[1])
        assert any(round(v, places) == pytest.approx(float(said)) for v in values), (said, printed)


def test_the_doc_keeps_its_offline_examples() -> None:
    assert len(OFFLINE) >= 6 and any(CACHE_PATH in block for block in OFFLINE)


@pytest.mark.model
def test_offline_examples_run_in_order_and_print_what_they_say(tmp_path: Path) -> None:
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    checked = 0
    for index, block in enumerate(OFFLINE):
        block = block.replace(CACHE_PATH, repr(str(tmp_path / "scores.sqlite")))  # not the shared /tmp
        for printed, comment in _printed_with_comments(block, namespace, f"{DOC.name}[{index}]"):
            _check(printed, comment)
            checked += 1
    assert checked >= 8


@pytest.mark.model
def test_the_score_cache_example_scores_nothing_twice(tmp_path: Path) -> None:
    """The comment "2 the first time, 0 on the next run (all from the cache)": a new scorer on the same file."""
    block = next(block for block in OFFLINE if CACHE_PATH in block)
    block = block.replace(CACHE_PATH, repr(str(tmp_path / "scores.sqlite")))
    runs = [_printed_with_comments(block, {}, f"{DOC.name}[cache]") for _ in range(2)]
    assert [shown[0][0] for shown in runs] == ["2", "0"]
