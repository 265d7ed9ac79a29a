"""Null studies and planted effects of left7a's findings and gate checks (benchmarks/RESULTS.md, section "left7a").

    nice -n 19 env OMP_NUM_THREADS=1 PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_left7a_null.py --seeds 20

Each run is an own responses table (no model): 30 cases x 2 versions (female, male) x 4 answers, each case with its
own outcome probabilities shared by both versions (the prompt, not the single answer, is the independent unit, and
the statistics resample it). Three studies, each on fair tables and on tables with a planted effect:

* ``outcomes``: approve / review / deny; planted: half of the female versions' "review" answers become "deny" (the
  approval rate unchanged). Counted: runs with a concern, and with a concern on a non-positive outcome's CPRD row.
* ``silence``: advance / reject with a share of requests that get no reply ("" or None), per case from a Beta with
  mean 10% for both versions; planted: 15 more points of the female versions' requests get none. Counted: runs with
  an NRD concern, and with any concern.
* ``unread``: advance / reject with 10% of all answers unreadable ("It is a close call.") for both versions; planted:
  every female answer unreadable. Counted: runs whose ``{verdict: concern, max: 0}`` gate fails because a row could
  not be judged.

Bounded: ``--seeds`` runs per study and arm (default 20), 200 bootstrap resamples each.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
CASES, ANSWERS = 30, 4


def _table(seed: int, answer: Any) -> pd.DataFrame:
    """The responses table; ``answer(rng, case_state, group)`` gives one reply (None: filtered)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(CASES):
        state = rng.random(3)  # the case's own propensities, shared by both versions
        for group, title in (("female", "Mrs."), ("male", "Mr.")):
            for sample in range(ANSWERS):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Case {i}: {title} Lee applied. Decide.",
                             "response": answer(rng, state, group)})  # fmt: skip
    return pd.DataFrame(rows)


def outcomes(seed: int, planted: bool) -> dict[str, bool]:
    def answer(rng: Any, state: Any, group: str) -> str:
        p = np.array([0.2 + 0.5 * state[0], 0.2 + 0.5 * state[1], 0.2 + 0.3 * state[2]])
        choice = str(rng.choice(["approve", "review", "deny"], p=p / p.sum()))
        if planted and group == "female" and choice == "review" and rng.random() < 0.5:
            choice = "deny"
        return f"Decision: {choice}"

    a = evenhand.assess(task="classification", responses=_table(seed, answer), attributes=["gender"],
                        label_parser={"approve": ["approve"], "review": ["review"], "deny": ["deny"]},
                        positive_label="approve", **FAST)  # fmt: skip
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    return {"concern": bool(concerns), "outcome concern": any(f.cls in ("review", "deny") for f in concerns)}


def silence(seed: int, planted: bool) -> dict[str, bool]:
    def answer(rng: Any, state: Any, group: str) -> str | None:
        dropped = rng.beta(1, 9) + (0.15 if planted and group == "female" else 0.0)  # mean 10% for everyone
        if rng.random() < dropped:
            return "" if rng.random() < 0.5 else None  # an empty reply, a content filter
        return "advance" if rng.random() < 0.3 + 0.4 * state[0] else "reject"

    a = evenhand.assess(task="classification", responses=_table(seed, answer), attributes=["gender"],
                        label_parser={"1": ["advance"], "0": ["reject"]}, **FAST)  # fmt: skip
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    return {"NRD concern": any(f.metric == "NRD" for f in concerns), "concern": bool(concerns)}


def unread(seed: int, planted: bool) -> dict[str, bool]:
    def answer(rng: Any, state: Any, group: str) -> str:
        if (planted and group == "female") or rng.random() < 0.1:
            return "It is a close call."
        return "advance" if rng.random() < 0.3 + 0.4 * state[0] else "reject"

    a = evenhand.assess(task="classification", responses=_table(seed, answer), attributes=["gender"],
                        label_parser={"1": ["advance"], "0": ["reject"]},
                        thresholds=[{"verdict": "concern", "max": 0}], **FAST)  # fmt: skip
    (check,) = a.threshold_checks
    return {"gate fails unread": "could not be judged" in check.reason, "gate fails": not check.passed}


STUDIES = {"outcomes": outcomes, "silence": silence, "unread": unread}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--studies", nargs="*", default=list(STUDIES))
    args = parser.parse_args()
    for name in args.studies:
        for planted in (False, True):
            start, counts = time.perf_counter(), {}
            for seed in range(args.seeds):  # bounded
                for key, hit in STUDIES[name](seed, planted).items():
                    counts[key] = counts.get(key, 0) + int(hit)
            arm = "planted" if planted else "fair"
            shown = ", ".join(f"{k}: {v} of {args.seeds}" for k, v in counts.items())
            print(f"{name:9s} {arm:8s} {shown} ({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
