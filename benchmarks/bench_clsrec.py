"""Benchmark: classification and recommendation fairness metrics, evenhand vs LangFair 0.8.0, side by side.

Run with the project venv: ``.venv/bin/python benchmarks/bench_clsrec.py``. The LangFair columns are measured in a
child process with ``.venv-langfair/bin/python`` (override with ``LANGFAIR_PYTHON=...``) on the same data, passed
through a temporary file. Prints a markdown table of median wall-clock times and the metric values.

Issue targets: all five classification metrics on 100,000 rows <= 0.05 s; Jaccard/SERP/PRAG on 10,000 pairs of
K=10 <= 0.2 s.
"""

from __future__ import annotations

import json
import os
import pickle
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
N_ROWS = 100_000
N_PAIRS, K = 10_000, 10

LANGFAIR_CHILD = r"""
import json, pickle, statistics, sys, time
import numpy as np
from langfair.metrics.classification import ClassificationMetrics
from langfair.metrics.recommendation import RecommendationMetrics

data = pickle.load(open(sys.argv[1], "rb"))
repeats = int(sys.argv[2])

def timed(fn):
    times, cpu, value = [], [], None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(times), statistics.median(cpu), value

out = {}
yt, yp, g = (np.asarray(data[k]) for k in ("y_true", "y_pred", "groups"))
out["cls"] = timed(lambda: ClassificationMetrics("all").evaluate(groups=g, y_pred=yp, y_true=yt))
out["rec"] = timed(lambda: RecommendationMetrics().evaluate_pairwise(data["recs1"], data["recs2"]))
print(json.dumps(out, default=float))
"""


def _timed(fn: Callable[[], Any], repeats: int) -> tuple[str, Any]:
    """Median wall-clock and CPU seconds (CPU time is less disturbed by other work on a shared machine)."""
    fn()  # warm-up: lazy imports, allocator
    times, cpu, value = [], [], None
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        value = fn()
        times.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return _fmt(statistics.median(times), statistics.median(cpu)), value


def _fmt(wall: float, cpu: float) -> str:
    return f"{wall:.4f} s ({cpu:.4f} s)"


def _data() -> dict[str, Any]:
    rng = np.random.default_rng(2026)
    groups = rng.choice(np.array(["female", "male"]), N_ROWS)
    y_true = rng.integers(0, 2, N_ROWS)
    # a mildly biased classifier: more false negatives for one group
    flip = rng.random(N_ROWS) < np.where(groups == "female", 0.25, 0.15)
    y_pred = np.where(flip, 1 - y_true, y_true)
    vocab = np.array([f"Product {i}" for i in range(300)])
    base = [rng.choice(300, K, replace=False) for _ in range(N_PAIRS)]
    recs1 = [vocab[b].tolist() for b in base]
    recs2 = []
    for b in base:  # the counterfactual list: mostly the same items, partly re-ordered or replaced
        other = b.copy()
        swap = rng.random(K) < 0.3
        other[swap] = rng.permutation(other[swap])
        replace = rng.random(K) < 0.2
        fresh = np.setdiff1d(rng.choice(300, 3 * K, replace=False), b)[: replace.sum()]
        other[np.flatnonzero(replace)[: fresh.size]] = fresh
        recs2.append(vocab[other].tolist())
    return {"y_true": y_true, "y_pred": y_pred, "groups": groups, "recs1": recs1, "recs2": recs2}


def _langfair(data: dict[str, Any], repeats: int) -> dict[str, Any] | None:
    python = os.environ.get("LANGFAIR_PYTHON", str(ROOT / ".venv-langfair" / "bin" / "python"))
    if not Path(python).exists():
        return None
    with tempfile.NamedTemporaryFile(suffix=".pkl", delete=False) as handle:
        pickle.dump({k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in data.items()}, handle)
    try:
        proc = subprocess.run(
            [python, "-c", LANGFAIR_CHILD, handle.name, str(repeats)], capture_output=True, text=True, check=False
        )
    finally:
        os.unlink(handle.name)
    if proc.returncode != 0:
        print(f"LangFair run failed: {proc.stderr.strip()[-500:]}", file=sys.stderr)
        return None
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    from evenhand import metrics as m

    data = _data()
    yt, yp, g = data["y_true"], data["y_pred"], data["groups"]
    r1, r2 = data["recs1"], data["recs2"]
    repeats = 7

    def five_separately() -> dict[str, float]:
        return {
            "DP": float(m.demographic_parity_difference(yp, g)),
            "FNRD": float(m.false_negative_rate_difference(yt, yp, g)),
            "FORD": float(m.false_omission_rate_difference(yt, yp, g)),
            "FPRD": float(m.false_positive_rate_difference(yt, yp, g)),
            "FDRD": float(m.false_discovery_rate_difference(yt, yp, g)),
        }

    def three_separately() -> dict[str, float]:
        return {
            "Jaccard-K": float(m.jaccard_at_k(r1, r2)),
            "SERP-K": float(m.serp_at_k(r1, r2)),
            "PRAG-K": float(m.prag_at_k(r1, r2)),
        }

    cls_sep, cls_values = _timed(five_separately, repeats)
    cls_all, _ = _timed(lambda: m.classification_metrics(yt, yp, g), repeats)
    cls_list, _ = _timed(lambda: m.classification_metrics(yt.tolist(), yp.tolist(), g.tolist()), repeats)
    rec_sep, rec_values = _timed(three_separately, repeats)
    rec_all, _ = _timed(lambda: m.recommendation_metrics(r1, r2), repeats)
    dp = m.demographic_parity_difference(yp, g)
    weights = np.random.default_rng(0).poisson(1.0, (200, N_ROWS)).astype(float)
    boot, _ = _timed(lambda: dp.resampler(weights), 3)
    lf = _langfair(data, repeats=3)

    lf_cls = _fmt(*lf["cls"][:2]) if lf else "n/a"
    lf_rec = _fmt(*lf["rec"][:2]) if lf else "n/a"
    machine = platform.processor() or platform.machine()
    print(f"Machine: {machine}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print()
    print("Median wall-clock time (CPU time in brackets).")
    print()
    print("| task | evenhand | LangFair 0.8.0 | target |")
    print("|---|---|---|---|")
    print(f"| 5 classification metrics, {N_ROWS:,} rows, 5 separate calls | {cls_sep} | {lf_cls} | ≤ 0.05 s |")
    print(f"| 5 classification metrics, one `classification_metrics` call | {cls_all} | — | ≤ 0.05 s |")
    print(f"| same, inputs as Python lists | {cls_list} | — | — |")
    print(f"| Jaccard/SERP/PRAG, {N_PAIRS:,} pairs, K={K}, 3 separate calls | {rec_sep} | {lf_rec} | ≤ 0.2 s |")
    print(f"| Jaccard/SERP/PRAG, one `recommendation_metrics` call | {rec_all} | — | ≤ 0.2 s |")
    print(f"| DP bootstrap statistic, 200 draws × {N_ROWS:,} rows | {boot} | — | — |")
    print()
    print("| metric | evenhand | LangFair 0.8.0 |")
    print("|---|---|---|")
    lf_names = {
        "DP": "PredictedPrevalenceRateParity",
        "FNRD": "FalseNegativeRateParity",
        "FORD": "FalseOmissionRateParity",
        "FPRD": "FalsePositiveRateParity",
        "FDRD": "FalseDiscoveryRateParity",
        "Jaccard-K": "Jaccard",
        "SERP-K": "SERP",
        "PRAG-K": "PRAG",
    }
    lf_values = {**(lf["cls"][2] if lf else {}), **(lf["rec"][2] if lf else {})}
    for name, value in {**cls_values, **rec_values}.items():
        other = lf_values.get(lf_names[name])
        print(f"| {name} | {value:.4f} | {'n/a' if other is None else f'{other:.4f}'} |")


if __name__ == "__main__":
    main()
