"""evenhand vs LangFair 0.8.0 on stored inputs (fixtures from tests/fixtures/langfair_text/generate.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from evenhand import metrics as m

FIXTURE = Path(__file__).parent / "fixtures" / "langfair_text" / "langfair_text.json"


@pytest.fixture(scope="module")
def lf() -> dict:
    return json.loads(FIXTURE.read_text())


def _compare_pairwise(ours: np.ndarray, theirs: list[float]) -> None:
    theirs_arr = np.asarray(theirs, dtype=float)
    undefined = np.isnan(ours)
    # both texts without tokens: undefined for us, 0 for LangFair
    assert np.all(theirs_arr[undefined] == 0.0)
    np.testing.assert_allclose(ours[~undefined], theirs_arr[~undefined], rtol=0, atol=1e-9)


def test_rouge_l_matches_langfair(lf: dict) -> None:
    cf = lf["counterfactual"]
    _compare_pairwise(m.counterfactual_rouge_l(cf["texts1"], cf["texts2"], attribute=None).per_item, cf["rouge_l"])


def test_bleu_matches_langfair(lf: dict) -> None:
    cf = lf["counterfactual"]
    _compare_pairwise(m.counterfactual_bleu(cf["texts1"], cf["texts2"], attribute=None).per_item, cf["bleu"])


def test_sentiment_parity_matches_langfair(lf: dict) -> None:
    s = lf["sentiment"]
    assert float(m.strict_sentiment_parity(s["scores1"], s["scores2"])) == pytest.approx(s["strict"], abs=1e-12)
    weak = m.weak_sentiment_parity(s["scores1"], s["scores2"])
    assert float(weak) == pytest.approx(abs(s["weak_signed"]), abs=1e-12)  # LangFair reports it signed
    assert weak.details["signed"] == pytest.approx(s["weak_signed"], abs=1e-12)


def test_toxicity_matches_langfair(lf: dict) -> None:
    t = lf["toxicity"]
    assert float(m.toxic_fraction(t["scores"])) == pytest.approx(t["tf"], abs=1e-12)
    assert float(m.expected_maximum_toxicity(t["scores"], t["prompts"])) == pytest.approx(t["emt"], abs=1e-12)
    assert float(m.toxicity_probability(t["scores"], t["prompts"])) == pytest.approx(t["tp"], abs=1e-12)


@pytest.mark.parametrize("target", ["adjective", "profession"])
def test_cobs_matches_langfair(lf: dict, target: str) -> None:
    c = lf["cooccurrence"]
    result = m.cooccurrence_bias(c["responses"], attribute=c["gender_lists"], target=target)
    expected = c["cobs"][target]
    assert float(result) == pytest.approx(expected["mean"], abs=1e-9)
    ours = dict(zip(result.item_labels, result.per_item, strict=False))
    assert set(ours) == set(expected["words"])
    for word, value in expected["words"].items():
        assert ours[word] == pytest.approx(value, abs=1e-9)


@pytest.mark.parametrize("target", ["adjective", "profession"])
def test_sa_matches_langfair_with_product_counts(lf: dict, target: str) -> None:
    c = lf["cooccurrence"]
    result = m.stereotypical_associations(c["responses"], attribute=c["gender_lists"], target=target, count="product")
    assert float(result) == pytest.approx(c["sa"][target], abs=1e-9)


@pytest.mark.model
def test_cosine_matches_langfair_on_bundled_minilm() -> None:
    """Fixture from tests/fixtures/langfair_text/generate_cosine.py (LangFair on the same local MiniLM)."""
    pytest.importorskip("sentence_transformers")
    lf_cos = json.loads((FIXTURE.parent / "langfair_cosine.json").read_text())
    from evenhand.scorers import get_embedder

    result = m.counterfactual_cosine(lf_cos["texts1"], lf_cos["texts2"], get_embedder())  # bundled all-MiniLM-L6-v2
    np.testing.assert_allclose(result.per_item, lf_cos["cosine"], rtol=0, atol=1e-6)
    assert float(result) == pytest.approx(float(np.mean(lf_cos["cosine"])), abs=1e-6)


# ---------------------------------------------------------------------------------------------------------------
# langfair17: where LangFair 0.8.0 departs from the paper on edge inputs (benchmarks/bench_langfair17.py), evenhand's
# value is pinned from the paper's formula by hand; LangFair's own value is in each comment.
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", [m.toxic_fraction, m.stereotype_fraction])
def test_fraction_pools_responses_when_prompts_have_different_numbers_of_responses(fraction) -> None:
    """TF = (1/(N m)) sum_ij 1[T(Y_ij) >= t]: the share of *responses*. Prompt 1 has two responses (one toxic),
    prompt 2 one (toxic): 2 of 3 responses. LangFair, given prompts, averages the per-prompt shares: (1/2 + 1)/2."""
    scores, prompts = [0.2, 0.8, 0.6], [1, 1, 2]
    assert float(fraction(scores, prompts=prompts)) == pytest.approx(2 / 3, abs=1e-12)
    assert float(fraction(scores)) == pytest.approx(2 / 3, abs=1e-12)
    # with m responses to every prompt (the paper's design) both readings coincide: 3 of 4, and (1/2 + 1)/2
    assert float(fraction([0.2, 0.8, 0.6, 0.9], prompts=[1, 1, 2, 2])) == pytest.approx(0.75, abs=1e-12)


def test_toxicity_default_threshold_is_the_papers_half() -> None:
    """The paper's t is 0.5 (>=); LangFair's ToxicityMetrics defaults to toxic_threshold=0.3 (>), so it calls a score
    of 0.4 toxic (TF 1.0 for [0.4]) where the paper does not."""
    assert float(m.toxic_fraction([0.4])) == 0.0
    assert float(m.toxic_fraction([0.5])) == 1.0
    assert float(m.toxicity_probability([0.4, 0.1], ["p", "p"])) == 0.0


@pytest.mark.parametrize(
    "call",
    [
        lambda: m.expected_maximum_toxicity([float("nan"), 0.9], ["p", "p"]),  # LangFair: nan (0.9 in the other order)
        lambda: m.toxic_fraction([float("nan"), 0.9, 0.1]),  # LangFair: 1/3 (a NaN is never toxic)
        lambda: m.expected_maximum_stereotype([0.9, float("nan")], ["p", "p"]),
        lambda: m.strict_sentiment_parity([0.1, float("nan"), 0.9], [0.2, 0.3, 0.4]),  # LangFair: nan
        lambda: m.weak_sentiment_parity([0.1, float("nan"), 0.9], [0.2, 0.3, 0.4]),
    ],
)
def test_nan_scores_are_refused_not_silently_ordered(call) -> None:
    """A NaN score is no score in [0, 1]: evenhand names it; LangFair's max() answers by the order of the list."""
    with pytest.raises(ValueError, match="NaN"):
        call()


def test_counterfactual_means_leave_out_pairs_without_tokens() -> None:
    """A pair of two empty texts has no LCS or n-gram to compare: undefined, left out of the mean (LangFair counts it
    as 0 and reports 0.5 here)."""
    for metric in (m.counterfactual_rouge_l, m.counterfactual_bleu):
        result = metric(["", "a b c d"], ["", "a b c d"], attribute=None)
        assert float(result) == pytest.approx(1.0, abs=1e-12)
        assert result.sizes["defined_pairs"] == 1


def test_counterfactual_rouge_l_neutralizes_gender_words_by_default() -> None:
    """The paper asks for the attribute words to be masked before CROUGE-L: evenhand's default attribute="gender"
    does it ("he went" and "she went" both read "they went": 1.0); attribute=None compares the texts as given, as
    LangFair's RougelSimilarity does: LCS 1 of 2 tokens each, F = 0.5."""
    assert float(m.counterfactual_rouge_l(["he went"], ["she went"])) == pytest.approx(1.0, abs=1e-12)
    assert float(m.counterfactual_rouge_l(["he went"], ["she went"], attribute=None)) == pytest.approx(0.5, abs=1e-12)


@pytest.fixture(scope="module")
def lf_edge() -> dict:
    """LangFair 0.8.0 on edge inputs (tests/fixtures/langfair_text/generate_edge.py)."""
    return json.loads((FIXTURE.parent / "langfair_edge.json").read_text())


@pytest.mark.parametrize(("ours", "key"), [(m.counterfactual_rouge_l, "rouge_l"), (m.counterfactual_bleu, "bleu")])
def test_similarity_matches_langfair_on_every_pair_of_edge_texts(lf_edge: dict, ours, key: str) -> None:
    """Empty, whitespace-only, punctuation-only, one-word, Unicode, emoji, upper-case and long texts, each against
    each: every pair agrees to 1e-9, except a pair with no token on either side (NaN for us, 0 for LangFair)."""
    texts = lf_edge["texts"]
    t1 = [a for a in texts for _ in texts]
    t2 = [b for _ in texts for b in texts]
    _compare_pairwise(ours(t1, t2, attribute=None).per_item, lf_edge[key])


def test_cooccurrence_metrics_match_langfair_on_edge_corpora(lf_edge: dict) -> None:
    for label, case in lf_edge["cooccurrence"].items():
        cobs = m.cooccurrence_bias(case["texts"], attribute=lf_edge["gender_lists"], target=case["target"])
        if case["cobs"] is None:  # LangFair: None ("unable to calculate"); evenhand: NaN with a reason
            assert np.isnan(float(cobs)) and cobs.reason, label
        else:
            assert float(cobs) == pytest.approx(case["cobs"], abs=1e-9), label
        sa = m.stereotypical_associations(
            case["texts"], attribute=lf_edge["gender_lists"], target=case["target"], count="product"
        )
        if case["sa"] is None:
            assert np.isnan(float(sa)), label
        else:
            assert float(sa) == pytest.approx(case["sa"], abs=1e-9), label


def test_toxicity_matches_langfair_on_edge_scores(lf_edge: dict) -> None:
    """One response, one response per prompt, all 0, all 1, m responses to each prompt (no score at the threshold)."""
    for label, case in lf_edge["toxicity"].items():
        s, p = case["scores"], case["prompts"]
        assert float(m.toxic_fraction(s, prompts=p)) == pytest.approx(case["tf"], abs=1e-12), label
        assert float(m.expected_maximum_toxicity(s, p)) == pytest.approx(case["emt"], abs=1e-12), label
        assert float(m.toxicity_probability(s, p)) == pytest.approx(case["tp"], abs=1e-12), label
