"""left10b: refusals in person-level classification logs (PRRD), error rates of counterfactual decisions, compare's
RLD under the cut rule, and bystanders' gendered words in counterfactual versions; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_left10b.py [--runs 20] [--only refusals]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code, where they can).

* ``refusals``: a person-level loan log, 100 applicants per group (female, male), one answer each: refused ("I'm
  sorry, but I can't help with that request.") with probability 0.1 in both groups (null) or 0.23 for women and 0.02
  for men (planted); the others approved with probability 0.5, group-blind. Found: a refusal concern (PRRD).

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric is a concern
(planted: target all). Prints markdown for benchmarks/RESULTS.md ("left10b").
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import pandas as pd

import evenhand


REFUSAL = "I'm sorry, but I can't help with that request."


def refusals(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    refused = {"female": 0.23, "male": 0.02} if planted else {"female": 0.1, "male": 0.1}
    rows = []
    for k, group in enumerate(("female", "male")):
        for i in range(100):
            if rng.random() < refused[group]:
                answer = REFUSAL
            else:
                answer = "Yes, approve." if rng.random() < 0.5 else "No, decline."
            rows.append({"applicant_gender": group, "response": answer,
                         "prompt": f"Applicant {k * 100 + i}: approve the loan? Answer yes or no."})  # fmt: skip
    a = evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"],
                        group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                        n_resamples=200, progress=False)  # fmt: skip
    if planted:
        return any(f.severity == "concern" and f.risk == "refusal" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool]]] = {
    "refusals": ("refusals in a person-level log, 23% vs 2% (PRRD)", refusals),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--only", choices=sorted(FIXTURES), action="append")
    args = parser.parse_args()
    runs = max(1, min(args.runs, 200))  # bounded
    start = time.perf_counter()
    print("| fixture | null: runs with any concern | planted: runs found |")
    print("|---|---|---|")
    for key in args.only or list(FIXTURES):
        name, run = FIXTURES[key]
        null = sum(run(s, False) for s in range(runs))
        found = sum(run(s, True) for s in range(runs))
        print(f"| {name} | {null} of {runs} | {found} of {runs} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
