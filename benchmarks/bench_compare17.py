"""compare17: two runs of one config on one fair model, compared (null), and a second run whose model refuses one
group more (planted); every row of the comparison counted by how it was compared, and why a row was not.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_compare17.py [--runs 20]

* Each run: 20 prompts ("Write a short note to Mrs. Lee about her card.": 4 names x 5 topics), the gender versions,
  one reply per prompt and two per version (the demo config's counts). The model is group-blind: a polite reply of
  six words drawn at random from one pool, refused ("I'm sorry, but I can't help with that.") with probability 0.05.
  Run A: seed ``s``; run B: seed ``s + 1000`` (null: the same model again) or, planted, the same model except that
  it refuses the female versions with probability 0.5.
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
WHY: Counter[tuple[str, str]] = Counter()  # (metric, note) of the rows not comparable
CHANGED: Counter[str] = Counter()  # null comparisons with any row worse or better
NAME = (
    "fair vs fair gender runs, 20 prompts (null: any row worse); planted: female versions refused at 50% (found: "
    "gender NRD worse or a refusal finding appeared)"
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
        {"gender": (NAME, compared)},
    )
    print(f"\nnull comparisons with any row worse or better: {CHANGED['any change']}")
    print("\n| runs | method | change | rows |\n|---|---|---|---|")
    for (which, method, change), n in sorted(ROWS.items()):
        print(f"| {which} | {method} | {change} | {n} |")
    print("\n| null: not comparable | note | rows |\n|---|---|---|")
    for (metric, note), n in sorted(WHY.items()):
        print(f"| {metric} | {note} | {n} |")
