"""Worst-sentence toxicity scoring on insults embedded in long benign replies (docs/scorers.md).

A labelled set, built here (seeded): 100 long benign customer-service replies (6-10 sentences drawn from benign
templates) with one insulting sentence inserted at a random place, and 100 without. Each reply is scored by the
offline default toxicity scorer as the pipeline builds it (identity-masked), once as a whole text and once sentence
by sentence (a reply as toxic as its worst sentence). Printed: the share flagged (score >= 0.5) among the replies
with an insult (recall) and among the clean ones (false-positive rate), for both, and the scoring time.

    PYTHONPATH=$PWD python benchmarks/bench_worst_sentence.py
"""

from __future__ import annotations

import time

import numpy as np

from evenhand.scorers import get_toxicity_scorer
from evenhand.scorers.masking import IdentityMaskedScorer
from evenhand.scorers.sentences import WorstSentenceScorer

BENIGN = (
    "Thank you for contacting us about your {topic}.",
    "I have looked into your {topic} and everything is in order.",
    "The next statement will show the change within two business days.",
    "If anything looks wrong, reply to this message and we will check it again.",
    "Our branch in the city centre is open from nine to five on weekdays.",
    "You can also follow the status of your {topic} in the mobile app.",
    "We have updated the address on file as you asked.",
    "A confirmation letter is on its way to you by post.",
    "Please keep this reference number for your records: 48213.",
    "The fee for this service has been waived this time.",
    "Your adviser, Mrs. Novak, will call you on Tuesday morning.",
    "We appreciate your patience while we reviewed the documents.",
    "The new card will arrive within five to seven days.",
    "Interest is calculated daily and paid at the end of each month.",
    "If you travel abroad, let us know so that your card keeps working.",
    "Have a pleasant week, and thank you for banking with us.",
)
INSULTS = (
    "Honestly, you are a stupid idiot for not reading the form.",
    "Only a moron would make this mistake twice.",
    "Stop wasting our time with your dumb questions.",
    "You people are pathetic and lazy.",
    "Frankly, this is the kind of crap we expect from someone like you.",
    "What an idiotic request, even for you.",
    "Nobody cares about your whining.",
    "You are too dumb to fill in a simple form.",
)
TOPICS = ("card", "loan application", "account", "refund", "address change", "mortgage", "savings plan")


def labelled_set(n: int = 100, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """``2 n`` replies (``n`` with one insult inserted, ``n`` without) and their labels (1: insult)."""
    rng = np.random.default_rng(seed)
    texts, labels = [], []
    for insulted in (True, False):
        for _ in range(n):
            topic = TOPICS[int(rng.integers(len(TOPICS)))]
            k = int(rng.integers(6, 11))
            sentences = [BENIGN[i].format(topic=topic) for i in rng.choice(len(BENIGN), size=k, replace=False)]
            if insulted:
                sentences.insert(int(rng.integers(k + 1)), INSULTS[int(rng.integers(len(INSULTS)))])
            texts.append(" ".join(sentences))
            labels.append(int(insulted))
    return texts, np.asarray(labels)


def main() -> None:
    texts, labels = labelled_set()
    whole = IdentityMaskedScorer(get_toxicity_scorer())
    by_sentence = WorstSentenceScorer(IdentityMaskedScorer(get_toxicity_scorer()))
    words = np.mean([len(t.split()) for t in texts])
    print(f"{len(texts)} replies ({int(labels.sum())} with one insult), {words:.0f} words on average")
    for name, scorer in (("whole reply", whole), ("worst sentence", by_sentence)):
        start = time.perf_counter()
        scores = scorer(texts)
        took = time.perf_counter() - start
        flagged = scores >= 0.5
        print(
            f"{name:15s} flagged with insult {flagged[labels == 1].mean():6.1%}  clean (false positives) "
            f"{flagged[labels == 0].mean():6.1%}  mean score insult {scores[labels == 1].mean():.3f} clean "
            f"{scores[labels == 0].mean():.3f}  ({took * 1000:.0f} ms)"
        )


if __name__ == "__main__":
    main()
