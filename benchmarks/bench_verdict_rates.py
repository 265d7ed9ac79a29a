"""Null and power simulation of the verdict (issue 27): how often does an assessment say concern or watch?

Run: PYTHONPATH=. python benchmarks/bench_verdict_rates.py [--null-runs 20] [--quick]

Own-response tables from ``tests/_bias_fixtures.planted_table`` (gender, 5 replies per prompt and group, no
embedder, VADER sentiment), assessed end to end by ``evenhand.assess`` with the default statistics (200 bootstrap
resamples to keep it short). Prints markdown tables for docs/uncertainty.md:

* null: both groups' replies drawn the same way; the share of runs with any concern, and with any watch or
  concern, at 20, 50 and 150 prompts; and how often each distance's shown interval excludes 0 against how often
  its test rejects (intervals that agree with their tests);
* power per kind of effect and size: a one-sided content shift (a share of the male replies short and generic,
  the rest unchanged: the case the per-group noise floor is for), a colder tone for one group (more curt, blaming
  replies), and different content for one group (a share of its replies from another pool).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _bias_fixtures import planted_table  # noqa: E402

import evenhand  # noqa: E402

NEUTRAL = {"harsh": 1 / 3, "plain": 1 / 3, "warm": 1 / 3}
CONTENT = {"content_a": 1.0}
DISTANCES = ("SCSP", "WCSP")


def generic_shift(share: float) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """``share`` of the male replies short and generic, the rest (and every female reply) from CONTENT_A."""
    return {"female": CONTENT, "male": {"content_a": 1 - share, "generic": share}}, CONTENT


def colder(share: float) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """The female replies: ``share`` more of them curt and blaming, taken from the warm ones."""
    return {"female": {"harsh": 1 / 3 + share, "plain": 1 / 3, "warm": 1 / 3 - share}, "male": NEUTRAL}, NEUTRAL


def other_content(share: float) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    """``share`` of the male replies from CONTENT_B (another, equally long and neutral answer)."""
    return {"female": CONTENT, "male": {"content_a": 1 - share, "content_b": share}}, CONTENT


def null(_: float) -> tuple[dict[str, dict[str, float]], dict[str, float]]:
    return {"female": NEUTRAL, "male": NEUTRAL}, NEUTRAL


KINDS: dict[str, Callable[[float], tuple[dict[str, dict[str, float]], dict[str, float]]]] = {
    "one-sided generic replies": generic_shift,
    "colder tone": colder,
    "other content": other_content,
}


def assess(kind: Callable[[float], Any], size: float, n_prompts: int, seed: int) -> evenhand.Assessment:
    mixtures, base = kind(size)
    table = planted_table("gender", mixtures, base=base, n_prompts=n_prompts, samples=5, seed=seed)
    return evenhand.assess(task="text_generation", responses=table, attributes=["gender"], embedder=False,
                           n_resamples=200, store=None, progress=False, seed=seed)  # fmt: skip


def null_rates(sizes: list[int], runs: int) -> list[str]:
    lines = [
        "| prompts x 5 | runs | any concern | any watch or concern | SCSP/WCSP interval excludes 0 | test rejects |",
        "|---|---|---|---|---|---|",
    ]
    for n in sizes:
        concern = watch = excluded = rejected = tested = 0
        for seed in range(runs):
            a = assess(null, 0.0, n, 10_000 + seed)
            concern += a.verdict.count("concern") > 0
            watch += a.verdict.status != "ok"
            for rec in a.records:
                if rec.name in DISTANCES and rec.interval is not None and rec.test is not None:
                    tested += 1
                    excluded += not rec.interval.contains(0.0)
                    rejected += rec.test.p_value < 0.05
        lines.append(f"| {n} | {runs} | {concern / runs:.0%} | {watch / runs:.0%} | {excluded}/{tested} | "
                     f"{rejected}/{tested} |")  # fmt: skip
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


def classification_intervals(runs: int) -> str:
    """Null person-level classification (one approval rate for both groups, 200 persons): how often the bootstrap
    interval of the group-rate gap excludes 0, against the shown interval (joined with 0 unless the test rejects)
    and the pair test."""
    import pandas as pd

    from evenhand.stats import confidence_interval

    raw = shown = rejected = total = 0
    for seed in range(runs):
        rng = np.random.default_rng(seed)
        groups = ["female" if i % 2 else "male" for i in range(200)]
        truth = ["1" if rng.random() < 0.5 else "0" for _ in range(200)]
        answers = ["yes" if rng.random() < 0.5 else "no" for _ in range(200)]
        table = pd.DataFrame({"prompt": [f"Applicant {i}: approve? yes or no." for i in range(200)],
                              "response": answers})  # fmt: skip
        a = evenhand.assess(task="classification", responses=table, labels=truth, groups=groups, person_level=True,
                            attributes=["gender"], label_parser={"1": ["yes"], "0": ["no"]}, positive_label="1",
                            n_resamples=200, progress=False, prevalence_parity=True, store=None, seed=seed)  # fmt: skip
        for rec in a.records:
            if rec.interval is None or rec.pair_tests is None:
                continue
            total += 1
            raw += not confidence_interval(rec.result, n_resamples=200, seed=seed).contains(0.0)
            shown += not rec.interval.contains(0.0)
            rejected += float(rec.pair_tests["p_value"].min()) < 0.05
    return (f"classification gaps on {runs} null data sets: bootstrap interval excludes 0 in {raw}/{total}, the "
            f"shown interval in {shown}/{total}, the test rejects {rejected}/{total}")  # fmt: skip


def power(cases: list[tuple[str, float, int, int]], quick: bool) -> list[str]:
    lines = ["| effect | size | prompts x 5 | runs | concern | watch or concern | finding's metric (most runs) |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for name, size, n, runs in cases:
        runs = 3 if quick else runs
        concern = watch = 0
        metrics: dict[str, int] = {}
        for seed in range(runs):
            a = assess(KINDS[name], size, n, 20_000 + seed)
            found = [f for f in a.verdict.findings if f.risk == "counterfactual"]
            concern += any(f.severity == "concern" for f in found)
            watch += any(f.severity != "ok" for f in found)
            for f in found:
                if f.severity != "ok":
                    metrics[f.metric] = metrics.get(f.metric, 0) + 1
        top = max(metrics, key=lambda k: metrics[k]) if metrics else "-"
        lines.append(f"| {name} | {size:.0%} | {n} | {runs} | {concern / runs:.0%} | {watch / runs:.0%} | {top} |")
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null-runs", type=int, default=20, help="null assessments per size")
    parser.add_argument("--quick", action="store_true", help="3 runs per cell (a smoke run)")
    args = parser.parse_args()
    started = time.perf_counter()
    print("\n".join(null_rates([20, 50, 150], 3 if args.quick else args.null_runs)))
    print()
    print(classification_intervals(3 if args.quick else 40))
    print()
    cases = [  # (effect, size, prompts, runs): the target case gets the most runs
        ("one-sided generic replies", 0.3, 150, 20),
        ("one-sided generic replies", 0.3, 50, 10),
        ("one-sided generic replies", 0.1, 150, 10),
        ("colder tone", 0.15, 150, 10),
        ("colder tone", 0.15, 50, 10),
        ("other content", 0.2, 150, 10),
    ]
    print("\n".join(power(cases, args.quick)))
    print(f"\n{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
