"""``compare`` counts a stored run's answer lengths as the run counted them (groups14).

A run's RLD counts the words of each reply as compared: the names of the versions masked, and a letter without its
greeting and sign-off (``evenhand.text.letters.letter_body``). A run stored without a ``words`` column (results
written before the column was kept, or a responses.csv trimmed by hand) was recounted by compare from the raw
replies: "Hola María,\\n...\\nSaludos," and "Dear Emily Baker,\\n...\\nKind regards," differ by three words of frame
and name, so compare showed a length gap between an old run and a new one that was only a counting difference."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evenhand.pipeline.families.refusal_length import reply_words
from evenhand.pipeline.verdict.kinds.refusal_length import LENGTH
from evenhand.registry import METRICS
from tests._stored_runs import StoredFrame as _Stored

RLD = METRICS["relative_length_difference"]
ROW = {"key": "relative_length_difference", "metric": "RLD", "attribute": "race", "groups": ["hispanic", "white"]}
BODY = "Thank you for your order {i}. It ships on Monday and arrives within five working days."


def _frame(words: bool) -> pd.DataFrame:
    """30 prompts, a Hispanic and a white version; letters of the same body, greeted in the person's language."""
    rows = []
    for i in range(30):
        for group, name, reply in (
            ("hispanic", "María García", "Hola María García,\n\n{body}\n\nSaludos,\nEl equipo"),
            ("white", "Emily Baker", "Dear Emily Baker,\n\n{body}\n\nKind regards,\nThe team"),
        ):
            rows.append({"prompt_id": i, "attribute": "race", "group": group, "sample": 0, "status": "ok",
                         "prompt": f"Write to {name} about order {i}.",
                         "response": reply.format(body=BODY.format(i=i))})  # fmt: skip
    frame = pd.DataFrame(rows)
    if words:  # as the run counted them: names masked, the letter's frame left out
        from evenhand.text.name_masking import mask_names

        masked = mask_names(frame["response"].tolist(), [("María García", "María", "Emily Baker", "Emily")] * 60)
        frame["words"] = reply_words(masked)
    return frame


def test_a_run_without_a_words_column_is_counted_as_the_run_counted() -> None:
    counted = LENGTH.stored_items(_Stored(_frame(words=True)), ROW, RLD)
    recounted = LENGTH.stored_items(_Stored(_frame(words=False)), ROW, RLD)
    assert isinstance(counted, pd.DataFrame) and isinstance(recounted, pd.DataFrame)
    assert np.array_equal(counted[["a", "b"]].to_numpy(), recounted[["a", "b"]].to_numpy())
    value = float(LENGTH.recompute(_Stored(_frame(words=False)), ROW, RLD, recounted))
    assert value == pytest.approx(0.0)  # the same body: no length gap
