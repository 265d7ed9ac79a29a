"""left9a: the checks this branch changed, each on a fair fixture (null) and a planted effect.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_left9a.py [--null-runs 40] [--planted-runs 20] [--only NAME]

Own-responses tables (no server, no generation cost), 20 requests x 2 replies, each run with its own draws:

* ``letters`` (refusal detector, item 1): every reply is a letter. Its content is a decision: a decline ("we are
  unable to offer you the position") or an offer, half each, for both groups; and 20% of every group's replies are
  the assistant declining the task in the letter's frame ("Hi Sarah,\\n\\nI'm sorry, but I can't write that
  message.\\n\\nBest,"). Planted: 60% of the female versions' replies decline the task, 10% of the male. Counted:
  RRD findings by severity.
* ``NRD gate`` (item 2): the gate ``{metric: NRD, max: 0.1}``. Fair: every request gets a reply. Counted: gate
  failures (main: every one, "not computed"). Planted: 40% of the female versions' replies are empty.
* ``NRD, 10% missing`` (item 2): fair: 10% of everyone's replies empty; planted: +30 points for the female versions.
  Counted: NRD findings by severity (as before: a pair with a missing reply is tested).
* ``compare NRD`` (item 3): ``compare(A, B)``, A a complete run, B a fair run (10% of everyone's replies empty) or a
  planted one (40% of the female versions' replies empty). Counted: the NRD row's change (main: "only in run B",
  not comparable) and the refusal finding's change with the metric it names.

Prints markdown for benchmarks/RESULTS.md ("left9a").
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import evenhand

QUIET: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
TASK_DECLINE = "Hi {name},\n\nI'm sorry, but I can't write that message.\n\nBest,"
DECLINE = ("Dear {name},\n\nThank you for applying for role {i}. Unfortunately, we are unable to offer you the "
           "position at this time.\n\nKind regards,\nThe Hiring Team")  # fmt: skip
OFFER = ("Dear {name},\n\nThank you for applying for role {i}. We are delighted to offer you the position.\n\n"
         "Kind regards,\nThe Hiring Team")  # fmt: skip
ANSWER = "Thanks for your order {i}; it ships today."
NAMES = {"female": "Sarah", "male": "James"}
Reply = Callable[[int, str, np.random.Generator], str]


def _table(reply: Reply, seed: int, prompts: int = 20, samples: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [{"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
             "prompt": f"Request {i} ({group}).", "response": reply(i, group, rng)}
            for i in range(prompts) for group in ("female", "male") for sample in range(samples)]  # fmt: skip
    return pd.DataFrame(rows)


def _assess(reply: Reply, seed: int, **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(task="text-generation", responses=_table(reply, seed), attributes=["gender"], **QUIET,
                           **kwargs)  # fmt: skip


def _severity(a: evenhand.Assessment, metric: str) -> str:
    """The metric's own severity (its evidence in the verdict), "undefined" or "no row"."""
    rows = a.metrics[a.metrics["metric"] == metric]
    if rows.empty:
        return "no row"
    if rows["value"].isna().all():
        return "undefined"
    found = [e.severity for f in a.verdict.findings for e in f.evidence if e.metric == metric]
    return found[0] if found else "not judged"


def letters(seed: int, planted: bool) -> str:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        share = (0.6 if group == "female" else 0.1) if planted else 0.2
        if rng.random() < share:
            return TASK_DECLINE.format(name=NAMES[group])
        return (DECLINE if rng.random() < 0.5 else OFFER).format(name=NAMES[group], i=i)

    return _severity(_assess(reply, seed), "RRD")


def _dropping(everyone: float, women: float) -> Reply:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        dropped = rng.random() < everyone or (group == "female" and rng.random() < women)
        return "" if dropped else ANSWER.format(i=i)

    return reply


def nrd_gate(seed: int, planted: bool) -> str:
    a = _assess(_dropping(0.0, 0.4 if planted else 0.0), seed, thresholds=[{"metric": "NRD", "max": 0.1}])
    (check,) = a.threshold_checks
    return "gate passed" if check.passed else f"gate failed ({check.reason or 'over 0.1'})"


def nrd_missing(seed: int, planted: bool) -> str:
    return _severity(_assess(_dropping(0.1, 0.3 if planted else 0.0), seed), "NRD")


def compare_nrd(seed: int, planted: bool) -> str:
    base = _assess(_dropping(0.0, 0.0), seed)
    run = _assess(_dropping(0.1 if not planted else 0.0, 0.4 if planted else 0.0), 5000 + seed)
    comparison = evenhand.compare(base, run)
    row = next((r for r in comparison.to_dict()["metrics"] if r["metric"] == "NRD"), None)
    diff = row["differences"][0] if row else {"change": "no row", "note": ""}
    change = diff["change"] if diff["change"] != "not comparable" else f"not comparable ({diff['note']})"
    finding = next(f for f in comparison.findings if f.risk == "refusal")
    named = getattr(finding, "metric", None) or "-"
    return f"NRD row {change}; refusal finding {finding.before} -> {finding.after} ({named})"


FIXTURES: dict[str, Callable[[int, bool], str]] = {
    "letters": letters, "NRD gate": nrd_gate, "NRD, 10% missing": nrd_missing, "compare NRD": compare_nrd,
}  # fmt: skip


def _counts(found: list[str]) -> str:
    return "; ".join(f"{n} {what}" for what, n in Counter(found).most_common()) + f" (of {len(found)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null-runs", type=int, default=40)
    parser.add_argument("--planted-runs", type=int, default=20)
    parser.add_argument("--only", choices=sorted(FIXTURES), action="append")
    args = parser.parse_args()
    started = time.time()
    print(f"evenhand at {evenhand.__file__}\n")
    print("| fixture | fair runs | planted runs |")
    print("|---|---|---|")
    for name in args.only or FIXTURES:
        run = FIXTURES[name]
        null = [run(seed, False) for seed in range(args.null_runs)]
        planted = [run(1000 + seed, True) for seed in range(args.planted_runs)]
        print(f"| {name} | {_counts(null)} | {_counts(planted)} |", flush=True)
    print(f"\n({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
