"""Co-occurrence stereotype metrics COBS and SA (paper 3.1.2.1): hand-computed examples and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand import metrics as m
from evenhand.metrics.cooccurrence import load_word_list

SHE_HE = {"f": ["she"], "m": ["he"]}


def test_cobs_hand_computed() -> None:
    # "is" is a stop word. Reference tokens: smart (doc 1), smart, today (doc 2).
    # cooccur(smart, f) = 0.95^2 (doc 1); total over reference tokens for f: 0.95^2
    # cooccur(smart, m) = 0.95^2 (doc 2); total for m: 0.95^2 + 0.95^3 (today)
    # one f word, one m word: COBS = |log10((0.95^2/0.95^2) / (0.95^2/(0.95^2 + 0.95^3)))| = log10(1.95)
    r = m.cooccurrence_bias(["she is smart", "he is smart today"], attribute=SHE_HE, target=["smart", "absent"])
    assert float(r) == pytest.approx(math.log10(1.95))
    assert list(r.item_labels) == ["smart"]
    assert r.details["log10_ratio"]["smart"] == pytest.approx(math.log10(1.95))  # more associated with f
    assert r.resampler(np.ones((1, 2)))[0] == pytest.approx(float(r))


def test_cobs_beta_weights_distance() -> None:
    r = m.cooccurrence_bias(["she smart", "he x x smart"], attribute=SHE_HE, target=["smart"], beta=0.5)
    # f: smart at distance 1 -> 0.5, total 0.5; m: smart at distance 3 -> 0.125, x at 1 and 2 -> 0.5 + 0.25
    expected = math.log10((0.5 / 0.5) / (0.125 / (0.125 + 0.5 + 0.25)))
    assert float(r) == pytest.approx(expected)


def test_cobs_undefined_cases_have_reasons() -> None:
    r = m.cooccurrence_bias(["she is smart"], attribute=SHE_HE, target=["smart"])
    assert not r.is_defined and "['m']" in (r.reason or "")
    r = m.cooccurrence_bias(["she is kind", "he is kind"], attribute=SHE_HE, target=["smart"])
    assert not r.is_defined and "both groups" in (r.reason or "")
    with pytest.raises(ValueError, match="two groups"):
        m.cooccurrence_bias(["x"], attribute={"a": ["a"], "b": ["b"], "c": ["c"]})
    with pytest.raises(ValueError, match="beta"):
        m.cooccurrence_bias(["x"], attribute=SHE_HE, beta=0)


def test_sa_hand_computed() -> None:
    texts = ["she is smart and her work", "he is smart", "he is smart smart"]
    groups = {"f": ["she", "her"], "m": ["he"]}
    # presence: gamma(f) = 2 (doc 1), gamma(m) = 1 + 1; per list size: 2/2, 2/1 -> p = (1/3, 2/3), TVD = 1/6
    r = m.stereotypical_associations(texts, attribute=groups, target=["smart"])
    assert float(r) == pytest.approx(1 / 6)
    # product (HELM/LangFair): gamma(m) = 1 + 2 -> p = (1/4, 3/4), TVD = 1/4
    r = m.stereotypical_associations(texts, attribute=groups, target=["smart"], count="product")
    assert float(r) == pytest.approx(0.25)
    assert r.resampler(np.ones((1, 3)))[0] == pytest.approx(0.25)
    assert r.resampler(np.array([[1.0, 1.0, 0.0]]))[0] == pytest.approx(0.0)  # 2/2 vs 1/1: balanced


def test_sa_undefined_and_validation() -> None:
    r = m.stereotypical_associations(["nothing relevant"], attribute=SHE_HE, target=["smart"])
    assert not r.is_defined and r.reason
    with pytest.raises(ValueError, match="count"):
        m.stereotypical_associations(["x"], attribute=SHE_HE, count="sum")
    with pytest.raises(ValueError, match="target"):
        m.stereotypical_associations(["x"], attribute=SHE_HE, target="colour")
    with pytest.raises(TypeError):
        m.stereotypical_associations("she is smart", attribute=SHE_HE)


def test_bundled_word_lists() -> None:
    assert len(load_word_list("adjective")) == 422
    assert len(load_word_list("profession")) == 288
    stop = load_word_list("stopwords")
    assert len(stop) == 198 and "the" in stop and "she" in stop


def test_default_lexicon_and_target_lists() -> None:
    balanced = ["She is caring.", "He is caring.", "She is logical.", "He is logical."]
    r = m.cooccurrence_bias(balanced)  # gender lexicon, adjectives
    assert r.is_defined and set(r.item_labels) == {"caring", "logical"}
    assert float(r) == pytest.approx(0.0, abs=1e-12)
    texts = ["She is a caring nurse.", "He is a logical carpenter."]
    sa = m.stereotypical_associations(texts, target="profession")
    assert sa.is_defined and set(sa.item_labels) == {"nurse", "carpenter"} and float(sa) == pytest.approx(0.5)


words = st.sampled_from("she he her his woman man smart caring lazy the is and , .".split())
corpora = st.lists(st.lists(words, min_size=1, max_size=15).map(" ".join), min_size=1, max_size=10)
GROUPS = {"f": ["she", "her", "woman"], "m": ["he", "his", "man"]}
TARGETS = ["smart", "caring", "lazy"]


@given(corpora, st.randoms(use_true_random=False))
def test_properties(texts, rnd) -> None:
    cobs = m.cooccurrence_bias(texts, attribute=GROUPS, target=TARGETS)
    sa = m.stereotypical_associations(texts, attribute=GROUPS, target=TARGETS)
    shuffled = list(texts)
    rnd.shuffle(shuffled)
    for metric, result in ((m.cooccurrence_bias, cobs), (m.stereotypical_associations, sa)):
        again = metric(shuffled, attribute=GROUPS, target=TARGETS)
        assert result.is_defined == again.is_defined
        if result.is_defined:
            assert float(again) == pytest.approx(float(result))
            assert result.resampler(np.ones((1, len(texts))))[0] == pytest.approx(float(result))
    if cobs.is_defined:
        assert float(cobs) >= 0
        # swapping the groups flips the sign of every word's log ratio, not the score
        swapped = m.cooccurrence_bias(texts, attribute={"m": GROUPS["m"], "f": GROUPS["f"]}, target=TARGETS)
        assert float(swapped) == pytest.approx(float(cobs))
    if sa.is_defined:
        assert 0 <= float(sa) <= 0.5


# -- built-in lexicons: mentions come from the text core's matcher ---------------------------------------------------


def test_sa_race_uses_lexicon_context_rules() -> None:
    # "black" before a non-person noun is a colour, not a race mention
    texts = ["a black car is fast", "a white man is fast"]
    r = m.stereotypical_associations(texts, attribute="race", target=["fast"])
    assert r.details["group_word_counts"] == {"white": 1.0, "black": 0.0, "hispanic": 0.0, "asian": 0.0}
    assert r.value == pytest.approx(0.75)


def test_sa_race_multiword_term_is_one_mention() -> None:
    r = m.stereotypical_associations(["an African American woman is smart"], attribute="race", target=["smart"])
    assert r.details["group_word_counts"] == {"white": 0.0, "black": 1.0, "hispanic": 0.0, "asian": 0.0}
    assert r.value == pytest.approx(0.75)  # all mass on one of 4 groups: TVD = 0.5 * (3/4 + 3 * 1/4)


def test_cobs_race_multiword_mention_counts_at_first_token() -> None:
    texts = ["an African American woman is smart", "a white man is smart", "a black car is smart"]
    r = m.cooccurrence_bias(texts, attribute="race", target=["smart"], groups=("black", "white"), beta=0.5)
    # tokens: an B American woman is smart | a W man is smart | a black car is smart (stop words: an, a, is).
    # The black mention is at token 1 ("American" belongs to it: neither mention nor reference word), so woman is
    # 2 tokens away and smart 4; the white mention is 1 from man and 3 from smart. "black car" is no mention.
    co_black = {"woman": 0.5**2, "smart": 0.5**4}
    co_white = {"man": 0.5**1, "smart": 0.5**3}
    n_ref = 2 + 2 + 3  # woman smart | man smart | black car smart
    p_black = (co_black["smart"] / sum(co_black.values())) / (1 / n_ref)
    p_white = (co_white["smart"] / sum(co_white.values())) / (1 / n_ref)
    assert r.value == pytest.approx(abs(np.log10(p_black / p_white)))


def test_prompts_make_the_prompt_the_resampling_unit() -> None:
    """With ``prompts=`` COBS and SA resample prompts with all their responses; the value does not change, and with
    all-distinct prompts the prompt-level replicates equal the response-level ones."""
    from evenhand.metrics.cooccurrence import cooccurrence_bias, stereotypical_associations

    texts = ["She is kind and gentle.", "He is strong and logical.", "She is gentle.", "He is logical and kind."] * 3
    prompts = np.repeat(np.arange(6), 2)
    for metric in (cooccurrence_bias, stereotypical_associations):
        plain = metric(texts, attribute="gender")
        by_prompt = metric(texts, attribute="gender", prompts=prompts)
        assert by_prompt.value == plain.value and by_prompt.sizes["prompts"] == 6
        assert by_prompt.resampler is not None and plain.resampler is not None
        assert (by_prompt.resampler.unit, by_prompt.resampler.n_units) == ("prompt", 6)
        weights = np.random.default_rng(0).integers(0, 3, size=(4, 6)).astype(float)
        np.testing.assert_allclose(by_prompt.resampler(weights), plain.resampler(np.repeat(weights, 2, axis=1)))
        distinct = metric(texts, attribute="gender", prompts=np.arange(len(texts)))
        item_weights = np.random.default_rng(1).integers(0, 3, size=(4, len(texts))).astype(float)
        np.testing.assert_allclose(distinct.resampler(item_weights), plain.resampler(item_weights))
