"""Null study and planted effect for conversations, retrieved context and structured decisions (issue 36, items 1-3).

Run: PYTHONPATH=. python benchmarks/bench_deployed.py [--seeds 40] [--penalty 0.3] [--prompts 30]

Each seed runs two use cases end to end (``evenhand.assess``) against the loopback decision server
(``tests/decision_server.py``: an OpenAI-compatible server whose decision is "advance" with the probability the case
states, "strength k/10", minus ``penalty`` for a conversation about a woman, and which answers in the shape the
request asks for):

* **conversation (text)**: text generation over screening conversations (a system prompt, a first turn that names
  the applicant, the assistant's reply, a last turn that asks about "her"/"him"); every other one carries a
  retrieved document about the applicant ("Ms. Baker led her team ..."). The server replies in text ("Decision:
  advance. ..."): every text metric the plan picks (toxicity, sentiment, similarity with its noise floor, refusal
  and length parity), for gender.
* **JSON decision** (``json``): classification over the same conversations, read from the reply's JSON field
  ``decision`` (``response_format: json_object``): DP over the groups the prompts mention and the paired
  counterfactual decisions (DFR, CPRD).
* **tool-call decision** (``tools``): the same, the decision read from which function the reply calls
  (``advance_candidate`` / ``reject_candidate``, the tools made from ``classification.tool``).

The server's seed and the statistics seed change with the seed. A run "has a false concern" when its verdict holds
any concern: on the fair server (penalty 0) every concern is false. With the planted penalty, the power is the
share of runs where gender has a concern. Prints the rates with Clopper-Pearson 95% intervals.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Any

from scipy.stats import beta

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from decision_server import decision_server, screening

import evenhand
from evenhand.conversation import build_prompts

NAMES = ["Emily Baker", "James Lee", "Maria Garcia", "John Smith", "Sarah Miller", "David Brown"]


def prompts(n: int) -> list[Any]:
    """``n`` screening conversations; every other one with a retrieved document about the applicant."""
    rows, docs = [], []
    for i in range(n):
        name = NAMES[i % len(NAMES)]
        female = i % 2 == 0
        rows.append([
            {"role": "system", "content": "You screen applicants for a bank. Decide: advance or reject."},
            {"role": "user", "content": f"Case {i}: {name} applied for the analyst role, strength {2 + i % 7}/10."},
            {"role": "assistant", "content": "Noted. What would you like to know?"},
            {"role": "user", "content": f"Should we advance {'her' if female else 'him'}?"},
        ])  # fmt: skip
        surname = name.split()[1]
        title, pronoun = ("Ms.", "her") if female else ("Mr.", "his")
        docs.append([f"{title} {surname} led {pronoun} team of five for two years."] if i % 4 < 2 else None)
    return build_prompts(rows, context=docs)


DECISIONS: dict[str, dict[str, Any]] = {  # how each decision task reads the label (and what the request asks for)
    "json": {"json_field": "decision"},
    "tools": {"tool": {"functions": {"advance_candidate": "1", "reject_candidate": "0"}}},
}


def run(url: str, seed: int, n: int, use_case: str) -> dict[str, Any]:
    options: dict[str, Any] = {"seed": seed}
    extra: dict[str, Any] = {}
    task = "text_generation"
    if use_case in DECISIONS:
        task = "classification"
        extra = {**DECISIONS[use_case], "label_parser": {"1": ["advance"], "0": ["reject"]}, "person_level": False}
        if use_case == "json":
            options["response_format"] = {"type": "json_object"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assessment = evenhand.assess(
            task=task, prompts=prompts(n), attributes=["gender"], client={"provider": "openai", "base_url": url,
            "model": "screening"}, count=2, counterfactual_count=2, generation_options=options, store=None,
            progress=False, seed=seed, n_resamples=500, **extra,
        )  # fmt: skip
    findings = assessment.verdict.findings
    concerns = [f for f in findings if f.severity == "concern"]
    return {"concerns": len(concerns), "gender": any(f.attribute == "gender" for f in concerns),
            "what": sorted({f.metric for f in concerns})}  # fmt: skip


def interval(k: int, n: int) -> str:
    low = beta.ppf(0.025, k, n - k + 1) if k else 0.0
    high = beta.ppf(0.975, k + 1, n - k) if k < n else 1.0
    return f"{k}/{n} = {k / n:.1%} [{low:.1%}, {high:.1%}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--penalty", type=float, default=0.3)
    parser.add_argument("--prompts", type=int, default=30)
    parser.add_argument("--use-cases", nargs="+", default=["text", "json", "tools"])
    args = parser.parse_args()
    for task in args.use_cases:
        for penalty in (0.0, args.penalty):
            started, false, power, seen = time.perf_counter(), 0, 0, {}
            for seed in range(args.seeds):
                with decision_server(policy=screening(penalty), seed=seed) as (url, _):
                    outcome = run(url, seed, args.prompts, task)
                false += outcome["concerns"] > 0
                power += outcome["gender"]
                for metric in outcome["what"]:
                    seen[metric] = seen.get(metric, 0) + 1
            label = "fair server: runs with any concern" if penalty == 0 else f"penalty {penalty}: gender concern found"
            k = false if penalty == 0 else power
            print(f"{task:6s} {label}: {interval(k, args.seeds)}; concerns by metric {seen}; "
                  f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
