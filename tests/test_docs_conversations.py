"""The examples in docs/conversations.md run and say what they show."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parents[1] / "docs" / "conversations.md"


def _run_examples() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    for index, block in enumerate(re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)):
        exec(compile(block, f"{DOC.name}[{index}]", "exec"), namespace)
    return namespace


def test_the_examples_hold() -> None:
    ns = _run_examples()
    import evenhand

    history = ns["history"]
    ftu = evenhand.check_ftu([history, "Summarise the call."], "gender")
    assert ftu.flagged.tolist() == [True, False] and ftu.flagged_turns() == [(1, 3), ()]
    # newcomer17: the comment showed a Location without its `call` field, which every Location prints
    shown = re.search(r"^ftu\.locations\[0\] +# (.*)$", DOC.read_text(encoding="utf-8"), flags=re.M)
    assert shown is not None and shown.group(1) == repr(ftu.locations[0])
    male = evenhand.counterfactual_prompts([history], "gender")["male"][0]
    name = male.turns[1].content.split()[0]
    assert f"{name} Baker applied" in male.turns[1].content and f"read {name}'s CV" in male.turns[2].content
    assert male.turns[3].content.startswith("Should we invite him")
    assert name in DOC.read_text(encoding="utf-8")  # the name the docs show is the one drawn
    assert ns["ftu"].context_only.tolist() == [True, False]
    assert ns["cf"]["male"][1].context == ("Mr. Baker led his team of five.",)
    assert ns["reply"] and "advance_candidate" in ns["reply"]
