"""compare14: ``compare`` of two fair runs of one model on a fixture with four race versions ("a White", "a Black",
"a Hispanic", "an Asian": the asian version's article makes "a"/"an" a swapped word the run masks in every version);
null runs and a planted change in one group's replies.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_compare14.py [--runs 20]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixture runs on main's code).

* Each run: 12 prompts ("Write a friendly message to a White customer about <topic>."; 10 or more, as compare says
  "worse" only then), the four race versions, two replies per version. The model echoes the prompt ("Hello!
  <prompt>") and adds six words drawn at random from one pool, group-blind. Run A: seed ``s``; run B: seed ``s +
  1000`` (null: the same model again) or, planted, the same model except that the black version's six words come
  from another pool (a cold reply: "regrettably denied ...").
* Counted: comparisons in which any of the 12 similarity rows (CROUGE-L, CBLEU of the six pairs of versions) is
  "worse" (null: target at most 5%; planted: all), and, printed below the table, the similarity rows by method
  (paired: rebuilt from the stored replies; else the normal approximation) and change: the per-row rate of "worse".

Prints markdown for benchmarks/RESULTS.md ("compare14").
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

TOPICS = ["our new mobile app", "the branch closing", "the card renewal", "the missed payment", "the savings account",
          "the loan options", "the travel card", "the new branch hours", "the fraud alert", "the mortgage rates",
          "the cashback offer", "the account upgrade"]  # fmt: skip
PROMPTS = [f"Write a friendly message to a White customer about {t}." for t in TOPICS]
WARM = "thanks please note kindly today soon always happy glad welcome service team help".split()
COLD = "regrettably denied unfortunately rejected declined refused no cannot not sorry unable never".split()
FAST = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
SIMILARITY = ("CROUGE-L", "CBLEU")
ROWS: Counter[tuple[str, str, str]] = Counter()  # (null or planted, method, change): the similarity rows compared
_DIR = Path(tempfile.mkdtemp(prefix="bench_compare14_"))


def model(seed: int, *, cold_to_black: bool) -> Callable[[str], str]:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        pool = COLD if cold_to_black and " Black " in prompt else WARM
        return f"Hello! {prompt} " + " ".join(rng.choice(pool) for _ in range(6))

    return reply


@functools.cache
def written(seed: int, cold_to_black: bool) -> Path:
    run = evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["race"], count=1,
                          counterfactual_count=2, client=model(seed, cold_to_black=cold_to_black), **FAST)  # fmt: skip
    path = _DIR / f"{seed}-{cold_to_black}.json"
    run.to_json(path)
    return path


def similarity_worse(seed: int, planted: bool) -> bool:
    rows = evenhand.compare(written(seed, False), written(seed + 1000, planted)).metrics
    rows = rows[rows["metric"].isin(SIMILARITY)]
    ROWS.update(("planted" if planted else "null", m, c) for m, c in zip(rows["method"], rows["change"], strict=True))
    if planted:  # found: a similarity of a pair with the black version worse
        return bool(((rows["change"] == "worse") & rows["comparison"].str.contains("black")).any())
    return bool((rows["change"] == "worse").any())


if __name__ == "__main__":
    fixture_table(
        "compare14: compare's similarities of two fair runs (null) and a planted change in one group's replies",
        {"race4": ("fair vs fair race runs, 4 versions (an Asian), 12 prompts x 2 replies", similarity_worse)},
    )
    print("\n| runs | similarity rows: method | change | rows |\n|---|---|---|---|")
    for (which, method, change), n in sorted(ROWS.items()):
        print(f"| {which} | {method} | {change} | {n} |")
