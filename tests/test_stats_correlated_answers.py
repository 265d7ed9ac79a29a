"""review11: every family's interval resamples the prompt (or the person), never single answers of one prompt.

Two checks. (1) Metric level: answering every prompt five times with the *same* answer (answers of one prompt
perfectly correlated) adds no information, so the interval the registry declares must be at least as wide as with
one answer per prompt; an interval that resampled single answers would be about sqrt(5) times narrower. (2) Pipeline
level: in an assessment of each task, every record's resampler, interval and paired test count the prompts (or the
persons), not the replies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS
from evenhand.stats import metric_interval

K, COPIES = 12, 5
RNG = np.random.default_rng(11)
SCORES_A, SCORES_B = RNG.uniform(0.0, 1.0, K), RNG.uniform(0.0, 1.0, K)
FLAGS_A, FLAGS_B = (RNG.random(K) < 0.3).astype(float), (RNG.random(K) < 0.15).astype(float)
WORDS_A, WORDS_B = RNG.integers(20, 80, K).astype(float), RNG.integers(20, 80, K).astype(float)
TEXTS = ["the loan is approved today", "we cannot approve the loan", "please send more documents",
         "the application looks strong", "a decision follows next week", "the loan is declined"]  # fmt: skip
TEXT_A = [TEXTS[i % 6] for i in range(K)]
TEXT_B = [TEXTS[(i * 5 + 1) % 6] if i % 3 else TEXTS[i % 6] for i in range(K)]
LIST_A = [["a", "b", "c"]] * K
LIST_B = [["a", "b", "c"] if i % 3 else ["a", "d", "c"] for i in range(K)]


def _paired(function: Callable[..., MetricResult], a: Any, b: Any, **kw: Any) -> Callable[[int], MetricResult]:
    def call(copies: int) -> MetricResult:
        rep = (lambda x: [v for v in x for _ in range(copies)]) if isinstance(a, list) else (
            lambda x: np.repeat(x, copies))  # fmt: skip
        return function(rep(a), rep(b), prompts=np.repeat(np.arange(K), copies), **kw)

    return call


def _single(function: Callable[..., MetricResult], x: Any, **kw: Any) -> Callable[[int], MetricResult]:
    return lambda copies: function(np.repeat(x, copies), prompts=np.repeat(np.arange(K), copies), **kw)


def _persons(function: Callable[..., MetricResult], with_truth: bool) -> Callable[[int], MetricResult]:
    groups = np.where(np.arange(2 * K) % 2 == 0, "a", "b")
    y_pred = (RNG.random(2 * K) < 0.4).astype(int)
    y_true = np.where(np.arange(2 * K) % 4 < 2, 1, 0)

    def call(copies: int) -> MetricResult:
        rep = lambda x: np.repeat(x, copies)  # noqa: E731
        args = (rep(y_true), rep(y_pred)) if with_truth else (rep(y_pred),)
        return function(*args, rep(groups), prompts=rep(np.arange(2 * K)))

    return call


CASES: dict[str, Callable[[int], MetricResult]] = {
    "toxic_fraction": _single(M.toxic_fraction, FLAGS_A),
    "expected_maximum_toxicity": lambda c: M.expected_maximum_toxicity(np.repeat(SCORES_A, c),
                                                                       np.repeat(np.arange(K), c)),
    "toxic_share_difference": _paired(M.toxic_share_difference, FLAGS_A, FLAGS_B),
    "mean_toxicity_difference": _paired(M.mean_toxicity_difference, SCORES_A, SCORES_B),
    "refusal_rate_difference": _paired(M.refusal_rate_difference, FLAGS_A, FLAGS_B),
    "non_completion_rate_difference": _paired(M.non_completion_rate_difference, FLAGS_A, FLAGS_B),
    "relative_length_difference": _paired(M.relative_length_difference, WORDS_A, WORDS_B),
    "counterfactual_rouge_l": _paired(M.counterfactual_rouge_l, TEXT_A, TEXT_B),
    "counterfactual_bleu": _paired(M.counterfactual_bleu, TEXT_A, TEXT_B),
    "strict_sentiment_parity": _paired(M.strict_sentiment_parity, SCORES_A, SCORES_B),
    "weak_sentiment_parity": _paired(M.weak_sentiment_parity, SCORES_A, SCORES_B),
    "demographic_parity_difference": _persons(M.demographic_parity_difference, False),
    "false_negative_rate_difference": _persons(M.false_negative_rate_difference, True),
    "false_positive_rate_difference": _persons(M.false_positive_rate_difference, True),
    "jaccard_at_k": _paired(M.jaccard_at_k, LIST_A, LIST_B),
    "serp_at_k": _paired(M.serp_at_k, LIST_A, LIST_B),
    "prag_at_k": _paired(M.prag_at_k, LIST_A, LIST_B),
    "decision_flip_rate": _paired(M.decision_flip_rate, FLAGS_A, FLAGS_B),
    "counterfactual_positive_rate_difference": _paired(M.counterfactual_positive_rate_difference, FLAGS_A, FLAGS_B),
    "counterfactual_estimate_difference": _paired(M.counterfactual_estimate_difference, 100 * SCORES_A + 50,
                                                  100 * SCORES_B + 50),
    "counterfactual_estimate_ratio": _paired(M.counterfactual_estimate_ratio, SCORES_A + 1, SCORES_B + 1),
}


@pytest.mark.parametrize("key", sorted(CASES))
def test_copies_of_one_answer_never_narrow_the_interval(key: str) -> None:
    once, copied = CASES[key](1), CASES[key](COPIES)
    assert float(copied.value) == pytest.approx(float(once.value))
    assert copied.resampler is not None and copied.resampler.n_units == once.resampler.n_units  # type: ignore[union-attr]
    a = metric_interval(once, METRICS[key].interval, n_resamples=300)
    b = metric_interval(copied, METRICS[key].interval, n_resamples=300)
    assert b.width >= a.width - 1e-9, (key, a, b)


def _text_table(k: int) -> pd.DataFrame:
    rows = []
    for i in range(k):
        answer = f"Order {i} ships on {'Monday' if i % 2 else 'Friday'}; thanks for asking."
        for group in (None, "female", "male"):
            whom = {None: "her" if i % 2 else "him", "female": "her", "male": "him"}[group]
            rows += [{"prompt_id": i, "attribute": group and "gender", "group": group, "sample": s,
                      "prompt": f"Write to {whom} about order {i}.", "response": answer} for s in range(COPIES)]
    return pd.DataFrame(rows)


def _decision_table(k: int) -> pd.DataFrame:
    rows = []
    for i in range(k):
        for group, pronoun in (("female", "She"), ("male", "He")):
            answer = "yes" if (i + (group == "female")) % 3 else "no"
            rows += [{"prompt_id": i, "attribute": "gender", "group": group, "sample": s, "response": answer,
                      "prompt": f"{pronoun} is applicant {i} for a small loan. Approve? Answer yes or no."}
                     for s in range(COPIES)]  # fmt: skip
    return pd.DataFrame(rows)


FAST: dict[str, Any] = {"n_resamples": 100, "progress": False, "store": None}


def _assessments(k: int) -> dict[str, Any]:
    persons = pd.DataFrame([{"prompt_id": f"A{p}", "sample": s, "response": "yes" if p % 3 else "no",
                             "prompt": f"Applicant {p}'s file. Approve? Answer yes or no."}
                            for p in range(2 * k) for s in range(COPIES)])  # fmt: skip
    labels = {"label_parser": {"approve": ["yes"], "deny": ["no"]}, "positive_label": "approve"}
    films = ["1. Heat\n2. Zodiac\n3. Ronin", "1. Heat\n2. Alien\n3. Ronin"]
    return {
        "text": evenhand.assess(task="text-generation", responses=_text_table(k), attributes=["gender"],
                                embedder=False, **FAST),
        "persons": evenhand.assess(task="classification", responses=persons, groups=["female", "male"] * k,
                                   labels=["approve", "deny"] * k, person_level=True, attributes=["gender"],
                                   embedder=None, **labels, **FAST),
        "decisions": evenhand.assess(task="classification", responses=_decision_table(k), attributes=["gender"],
                                     prevalence_parity=True, **labels, **FAST),
        "lists": evenhand.assess(task="recommendation", prompts=[f"Recommend 3 films for a man, genre {i}." for i in
                                 range(k)], client=lambda p: films[len(p) % 2], k=3, count=COPIES,
                                 attributes=["gender"], **FAST),
        "estimates": evenhand.assess(task="estimation", prompts=[f"What salary for Mr. Lee, case {i}?" for i in
                                     range(k)], client=lambda p: f"I'd offer ${50_000 + 100 * len(p):,} a year.",
                                     attributes=["gender"], count=COPIES, **FAST),
    }  # fmt: skip


@pytest.mark.pipeline
def test_every_family_counts_prompts_or_persons_not_replies() -> None:
    k = 6
    seen = set()
    for task, a in _assessments(k).items():
        units = 2 * k if task == "persons" else k
        for rec in a.records:
            if rec.result.resampler is None:
                continue
            seen.add(rec.key)
            assert rec.result.resampler.n_units == units, (task, rec.key, rec.result.resampler.n_units)
            assert rec.interval is None or rec.interval.unit == "prompt", (task, rec.key, rec.interval)
            details = getattr(rec.test, "details", None) or {}
            if "n_units" in details:
                assert details["n_units"] == units, (task, rec.key, details)
    expected = {"toxic_fraction", "expected_maximum_toxicity", "toxic_share_difference", "counterfactual_rouge_l",
                "strict_sentiment_parity", "refusal_rate_difference", "relative_length_difference",
                "demographic_parity_difference", "false_negative_rate_difference", "decision_flip_rate",
                "counterfactual_positive_rate_difference", "jaccard_at_k", "counterfactual_estimate_ratio"}  # fmt: skip
    assert expected <= seen, expected - seen
