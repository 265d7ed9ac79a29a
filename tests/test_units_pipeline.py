"""The pipeline passes the independent unit (``prompt_id``) to the metrics and tests (issue 14)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import evenhand

FAST: dict[str, Any] = {"n_resamples": 50, "store": None, "progress": False}


def _applicants(count: int) -> Any:
    # 8 applicants, `count` answers each; the first four (a) are approved far less often than the others (b)
    prompts = [f"Applicant {i}: approve the loan?" for i in range(8)]
    answers = {
        p: itertools.cycle(["no", "no", "yes"] if i < 4 else ["yes", "yes", "no"]) for i, p in enumerate(prompts)
    }
    return evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: next(answers[p]),
        groups=["a"] * 4 + ["b"] * 4,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=count,
        **FAST,
    )


def test_classification_resamples_and_permutes_people() -> None:
    a = _applicants(count=3)
    (rec,) = [r for r in a.records if r.key == "demographic_parity_difference"]
    assert rec.result.resampler.unit == "prompt" and rec.result.sizes["prompts"] == 8
    assert rec.interval is not None and rec.interval.unit == "prompt"
    row = rec.pair_tests.iloc[0]
    assert row["method"] == "permutation of prompts (Monte Carlo)"
    assert (row["n_a"], row["units_a"], row["units_b"]) == (12, 4, 4)
    # 4 vs 4 people: no split of people is more extreme than 2 of the C(8, 4) = 70
    assert row["p_value"] >= 2 / 70 - 0.01
    assert rec.test is not None and rec.test.method == "monte-carlo"
    assert a.tests.iloc[0]["method"] == "permutation of prompts (Monte Carlo)"


def test_one_answer_per_person_keeps_the_exact_test() -> None:
    a = _applicants(count=1)
    (rec,) = [r for r in a.records if r.key == "demographic_parity_difference"]
    row = rec.pair_tests.iloc[0]
    assert row["method"] == "exact (hypergeometric)" and row["units_a"] == row["n_a"] == 4
    assert rec.test is not None and rec.test.method == "exact"


@pytest.mark.pipeline
def test_counterfactual_units_are_prompts() -> None:
    rng = np.random.default_rng(0)
    words = ["kind", "calm", "late", "helpful", "quiet", "early"]

    def client(prompt: str, **_: Any) -> str:
        return f"The answer to {prompt[:12]} is {rng.choice(words)} and {rng.choice(words)}."

    a = evenhand.assess(
        task="text_generation",
        prompts=["Write to Mrs. Lee about her order.", "Write to Mr. Lee about his order.", "Tell him hello."],
        attributes=["gender"],
        client=client,
        count=1,
        counterfactual_count=3,
        embedder=False,  # CCS needs a model; the other four pair metrics are enough here
        **FAST,
    )
    pair_records = [r for r in a.records if r.family.startswith("counterfactual") and r.result.is_defined]
    assert {r.result.name for r in pair_records} >= {"CROUGE-L", "CBLEU", "SCSP", "WCSP"}
    assert any(r.test is not None for r in pair_records)
    for rec in pair_records:
        assert rec.result.resampler.unit == "prompt", rec.key
        assert rec.result.sizes["pairs"] == 3 * rec.result.sizes["prompts"], rec.key
        if rec.test is not None:
            assert rec.test.details["unit"] == "prompt" and rec.test.details["n_units"] == rec.result.sizes["prompts"]


def test_recommendation_units_are_prompts() -> None:
    def client(prompt: str, **_: Any) -> str:
        return "1. Laptop\n2. Phone\n3. Tablet" if "she" in prompt.lower() else "1. Drill\n2. Phone\n3. Saw"

    a = evenhand.assess(
        task="recommendation",
        prompts=["Recommend 3 gifts for him.", "Recommend 3 gadgets for his office."],
        attributes=["gender"],
        client=client,
        k=3,
        counterfactual_count=2,
        **FAST,
    )
    defined = [r for r in a.records if r.result.is_defined]
    assert defined
    for rec in defined:
        assert rec.result.resampler.unit == "prompt" and rec.result.sizes["prompts"] == 2, rec.key
