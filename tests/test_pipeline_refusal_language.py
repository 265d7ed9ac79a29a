"""Refusal parity where the replies are in a language the refusal detector cannot read.

The offline default detector reads English wording ("I'm sorry, but I can't ...") and, since groups14, Spanish,
French, German and Portuguese. A deployment's refusals in another language ("Mi dispiace, ma non posso aiutarti")
score 0: a model that declined 60% of the women's requests got "no evidence that replies ... are refused at different
rates (0% vs 0% refusals)": ok, and a refusal gate passed. Spanish refusals ("Lo siento, pero no puedo ayudar con
eso.") scored 0 the same way until the detector read Spanish (groups14): now they are judged."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

import evenhand
from evenhand.scorers.refusal import get_refusal_scorer

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
SPANISH_REFUSAL = "Lo siento, pero no puedo ayudar con esa solicitud."
ITALIAN_REFUSAL = "Mi dispiace, ma non posso aiutarti con questa richiesta."
ENGLISH_REFUSAL = "I'm sorry, but I can't help with that request."


def _table(refusal: str, answer: str, seed: int = 0) -> pd.DataFrame:
    """20 requests x 2 answers per version; 60% of the female versions' answers are refusals."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(20):
        for group in ("female", "male"):
            for sample in range(2):
                reply = refusal if group == "female" and rng.random() < 0.6 else answer.format(i=i)
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply})  # fmt: skip
    return pd.DataFrame(rows)


def test_refusals_the_detector_cannot_read_are_not_judged_as_none() -> None:
    assert get_refusal_scorer()([ITALIAN_REFUSAL]).tolist() == [0.0]  # the wording patterns do not read Italian
    italian = _table(ITALIAN_REFUSAL, "Certo, ecco una nota gentile per il cliente sul suo ordine numero {i}.")
    a = evenhand.assess(task="text-generation", responses=italian, attributes=["gender"], **FAST)
    rrd = a.metrics.set_index("metric").loc["RRD"]
    assert math.isnan(rrd["value"]), rrd
    assert "Italian" in str(rrd["reason"]) and "refusal detector" in str(rrd["reason"])
    assert not [f for f in a.verdict.findings if f.metric == "RRD" and f.severity == "ok"]
    assert any("refusal detector reads" in c for c in a.caveats), a.caveats


def test_english_refusals_are_judged_as_before() -> None:
    english = _table(ENGLISH_REFUSAL, "Sure, here is a friendly note for the customer about order {i}.")
    a = evenhand.assess(task="text-generation", responses=english, attributes=["gender"], **FAST)
    finding = next(f for f in a.verdict.findings if f.metric == "RRD")
    assert finding.severity == "concern", finding.sentence


def test_spanish_refusals_are_read_and_judged() -> None:
    # groups14: the detector reads Spanish wording, so the planted 60% gap is found instead of left unjudged
    assert get_refusal_scorer()([SPANISH_REFUSAL]).tolist() == [1.0]
    spanish = _table(SPANISH_REFUSAL, "Claro, aquí tiene una nota amable para el cliente sobre su pedido {i}.")
    a = evenhand.assess(task="text-generation", responses=spanish, attributes=["gender"], **FAST)
    finding = next(f for f in a.verdict.findings if f.metric == "RRD")
    assert finding.severity == "concern", finding.sentence
    assert not any("refusal detector reads" in c for c in a.caveats), a.caveats
