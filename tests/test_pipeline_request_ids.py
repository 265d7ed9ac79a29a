"""A responses table whose id column numbers requests, not prompts, and that has no sample column (inputs14).

Each row its own id ("req_1", "req_2", ...): no id held two versions of a prompt, so no version was paired and every
counterfactual metric was undefined, silently; refused now, in one line. One id per sample of a prompt, shared by its
versions ("p3_s0" for the female and the male version of prompt 3's first sample): each sample was a prompt of its
own, the unit the intervals resample; such ids cannot be told from ids of prompts that read alike (one template, the
record kept out of the log) and stay as they are (docs/assessment.md, "Ids of requests")."""

from __future__ import annotations

import random

import pandas as pd
import pytest

from evenhand.errors import InputError
from evenhand.pipeline.responses.frame import frame_from_table

ATTRIBUTES = {"gender": None}


def _table(ids: str, prompts: int = 4, samples: int = 3) -> pd.DataFrame:
    rng = random.Random(0)
    rows = []
    for i in range(prompts):
        for group, word in (("female", "she"), ("male", "he")):
            for s in range(samples):
                pid = {"request": f"req_{len(rows) + 1}", "sample": f"p{i}_s{s}", "prompt": f"p{i}"}[ids]
                rows.append({"prompt_id": pid, "attribute": "gender", "group": group,
                             "prompt": f"Applicant {i}: {word} asks for a loan. Approve?",
                             "response": rng.choice(["yes", "no"])})  # fmt: skip
    return pd.DataFrame(rows)


def test_ids_of_requests_that_pair_no_version_are_refused_in_one_line() -> None:
    with pytest.raises(InputError) as raised:
        frame_from_table(_table("request"), ATTRIBUTES)
    line = str(raised.value)
    assert "\n" not in line and "'prompt_id'" in line and "no id holds two versions" in line, line
    assert "sample_column" in line and "prompt_id_column: null" in line, line


def test_ids_that_hold_the_versions_of_a_prompt_are_read_as_before() -> None:
    """An id per prompt (its versions and samples under it): samples numbered in their order within each version."""
    prompts, frame = frame_from_table(_table("prompt"), ATTRIBUTES)
    numbered = frame.groupby(["prompt_id", "group"])["sample"].apply(list)
    assert len(prompts) == 4 and all(samples == [0, 1, 2] for samples in numbered)


def test_ids_of_persons_in_a_log_stay_units_of_their_own() -> None:
    """Original rows only (a person-level log, one template for every applicant): an id per row is a person."""
    table = pd.DataFrame({"prompt_id": [f"A{i}" for i in range(6)], "prompt": ["Approve this applicant?"] * 6,
                          "response": ["yes", "no"] * 3})  # fmt: skip
    prompts, frame = frame_from_table(table, ATTRIBUTES)
    assert len(prompts) == 6 and frame["sample"].tolist() == [0] * 6
