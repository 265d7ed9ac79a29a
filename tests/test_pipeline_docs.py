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


def test_the_plan_s_text_form_for_the_demo_prompts_is_the_one_shown() -> None:
    """newcomer17: the Notebooks section showed `Plan(text_generation, 40 prompts, 17 metrics: ... CROUGE-L, ...)`,
    from before toxicity per group, refusals and answer length joined the plan; it prints 25 metrics now."""
    import json

    import evenhand

    shown = re.search(r"`(Plan\(text_generation, 40 prompts, [^`]*\))`", DOC.read_text(encoding="utf-8"))
    demo = Path(__file__).resolve().parents[1] / "evenhand" / "data" / "demo" / "prompts.jsonl"
    prompts = [json.loads(line)["prompt"] for line in demo.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert shown is not None and shown.group(1) == repr(evenhand.plan(task="text_generation", prompts=prompts))
