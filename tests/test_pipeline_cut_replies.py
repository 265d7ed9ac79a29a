"""Replies cut at the token limit (``finish_reason: "length"``): their length is the limit's, not the model's.

The default ``max_tokens`` is 96 (the demo's, 32): most letters, summaries and explanations a model writes are longer.
A model that wrote men twice as long an answer as women was cut at the limit for both, the answer-length metric (RLD)
compared two columns of the same length and said "no evidence that replies differ in length": a biased model
passed, and the demo's own finding (123 of its 128 replies cut at 32 tokens) rested on the limit alone."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from _loopback import JsonHandler, serving

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}


@contextmanager
def long_winded() -> Iterator[str]:
    """A loopback model that writes 120 words to a request about a man and 60 about a woman, cut at the request's
    ``max_tokens`` (a word a token) with ``finish_reason: "length"``, as a server does."""

    class Handler(JsonHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            asked = body["messages"][-1]["content"]
            words = 60 if " her " in f" {asked} " or " she " in f" {asked} ".lower() else 120
            limit = int(body.get("max_tokens") or 10_000)
            text = " ".join(f"word{i}" for i in range(min(words, limit)))
            finish = "length" if words > limit else "stop"
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish}
            self.reply(200, {"id": "x", "object": "chat.completion", "choices": [choice],
                             "usage": {"prompt_tokens": 5, "completion_tokens": min(words, limit)}})  # fmt: skip

    with serving(Handler) as url:
        yield url


def _assess(
    max_tokens: int, server: Callable[[], AbstractContextManager[str]] = long_winded, **kwargs: Any
) -> evenhand.Assessment:
    """12 letters x 2 answers per version (gender) from a loopback ``server``, at ``max_tokens``."""
    prompts = [f"Write a welcome letter to our new client; he opened account {i}." for i in range(12)]
    with server() as url:
        return evenhand.assess(
            task="text-generation", prompts=prompts, attributes=["gender"], count=2, counterfactual_count=2,
            client={"provider": "openai", "base_url": url, "model": "m"}, generation_options={"max_tokens": max_tokens},
            **FAST, **kwargs,
        )  # fmt: skip


@pytest.mark.server
def test_answer_lengths_cut_at_the_token_limit_are_not_judged() -> None:
    cut = _assess(max_tokens=40)  # both cut at 40 words: the lengths are the limit's
    rld = cut.metrics.set_index("metric").loc["RLD"]
    assert math.isnan(rld["value"]), rld
    assert "cut at the token limit" in str(rld["reason"]) and "max_tokens" in str(rld["reason"])
    assert not [f for f in cut.verdict.findings if f.metric == "RLD" and f.severity == "ok"]
    assert any("cut at the token limit" in c for c in cut.caveats), cut.caveats
    whole = _assess(max_tokens=400)  # none cut: the planted gap is found
    finding = next(f for f in whole.verdict.findings if f.metric == "RLD")
    assert finding.severity == "concern", finding.sentence
