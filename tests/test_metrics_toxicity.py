"""Toxicity and classifier-stereotype metrics (paper 3.1.1, 3.1.2.2): hand-computed examples and properties."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics as m

SCORES = [0.1, 0.6, 0.5, 0.2]
PROMPTS = ["a", "a", "b", "b"]


def test_hand_computed_example() -> None:
    # TF = #{s >= 0.5}/4 = 2/4; EMT = mean(max(0.1, 0.6), max(0.5, 0.2)) = 0.55; TP = mean(1[0.6>=.5], 1[0.5>=.5])
    assert float(m.toxic_fraction(SCORES)) == pytest.approx(0.5)
    assert float(m.expected_maximum_toxicity(SCORES, PROMPTS)) == pytest.approx(0.55)
    assert float(m.toxicity_probability(SCORES, PROMPTS)) == pytest.approx(1.0)
    assert float(m.toxic_fraction(SCORES, threshold=0.55)) == pytest.approx(0.25)
    assert float(m.toxicity_probability(SCORES, PROMPTS, threshold=0.55)) == pytest.approx(0.5)


def test_threshold_is_inclusive_like_the_paper() -> None:
    # LangFair counts s > t; the paper (and evenhand) s >= t
    assert float(m.toxic_fraction([0.5, 0.4])) == 0.5


def test_stereotype_variants_share_the_maths() -> None:
    assert float(m.stereotype_fraction(SCORES)) == float(m.toxic_fraction(SCORES))
    assert float(m.expected_maximum_stereotype(SCORES, PROMPTS)) == float(m.expected_maximum_toxicity(SCORES, PROMPTS))
    assert float(m.stereotype_probability(SCORES, PROMPTS)) == float(m.toxicity_probability(SCORES, PROMPTS))
    assert m.stereotype_fraction(SCORES).name == "SF"


@pytest.mark.parametrize("container", [list, np.asarray, pd.Series, tuple])
def test_accepts_common_containers(container) -> None:
    r = m.expected_maximum_toxicity(container(SCORES), container(PROMPTS))
    assert float(r) == pytest.approx(0.55)
    assert r.sizes == {"responses": 4, "prompts": 2}
    assert list(r.item_labels) == ["a", "b"]


def test_resamplers_reproduce_the_value_and_cluster_by_prompt() -> None:
    tf = m.toxic_fraction(SCORES, prompts=PROMPTS)
    assert tf.resampler is not None and tf.resampler.unit == "prompt" and tf.resampler.n_units == 2
    assert tf.resampler(np.ones((1, 2)))[0] == pytest.approx(0.5)
    assert tf.resampler(np.array([[2.0, 0.0]]))[0] == pytest.approx(0.5)  # prompt a twice: 1 toxic of 2
    emt = m.expected_maximum_toxicity(SCORES, PROMPTS)
    assert emt.resampler(np.array([[1.0, 1.0], [0.0, 3.0]])) == pytest.approx([0.55, 0.5])


def test_bad_input_is_rejected_clearly() -> None:
    with pytest.raises(ValueError, match=r"scores must lie in \[0.0, 1.0\]"):
        m.toxic_fraction([0.2, 1.5])
    with pytest.raises(ValueError, match="same length"):
        m.expected_maximum_toxicity([0.1, 0.2], ["a"])
    with pytest.raises(ValueError, match="NaN"):
        m.toxicity_probability([0.1, float("nan")], ["a", "b"])
    with pytest.raises(ValueError, match="threshold"):
        m.toxic_fraction([0.1], threshold=2)
    with pytest.raises(TypeError):
        m.toxic_fraction("0.5")


scores_and_prompts = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0, 1), min_size=n, max_size=n),
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
    )
)


@given(scores_and_prompts, st.floats(0, 1), st.randoms(use_true_random=False))
def test_properties(data, threshold, rnd) -> None:
    scores, prompts = data
    tf = float(m.toxic_fraction(scores, threshold))
    emt = float(m.expected_maximum_toxicity(scores, prompts))
    tp = float(m.toxicity_probability(scores, prompts, threshold))
    for v in (tf, emt, tp):
        assert 0.0 <= v <= 1.0
    # the mean of per-prompt maxima is at least the mean of per-prompt means, and TP >= 1[TF > 0] / N
    per_prompt_means = pd.Series(scores).groupby(prompts).mean()
    assert emt >= per_prompt_means.mean() - 1e-12
    assert (tp > 0) == (tf > 0)
    # order invariance
    order = list(range(len(scores)))
    rnd.shuffle(order)
    assert float(m.expected_maximum_toxicity([scores[i] for i in order], [prompts[i] for i in order])) == pytest.approx(
        emt
    )
    assert float(m.toxicity_probability([scores[i] for i in order], [prompts[i] for i in order], threshold)) == tp
