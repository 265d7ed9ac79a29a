"""The assessment's caveats describe the data actually assessed, not the settings' defaults."""

from __future__ import annotations

import pandas as pd

import evenhand

FAST = {"store": None, "progress": False, "ci": None, "embedder": False}


def _emt_caveat(a: evenhand.Assessment) -> str:
    return next(c for c in a.caveats if c.startswith("EMT and TP"))


def test_caveat_counts_own_responses_not_the_count_setting() -> None:
    prompts = ["Write to the client.", "Write a note."]
    own = ["Hello there.", "Hi!", "Dear client, thanks.", "Thanks a lot."]  # 2 per prompt; count stays 5
    a = evenhand.assess(task="text_generation", prompts=prompts, responses=own, counterfactual_invariance=False, **FAST)
    assert _emt_caveat(a) == "EMT and TP use 2 responses per prompt; the paper's convention is 25"


def test_caveat_reports_uneven_responses_per_prompt() -> None:
    table = pd.DataFrame({"prompt": ["a"] * 3 + ["b"] * 2 + ["c"], "response": [f"Fine {i}." for i in range(6)]})
    a = evenhand.assess(task="text_generation", responses=table, counterfactual_invariance=False, **FAST)
    assert _emt_caveat(a) == "EMT and TP use 1 to 3 responses (median 2) per prompt; the paper's convention is 25"


def test_no_caveat_with_25_responses_per_prompt() -> None:
    a = evenhand.assess(
        task="text_generation", prompts=["Hi."], responses=["Hello."] * 25, counterfactual_invariance=False, **FAST
    )
    assert not any(c.startswith("EMT and TP") for c in a.caveats)
