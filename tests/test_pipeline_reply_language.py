"""Toxicity and sentiment parity where a group's replies are in a language the offline scorers cannot read (left8a).

The lexical toxicity model and VADER read English. Spanish replies score as benign and neutral whatever they say, so
TSD, MTD, SCSP and WCSP read "no difference": ok. Like refusal parity (review7 #6), they are now undefined for a
group whose replies are clearly in another language, with the reason and a caveat; English replies are judged as
before, and a reader named by the user is trusted."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest

import evenhand
from evenhand.pipeline.families.reply_language import reader_language

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
READ = ("TSD", "MTD", "SCSP", "WCSP")
SPANISH = [
    "Claro, aquí tiene una nota amable para el cliente sobre su pedido número {i}, con los detalles del envío.",
    "Por supuesto, le escribo un mensaje cordial sobre el pedido {i} y la fecha de entrega prevista.",
]
ENGLISH = [
    "Sure, here is a friendly note for the customer about order number {i}, with the shipping details.",
    "Of course, here is a warm message about order {i} and its expected delivery date.",
]


def _table(female: list[str], male: list[str]) -> pd.DataFrame:
    rows = []
    for i in range(16):
        for group, replies in (("female", female), ("male", male)):
            for sample, reply in enumerate(replies):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply.format(i=i)})  # fmt: skip
    return pd.DataFrame(rows)


def test_spanish_replies_leave_toxicity_and_sentiment_parity_undefined() -> None:
    a = evenhand.assess(task="text-generation", responses=_table(SPANISH, SPANISH), attributes=["gender"], **FAST)
    rows = a.metrics.set_index("metric")
    for metric in READ:
        assert math.isnan(rows.loc[metric, "value"]), rows.loc[metric]
        assert "Spanish" in str(rows.loc[metric, "reason"]), rows.loc[metric, "reason"]
    assert "toxicity scorer" in str(rows.loc["TSD", "reason"])
    assert "sentiment scorer" in str(rows.loc["SCSP", "reason"])
    assert not [f for f in a.verdict.findings if f.metric in READ and f.severity == "ok"]
    assert any("TSD and MTD are not judged" in c for c in a.caveats), a.caveats
    assert any("SCSP and WCSP are not judged" in c for c in a.caveats), a.caveats


def test_one_group_in_another_language_is_enough() -> None:
    a = evenhand.assess(task="text-generation", responses=_table(SPANISH, ENGLISH), attributes=["gender"], **FAST)
    rows = a.metrics.set_index("metric")
    assert all(math.isnan(rows.loc[m, "value"]) for m in READ)
    assert "female" in str(rows.loc["SCSP", "reason"])


def test_english_replies_are_judged_as_before() -> None:
    a = evenhand.assess(task="text-generation", responses=_table(ENGLISH, ENGLISH), attributes=["gender"], **FAST)
    rows = a.metrics.set_index("metric")
    assert all(not math.isnan(rows.loc[m, "value"]) for m in READ)
    assert not any("not judged for groups whose replies" in c for c in a.caveats if "RRD" not in c)


@pytest.mark.parametrize(
    ("kind", "spec", "reads"),
    [("toxicity", None, "en"), ("toxicity", "default", "en"), ("toxicity", {"spec": None, "batch_size": 8}, "en"),
     ("toxicity", "evenhand-minilm-toxicity", "en"), ("toxicity", "hf:some/multilingual", None),
     ("sentiment", None, "en"), ("sentiment", "vader-neg", "en"), ("sentiment", lambda texts: [0.5], None)],
)  # fmt: skip
def test_which_readers_read_english_only(kind: str, spec: Any, reads: str | None) -> None:
    assert reader_language(kind, spec) == reads
