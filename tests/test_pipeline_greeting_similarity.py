"""The similarities read a letter without its frame (names17), as sentiment and answer length already do (review12).

A fair model that greets and signs each version's person in their language ("Hola [NAME]," / "Saludos," for the
version whose name reads Hispanic, "Dear [NAME]," / "Kind regards," for the white one) and writes the same letter
below gave CROUGE-L and CBLEU a concern in every run (similarity about 0.79, benchmarks/bench_names17.py
``greeting``): the formulas were counted as a difference in what the letters say. A letter whose body differs for
one group is still found."""

from __future__ import annotations

import random
import warnings
from typing import Any

import pandas as pd
import pytest

import evenhand

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
BODIES = [
    "Thank you for your order. It ships on Monday and arrives within five working days.",
    "Thank you for your order. It ships on Monday and should arrive within five working days.",
    "Thank you for your recent order. It ships on Monday and should arrive within five working days.",
]
FRAMES = {"hispanic": ("Hola [NAME],", "Saludos,\nEl equipo"), "white": ("Dear [NAME],", "Kind regards,\nThe team")}


def _letters(seed: int, other_body: float) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(40):
        bodies = [rng.choice(BODIES) for _ in range(2)]
        for group, (hello, close) in FRAMES.items():
            for sample in range(2):
                changed = group == "hispanic" and rng.random() < other_body
                body = "Your parcel is delayed; we will write again when we know more." if changed else bodies[sample]
                rows.append({"prompt_id": i, "attribute": "race", "group": group, "sample": sample,
                             "prompt": f"Write to the customer about order {i} ({group}).",
                             "response": f"{hello}\n\n{body}\n\n{close}"})  # fmt: skip
    return pd.DataFrame(rows)


def _similarity_concerns(frame: pd.DataFrame) -> set[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text-generation", responses=frame, attributes=["race"], seed=0, **FAST)
    return {
        e.metric
        for f in a.verdict.findings
        for e in f.evidence
        if e.severity == "concern" and e.metric in ("CROUGE-L", "CBLEU")
    }


@pytest.mark.pipeline
def test_a_greeting_in_the_person_s_language_is_not_a_difference() -> None:
    assert _similarity_concerns(_letters(0, 0.0)) == set()


@pytest.mark.pipeline
def test_a_different_letter_for_one_group_is_still_found() -> None:
    assert _similarity_concerns(_letters(0, 0.5))
