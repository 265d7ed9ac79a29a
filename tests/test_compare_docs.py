"""The Python examples in docs/compare.md run as written (offline), and say what they show."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from evenhand.comparison import RunComparison

pytestmark = pytest.mark.pipeline  # whole assessments, about half a second or more each

DOC = Path(__file__).resolve().parents[1] / "docs" / "compare.md"


def test_compare_doc_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)  # the example writes comparison.json / .html
    namespace: dict[str, object] = {}
    for block in blocks:  # the blocks build on each other, like a notebook
        exec(compile(block, str(DOC), "exec"), namespace)
    comparison = namespace["comparison"]
    assert isinstance(comparison, RunComparison) and comparison.status == "worse"
    # toxicity (use case, gender), counterfactual, refusals, length: the curt replies are also shorter
    assert [f.change for f in comparison.findings] == ["unchanged", "unchanged", "appeared", "unchanged", "appeared"]
    assert sorted(os.listdir(tmp_path)) == ["comparison.html", "comparison.json"]
