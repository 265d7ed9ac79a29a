"""Simulated data with repeated, correlated answers per prompt or person (issue 14), shared by the coverage tests
(tests/test_stats_coverage.py) and the full run (benchmarks/bench_stats.py --units)."""

from __future__ import annotations

import numpy as np


class AngleEmbedder:
    """'0.42' -> (0.42, sqrt(1 - 0.42**2)) and 'ref' -> (1, 0): the cosine of a pair is the number in its first text,
    so CCS (the real metric function) averages known per-pair similarities."""

    def encode(self, texts: list[str]) -> np.ndarray:
        c = np.array([1.0 if t == "ref" else float(t) for t in texts])
        return np.column_stack([c, np.sqrt(np.clip(1.0 - c * c, 0.0, None))])


def clustered_pairs(rng: np.random.Generator, n_prompts: int = 50) -> tuple[list[str], list[str], np.ndarray]:
    """3-5 counterfactual pairs per prompt; similarity 0.5 + prompt effect N(0, 0.12) + pair noise N(0, 0.05)."""
    prompts = np.repeat(np.arange(n_prompts), rng.integers(3, 6, size=n_prompts))
    effect = rng.normal(0.0, 0.12, size=n_prompts)
    sims = np.clip(0.5 + effect[prompts] + rng.normal(0.0, 0.05, size=prompts.size), -1.0, 1.0)
    return [repr(float(s)) for s in sims], ["ref"] * sims.size, prompts


def clustered_people(
    rng: np.random.Generator, means: tuple[float, float], n_people: int = 50
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half the people in each group; a person's rate p ~ Beta with the group's mean and concentration 1 (strong
    person effect); 3-5 answers each, y ~ Bernoulli(p)."""
    group_of = np.repeat(["f", "m"], n_people // 2)
    mean = np.where(group_of == "f", means[0], means[1])
    p = rng.beta(mean, 1.0 - mean)
    person = np.repeat(np.arange(n_people), rng.integers(3, 6, size=n_people))
    return (rng.random(person.size) < p[person]).astype(int), group_of[person], person


def null_rejections(rng: np.random.Generator, n_permutations: int) -> dict[str, bool]:
    """One repetition of the level check, under no difference at all: whether each test rejects at 0.05, with the
    old unit (rows, pairs) and with the prompt as the unit (``rate/row``, ``rate/prompt``, ``swap/pair``,
    ``swap/prompt``)."""
    from evenhand.stats import counterfactual_sentiment_test, pairwise_rate_tests

    out: dict[str, bool] = {}
    # no group difference: every person's rate from the same Beta(0.4, 0.6)
    y, groups, person = clustered_people(rng, (0.4, 0.4))
    out["rate/row"] = bool(pairwise_rate_tests(y, groups)["p_value"].iloc[0] <= 0.05)
    by_person = pairwise_rate_tests(y, groups, prompts=person, n_permutations=n_permutations, seed=rng)
    out["rate/prompt"] = bool(by_person["p_value"].iloc[0] <= 0.05)
    # no attribute effect overall, but each prompt leans one way for all its samples (+-w, w ~ N(0, 0.1))
    prompts = np.repeat(np.arange(40), rng.integers(3, 6, size=40))
    base, lean = rng.uniform(0.2, 0.8, size=40)[prompts], rng.normal(0.0, 0.1, size=40)[prompts]
    a = np.clip(base + lean + rng.normal(0.0, 0.05, size=prompts.size), 0.0, 1.0)
    b = np.clip(base - lean + rng.normal(0.0, 0.05, size=prompts.size), 0.0, 1.0)
    for unit, ids in (("pair", None), ("prompt", prompts)):
        test = counterfactual_sentiment_test(
            a, b, statistic="mean", n_permutations=n_permutations, seed=rng, prompts=ids
        )
        out[f"swap/{unit}"] = bool(test.p_value <= 0.05)
    return out
