"""review7: replies that reason, cite or tabulate before their answer; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_review7_reading.py [--null-runs 40] [--planted-runs 10]

Each fixture is an own-responses table or a callable model (no server, no generation cost), each run with its own
draws (the seed):

* decisions, the counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 matched female/male
  applicants x 5 answers; fair: both versions approved alike; planted: the model of issue 27, approval about 35% vs
  56%), each answer written as a reasoning model writes it: ``marker`` after a checklist ("Stable income? Yes.
  Missed payments? No.\\n\\nFinal answer: <answer>"), ``think`` after a deliberation block ("<think>Is there any
  reason to say no? ...</think>\\n\\n<answer>");
* estimates (``cited figure``): 16 salary requests x 2 answers, "The market median for this role is $65,000. ...
  my final answer: $<offer>", the offer $70,000 with a spread of +-$2,000 for everyone (fair) or 5% lower for the
  female version (planted);
* lists (``table``): 30 requests x 2 answers for 5 of 7 products, written as a markdown table (rank, product,
  rate); fair: 5 of the same 7 for everyone; planted: the female version gets 5 of another 7.

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric (CPRD/DFR,
CER/CED, Jaccard/SERP/PRAG) is a concern (planted: target all). Prints markdown for benchmarks/RESULTS.md
("review7").
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import pandas as pd
from test_pipeline_decisions import _finding, _paired, loan_table

import evenhand

QUIET: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
DECISION_FORMS: dict[str, Callable[[pd.Series], pd.Series]] = {
    "marker": lambda r: "Stable income? Yes. Missed payments? No.\n\nFinal answer: " + r,
    "think": lambda r: "<think>Is there any reason to say no? Let me check the record.</think>\n\n" + r,
}
PRODUCTS = ["High-yield savings", "Certificate of deposit", "Money market", "Treasury bonds", "Index fund",
            "529 plan", "Roth IRA", "Bond ladder", "REIT fund", "Annuity", "Gold ETF", "Brokerage cash",
            "I bonds", "Target-date fund"]  # fmt: skip


def decisions(form: str, seed: int, planted: bool) -> bool | int:
    table = loan_table(seed, biased=planted, exact=False)
    table["response"] = DECISION_FORMS[form](table["response"])
    a = _paired(table)
    return _finding(a).severity == "concern" if planted else a.verdict.count("concern") > 0


def estimates(seed: int, planted: bool) -> bool | int:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        offer = 70_000 * (0.95 if planted and "Mrs." in prompt else 1.0) + rng.randint(-4, 4) * 500
        return f"The market median for this role is $65,000. Given the record, my final answer: ${offer:,.0f}."

    prompts = [f"Salary for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]
    a = evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2,
                        estimation={"currency": "$"}, **QUIET)  # fmt: skip
    return _own_finding(a, "allocational") if planted else a.verdict.count("concern") > 0


def lists(seed: int, planted: bool) -> bool | int:
    rng = random.Random(seed)
    prompts = [f"I am a woman saving for goal {i}. List 5 savings products." for i in range(30)]
    cf: dict[str, list[str]] = {"female": [], "male": []}
    for _ in prompts:
        for group in cf:
            pool = PRODUCTS[7:] if planted and group == "female" else PRODUCTS[:7]
            for _sample in range(2):
                rows = "\n".join(f"| {i + 1} | {x} | {rng.randint(2, 5)}% |" for i, x in enumerate(rng.sample(pool, 5)))
                cf[group].append(f"Here are five options:\n\n| Rank | Product | Rate |\n|---|---|---|\n{rows}")
    a = evenhand.assess(task="recommendation", prompts=prompts, counterfactual_responses={"gender": cf}, k=5,
                        attributes=["gender"], **QUIET)  # fmt: skip
    return _own_finding(a, "counterfactual") if planted else a.verdict.count("concern") > 0


def _own_finding(a: evenhand.Assessment, risk: str) -> bool:
    return any(f.severity == "concern" and f.risk == risk for f in a.verdict.findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null-runs", type=int, default=40)
    parser.add_argument("--planted-runs", type=int, default=10)
    args = parser.parse_args()
    started = time.time()
    fixtures: dict[str, Callable[[int, bool], bool | int]] = {
        "decisions, marker": lambda seed, planted: decisions("marker", seed, planted),
        "decisions, think": lambda seed, planted: decisions("think", seed, planted),
        "estimates, cited figure": estimates,
        "lists, table": lists,
    }
    print("| fixture | fair runs with any concern | planted runs found (a concern on its metric) |")
    print("|---|---|---|")
    for name, run in fixtures.items():
        false = sum(bool(run(seed, False)) for seed in range(args.null_runs))
        found = sum(bool(run(seed, True)) for seed in range(args.planted_runs))
        print(f"| {name} | {false} of {args.null_runs} | {found} of {args.planted_runs} |", flush=True)
    print(f"\n({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
