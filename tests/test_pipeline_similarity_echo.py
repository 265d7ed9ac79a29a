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


@pytest.mark.parametrize("random_replies", [True, False])
def test_a_fair_assistant_that_echoes_a_title_or_a_two_letter_pronoun_gets_no_concern(random_replies: bool) -> None:
    """review12: the words of two letters in which the versions differ were left as written ("Ms"/"Mr", "he", "is"),
    while the longer ones became one token ("she", "Mrs"); the neutralization then read "Mr. [NAME]" as "Mx. [NAME]"
    and "he" as "they", and kept "Ms. [NAME]" (the title rule wants a capitalised name after it) and the token for
    "she": a fair assistant that wrote "Dear Ms. Lee, ... she ..." / "Dear Mr. Lee, ... he ..." differed between
    versions by those words in every reply, a CROUGE-L and CBLEU concern on gender (also at temperature 0, whose
    replies to one version are identical). Every word in which the versions differ is now masked alike; so are the
    singular-they verbs of the nonbinary version ("she is" / "they are")."""
    texts = [f"Write a short note to Ms. Lee: she is waiting to hear about {topic}." for topic in TOPICS]
    pronoun = re.compile(r": (\w+) (?:is|are)")

    def agreeing(prompt: str) -> str:  # a verb the prompt does not hold, agreeing with the version's pronoun
        said = pronoun.search(prompt).group(1)  # type: ignore[union-attr]
        return f'Regarding "{prompt}": All done; {said} {"were" if said == "they" else "was"} told.'

    client = echoing() if random_replies else agreeing
    for groups in (None, ["female", "male", "nonbinary"]):
        a = evenhand.assess(
            task="text_generation", prompts=texts, attributes=["gender"], client=client, count=1,
            counterfactual_count=2, embedder=BagOfWords(), n_resamples=200, store=None, progress=False, seed=0,
            **({"attribute_groups": {"gender": groups}} if groups else {}),
        )  # fmt: skip
        similarity = [e for f in a.verdict.findings for e in f.evidence if e.metric in ("CCS", "CROUGE-L", "CBLEU")]
        assert len(similarity) == (9 if groups else 3), a.verdict.summary
        assert all(e.severity == "ok" for e in similarity), a.verdict.summary
        if not random_replies:
            rows = a.metrics[a.metrics["metric"].isin(["CROUGE-L", "CBLEU", "CCS"])]
            assert (rows["value"].round(9) == 1).all(), rows[["metric", "group_a", "group_b", "value"]]
