"""Peak memory and time of ``evenhand metrics`` on synthetic own-response files, and the slope per 1k responses.

    .venv/bin/python benchmarks/bench_memory.py                        # scales 1 and 2.5 (40k, 100k responses)
    .venv/bin/python benchmarks/bench_memory.py --scales 1,2.5,10      # + 400k responses (minutes on 2 cores)
    .venv/bin/python benchmarks/bench_memory.py --no-ci --no-embedder  # isolate the statistics / the embedder
    .venv/bin/python benchmarks/bench_memory.py --profile --scales 2.5  # peak RSS per pipeline stage, in process

Each size runs in a fresh process under ``/usr/bin/time -v`` (peak RSS = "Maximum resident set size", wall and CPU
seconds), on a table from :mod:`synthetic` (scale 1 = 1,000 prompts x 25 responses + 300 counterfactual prompts x 2
groups x 25 = 40,000 responses). The slope is the least-squares line of peak RSS over responses. The per-stage
timings come from the run's own ``results.json`` (``timings``). Prints a markdown table.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from synthetic import write_table  # noqa: E402

EVENHAND = Path(sys.executable).with_name("evenhand")


def measured_run(table: Path, out: Path, *, ci: bool, embedder: bool, extra: list[str] | None = None) -> dict[str, Any]:
    """One ``evenhand metrics`` run in a fresh process: peak RSS (MB), wall and CPU seconds, stage timings."""
    cmd = [str(EVENHAND), "metrics", str(table), "-a", "gender", "--out", str(out), "--no-html"]
    if not ci:
        cmd += ["--ci", "0"]
    if not embedder:
        cmd += ["--embedder", "none"]
    cmd += extra or []
    env = os.environ | {"PYTHONHASHSEED": "0"}
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env, check=False)
    log = proc.stderr

    def field(label: str) -> str:
        found = re.search(rf"{re.escape(label)}: (.+)", log)
        return found.group(1).strip() if found else "nan"

    wall_text = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
    wall = sum(float(p) * 60**i for i, p in enumerate(reversed(wall_text.split(":")))) if ":" in wall_text else np.nan
    result: dict[str, Any] = {
        "exit": proc.returncode,
        "peak_mb": float(field("Maximum resident set size (kbytes)")) / 1024,
        "wall_s": wall,
        "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
    }
    results = out / "results.json"
    if results.exists():
        result["timings"] = json.loads(results.read_text())["timings"]
    else:
        result["error"] = log[-1500:]
    return result


def stage_profile(table: Path, out: Path, extra: list[str]) -> list[tuple[str, float, float]]:
    """Run ``evenhand metrics`` in this process and sample RSS every 20 ms: ``(stage, peak MB, MB at its end)`` per
    pipeline stage, plus reading (before the first stage) and writing (after the last), to see where memory goes."""
    import threading
    import time
    from contextlib import contextmanager

    from evenhand.cli import app
    from evenhand.pipeline import stages

    page = os.sysconf("SC_PAGE_SIZE") / 2**20
    current = ["reading, FTU, plan"]
    peaks: dict[str, list[float]] = {}
    done = threading.Event()

    def rss() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    def sample() -> None:
        while not done.is_set():
            entry = peaks.setdefault(current[0], [0.0, 0.0])
            value = rss()
            entry[0], entry[1] = max(entry[0], value), value
            time.sleep(0.02)

    original = stages.Stages.stage

    @contextmanager
    def traced(self: Any, name: str, total: int | None = None) -> Any:
        current[0] = name
        with original(self, name, total) as progress:
            yield progress
        peaks.setdefault(name, [0.0, 0.0])[1] = rss()
        current[0] = "writing results"

    stages.Stages.stage = traced  # type: ignore[method-assign]
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        app(["metrics", str(table), "-a", "gender", "--out", str(out), "--no-html", *extra], standalone_mode=False)
    except SystemExit:
        pass
    finally:
        done.set()
        thread.join()
        stages.Stages.stage = original  # type: ignore[method-assign]
    return [(name, peak, end) for name, (peak, end) in peaks.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scales", default="1,2.5", help="comma-separated multiples of the paper-scale table")
    parser.add_argument("--no-ci", action="store_true", help="without intervals, tests and noise floors")
    parser.add_argument("--no-embedder", action="store_true", help="without counterfactual cosine (no MiniLM)")
    parser.add_argument("--keep", type=Path, default=None, help="folder to keep tables and outputs in")
    parser.add_argument("--profile", action="store_true", help="peak RSS per pipeline stage (one scale, in process)")
    args = parser.parse_args()
    if args.profile:
        scale = float(args.scales.split(",")[0])
        with tempfile.TemporaryDirectory() as tmp:
            root = args.keep or Path(tmp)
            table = root / f"responses_x{scale:g}.parquet"
            if not table.exists():
                write_table(table, scale)
            extra = (["--ci", "0"] if args.no_ci else []) + (["--embedder", "none"] if args.no_embedder else [])
            print("| stage | peak RSS MB | RSS at its end MB |\n|---|---:|---:|")
            for name, peak, end in stage_profile(table, root / f"profile_x{scale:g}", extra):
                print(f"| {name} | {peak:.0f} | {end:.0f} |")
        return
    print("| responses | exit | peak RSS MB | wall s | CPU s | load s | scoring s | metrics s | statistics s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        for scale in (float(s) for s in args.scales.split(",")):
            table = root / f"responses_x{scale:g}.parquet"
            n = write_table(table, scale) if not table.exists() else len(__import__("pandas").read_parquet(table))
            r = measured_run(table, root / f"out_x{scale:g}", ci=not args.no_ci, embedder=not args.no_embedder)
            rows.append((n, r))
            t = r.get("timings", {})
            print(
                f"| {n:,} | {r['exit']} | {r['peak_mb']:.0f} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
                f"{t.get('responses', float('nan')):.1f} | {t.get('scoring', float('nan')):.1f} | "
                f"{t.get('metrics', float('nan')):.1f} | {t.get('statistics', float('nan')):.1f} |",
                flush=True,
            )
            if "error" in r:
                print(r["error"], file=sys.stderr)
    if len(rows) >= 2:
        n = np.array([r[0] for r in rows], dtype=float)
        peak = np.array([r[1]["peak_mb"] for r in rows])
        slope, intercept = np.polyfit(n / 1000, peak, 1)
        print(
            f"\nslope: {slope:.1f} MB per 1k responses, intercept {intercept:.0f} MB; "
            f"1,000,000 responses -> {intercept + slope * 1000:.0f} MB by the line"
        )


if __name__ == "__main__":
    main()
