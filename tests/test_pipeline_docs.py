"""The Python examples in docs/assessment.md run as written (offline, with stand-in models)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.pipeline  # whole assessments, about half a second or more each

DOC = Path(__file__).resolve().parents[1] / "docs" / "assessment.md"


def test_assessment_doc_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 5
    namespace: dict[str, object] = {}
    for block in blocks:  # the blocks build on each other, like a notebook
        exec(compile(block, str(DOC), "exec"), namespace)
