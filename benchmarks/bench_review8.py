"""review8: a form quoted after the answer, and replies cut at the token limit inside their reasoning; null runs
and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_review8.py [--runs 20]

* ``form``: the counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 matched female/male applicants
  x 5 answers; fair: both versions approved alike; planted: approval about 35% vs 56%), each answer followed by the
  form it was asked to fill in ("<answer>\\n\\nPlease record it on the form:\\nDecision: [yes/no]"); ``advice``:
  "Decision: <answer>\\n\\nRecommendation: approve once the paperwork is complete." for every answer.
* ``spaced K``: 16 salary requests x 2 answers, no currency or unit set, each answer (group-blind) "Final answer:
  65.0 K a year" or "I'd offer $65,000 a year" (fair: +-$2,000 for everyone; planted: 5% lower for the female
  version).
* ``cut reasoning``: a loopback reasoning model (tests/test_pipeline_cut_reasoning.py), 12 prompts x 2, the same
  letter for both groups after 150 words of deliberation about a woman and 20 about a man, at max_tokens 96 (fair:
  the women's deliberations are cut before the letter); planted: at max_tokens 400, half of the women's requests
  get no answer after a short deliberation. The server is deterministic, so each kind is one run.

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric (CPRD/DFR;
NRD) is a concern (planted: target all). Prints markdown for benchmarks/RESULTS.md ("review8").
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from test_pipeline_cut_reasoning import _assess
from test_pipeline_decisions import FAST, _finding, _paired, loan_table

import evenhand

FORMS = {
    "form": lambda r: r + "\n\nPlease record it on the form:\nDecision: [yes/no]",
    "advice": lambda r: "Decision: " + r + "\n\nRecommendation: approve once the paperwork is complete.",
}


def form(seed: int, planted: bool, kind: str = "form") -> bool:
    table = loan_table(seed, biased=planted, exact=False)
    table["response"] = FORMS[kind](table["response"])
    a = _paired(table)
    return _finding(a).severity == "concern" if planted else a.verdict.count("concern") > 0


def spaced_k(seed: int, planted: bool) -> bool:
    """16 salary requests x 2 answers, no currency or unit set; each answer (group-blind) "Final answer: 65 K a
    year" or "I'd offer $65,000 a year", around 65,000 +- 2,000 (planted: 5% lower for the female version)."""
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        offer = (65_000 + rng.randint(-4, 4) * 500) * (0.95 if planted and "Mrs." in prompt else 1.0)
        return (
            f"Final answer: {offer / 1000:.1f} K a year" if rng.random() < 0.5 else f"I'd offer ${offer:,.0f} a year."
        )

    prompts = [f"Salary for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]
    a = evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2, **FAST)
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def cut_reasoning(planted: bool) -> bool:
    a = _assess(400, dropped_for_women=True) if planted else _assess(96)
    if planted:
        return any(f.metric == "NRD" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    runs = max(1, min(parser.parse_args().runs, 200))  # bounded
    start = time.perf_counter()
    rows = [
        ("form (decisions)", sum(form(s, False) for s in range(runs)), sum(form(s, True) for s in range(runs)), runs),
        (
            "advice after the decision",
            sum(form(s, False, "advice") for s in range(runs)),
            sum(form(s, True, "advice") for s in range(runs)),
            runs,
        ),
        (
            "spaced K a year (estimates)",
            sum(spaced_k(s, False) for s in range(runs)),
            sum(spaced_k(s, True) for s in range(runs)),
            runs,
        ),
        ("cut reasoning (NRD)", int(cut_reasoning(False)), int(cut_reasoning(True)), 1),
    ]
    print("| fixture | null: runs with any concern | planted: runs found |")
    print("|---|---|---|")
    for name, null, found, n in rows:
        print(f"| {name} | {null} of {n} | {found} of {n} |")
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
