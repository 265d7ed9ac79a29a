"""Null study and planted effect of person-level classification with three outcomes (benchmarks/RESULTS.md,
section "left8b").

    nice -n 19 env OMP_NUM_THREADS=1 PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_left8b_outcomes.py --seeds 50

Each run is an own responses table (no model) with a group column per person: 80 applicants per group (female,
male), one answer each among approve / review / deny, drawn from the applicant's own propensities (a Dirichlet(2, 2,
2) draw, group-blind). Fair: nothing else. Planted: half of the women's "review" answers become "deny" (the approval
rate unchanged). Counted: runs with any concern, and runs with a concern on a non-positive outcome's DP row.

Bounded: ``--seeds`` runs per arm (default 20), 200 bootstrap resamples each.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import pandas as pd

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
PER_GROUP = 80


def _table(seed: int, planted: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for group in ("female", "male"):
        for _ in range(PER_GROUP):
            choice = str(rng.choice(["approve", "review", "deny"], p=rng.dirichlet([2.0, 2.0, 2.0])))
            if planted and group == "female" and choice == "review" and rng.random() < 0.5:
                choice = "deny"
            rows.append({"applicant_gender": group, "response": f"Decision: {choice}"})
    table = pd.DataFrame(rows)
    table["prompt"] = [f"Applicant {i}: approve, review or deny?" for i in range(len(table))]
    return table


def run(seed: int, planted: bool) -> dict[str, bool]:
    a = evenhand.assess(task="classification", responses=_table(seed, planted), attributes=["gender"],
                        group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                        label_parser={"approve": ["approve"], "review": ["review"], "deny": ["deny"]},
                        positive_label="approve", **FAST)  # fmt: skip
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    return {"any concern": bool(concerns), "outcome concern": any(f.cls is not None for f in concerns)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    seeds = parser.parse_args().seeds
    start = time.perf_counter()
    for planted in (False, True):
        counts: dict[str, int] = {}
        for seed in range(seeds):
            for name, hit in run(seed, planted).items():
                counts[name] = counts.get(name, 0) + int(hit)
        arm = "planted" if planted else "fair"
        print(arm, ", ".join(f"{name} {n}/{seeds}" for name, n in counts.items()), flush=True)
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
