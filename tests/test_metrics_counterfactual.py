"""Counterfactual similarity and sentiment-parity metrics (paper 3.1.3): hand-computed examples and properties."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

from evenhand import metrics as m
from evenhand.metrics.counterfactual import bleu_scores, cosine_scores, rouge_l_scores

HE = "then he drove his car to work"
SHE = "then she drove her car to work"


def test_rouge_l_paper_example() -> None:
    # 7 tokens each; LCS = then drove car to work = 5 -> F = 2*5/(7+7)
    assert float(m.counterfactual_rouge_l([HE], [SHE], attribute=None)) == pytest.approx(10 / 14)
    # neutralized, the two responses are identical (paper 3.1.3.1)
    assert float(m.counterfactual_rouge_l([HE], [SHE], attribute="gender")) == pytest.approx(1.0)


def test_rouge_l_uses_stemming_and_rouge_tokenization() -> None:
    # "Running," and "runs" both stem to "run"; punctuation separates tokens
    assert rouge_l_scores(["Running, fast!"], ["runs fast"])[0] == pytest.approx(1.0)


def test_bleu_hand_computed() -> None:
    # p1..p4 = 5/6, 3/5, 2/4, 1/3 both ways (clipping "the" once), equal lengths -> (1/12)^(1/4)
    got = bleu_scores(["the cat sat on the mat"], ["the cat sat on a mat"])[0]
    assert got == pytest.approx((5 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25)
    # brevity: BLEU(ref 6 tokens, hyp 4) = exp(1 - 6/4); BLEU(ref 4, hyp 6) = (4/6 3/5 2/4 1/3)^(1/4): the min
    got = bleu_scores(["a b c d e f"], ["a b c d"])[0]
    assert got == pytest.approx(min(math.exp(-0.5), (4 / 6 * 3 / 5 * 2 / 4 * 1 / 3) ** 0.25))
    # method1 smoothing: no 4-gram in a 3-token text -> p4 = 0.1 / 1
    assert bleu_scores(["a b c"], ["a b c"])[0] == pytest.approx(0.1**0.25)
    # no unigram in common -> 0
    assert bleu_scores(["a b c d"], ["e f g h"])[0] == 0.0


def test_empty_pairs_are_undefined_not_zero() -> None:
    r = m.counterfactual_bleu(["", "same words here today"], ["  ", "same words here today"], attribute=None)
    assert math.isnan(r.per_item[0]) and float(r) == pytest.approx(1.0)
    assert r.sizes == {"pairs": 2, "defined_pairs": 1}
    r = m.counterfactual_rouge_l([""], ["!"], attribute=None)
    assert not r.is_defined and "no pair" in (r.reason or "")
    assert rouge_l_scores(["words"], [""])[0] == 0.0


class FakeEmbedder:
    vectors: ClassVar[dict[str, list[float]]] = {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "z": [0.0, 0.0]}

    def encode(self, texts):
        return np.array([self.vectors[t] for t in texts])


def test_cosine_hand_computed() -> None:
    got = cosine_scores(["a", "a", "c"], ["b", "c", "c"], FakeEmbedder())
    np.testing.assert_allclose(got, [0.0, 1 / math.sqrt(2), 1.0])
    r = m.counterfactual_cosine(["a", "a", "z"], ["b", "c", "a"], embedder=FakeEmbedder())
    assert float(r) == pytest.approx((0 + 1 / math.sqrt(2)) / 2)  # zero vector: undefined pair
    assert r.value_range == (-1.0, 1.0) and r.higher_is_fairer
    with pytest.raises(TypeError, match="encode"):
        cosine_scores(["a"], ["b"], object())


def test_sentiment_parity_hand_computed() -> None:
    s1, s2 = [0.1, 0.5, 0.9], [0.2, 0.4, 0.9]
    assert float(m.strict_sentiment_parity(s1, s2)) == pytest.approx(0.2 / 3)
    assert float(m.strict_sentiment_parity(s1, s2)) == pytest.approx(wasserstein_distance(s1, s2))
    weak = m.weak_sentiment_parity([0.6, 0.4, 0.7], [0.4, 0.4, 0.5])  # rates 2/3 and 0 (0.5 is not > 0.5)
    assert float(weak) == pytest.approx(2 / 3)
    assert float(m.weak_sentiment_parity([0.4], [0.6])) == pytest.approx(1.0)  # absolute, not signed
    assert m.weak_sentiment_parity([0.4], [0.6]).details["signed"] == pytest.approx(-1.0)


def test_scsp_resampler_is_the_weighted_wasserstein_distance() -> None:
    rng = np.random.default_rng(0)
    s1, s2 = rng.random(30), rng.random(30)
    r = m.strict_sentiment_parity(s1, s2)
    w = rng.integers(0, 3, size=(5, 30)).astype(float)
    expected = [wasserstein_distance(np.repeat(s1, wi.astype(int)), np.repeat(s2, wi.astype(int))) for wi in w]
    np.testing.assert_allclose(r.resampler(w), expected, atol=1e-12)
    np.testing.assert_allclose(r.resampler(np.ones((1, 30))), [float(r)])


def test_similarity_resamplers_reproduce_the_value() -> None:
    r = m.counterfactual_rouge_l([HE, "x y", ""], [SHE, "x z", ""], attribute=None)
    assert r.resampler(np.ones((1, 3)))[0] == pytest.approx(float(r))
    assert r.resampler(np.array([[0.0, 2.0, 5.0]]))[0] == pytest.approx(0.5)


def test_inputs_are_validated() -> None:
    with pytest.raises(ValueError, match="same length"):
        m.counterfactual_rouge_l(["a"], ["a", "b"], attribute=None)
    with pytest.raises(TypeError, match=r"texts2\[0\]"):
        m.counterfactual_bleu(["a"], [None], attribute=None)
    with pytest.raises(ValueError):
        m.strict_sentiment_parity([0.1], [0.2, 0.3])


@pytest.mark.parametrize("container", [list, tuple, np.asarray, pd.Series])
def test_accepts_common_containers(container) -> None:
    assert float(m.counterfactual_rouge_l(container([HE]), container([SHE]))) == pytest.approx(1.0)


words = st.sampled_from("the a doctor nurse he she said it's don't good bad car work . , ! ? ; 3.5 Mr. (x)".split())
texts = st.lists(words, max_size=25).map(" ".join)
pairs = st.lists(st.tuples(texts, texts), min_size=1, max_size=8)


@given(pairs)
def test_similarity_properties(data) -> None:
    a = [x for x, _ in data]
    b = [y for _, y in data]
    for fn in (rouge_l_scores, bleu_scores):
        ab, ba = fn(a, b), fn(b, a)
        np.testing.assert_allclose(ab, ba, equal_nan=True)  # symmetric
        finite = ab[~np.isnan(ab)]
        assert np.all((finite >= 0) & (finite <= 1 + 1e-12))
    same_rouge = rouge_l_scores(a, a)
    assert np.all(np.isnan(same_rouge) | np.isclose(same_rouge, 1.0))
    same_bleu = bleu_scores(a, a)
    long_enough = np.array([len(x.split()) >= 4 and len(set(x.split()) - {".", ",", "!", "?", ";"}) >= 4 for x in a])
    assert np.allclose(same_bleu[long_enough], 1.0)
    # order invariance of the aggregate
    r1 = m.counterfactual_rouge_l(a, b, attribute=None)
    r2 = m.counterfactual_rouge_l(a[::-1], b[::-1], attribute=None)
    assert (not r1.is_defined and not r2.is_defined) or float(r1) == pytest.approx(float(r2))


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=30), st.floats(0, 1))
def test_sentiment_properties(data, threshold) -> None:
    s1 = [x for x, _ in data]
    s2 = [y for _, y in data]
    strict = float(m.strict_sentiment_parity(s1, s2))
    assert strict == pytest.approx(float(m.strict_sentiment_parity(s2, s1)))
    assert 0 <= strict <= 1
    assert float(m.strict_sentiment_parity(s1, s1)) == 0.0
    weak = float(m.weak_sentiment_parity(s1, s2, threshold))
    assert weak == float(m.weak_sentiment_parity(s2, s1, threshold)) and 0 <= weak <= 1
    assert float(m.weak_sentiment_parity(s1, s1, threshold)) == 0.0
    # W1 bounds the difference of rates at no threshold... but it is at least the difference of means
    assert strict >= abs(np.mean(s1) - np.mean(s2)) - 1e-12


@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=6), st.data())
def test_cosine_properties(xs, data) -> None:
    ys = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=len(xs), max_size=len(xs)))
    emb = FakeEmbedder()
    np.testing.assert_allclose(cosine_scores(xs, ys, emb), cosine_scores(ys, xs, emb))
    np.testing.assert_allclose(cosine_scores(xs, xs, emb), 1.0)


# ----------------------------------------------------------------------------------------------------------------
# BLEU counting against NLTK's own sentence_bleu (the reference LangFair calls)
# ----------------------------------------------------------------------------------------------------------------


def _nltk_cbleu(x: str, y: str) -> float:
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    smooth = SmoothingFunction().method1
    a, b = x.split(), y.split()
    return min(sentence_bleu([a], b, smoothing_function=smooth), sentence_bleu([b], a, smoothing_function=smooth))


# few distinct words, so that n-grams repeat within and across the texts of a pair (clipping matters)
few_words = st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=30).map(" ".join)


@given(st.lists(st.tuples(few_words, few_words), min_size=1, max_size=10))
def test_bleu_equals_nltk_sentence_bleu(data) -> None:
    a = [x for x, _ in data]
    b = [y for _, y in data]
    np.testing.assert_allclose(bleu_scores(a, b), [_nltk_cbleu(x, y) for x, y in data], rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_bleu_equals_nltk_on_long_texts_with_many_distinct_words() -> None:
    # 40,000 distinct words on both sides: too many to pack four token ids in 64 bits, the lexsort path counts
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(40_000)]
    x = " ".join(words)
    y = " ".join(np.array(words)[rng.permutation(40_000)][:30_000].tolist() + words[:9_000])
    assert bleu_scores([x], [y])[0] == pytest.approx(_nltk_cbleu(x, y), rel=1e-12)


def test_ngram_sort_paths_agree() -> None:
    from evenhand.metrics.counterfactual import _sorted_ngram_runs

    rng = np.random.default_rng(0)
    n = 5_000
    pair = rng.integers(0, 50, n)
    fields = [rng.integers(0, 4, n) for _ in range(4)]
    side = rng.integers(0, 2, n)
    packed = _sorted_ngram_runs(pair, fields, side, 4)
    general = _sorted_ngram_runs(pair, fields, side, 1 << 20)  # 4 fields x 21 bits cannot be packed
    np.testing.assert_array_equal(packed[0], general[0])
    np.testing.assert_array_equal(packed[2], general[2])
    for (n1, runs1), (n2, runs2) in zip(packed[1], general[1], strict=True):
        assert n1 == n2
        np.testing.assert_array_equal(runs1, runs2)


def test_unigram_counting_does_not_depend_on_the_size_of_token_codes() -> None:
    from evenhand.metrics.counterfactual import _clipped_matches

    rng = np.random.default_rng(1)
    ids = rng.integers(0, 6, 400)
    doc = np.repeat(np.arange(8), 50)
    small = _clipped_matches(ids, doc, 4, 4)
    huge = _clipped_matches(ids * (1 << 45) + 7, doc, 4, 4)  # (pair, token) names too big to pack with an index
    np.testing.assert_array_equal(small, huge)


def test_neutralize_pairs_once_for_both_metrics(monkeypatch) -> None:
    import evenhand.text.counterfactual as text_counterfactual

    a, b = [HE, "she said so", HE], [SHE, "he said so", SHE]
    calls = []
    real = text_counterfactual.neutralize

    def counting(texts, attribute):
        calls.append(len(texts))
        return real(texts, attribute)

    monkeypatch.setattr(text_counterfactual, "neutralize", counting)
    pairs = m.neutralize_pairs(a, b, "gender")
    assert calls == [4]  # each distinct text once
    assert isinstance(pairs, m.NeutralizedPairs)
    assert (pairs.attribute, pairs.texts1, pairs.texts2) == ("gender", a, b)
    assert pairs.neutral1 == _gender_neutral(a) and pairs.neutral2 == _gender_neutral(b)
    rouge = m.counterfactual_rouge_l(a, b, neutralized=pairs)
    bleu = m.counterfactual_bleu(tuple(a), pd.Series(b), "gender", neutralized=pairs)  # equal texts, other containers
    assert len(calls) == 1  # neither metric neutralized again
    for shared, fresh in ((rouge, m.counterfactual_rouge_l(a, b)), (bleu, m.counterfactual_bleu(a, b))):
        assert float(shared) == float(fresh) and shared.params == fresh.params
        np.testing.assert_array_equal(shared.per_item, fresh.per_item)
    assert len(calls) == 3  # without neutralized=, each call neutralizes: no hidden state between calls
    m.counterfactual_rouge_l(pairs.texts1, pairs.texts2, neutralized=pairs)  # the very same lists
    assert len(calls) == 3


def test_neutralized_pairs_must_match_the_call() -> None:
    a, b = [HE, "she said so"], [SHE, "he said so"]
    pairs = m.neutralize_pairs(a, b, "gender")
    with pytest.raises(ValueError, match="attribute"):
        m.counterfactual_bleu(a, b, attribute="race", neutralized=pairs)
    with pytest.raises(ValueError, match="attribute"):
        m.counterfactual_rouge_l(a, b, attribute=None, neutralized=pairs)
    with pytest.raises(ValueError, match="texts1"):
        m.counterfactual_rouge_l([HE, "she said no"], b, neutralized=pairs)
    with pytest.raises(ValueError, match="texts2"):
        m.counterfactual_bleu(a, b[::-1], neutralized=pairs)
    a[1] = "she said no"  # the caller's list changed in place after neutralize_pairs: caught
    with pytest.raises(ValueError, match="texts1"):
        m.counterfactual_rouge_l(a, b, neutralized=pairs)
    with pytest.raises(TypeError, match="neutralize_pairs"):
        m.counterfactual_rouge_l(a, b, neutralized=(a, b))  # type: ignore[arg-type]
    plain = m.neutralize_pairs(a, b, attribute=None)
    assert plain.neutral1 == a and plain.neutral2 == b
    assert float(m.counterfactual_rouge_l(a, b, None, neutralized=plain)) == float(m.counterfactual_rouge_l(a, b, None))
    custom = {"f": ["she"], "m": ["he"]}
    pairs = m.neutralize_pairs(a, b, custom)
    assert float(m.counterfactual_bleu(a, b, {"f": ["she"], "m": ["he"]}, neutralized=pairs)) == float(
        m.counterfactual_bleu(a, b, custom)
    )
    with pytest.raises(ValueError, match="same length"):
        m.neutralize_pairs(["a"], ["b", "c"])


def test_metrics_keep_no_module_state() -> None:
    import evenhand.metrics.counterfactual as metric_module

    before = {k: v for k, v in vars(metric_module).items() if not k.startswith("__")}
    m.counterfactual_rouge_l([HE], [SHE])
    m.counterfactual_bleu([HE], [SHE])
    after = {k: v for k, v in vars(metric_module).items() if not k.startswith("__")}
    assert after.keys() == before.keys() and all(after[k] is before[k] for k in before)


def test_counterfactual_cosine_needs_an_embedder() -> None:
    with pytest.raises(TypeError, match="needs an embedder with encode"):
        m.counterfactual_cosine(["a"], ["b"], None)
    with pytest.raises(TypeError, match="embedder"):
        m.counterfactual_cosine(["a"], ["b"])  # type: ignore[call-arg]
    assert float(m.counterfactual_cosine(["a"], ["c"], FakeEmbedder())) == pytest.approx(1 / math.sqrt(2))


def _gender_neutral(texts: list[str]) -> list[str]:
    from evenhand.text import neutralize

    return neutralize(texts, "gender")


@given(st.lists(st.integers(0, 2**62), max_size=50), st.integers(0, 3))
def test_radix_argsort_is_numpys_stable_argsort(values, collapse) -> None:
    from evenhand.metrics.counterfactual import _stable_argsort

    keys = np.asarray(values, dtype=np.int64) >> (20 * collapse)  # smaller ranges: more ties, fewer passes
    if keys.size:
        np.testing.assert_array_equal(_stable_argsort(keys), np.argsort(keys, kind="stable"))
