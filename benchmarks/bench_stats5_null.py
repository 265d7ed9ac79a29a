"""Null study and planted effect of the small-sample intervals (stats5): at the interval level and end to end.

Run: PYTHONPATH=. nice -n 10 python benchmarks/bench_stats5_null.py [--reps 2000] [--null-runs 20] [--planted-runs 5]

* **intervals**: per-prompt paired differences (MTD's design, one pair per prompt) with a prompt effect, fair
  (truth 0) or with a planted shift of 0.1 on side A; also a fair design where 70% of prompts answer both versions
  alike (difference exactly 0). The share of nominal 95% intervals that exclude 0 (a false concern on fair data, the
  power on planted data), before (percentile bootstrap) and after (``metric_interval``), at 2 to 40 prompts;
* **end to end**: the fair loopback server of ``bench_issue37_null.py`` (it echoes the orientation word, refuses
  3% and insults 2% of replies whatever the group) on **12 prompts** (6 per group, each with its counterfactual
  versions), 2 replies per prompt and version: the share of runs with any concern and with a concern about a group
  difference; planted: 50% of replies to the "gay" versions get an insult. Also how many intervals of continuous
  metrics had zero width (the reviewer's finding) and how many rest on the small-sample rule.

Prints markdown for benchmarks/RESULTS.md ("Statistics: intervals on few units (stats5)").
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_issue37_null import TEMPLATES, TOPICS, FairServer, serving, share

from evenhand import metrics as M
from evenhand.registry import METRICS
from evenhand.stats import confidence_interval, metric_interval

KS = (2, 3, 5, 10, 20, 40)


def paired(rng: np.random.Generator, k: int, shift: float, alike: float) -> Any:
    base = rng.beta(1.0, 9.0, size=k)
    a = np.clip(base + shift + rng.normal(0.0, 0.05, size=k), 0.0, 1.0)
    b = np.clip(base + rng.normal(0.0, 0.05, size=k), 0.0, 1.0)
    a = np.where(rng.random(k) < alike, b, a)
    return M.mean_toxicity_difference(a, b, prompts=np.arange(k))


def interval_study(reps: int) -> None:
    designs = {"fair": (0.0, 0.0), "fair, 70% alike": (0.0, 0.7), "planted +0.1": (0.1, 0.0)}
    print("| design | k | percentile: excludes 0 | stats5: excludes 0 |")
    print("|---|---|---|---|")
    for name, (shift, alike) in designs.items():
        for k in KS:
            rng = np.random.default_rng(k + int(100 * alike))
            before = after = 0
            for rep in range(reps):
                result = paired(rng, k, shift, alike)
                old = confidence_interval(result, n_resamples=1000, seed=rep)
                new = metric_interval(result, METRICS["mean_toxicity_difference"].interval, n_resamples=1000, seed=rep)
                before += old.is_defined and not old.low <= 0.0 <= old.high
                after += new.is_defined and not new.low <= 0.0 <= new.high
            print(f"| {name} | {k} | {before / reps:.3f} | {after / reps:.3f} |", flush=True)


def prompts(n: int) -> list[str]:
    """``n`` distinct prompts naming a colleague's orientation, gay and straight alternately."""
    return [TEMPLATES[i % len(TEMPLATES)].format(w=("gay", "straight")[i % 2], t=TOPICS[i % len(TOPICS)])
            for i in range(n)]  # fmt: skip


def run_once(url: str, folder: Path, seed: int, n_prompts: int) -> dict[str, Any]:
    from evenhand.config.loading import load_config
    from evenhand.pipeline.from_config import assess_config

    (folder / "prompts.txt").write_text("\n".join(prompts(n_prompts)) + "\n", encoding="utf-8")
    config = {
        "use_case": {"name": "welcome notes", "task": "text_generation", "attributes": ["sexual_orientation"],
                     "attribute_groups": {"sexual_orientation": ["gay", "straight"]}},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "model": "stub", "base_url": url, "api_key_env": "EVENHAND_NO_KEY",
                  "concurrency": 1},  # one request at a time: the server's draws, and so each run, are reproducible
        "generation": {"count": 2, "counterfactual_count": 2, "progress": False, "store": None},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 200, "seed": seed},
        "output": {"dir": str(folder / "out"), "html": False, "responses": "none"},
    }  # fmt: skip
    path = folder / "config.yaml"  # JSON is YAML
    path.write_text(json.dumps(config), encoding="utf-8")
    a = assess_config(load_config(path), progress=False)
    findings = a.verdict.findings
    m = a.metrics
    continuous = m[m["ci_method"].notna() & ~m["ci_method"].astype(str).str.contains("effective")]
    return {
        "concern": any(f.severity == "concern" for f in findings),
        "group_concern": any(f.severity == "concern" and f.groups for f in findings),
        "concerns": sorted({f"{f.risk}:{f.metric}" for f in findings if f.severity == "concern"}),
        "group_watch": any(f.severity != "ok" and f.groups for f in findings),
        "continuous": len(continuous),
        "zero_width": int(((continuous["ci_high"] - continuous["ci_low"]) <= 0).sum()),
        "small_rule": int(continuous["ci_method"].astype(str).str.contains("student-t|none of").sum()),
    }


def study(planted: float, runs: int, n_prompts: int) -> list[dict[str, Any]]:
    out = []
    FairServer.planted = planted
    with serving(FairServer) as url, tempfile.TemporaryDirectory() as tmp:
        for seed in range(runs):
            FairServer.rng = random.Random(5000 + 1000 * int(planted * 100) + seed)
            folder = Path(tmp) / f"run{seed}"
            folder.mkdir()
            out.append(run_once(url, folder, seed, n_prompts))
            print(f"  {'planted' if planted else 'null'} run {seed}: {out[-1]}", file=sys.stderr, flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2000)
    parser.add_argument("--null-runs", type=int, default=20)
    parser.add_argument("--planted-runs", type=int, default=5)
    parser.add_argument("--prompts", type=int, default=12)
    parser.add_argument("--planted", type=float, default=0.5, help="share of the gay versions' replies insulted")
    parser.add_argument("--skip-intervals", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    if not args.skip_intervals:
        interval_study(args.reps)
    null = study(0.0, args.null_runs, args.prompts)
    planted = study(args.planted, args.planted_runs, args.prompts)
    print(f"\nend to end, {args.prompts} prompts, 2 replies per prompt and version\n")
    print("| server | runs | any concern | concern about a group difference | watch or concern about a group "
          "difference | continuous intervals: zero width / by the small-sample rule / all |")
    print("|---|---|---|---|---|---|")
    for name, rows in (("fair", null), (f"insults planted on the gay versions ({args.planted:.0%})", planted)):
        widths = f"{sum(r['zero_width'] for r in rows)} / {sum(r['small_rule'] for r in rows)} / " \
                 f"{sum(r['continuous'] for r in rows)}"  # fmt: skip
        print(f"| {name} | {len(rows)} | {share(rows, 'concern')} | {share(rows, 'group_concern')} | "
              f"{share(rows, 'group_watch')} | {widths} |")
    concerns = sorted({c for r in null for c in r["concerns"]})
    print(f"\nconcerns on the fair server (risk:metric): {', '.join(concerns) or 'none'}")
    planted_concerns = sorted({c for r in planted for c in r["concerns"]})
    print(f"concerns on the planted server: {', '.join(planted_concerns) or 'none'}")
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
