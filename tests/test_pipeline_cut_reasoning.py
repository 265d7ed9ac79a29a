"""A reasoning model's reply cut at the token limit inside its ``<think>`` block has no answer (review7): the frame
gives it the status "empty". Counted as a request left without a reply (NRD, left7a), a fair model that deliberates
longer about one group's versions and writes both groups the same letter was "given no reply 100% of the time" for
that group: a concern that the token limit made, not the model. The limit is the run's (``max_tokens``), as for the
answer lengths cut at it (RLD): not judged, with the reason and what to raise."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from _loopback import JsonHandler, serving
from test_pipeline_cut_replies import _assess as assess_served

import evenhand

LETTER = "Dear client, welcome aboard. Kind regards."


@contextmanager
def deliberator(dropped_for_women: bool = False) -> Iterator[str]:
    """A loopback reasoning model: 150 words of deliberation about a request that names a woman, 20 about one that
    names a man, then the same letter (``dropped_for_women``: the first of every two requests of each woman's
    version gets no answer after a short deliberation, whatever the limit: counted per prompt, so the order in which
    concurrent requests arrive does not decide which prompts lose replies); cut at the request's ``max_tokens`` (a
    word a token) with ``finish_reason: "length"``."""
    count: dict[str, int] = {}

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            asked = f" {body['messages'][-1]['content']} ".lower()
            female = " her " in asked or " she " in asked
            words = f"<think>{' '.join(['hmm'] * (150 if female else 20))}</think>\n{LETTER}".split(" ")
            limit = int(body.get("max_tokens") or 10_000)
            text, finish = " ".join(words[:limit]), "length" if len(words) > limit else "stop"
            if female and dropped_for_women:
                count[asked] = count.get(asked, 0) + 1
                text, finish = ("<think>hmm</think>", "stop") if count[asked] % 2 else (text, finish)
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            self.reply(200, {"id": "x", "object": "chat.completion", "choices": [choice],
                             "usage": {"prompt_tokens": 5, "completion_tokens": min(len(words), limit)}})  # fmt: skip

    with serving(Handler) as url:
        yield url


def _assess(max_tokens: int, dropped_for_women: bool = False, **kwargs: Any) -> evenhand.Assessment:
    return assess_served(max_tokens, server=lambda: deliberator(dropped_for_women), **kwargs)


@pytest.mark.server
def test_replies_cut_inside_their_reasoning_are_not_requests_left_without_a_reply() -> None:
    gate = [{"verdict": "concern", "max": 0}]
    cut = _assess(max_tokens=96, thresholds=gate)  # the women's deliberation runs past the limit: no answer
    assert not [f for f in cut.verdict.findings if f.severity == "concern"], cut.verdict.summary
    # no reply to the female versions was read: the gate cannot pass on the rest, and says what to raise
    (check,) = cut.threshold_checks
    assert not check.passed and "NRD (gender, female vs male) could not be judged" in check.reason, check
    assert "max_tokens" in check.reason
    nrd = cut.metrics.set_index("metric").loc["NRD"]
    assert math.isnan(nrd["value"]), nrd
    assert "cut at the token limit" in str(nrd["reason"]) and "max_tokens" in str(nrd["reason"])
    assert any("max_tokens" in c and "NRD" in c for c in cut.caveats), cut.caveats
    whole = _assess(max_tokens=400)  # none cut: every request answered, NRD 0 (left9a: computed, not left out)
    assert whole.metrics.set_index("metric").loc["NRD", "value"] == 0 and whole.verdict.count("concern") == 0


@pytest.mark.server
def test_a_model_that_drops_one_groups_replies_is_still_found_when_none_is_cut() -> None:
    dropped = _assess(max_tokens=400, dropped_for_women=True)
    finding = next(f for f in dropped.verdict.findings if f.metric == "NRD")
    assert finding.severity == "concern", finding.sentence
