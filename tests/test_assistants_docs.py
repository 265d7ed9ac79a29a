"""The examples in docs/assistants.md run and print what the document says."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "assistants.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_examples_run_and_print_what_they_say(index: int) -> None:
    block = BLOCKS[index]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, f"{DOC.name}[{index}]", "exec"), {})
    printed = out.getvalue().splitlines()
    said = [line.split("# ", 1)[1] for line in block.splitlines() if line.startswith("print(") and "# " in line]
    assert len(printed) == len(said)
    for shown, comment in zip(printed, said, strict=True):
        assert comment.startswith(shown) or shown in comment, (shown, comment)
