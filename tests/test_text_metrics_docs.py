"""The examples in docs/text-metrics.md run in order, like a notebook, and the values their comments show hold.

A comment that starts with a number (``# 0.55  EMT: ...``, ``# 0.714...: ...``) is the value at the comment's
precision; one that starts with a Python literal (``# {'pairs': 4, ...}``, ``# 'prompt': ...``) is that literal.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "text-metrics.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
NUMBER = re.compile(r"(-?\d+(?:\.\d+)?)(\.\.\.)?(?=[\s:]|$)")


def _literal_prefix(comment: str) -> tuple[bool, Any]:
    """The longest start of ``comment`` that is a Python literal, if any."""
    for end in range(len(comment), 0, -1):
        try:
            return True, ast.literal_eval(comment[:end])
        except (ValueError, SyntaxError):
            continue
    return False, None


def _check(value: Any, comment: str) -> bool:
    """Assert what ``comment`` says of ``value``; False when it says nothing checkable (a description)."""
    if number := NUMBER.match(comment):
        said, cut = number.groups()
        if cut:  # 0.714...: the value's leading digits
            assert str(float(value)).startswith(said), (value, comment)
        else:
            places = len(said.split(".")[1]) if "." in said else 0
            assert round(float(value), places) == pytest.approx(float(said)), (value, comment)
        return True
    if comment.startswith(("[", "(", "{", "'")):
        found, literal = _literal_prefix(comment)
        assert found and value == literal, (value, comment)
        return True
    return False


@pytest.mark.model
@pytest.mark.pipeline
def test_examples_run_in_order_and_their_values_hold() -> None:
    namespace: dict[str, Any] = {"__name__": "__doc_example__"}
    checked = 0
    for index, block in enumerate(BLOCKS):
        name = f"{DOC.name}[{index}]"
        lines = block.splitlines()
        for node in ast.parse(block).body:
            last = lines[(node.end_lineno or node.lineno) - 1]
            if isinstance(node, ast.Expr) and "# " in last:
                value = eval(compile(ast.Expression(node.value), name, "eval"), namespace)
                checked += _check(value, last.split("# ", 1)[1].strip())
            else:
                exec(compile(ast.Module([node], type_ignores=[]), name, "exec"), namespace)
    assert checked >= 10
