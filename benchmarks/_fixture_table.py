"""The null-and-planted table the fixture benchmarks print (bench_left9b, bench_left10a, bench_left10b): each
fixture run on fair seeds (null: runs with any concern) and on planted ones (runs that find the effect), bounded."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping
from typing import Any

#: a fixture: (its row's name, run(seed, planted) -> True found / False not / None refused)
Fixture = tuple[str, Callable[[int, bool], Any]]


def count(run: Callable[[int, bool], Any], runs: int, planted: bool) -> str:
    """``k of n``: the runs whose result is true; a fixture that refuses every run (None) says so."""
    results = [run(s, planted) for s in range(runs)]
    if all(r is None for r in results):
        return f"refused (exit 2) in {runs} of {runs}"
    return f"{sum(bool(r) for r in results)} of {runs}"


def fixture_table(description: str, fixtures: Mapping[str, Fixture], *, null_runs: int | None = None) -> None:
    """Parse ``--runs`` (planted runs, at most 200), ``--null-runs`` (default ``null_runs``, else ``--runs``; at
    most 400) and ``--only`` (fixture keys, repeatable); print the table and the seconds it took."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--null-runs", type=int, default=null_runs, help="null runs per fixture (default: --runs)")
    parser.add_argument("--only", choices=sorted(fixtures), action="append")
    args = parser.parse_args()
    runs = max(1, min(args.runs, 200))  # bounded
    nulls = max(1, min(args.null_runs or runs, 400))
    start = time.perf_counter()
    print("| fixture | null: runs with any concern | planted: runs found |")
    print("|---|---|---|")
    for key in args.only or list(fixtures):
        name, run = fixtures[key]
        print(f"| {name} | {count(run, nulls, False)} | {count(run, runs, True)} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")
