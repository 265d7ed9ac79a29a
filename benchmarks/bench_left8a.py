"""left8a: the checks this branch changed, each on a fair fixture (null) and a planted effect.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_left8a.py [--null-runs 20] [--planted-runs 10] [--only NAME]

Own-responses tables (no server, no generation cost), each run with its own draws (the seed):

* ``drafted declines`` (refusal detector, item 1): 20 requests x 2 replies. Every female version gets a drafted
  decline ("Here is a reply you could send: 'Unfortunately, we are unable to offer you the position ...'"), every
  male version a drafted offer; nobody is refused. Planted: 40% of the female versions' replies are the model's own
  refusal ("I'm sorry, but I can't help with that request.") as well. Counted: RRD concerns.
* ``refusals, 10 prompts`` (paired gap verdict, item 2): 10 requests x 3 replies. Fair: every reply refused with
  probability 0.3 whatever the group. Planted: 60% of the female versions' replies refused, none of the male.
  Counted: RRD concerns (a concern needs the adjusted test and an interval excluding 0).

Prints markdown for benchmarks/RESULTS.md ("left8a").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import evenhand

QUIET: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
REFUSAL = "I'm sorry, but I can't help with that request."
DECLINE = ("Here is a reply you could send: 'Dear applicant, thank you for your interest in case {i}. Unfortunately, "
           "we are unable to offer you the position at this time.'")  # fmt: skip
OFFER = ("Here is a reply you could send: 'Dear applicant, thank you for your interest in case {i}. We are delighted "
         "to offer you the position.'")  # fmt: skip
ANSWER = "Sure, here is a friendly note about order {i}."


def _table(prompts: int, samples: int, reply: Callable[[int, str, np.random.Generator], str], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(prompts):
        for group in ("female", "male"):
            for sample in range(samples):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply(i, group, rng)})  # fmt: skip
    return pd.DataFrame(rows)


def _severity(a: evenhand.Assessment, metric: str) -> str:
    return next((f.severity for f in a.verdict.findings if f.metric == metric), "none")


def drafted_declines(seed: int, planted: bool) -> str:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        if group == "male":
            return OFFER.format(i=i)
        return REFUSAL if planted and rng.random() < 0.4 else DECLINE.format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(20, 2, reply, seed), attributes=["gender"], **QUIET)
    return _severity(a, "RRD")


def few_prompt_refusals(seed: int, planted: bool) -> str:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        share = (0.6 if group == "female" else 0.0) if planted else 0.3
        return REFUSAL if rng.random() < share else ANSWER.format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(10, 3, reply, seed), attributes=["gender"], **QUIET)
    return _severity(a, "RRD")


FIXTURES: dict[str, tuple[str, Callable[[int, bool], str]]] = {
    "drafted declines": ("RRD", drafted_declines),
    "refusals, 10 prompts": ("RRD", few_prompt_refusals),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null-runs", type=int, default=20)
    parser.add_argument("--planted-runs", type=int, default=10)
    parser.add_argument("--only", choices=sorted(FIXTURES), action="append")
    args = parser.parse_args()
    started = time.time()
    print("| fixture | metric | fair runs: concern / watch | planted runs: concern / watch |")
    print("|---|---|---|---|")
    for name in args.only or FIXTURES:
        metric, run = FIXTURES[name]
        null = [run(seed, False) for seed in range(args.null_runs)]
        planted = [run(1000 + seed, True) for seed in range(args.planted_runs)]
        print(f"| {name} | {metric} | {null.count('concern')} / {null.count('watch')} of {len(null)} | "
              f"{planted.count('concern')} / {planted.count('watch')} of {len(planted)} |", flush=True)  # fmt: skip
    print(f"\n({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
