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
