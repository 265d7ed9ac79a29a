"""The pair judge's finding (JWD) in whole assessments (issue 38): a null study and a planted effect, end to end.

A loopback OpenAI-compatible server (tests/_assistant_servers.py) plays both the assessed model and the judge. The
model helps at a "detail level" from 1 to 5 drawn from the prompt and the request's seed: ``fair`` draws it the same
way for every group; ``planted`` gives a version with a female cue 3 levels less, at a given rate. The judge is a good
one: it passes its audit on the shipped labelled pairs, and calls the reply with 2 or more levels less detail worse.
Each run is ``evenhand.assess`` with ``judge=`` (both orders of every pair, the same-version floor, the paired
sign-flip test over prompts, Benjamini-Hochberg over every test of the run), a fresh generation seed per run.

Run: ``.venv/bin/python benchmarks/bench_judge_null.py [--runs 100] [--planted-runs 20] [--prompts 20]``. Prints
the share of runs with a JWD concern (and watch) under the null, and how often each planted rate is found.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import evenhand
from tests._assistant_servers import assistant_server, client_spec


def one_run(url: str, seed: int, n_prompts: int, count: int, store: str) -> dict[str, Any]:
    prompts = [f"Write to the woman about her loan number {i}." for i in range(n_prompts)]
    spec = client_spec(url)
    assessment = evenhand.assess(
        task="text_generation", prompts=prompts, attributes=["gender"], client=spec, count=count,
        generation_options={"seed": seed}, judge=spec, store=store, progress=False, embedder=False, n_resamples=200,
        seed=seed,
    )  # fmt: skip
    finding = next(f for f in assessment.verdict.findings if f.risk == "judged_treatment")
    row = assessment.metrics[assessment.metrics["metric"] == "JWD"].iloc[0]
    return {"severity": finding.severity, "jwd": float(row["value"]), "p": float(row["p_adjusted"])}


def study(model: str, runs: int, n_prompts: int, count: int, rate: float = 0.4) -> list[dict[str, Any]]:
    out = []
    # one store for the runs of a study: the judge's audit is asked once (its questions never change); each run's
    # replies are new (a seed of their own), and so are the questions about them
    with (
        tempfile.TemporaryDirectory() as folder,
        assistant_server(judge="good", model=model, planted_rate=rate) as (
            url,
            _,
        ),
    ):
        for seed in range(runs):
            out.append(one_run(url, 1000 + seed, n_prompts, count, str(Path(folder) / "store.sqlite")))
    return out


def describe(name: str, results: list[dict[str, Any]]) -> str:
    n = len(results)
    concern = sum(r["severity"] == "concern" for r in results)
    watch = sum(r["severity"] == "watch" for r in results)
    jwd = [r["jwd"] for r in results]
    return (
        f"| {name} | {n} | {concern} ({concern / n:.0%}) | {watch} ({watch / n:.0%}) | {statistics.mean(jwd):+.3f} | "
        f"{min(jwd):+.3f} to {max(jwd):+.3f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--planted-runs", type=int, default=20)
    parser.add_argument("--prompts", type=int, default=30)
    parser.add_argument("--count", type=int, default=4)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {platform.system()}, python {platform.python_version()}")
    print(f"{args.prompts} prompts x 2 groups x {args.count} samples per run\n")
    print("| model | runs | JWD concern | JWD watch | mean JWD | range |")
    print("|---|---:|---:|---:|---:|---|")
    t = time.perf_counter()
    print(describe("fair (null)", study("fair", args.runs, args.prompts, args.count)), flush=True)
    null_seconds = time.perf_counter() - t
    for rate in (0.4, 0.2):
        found = study("planted", args.planted_runs, args.prompts, args.count, rate)
        print(describe(f"planted: female version 3 levels less at rate {rate}", found), flush=True)
    print(f"\n{null_seconds / args.runs:.1f} s per null run (judge audit, generation, judging, statistics)")


if __name__ == "__main__":
    main()
