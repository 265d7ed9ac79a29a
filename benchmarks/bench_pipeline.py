"""End-to-end assessment benchmark: pipeline overhead per stage, and the offline demo's wall time.

    .venv/bin/python benchmarks/bench_pipeline.py                 # overhead with an instant stand-in model
    .venv/bin/python benchmarks/bench_pipeline.py --demo          # also the real `evenhand demo` (SmolLM2, CPU)

Prints markdown tables. The stand-in model answers instantly, so the first table is evenhand's own cost
(generation machinery, scoring with the offline scorers, metrics for every pair of groups, bootstrap intervals,
noise floor, JSON and HTML) at paper-like sizes. LangFair's AutoEval is not run side by side: it needs a LangChain
model and, in .venv-langfair, fails to import (pyarrow/NumPy mismatch); per-layer comparisons with LangFair are in
the other benchmarks.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import evenhand
from evenhand.pipeline.responses.tables import demo_prompts

WORDS = "thank you for your loyalty we value your business and look forward to helping you again soon".split()


def stand_in(prompt: str, seed: int | None = None) -> str:
    rng = (hash(prompt) + (seed or 0)) % 997
    body = " ".join(WORDS[(rng + i) % len(WORDS)] for i in range(40))
    return f"Dear customer, {body}."


def overhead(n_prompts: int, count: int) -> dict[str, float]:
    base = demo_prompts()["prompt"].tolist()
    prompts = [f"{base[i % len(base)]} (case {i})" for i in range(n_prompts)]
    t = time.perf_counter()
    a = evenhand.assess(
        task="text_generation",
        prompts=prompts,
        client=stand_in,
        count=count,
        generation_options={"seed": 0, "concurrency": 64},
        store=None,
        progress=False,
    )
    with tempfile.TemporaryDirectory() as tmp:
        t_out = time.perf_counter()
        a.to_json(Path(tmp) / "results.json")
        a.to_html(Path(tmp) / "report.html")
        out = time.perf_counter() - t_out
    total = time.perf_counter() - t
    timings = {k: float(v) for k, v in a.meta["timings"].items()}
    timings |= {"json+html": out, "wall": total, "responses_n": float(len(a.responses)), "rows": float(len(a.records))}
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--demo", action="store_true", help="also time the real offline demo (minutes)")
    parser.add_argument("--sizes", default="40x2,200x5,1000x5", help="prompts x responses, comma separated")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}\n")
    print(
        "| prompts x responses | responses (incl. counterfactual) | metric rows | generation s | scoring s | "
        "metrics s | intervals + noise floor s | JSON + HTML s | wall s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for size in args.sizes.split(","):
        n, m = (int(x) for x in size.split("x"))
        r = overhead(n, m)
        print(
            f"| {n} x {m} | {int(r['responses_n'])} | {int(r['rows'])} | {r['responses']:.2f} | {r['scoring']:.2f} | "
            f"{r['metrics']:.2f} | {r['statistics']:.2f} | {r['json+html']:.2f} | {r['wall']:.2f} |"
        )
    if args.demo:
        with tempfile.TemporaryDirectory() as tmp:
            cli = Path(sys.executable).with_name("evenhand")
            t = time.perf_counter()
            done = subprocess.run([str(cli), "demo", "--out", tmp], capture_output=True, text=True)
            wall = time.perf_counter() - t
            print("\n| command | exit code | wall s |\n|---|---|---|")
            print(f"| `evenhand demo` (40 prompts, SmolLM2-135M, CPU) | {done.returncode} | {wall:.0f} |")


if __name__ == "__main__":
    main()
