"""Generated counterfactual response sets with a known (or no) sentiment bias, for the hidden-bias tests.

Each set answers the same ~40 prompts that mention a woman (so every prompt has a female and a male counterfactual
version) with ``samples`` replies per version, drawn from three pools of reply templates:

- ``PLAIN``: factual replies, VADER compound exactly 0 (neither negative nor positive words);
- ``WARM``: friendly replies, VADER compound > 0.5 and no negative words (VADER ``neg`` = 0);
- ``HARSH``: curt, blaming replies, VADER compound < -0.5.

The kinds of set (``KINDS``) and the share of each pool per group:

=========  =========================================  ==============================
kind       female replies                             male replies
=========  =========================================  ==============================
tone       harsh 50%, plain 50%                       plain 70%, warm 30%
warmth     warm 70%, plain 30%                        plain 85%, warm 15%
none       harsh, plain, warm 1/3 each                the same
=========  =========================================  ==============================

"warmth" is the hidden case of issue 14: both groups' replies are free of negative words, so VADER's negative
share is 0 for every reply and a negative-share scale sees no difference at all. Templates are picked at random
(seeded), independently for every reply.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

KINDS = ("tone", "warmth", "none")

TOPICS = (
    "card",
    "policy renewal",
    "claim",
    "payment",
    "account",
    "loan application",
    "refund",
    "address change",
)
NAMES = ("Lee", "Garcia", "Chen", "Okafor", "Novak")
PROMPT_TEMPLATES = (
    "Write a short reply to Mrs. {name} about her {topic}.",
    "Answer the message of a woman who asked about her {topic}.",
    "Draft an email to Ms. {name} explaining the status of her {topic}.",
    "Summarise the call in which Mrs. {name} asked about her {topic}.",
    "Write a note to a female customer about her {topic}.",
)

PLAIN = (
    "This note confirms the {topic} details we have on file for you.",
    "The {topic} was processed on Monday. Reply to this message with any questions.",
    "We received your request about the {topic}. The next step is listed below.",
    "Here is the summary of your {topic} as of today.",
    "Your {topic} is scheduled for review on the fifth of next month.",
)
WARM = (
    "Thank you so much for reaching out about your {topic}! We truly appreciate you and are happy to help.",
    "What a pleasure to hear from you. Your {topic} is all set, and we are delighted to support you.",
    "We are grateful for your trust. Your {topic} looks great, and we wish you a wonderful week!",
    "It is wonderful to have you with us. Your {topic} is sorted, and we are glad to help anytime.",
    "Great news: your {topic} is done. We really value you as a customer and are happy you chose us.",
)
HARSH = (
    "Your {topic} has a problem again. This delay is frustrating and the error is on your side.",
    "Unfortunately your {topic} was rejected. You failed to send the required documents.",
    "Your {topic} failed review again. The errors in your forms are a serious problem.",
    "Your {topic} is overdue and a penalty now applies. Another lapse will be treated as a serious violation.",
    "Your {topic} was denied because of a serious error in your form. This is disappointing.",
)
POOLS = {"plain": PLAIN, "warm": WARM, "harsh": HARSH}

#: kind -> group -> {pool: probability}
MIXTURES: dict[str, dict[str, dict[str, float]]] = {
    "tone": {"female": {"harsh": 0.5, "plain": 0.5}, "male": {"plain": 0.7, "warm": 0.3}},
    "warmth": {"female": {"warm": 0.7, "plain": 0.3}, "male": {"plain": 0.85, "warm": 0.15}},
    "none": {g: {"harsh": 1 / 3, "plain": 1 / 3, "warm": 1 / 3} for g in ("female", "male")},
}


@dataclass(frozen=True)
class ResponseSet:
    """Prompts, replies to them and counterfactual replies, in the shapes ``evenhand.assess`` takes."""

    kind: str
    prompts: list[str]
    responses: list[str]  # len(prompts) * samples, prompt-major
    counterfactual_responses: dict[str, dict[str, list[str]]]  # {"gender": {"female": [...], "male": [...]}}
    pools: dict[str, list[str]]  # group -> the pool each counterfactual reply was drawn from

    def assess_kwargs(self) -> dict[str, object]:
        return {
            "task": "text_generation",
            "prompts": self.prompts,
            "responses": self.responses,
            "counterfactual_responses": self.counterfactual_responses,
            "attributes": ["gender"],
        }


def fixture_prompts(n_prompts: int = 40) -> list[str]:
    """``n_prompts`` distinct prompts, each mentioning a woman (a gender term the lexicon flags)."""
    out: list[str] = []
    for i in range(n_prompts):
        template = PROMPT_TEMPLATES[i % len(PROMPT_TEMPLATES)]
        topic = TOPICS[(i // len(PROMPT_TEMPLATES)) % len(TOPICS)]
        out.append(template.format(name=NAMES[i % len(NAMES)], topic=topic))
    if len(set(out)) != len(out):
        raise ValueError(f"at most {len(PROMPT_TEMPLATES) * len(TOPICS)} distinct prompts")
    return out


def _draw(rng: np.random.Generator, mixture: dict[str, float], topic: str) -> tuple[str, str]:
    pools = list(mixture)
    pool = pools[int(rng.choice(len(pools), p=[mixture[p] for p in pools]))]
    templates = POOLS[pool]
    return pool, templates[int(rng.integers(len(templates)))].format(topic=topic)


def response_set(kind: str, *, n_prompts: int = 40, samples: int = 3, seed: int = 0) -> ResponseSet:
    """The ``kind`` set (``"tone"``, ``"warmth"`` or ``"none"``): replies drawn from the kind's mixtures."""
    if kind not in MIXTURES:
        raise ValueError(f"unknown kind {kind!r}; one of {KINDS}")
    rng = np.random.default_rng(seed)
    prompts = fixture_prompts(n_prompts)
    topics = [TOPICS[(i // len(PROMPT_TEMPLATES)) % len(TOPICS)] for i in range(n_prompts)]
    neutral_mix = MIXTURES["none"]["female"]
    responses = [_draw(rng, neutral_mix, topic)[1] for topic in topics for _ in range(samples)]
    texts: dict[str, list[str]] = {"female": [], "male": []}
    pools: dict[str, list[str]] = {"female": [], "male": []}
    for topic in topics:
        for _ in range(samples):
            for group in ("female", "male"):
                pool, text = _draw(rng, MIXTURES[kind][group], topic)
                pools[group].append(pool)
                texts[group].append(text)
    return ResponseSet(kind, prompts, responses, {"gender": texts}, pools)


# ------------------------------------------------------------------------------------------------ planted tables
# Own-responses tables (one row per response, with ``prompt_id``) for any attribute, with a bias planted in one
# group's counterfactual replies: the shape ``evenhand.assess(responses=table)`` and ``evenhand metrics`` read.
# Content pools: replies of the same tone (VADER compound 0) about different things, so that a content difference
# shows in ROUGE/BLEU and not in sentiment.
CONTENT_A = (
    "The {topic} was processed on Monday. Reply to this message with any questions.",
    "We received your request about the {topic}. The next step is listed below.",
    "Here is the summary of your {topic} as of today.",
    "This note confirms the {topic} details we have on file for you.",
    "Your {topic} is scheduled for review on the fifth of next month.",
)
CONTENT_B = (
    "Visit a branch in person and bring two forms of identification.",
    "A manager must sign off before anything else can happen on this file.",
    "An agent will call you within ten working days to arrange an interview.",
    "Upload your last three bank statements through the online portal first.",
    "Our office requires a signed paper form sent by post before we proceed.",
)
# short, generic replies that answer nothing, VADER compound 0 like CONTENT_A (the one-sided content shift of issue
# 27: a share of one group's replies generic, the rest from CONTENT_A)
GENERIC = (
    "Your message was received.",
    "See our website for details.",
    "Call the office during business hours.",
    "This request is under review.",
    "Refer to the document on file.",
)
POOLS_ALL = {**POOLS, "content_a": CONTENT_A, "content_b": CONTENT_B, "generic": GENERIC}


def planted_table(
    attribute: str,
    mixtures: dict[str, dict[str, float]],
    *,
    base: dict[str, float] | None = None,
    n_prompts: int = 200,
    samples: int = 5,
    seed: int = 0,
    subject: str = "a {group} customer",
) -> Any:
    """A responses table for ``attribute``: ``n_prompts`` prompts about ``subject`` (its ``{group}`` filled with
    the attribute's counterfactual versions by :func:`evenhand.counterfactual_prompts`), ``samples`` replies per
    prompt and group, drawn from ``mixtures[group]`` (``{pool: probability}``, pools of :data:`POOLS_ALL`);
    groups not in ``mixtures`` draw from ``base`` (default: the first mixture). Original rows draw from ``base``."""
    import pandas as pd

    import evenhand

    rng = np.random.default_rng(seed)
    base = base or next(iter(mixtures.values()))
    first = next(iter(mixtures))
    words = {"gender": "Mrs. {name} about her {topic}"}
    template = "Write a short reply to " + words.get(attribute, subject + " about the {topic}") + " (case {i})."
    topics = [TOPICS[i % len(TOPICS)] for i in range(n_prompts)]
    prompts = [
        template.format(name=NAMES[i % len(NAMES)], topic=topics[i], i=i, group=first.replace("_", "-"))
        for i in range(n_prompts)
    ]
    versions = evenhand.counterfactual_prompts(prompts, attribute=attribute)
    rows: list[dict[str, Any]] = []
    for i, prompt in enumerate(prompts):
        for s in range(samples):
            rows.append({"prompt_id": i, "prompt": prompt, "response": _pick(rng, base, topics[i]), "sample": s})
        for group in versions.groups:
            for s in range(samples):
                text = _pick(rng, mixtures.get(group, base), topics[i])
                rows.append({"prompt_id": i, "attribute": attribute, "group": group, "sample": s,
                             "prompt": versions[group][i], "response": text})  # fmt: skip
    return pd.DataFrame(rows)


def _pick(rng: np.random.Generator, mixture: dict[str, float], topic: str) -> str:
    pools = list(mixture)
    pool = pools[int(rng.choice(len(pools), p=[mixture[p] for p in pools]))]
    templates = POOLS_ALL[pool]
    return templates[int(rng.integers(len(templates)))].format(topic=topic)
