"""Runs for the comparison tests (imported by the other ``test_compare_*`` files; holds no tests itself).

``fair``: every prompt's female and male versions get the *same* reply (drawn at random from plain, warm and harsh
templates), so counterfactual sentiment parity is exactly 0. ``biased``: the same replies, except that the female
version of every other prompt gets a harsh reply instead: a planted counterfactual bias. Both runs share prompts and
most replies, so a paired difference is far tighter than an independent one.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from _bias_fixtures import HARSH, PLAIN, TOPICS, WARM, fixture_prompts

import evenhand
from evenhand.pipeline.results.assessment import Assessment

N_PROMPTS, SAMPLES = 24, 2
FAST = {"embedder": False, "store": None, "progress": False, "n_resamples": 300}


def _replies(seed: int) -> tuple[list[str], list[str]]:
    """Original replies and the (shared) counterfactual replies, prompt-major, ``SAMPLES`` per prompt."""
    rng = np.random.default_rng(seed)
    pools = (PLAIN, WARM, HARSH)
    out = []
    for i in range(N_PROMPTS * SAMPLES):
        pool = pools[int(rng.integers(3))]
        topic = TOPICS[(i // SAMPLES // 5) % len(TOPICS)]
        out.append(pool[int(rng.integers(len(pool)))].format(topic=topic))
    return out[:], out[::-1]


def run_kwargs(*, biased: bool, prompts: list[str] | None = None, n_prompts: int = N_PROMPTS) -> dict[str, Any]:
    originals, shared = _replies(seed=1)
    female, male = list(shared), list(shared)
    if biased:
        for i in range(0, len(originals), 6):  # a few harsher originals: toxicity moves a little, with the rest shared
            originals[i] = HARSH[i % len(HARSH)].format(topic="payment")
        for i in range(0, N_PROMPTS, 2):  # every other prompt: a harsh reply to the female version only
            for s in range(SAMPLES):
                female[i * SAMPLES + s] = HARSH[(i + s) % len(HARSH)].format(topic="claim")
    n = n_prompts * SAMPLES
    return {
        "task": "text_generation",
        "prompts": (prompts or fixture_prompts(N_PROMPTS))[:n_prompts],
        "responses": originals[:n],
        "counterfactual_responses": {"gender": {"female": female[:n], "male": male[:n]}},
        "attributes": ["gender"],
        **FAST,
    }


def make_run(*, biased: bool, **options: Any) -> Assessment:
    return evenhand.assess(**run_kwargs(biased=biased, **options))


@functools.cache
def fair_run() -> Assessment:
    """Built once per test session (every comparison test file reads it; nothing may modify it)."""
    return make_run(biased=False)


@functools.cache
def biased_run() -> Assessment:
    return make_run(biased=True)


def toxic(texts: list[str]) -> list[float]:
    """A toy toxicity scorer for hand-computed cases: 0.9 for a text with "BAD", else 0.1."""
    return [0.9 if "BAD" in t else 0.1 for t in texts]
