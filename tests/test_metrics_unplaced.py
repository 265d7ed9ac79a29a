"""The observational metrics of issue 33 item 3 (URD, ULD, UTD, UPD: the replies to the prompts that name a person
no name list can place against the other prompts' replies) and their permutation test over prompts: hand-computed
values from the formulas, the prompt as the resampling unit, and properties over random inputs."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.errors import InputError
from evenhand.metrics import (
    unplaced_length_difference,
    unplaced_positive_rate_difference,
    unplaced_refusal_difference,
    unplaced_toxicity_difference,
)
from evenhand.stats import prompt_set_test


def test_refusal_difference_by_hand() -> None:
    # prompts a, b in the set (4 replies: 1 refusal), c, d, e the rest (6 replies: 0.9 counts, 0.4 does not)
    scores = [1.0, 0.0, 0.2, 0.0, 0.9, 0.0, 0.4, 0.0, 0.0, 0.1]
    in_set = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    prompts = ["a", "a", "b", "b", "c", "c", "d", "d", "e", "e"]
    r = unplaced_refusal_difference(scores, in_set, prompts=prompts)
    assert float(r) == pytest.approx(1 / 4 - 1 / 6)
    assert r.details == {"mean_in_set": 0.25, "mean_rest": pytest.approx(1 / 6), "n_prompts_in_set": 2,
                         "n_prompts_rest": 3}  # fmt: skip
    assert r.sizes == {"replies": 10, "prompts": 5, "prompts_in_set": 2}
    assert r.resampler is not None and r.resampler.unit == "prompt" and r.resampler.n_units == 5
    # all-ones weights give the value back; the strata keep each set's number of prompts
    assert r.resampler(np.ones((1, 5)))[0] == pytest.approx(float(r))
    assert list(r.resampler.strata) == [True, True, False, False, False]
    assert float(unplaced_refusal_difference(scores, in_set, threshold=0.1, prompts=prompts)) == pytest.approx(
        2 / 4 - 3 / 6
    )


def test_length_toxicity_and_decisions_by_hand() -> None:
    assert float(unplaced_length_difference([20, 40, 60, 60], [1, 1, 0, 0])) == pytest.approx(30 / 60 - 1)
    assert float(unplaced_toxicity_difference(np.array([0.9, 0.1, 0.2, 0.3]), [True, True, False, False])) == 0.5
    decisions = pd.Series([0, 1, 1, 1, 1, 0])
    r = unplaced_positive_rate_difference(decisions, [1, 1, 1, 0, 0, 0], prompts=[0, 0, 1, 2, 3, 3])
    assert float(r) == pytest.approx(2 / 3 - 2 / 3)


def test_undefined_and_bad_inputs() -> None:
    assert math.isnan(float(unplaced_refusal_difference([1, 0], [0, 0])))
    assert "no reply is in the set" in str(unplaced_refusal_difference([1, 0], [0, 0]).reason)
    assert "every prompt" in str(unplaced_refusal_difference([1, 0], [1, 1], prompts=[0, 1]).reason)
    assert math.isnan(float(unplaced_length_difference([3, 0], [1, 0])))  # the rest's replies are all empty
    with pytest.raises(InputError, match="all its replies"):
        unplaced_refusal_difference([1, 0], [1, 0], prompts=["a", "a"])
    with pytest.raises(InputError, match="0 or 1"):
        unplaced_positive_rate_difference([0.5, 1], [1, 0])
    with pytest.raises(InputError, match="0 or more"):
        unplaced_length_difference([-1, 2], [1, 0])
    with pytest.raises(ValueError):
        unplaced_refusal_difference([1, 0, 1], [1, 0])


def test_prompt_set_test_exact_by_hand() -> None:
    # 4 prompts, one reply each, 2 in the set: the 6 splits give |difference| 1, 0, 0, 0, 0, 1 -> p = 2/6
    t = prompt_set_test([1, 1, 0, 0], [1, 1, 0, 0], [0, 1, 2, 3])
    assert t.method == "exact" and t.n_permutations == 6
    assert t.statistic == 1.0 and t.p_value == pytest.approx(2 / 6)
    # replies move with their prompt: 2 prompts with 2 replies each, 1 in the set -> 2 splits, both as extreme
    t = prompt_set_test([1, 1, 0, 0], [1, 1, 0, 0], ["a", "a", "b", "b"])
    assert t.n_permutations == 2 and t.p_value == 1.0
    assert math.isnan(prompt_set_test([1, 0], [1, 1], [0, 1]).p_value)


def test_prompt_set_test_monte_carlo_finds_a_large_gap_and_is_seeded() -> None:
    rng = np.random.default_rng(1)
    prompts = np.repeat(np.arange(80), 5)
    in_set = prompts < 8
    refused = (rng.random(400) < np.where(in_set, 0.25, 0.02)).astype(float)
    t = prompt_set_test(refused, in_set, prompts, n_permutations=1999, seed=3)
    assert t.method == "monte-carlo" and t.p_value < 0.01
    assert prompt_set_test(refused, in_set, prompts, n_permutations=1999, seed=3).p_value == t.p_value


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.booleans(), st.floats(0, 1)), min_size=2, max_size=12),
    st.floats(0.05, 0.95),
)
def test_properties(rows: list[tuple[int, bool, float]], threshold: float) -> None:
    """Over random prompts (replies per prompt, in the set or not, a score per prompt): the value is the difference
    of the two sets' reply means, in range; swapping the sets flips its sign; the resampler's all-ones weights give
    it back; the exact test's p-value is in (0, 1]."""
    scores = np.array([s for n, _, s in rows for _ in range(n)])
    flags = np.array([f for n, f, _ in rows for _ in range(n)])
    prompts = np.array([i for i, (n, _, _) in enumerate(rows) for _ in range(n)])
    r = unplaced_refusal_difference(scores, flags, threshold, prompts=prompts)
    if flags.all() or not flags.any():
        assert math.isnan(float(r))
        return
    refused = scores >= threshold
    assert float(r) == pytest.approx(refused[flags].mean() - refused[~flags].mean())
    assert -1 <= float(r) <= 1
    assert float(unplaced_refusal_difference(scores, ~flags, threshold, prompts=prompts)) == pytest.approx(-float(r))
    assert r.resampler is not None and r.resampler(np.ones((1, len(rows))))[0] == pytest.approx(float(r))
    t = prompt_set_test(refused.astype(float), flags, prompts)
    assert 0 < t.p_value <= 1
    k, m = len(rows), sum(f for _, f, _ in rows)
    assert t.n_permutations == math.comb(k, m)


def test_prompt_set_test_is_valid_under_the_null() -> None:
    """Every split of 8 prompts (3 in the set) enumerated: P(p <= a) <= a for each attainable level."""
    values = np.array([0.0, 1, 0, 0, 1, 1, 0, 0])
    ps = []
    for chosen in itertools.combinations(range(8), 3):
        flags = np.isin(np.arange(8), chosen)
        ps.append(prompt_set_test(values, flags, np.arange(8)).p_value)
    ps_arr = np.array(ps)
    for level in sorted(set(ps)):
        assert (ps_arr <= level + 1e-12).mean() <= level + 1e-9
