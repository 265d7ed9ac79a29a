"""The examples in docs/classification-recommendation.md run in order, and the values in their comments hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "classification-recommendation.md"
COMMENTED_VALUE = re.compile(r"^(float\(.*\))\s+# ([0-9.]+)\b")


def test_doc_examples_run_and_match_their_comments() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {}
    checks = 0
    for index, block in enumerate(blocks):
        exec(compile(block, f"{DOC.name}[block {index}]", "exec"), namespace)
        for line in block.splitlines():
            match = COMMENTED_VALUE.match(line)
            if match:
                value = eval(match.group(1), namespace)
                assert value == pytest.approx(float(match.group(2)), abs=6e-4), line
                checks += 1
    assert checks >= 6
