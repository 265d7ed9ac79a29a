"""unread17: a verdict never says OK about what it could not read; replies in several currencies get a caveat.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_unread17.py [--runs 20]

* ``decisions``: deploy17's 200 stored decisions, one per person, half women, the person's group given, answers
  "approve"/"deny". Null: a fair table (no gap) read with labels ``{"1": ["approve"], "0": ["deny"]}``; counted:
  runs whose verdict says "not judged" (status or summary), target 0 (nothing changes where decisions are read).
  Planted: the same table (fair, or 0.3 fewer approvals for women on odd seeds) with the default yes/no labels, so
  that no decision is read; counted: runs whose status is ``not judged`` and whose summary names DP, target all.
* ``numbers``: estimation over 12 salary requests x 2 answers from a fair callable. Null: every reply "$70,0xx";
  counted: "not judged" in the verdict. Planted: every reply "It depends on the role." (no number, no refusal), so
  CER and CED are unread; counted: status ``not judged`` naming CER.
* ``currencies``: the same fair callable. Null: every amount in dollars; counted: runs with a currency caveat,
  target 0. Planted: every fourth request answered in yen; counted: runs whose caveat names JPY and USD.

Prints markdown for benchmarks/RESULTS.md ("unread17").
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from test_pipeline_person_groups_given import _decisions

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
WORDS = {"1": ["approve"], "0": ["deny"]}


#: the null runs with a concern, per fixture (the house's false-concern rate, target at most 5%)
CONCERNS: dict[str, int] = {}


def _says_not_judged(a: evenhand.Assessment, fixture: str) -> bool:
    CONCERNS[fixture] = CONCERNS.get(fixture, 0) + (a.verdict.count("concern") > 0)
    return a.verdict.status == "not judged" or "not judged" in a.verdict.summary


def decisions(seed: int, planted: bool) -> bool:
    table = _decisions(seed, gap=0.3 if planted and seed % 2 else 0.0)
    labels = {} if planted else {"label_parser": WORDS}
    a = evenhand.assess(task="classification", responses=table.drop(columns=["truth", "gender"]),
                        attributes=["gender"], labels=table["truth"].tolist(), groups=table["gender"].tolist(),
                        **FAST, **labels, seed=seed)  # fmt: skip
    if planted:
        return a.verdict.status == "not judged" and "DP" in a.verdict.summary
    return _says_not_judged(a, "decisions")


def _estimation(seed: int, reply: Any) -> evenhand.Assessment:
    prompts = [f"Salary for Mr. Lee, case {i}?" for i in range(12)]
    return evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2,
                           **FAST, seed=seed)  # fmt: skip


def _reply(seed: int, yen: bool, number: bool = True) -> Any:
    rng = random.Random(seed)
    base = {i: rng.randrange(60_000, 90_000) for i in range(12)}

    def reply(prompt: str, **_: Any) -> str:  # fair: a version's group never changes its amount
        case = int(prompt.split("case ")[1].split("?")[0])
        if not number:
            return "It depends on the role and the market."
        noise = random.Random(hash(prompt) % 10_000 + seed).randrange(-2000, 2000)
        if yen and case % 4 == 0:
            return f"I'd offer ¥{(base[case] + noise) * 100:,}."
        return f"I'd offer ${base[case] + noise:,}."

    return reply


def numbers(seed: int, planted: bool) -> bool:
    a = _estimation(seed, _reply(seed, yen=False, number=not planted))
    if planted:
        return a.verdict.status == "not judged" and "CER" in a.verdict.summary
    return _says_not_judged(a, "numbers")


def currencies(seed: int, planted: bool) -> bool:
    a = _estimation(seed, _reply(seed, yen=planted))
    if not planted:
        CONCERNS["currencies"] = CONCERNS.get("currencies", 0) + (a.verdict.count("concern") > 0)
    caveats = [c for c in a.caveats if "currencies" in c]
    return bool(caveats) and (not planted or ("JPY" in caveats[0] and "USD" in caveats[0]))


ROWS = {"decisions": decisions, "numbers": numbers, "currencies": currencies}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    runs = max(1, min(args.runs, 200))  # bounded
    start = time.perf_counter()
    print("| fixture | null: runs flagged (target 0) | null: runs with a concern | planted: runs found (target all) |")
    print("|---|---|---|---|")
    for name, run in ROWS.items():
        null = sum(bool(run(s, False)) for s in range(runs))
        found = sum(bool(run(s, True)) for s in range(runs))
        print(f"| {name} | {null} of {runs} | {CONCERNS.get(name, 0)} of {runs} | {found} of {runs} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
