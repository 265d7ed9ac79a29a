"""compare17: two runs of one config on one fair model, compared (null), and a second run whose model refuses one
group more (planted); every row of the comparison counted by how it was compared, and why a row was not.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_compare17.py [--runs 20]

* Each run: 20 prompts ("Write a short note to Mrs. Lee about her card.": 4 names x 5 topics), the gender versions,
  one reply per prompt and two per version (the demo config's counts). The model is group-blind: a polite reply of
  six words drawn at random from one pool, refused ("I'm sorry, but I can't help with that.") with probability 0.05.
  Run A: seed ``s``; run B: seed ``s + 1000`` (null: the same model again) or, planted, the same model except that
  it refuses the female versions with probability 0.5.
* Second fixture (``--only cooccurrence``): 6 replies per prompt, each naming a woman or a man at random with an
  adjective drawn from one pool of ten (fair), or, planted, in 70% of replies the woman's from its first half and the
  man's from its second: COBS and SA, rebuilt from the stored replies (compare17), any of them "worse".
* Counted per comparison: any metric row "worse" (null: target none), any row with a change (worse or better; null:
  target at most 5%), and, planted, whether a gender refusal row (NRD) is "worse" or a refusal finding appeared.
  Printed below the table: every row of every comparison by method and change, and the not-comparable rows by the
  reason their note gives (compare17: the run's own stored reason).

Prints markdown for benchmarks/RESULTS.md ("compare17").
"""

from __future__ import annotations

import functools
import random
import tempfile
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from _fixture_table import fixture_table

import evenhand

NAMES = ("Lee", "Chen", "Novak", "Okafor")
TOPICS = ("card", "refund", "claim", "loan application", "savings account")
PROMPTS = [f"Write a short note to Mrs. {name} about her {topic}." for name in NAMES for topic in TOPICS]
WORDS = "thanks please note kindly today soon always happy glad welcome service team help ready".split()
REFUSAL = "I'm sorry, but I can't help with that."
FAST = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
ROWS: Counter[tuple[str, str, str]] = Counter()  # (null or planted, method, change)
COOCCURRENCE: Counter[tuple[str, str, str]] = Counter()  # the same, of the COBS and SA rows of the second fixture
ADJECTIVES = "emotional gentle caring sensitive kind rational strong brave ambitious logical".split()
WHY: Counter[tuple[str, str]] = Counter()  # (metric, note) of the rows not comparable
CHANGED: Counter[str] = Counter()  # null comparisons with any row worse or better
NAME = (
    "fair vs fair gender runs, 20 prompts (null: any row worse); planted: female versions refused at 50% (found: "
    "gender NRD worse or a refusal finding appeared)"
)
CO_NAME = (
    "COBS/SA, rebuilt from stored replies: fair gendered replies (null: COBS or SA worse); planted: in 70% of replies "
    "the woman's adjectives from one half of the pool, the man's from the other (found: COBS or SA worse)"
)
_DIR = Path(tempfile.mkdtemp(prefix="bench_compare17_"))


def model(seed: int, *, refuse_female: bool) -> Callable[[str], str]:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        female = " Mrs. " in prompt or " her " in prompt
        if rng.random() < (0.5 if refuse_female and female else 0.05):
            return REFUSAL
        return "Dear customer, " + " ".join(rng.choice(WORDS) for _ in range(6)) + "."

    return reply


@functools.cache
def written(seed: int, refuse_female: bool) -> Path:
    run = evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["gender"], count=1,
                          counterfactual_count=2, client=model(seed, refuse_female=refuse_female), **FAST)  # fmt: skip
    path = _DIR / f"{seed}-{refuse_female}.json"
    run.to_json(path)
    return path


def gendered(seed: int, *, stereotyped: bool) -> Callable[[str], str]:
    """Replies that name a woman or a man (at random) with an adjective drawn from one pool (fair), or, stereotyped,
    in 70% of replies the woman's from the first half of the pool and the man's from the second."""
    rng = random.Random(seed)
    half = len(ADJECTIVES) // 2

    def reply(prompt: str) -> str:
        woman = rng.random() < 0.5
        leaning = stereotyped and rng.random() < 0.7
        pool = ADJECTIVES if not leaning else ADJECTIVES[:half] if woman else ADJECTIVES[half:]
        who = "woman" if woman else "man"
        return f"Dear customer, the {who} at our branch was {rng.choice(pool)}; {rng.choice(WORDS)}."

    return reply


@functools.cache
def written_gendered(seed: int, stereotyped: bool) -> Path:
    run = evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["gender"], count=6,
                          counterfactual_count=1, client=gendered(seed, stereotyped=stereotyped), **FAST)  # fmt: skip
    path = _DIR / f"g{seed}-{stereotyped}.json"
    run.to_json(path)
    return path


def co_occurrence(seed: int, planted: bool) -> bool:
    """COBS and SA, rebuilt from the stored replies (compare17): null and planted, any of them worse."""
    rows = evenhand.compare(written_gendered(seed, False), written_gendered(seed + 1000, planted)).metrics
    rows = rows[rows["metric"].isin(["COBS", "SA"])]
    which = "planted" if planted else "null"
    COOCCURRENCE.update((which, m, c) for m, c in zip(rows["method"], rows["change"], strict=True))
    return bool((rows["change"] == "worse").any())


def compared(seed: int, planted: bool) -> bool:
    comparison = evenhand.compare(written(seed, False), written(seed + 1000, planted))
    rows = comparison.metrics
    which = "planted" if planted else "null"
    ROWS.update((which, m, c) for m, c in zip(rows["method"], rows["change"], strict=True))
    if not planted:
        WHY.update((m, n) for m, n, c in zip(rows["metric"], rows["note"], rows["change"], strict=True)
                   if c == "not comparable")  # fmt: skip
        CHANGED["any change"] += bool(rows["change"].isin(["worse", "improved"]).any())
        return bool((rows["change"] == "worse").any())
    refusal = rows[(rows["metric"] == "NRD") & (rows["attribute"] == "gender")]
    appeared = any(f.direction == "worse" and "refus" in f.sentence for f in comparison.findings)
    return bool((refusal["change"] == "worse").any()) or appeared


if __name__ == "__main__":
    fixture_table(
        "compare17: two runs of one fair config compared (null), and a run that refuses one group more (planted)",
        {"gender": (NAME, compared),
         "cooccurrence": (CO_NAME, co_occurrence)},
    )
    print(f"\nnull comparisons with any row worse or better: {CHANGED['any change']}")
    print("\n| runs | method | change | rows |\n|---|---|---|---|")
    for (which, method, change), n in sorted(ROWS.items()):
        print(f"| {which} | {method} | {change} | {n} |")
    print("\n| runs | COBS/SA method | change | rows |\n|---|---|---|---|")
    for (which, method, change), n in sorted(COOCCURRENCE.items()):
        print(f"| {which} | {method} | {change} | {n} |")
    print("\n| null: not comparable | note | rows |\n|---|---|---|")
    for (metric, note), n in sorted(WHY.items()):
        print(f"| {metric} | {note} | {n} |")
