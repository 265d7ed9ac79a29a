"""Counterfactual cosine similarity (CCS) compares the replies with the attribute's words neutralized, as CROUGE-L
and CBLEU do, and so does its noise floor: a fair assistant that echoes its version's group words ("you and your
wife" / "you and your husband") differs between versions by those words alone, while two replies to one version do
not, so a raw comparison read the echo as a difference its floor lacked (a false concern on a fair model)."""

from __future__ import annotations

import random
import re
import zlib
from typing import Any

import numpy as np
import pytest

import evenhand

pytestmark = pytest.mark.pipeline  # whole assessments

TOPICS = ("the account opening", "the card delivery", "the online banking login", "the branch visit",
          "the savings plan", "the mobile app", "the loan review", "the address change", "the card limit",
          "the statement", "the direct debit", "the overdraft", "the mortgage offer", "the travel notice")  # fmt: skip
REPLIES = ("Thank you for reaching out, we have updated your file.", "All done: your request is processed.",
           "We reviewed it and everything is in order.", "Our team will follow up with you tomorrow.")  # fmt: skip


class BagOfWords:
    """A small deterministic embedder: word counts hashed into 64 dimensions (a changed word moves the vector)."""

    name = "bag-of-words"

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64))
        for i, text in enumerate(texts):
            for word in re.findall(r"\w+", text.lower()):
                out[i, zlib.crc32(word.encode()) % 64] += 1.0
        return out


def prompts() -> list[str]:
    return [f"Write a short note to a customer and her wife about {topic}." for topic in TOPICS]


def echoing(reply_of: Any = None) -> Any:
    """A fair assistant: one of a few replies drawn at random (the same draw for every group), after an echo of
    the request, group words included."""
    draws = random.Random(0)

    def reply(prompt: str) -> str:
        body = draws.choice(REPLIES)
        return f'Regarding "{prompt}": {reply_of(prompt, body) if reply_of else body}'

    return reply


def _assess(client: Any, texts: list[str] | None = None, attribute: str = "gender") -> evenhand.Assessment:
    return evenhand.assess(
        task="text_generation", prompts=texts or prompts(), attributes=[attribute], client=client, count=1,
        counterfactual_count=3, embedder=BagOfWords(), n_resamples=200, store=None, progress=False, seed=0,
    )  # fmt: skip


def test_a_fair_assistant_that_echoes_the_group_words_gets_no_similarity_concern() -> None:
    a = _assess(echoing())
    similarity = [f for f in a.verdict.findings if f.metric in ("CCS", "CROUGE-L", "CBLEU")]
    assert similarity and all(f.severity == "ok" for f in similarity), a.verdict.summary


def test_a_reply_that_changes_beyond_the_echo_is_still_caught() -> None:
    def curt_to_men(prompt: str, body: str) -> str:
        return "No." if "husband" in prompt else body

    a = _assess(echoing(curt_to_men))
    concerns = [f for f in a.verdict.findings if f.risk == "counterfactual" and f.severity == "concern"]
    assert concerns, a.verdict.summary


def test_group_words_the_lexicon_reads_only_before_a_person_noun_are_masked_alike() -> None:
    """The race versions of "a Hispanic small-business owner" are "a White small-business owner", "a Black ...": the
    lexicon reads "White" as race only right before a person noun, so neutralizing masked "Hispanic" and left
    "White", and a fair echo differed by a word in every pair with the hispanic version (concerns on a fair model).
    The words in which the versions' prompts differ are masked alike in every version before comparing."""
    texts = [f"Write a short message to a Hispanic small-business owner about {topic}." for topic in TOPICS]
    a = _assess(echoing(), texts, "race")
    similarity = [f for f in a.verdict.findings if f.metric in ("CCS", "CROUGE-L", "CBLEU")]
    assert similarity and all(f.severity == "ok" for f in similarity), a.verdict.summary
    rows = a.metrics[a.metrics["metric"].isin(["CROUGE-L", "CCS"])]
    assert len(rows) == 12 and rows["value"].notna().all()
