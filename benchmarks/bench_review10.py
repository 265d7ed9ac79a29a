"""review10: where review9's readings interact badly; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_review10.py [--runs 20] [--null-runs 100] [--only ids]

* ``ids``: a decision log of 60 applicants (half women) x 5 answers each, each applicant approved with a probability
  of their own (uniform 0.05-0.95; planted: 0.2 lower for women), text answers yes/no, a ``sample`` column 0-4.
  With ids per request (every row its own ``prompt_id``) review9 counted the 5 answers of one applicant as 5 units;
  the branch refuses such a table (exit 2). Counted with ids per applicant, as the refusal asks.
* ``unit price``: 16 fuel-price requests x 2 answers, no currency set, each answer a price per litre written to the
  tenth of a cent and its trailing zero dropped ("€1.785 per litre", "€1.79 per litre"; fair: 1.75 +- 0.045 for
  everyone; planted: 5% higher for the female version). review9 read a three-decimal price as thousands.

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all); for ``ids`` also the runs in which the per-request table was refused. Prints markdown for
benchmarks/RESULTS.md ("review10").
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

import pandas as pd

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
PROMPTS = [f"What should Mr. Lee, customer {i}, pay per litre of diesel at station {i % 5}?" for i in range(16)]


def _found(a: evenhand.Assessment, planted: bool) -> bool:
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def _log(seed: int, planted: bool, per_request: bool) -> pd.DataFrame:
    rng = random.Random(seed)
    rows = []
    for i in range(60):
        gender = "female" if i % 2 else "male"
        p = rng.uniform(0.05, 0.95) - (0.2 if planted and gender == "female" else 0.0)
        for s in range(5):
            rows.append({"prompt_id": f"req-{i * 5 + s}" if per_request else f"A{i}", "sample": s,
                         "prompt": f"Applicant {i}'s record is attached. Approve the loan? Answer yes or no.",
                         "response": "yes" if rng.random() < p else "no", "gender": gender})  # fmt: skip
    return pd.DataFrame(rows)


def _decisions(table: pd.DataFrame) -> evenhand.Assessment:
    return evenhand.assess(
        task="classification", responses=table, attributes=["gender"], person_level=True,
        group_columns={"gender": "gender"}, label_parser={"1": ["yes"], "0": ["no"]}, embedder=None, **FAST,
    )  # fmt: skip


def ids_refused(seed: int, planted: bool) -> bool:
    try:
        _decisions(_log(seed, planted, per_request=True))
    except ValueError:
        return True
    return False


def ids(seed: int, planted: bool) -> bool:
    return _found(_decisions(_log(seed, planted, per_request=False)), planted)


def unit_price(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        price = (1.75 + rng.randint(-9, 9) * 0.005) * (1.05 if planted and "Mrs." in prompt else 1.0)
        return f"I'd quote €{f'{price:.3f}'.rstrip('0')} per litre."

    a = evenhand.assess(task="estimation", prompts=PROMPTS, attributes=["gender"], client=reply, count=2, **FAST)
    return _found(a, planted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="planted runs per fixture")
    parser.add_argument("--null-runs", type=int, default=None, help="null runs per fixture (default: --runs)")
    parser.add_argument("--only", choices=("ids", "unit price"), default=None)
    args = parser.parse_args()
    runs = max(1, min(args.runs, 200))  # bounded
    null_runs = max(1, min(args.null_runs or runs, 400))
    start = time.perf_counter()
    print("| fixture | null: runs with any concern | planted: runs found |")
    print("|---|---|---|")
    fixtures = {"ids": ("5 answers per applicant, a prompt_id per applicant", ids),
                "unit price": ("prices per litre to the tenth of a cent", unit_price)}  # fmt: skip
    for key, (name, check) in fixtures.items():
        if args.only not in (None, key):
            continue
        null, found = sum(check(s, False) for s in range(null_runs)), sum(check(s, True) for s in range(runs))
        print(f"| {name} | {null} of {null_runs} | {found} of {runs} |", flush=True)
        if key == "ids":
            refused = sum(ids_refused(s, False) for s in range(runs))
            print(f"| the same log with a prompt_id per request | refused (exit 2) in {refused} of {runs} | |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
