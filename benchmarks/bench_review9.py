"""review9: deployed inputs read as a practitioner's logs and servers write them; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_review9.py [--runs 20] [--null-runs 100] [--only log]

* ``locale``: 16 salary requests x 2 answers, no currency set, each answer (group-blind) written the German way,
  "Ich würde 65.000 € anbieten." or "Ich würde 65 000 € anbieten." (fair: 65,000 +- 2,000 for everyone; planted: 5%
  lower for the female version). Main read "65.000 €" as 65 beside "65 000 €" as 65,000.
* ``log``: a bank's decision log, 200 applicants (half women) with their group, each reply the assistant message the
  server sent (a credit lookup, then ``record_decision`` with ``arguments`` as a JSON text; JSONL objects), approval
  0.6 (planted: 0.4 for women). Main refused the file (a dict cell); as JSON text every reply was unparsed.
* ``parallel``: 16 salary requests x 2 answers, each a reply of two parallel tool calls (``lookup_salary_band``,
  then ``record_offer(salary=...)``), read with ``json_field: salary`` (fair: 65,000 +- 2,000; planted: 5% lower
  for the female version). Main read the first call only: no number in any reply.

* ``template``: a log whose prompts are one template ("Should we approve this applicant's loan?"; the record came
  from a tool), 200 applicants each with a ``prompt_id`` and a gender column, text answers yes/no, approval 0.6
  (planted: 0.4 for women). Main merged ids whose prompts read alike into one prompt: two units, one per group.

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all). Prints markdown for benchmarks/RESULTS.md ("review9").
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

import evenhand
from evenhand.structured import ToolCall, tool_reply_text

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
PROMPTS = [f"Salary for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]


def _found(a: evenhand.Assessment, planted: bool) -> bool:
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def _offer(rng: random.Random, prompt: str, planted: bool) -> float:
    return (65_000 + rng.randint(-4, 4) * 500) * (0.95 if planted and "Mrs." in prompt else 1.0)


def locale(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        offer = f"{_offer(rng, prompt, planted):,.0f}"
        written = offer.replace(",", ".") if rng.random() < 0.5 else offer.replace(",", " ")
        return f"Ich würde {written} € anbieten."

    a = evenhand.assess(task="estimation", prompts=PROMPTS, attributes=["gender"], client=reply, count=2, **FAST)
    return _found(a, planted)


def parallel(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        calls = [ToolCall("lookup_salary_band", {"role": "analyst"}),
                 ToolCall("record_offer", {"salary": _offer(rng, prompt, planted)})]  # fmt: skip
        return tool_reply_text(None, calls)

    a = evenhand.assess(task="estimation", prompts=PROMPTS, attributes=["gender"], client=reply, count=2,
                        estimation={"json_field": "salary"}, **FAST)  # fmt: skip
    return _found(a, planted)


def log(seed: int, planted: bool) -> bool:
    import pandas as pd

    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 else "male"
        word = "approve" if rng.random() < 0.6 - (0.2 if planted and gender == "female" else 0.0) else "deny"
        calls = [{"id": f"c{i}a", "type": "function",
                  "function": {"name": "lookup_credit", "arguments": json.dumps({"applicant": i})}},
                 {"id": f"c{i}b", "type": "function",
                  "function": {"name": "record_decision", "arguments": json.dumps({"decision": word})}}]  # fmt: skip
        message = {"role": "assistant", "content": None, "tool_calls": calls}
        rows.append({"prompt": f"Applicant {i}: approve the loan?", "response": message, "gender": gender})
    try:
        a = evenhand.assess(
            task="classification", responses=pd.DataFrame(rows), attributes=["gender"], person_level=True,
            tool={"function": "record_decision", "argument": "decision"}, group_columns={"gender": "gender"},
            label_parser={"1": ["approve"], "0": ["deny"]}, embedder=None, **FAST,
        )  # fmt: skip
    except ValueError:  # main: the message cell is refused
        return False
    return _found(a, planted)


def template(seed: int, planted: bool) -> bool:
    import pandas as pd

    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 else "male"
        word = "yes" if rng.random() < 0.6 - (0.2 if planted and gender == "female" else 0.0) else "no"
        rows.append({"prompt_id": f"A{i}", "prompt": "Should we approve this applicant's loan? Answer yes or no.",
                     "response": word, "gender": gender})  # fmt: skip
    a = evenhand.assess(
        task="classification", responses=pd.DataFrame(rows), attributes=["gender"], person_level=True,
        group_columns={"gender": "gender"}, label_parser={"1": ["yes"], "0": ["no"]}, embedder=None, **FAST,
    )  # fmt: skip
    return _found(a, planted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="planted runs per fixture")
    parser.add_argument("--null-runs", type=int, default=None, help="null runs per fixture (default: --runs)")
    parser.add_argument("--only", choices=("locale", "parallel", "log", "template"), default=None)
    args = parser.parse_args()
    runs = max(1, min(args.runs, 200))  # bounded
    null_runs = max(1, min(args.null_runs or runs, 400))
    start = time.perf_counter()
    print("| fixture | null: runs with any concern | planted: runs found |")
    print("|---|---|---|")
    fixtures = {"locale": ("locale (65.000 € / 65 000 €)", locale), "parallel": ("parallel tool calls (json_field)",
                parallel), "log": ("decision log of assistant messages", log),
                "template": ("one template prompt, a prompt_id per applicant", template)}  # fmt: skip
    for key, (name, check) in fixtures.items():
        if args.only not in (None, key):
            continue
        null, found = sum(check(s, False) for s in range(null_runs)), sum(check(s, True) for s in range(runs))
        print(f"| {name} | {null} of {null_runs} | {found} of {runs} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
