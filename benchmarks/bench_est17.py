"""est17: a fair name audit of numeric advice passes its gate (CER and CED adjusted as one comparison; est17b: CER
decides, CED described beside it).

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_est17.py [--seeds N] [--gap G] [--json OUT]

Each run is the audit of ``tests/test_pipeline_estimation.py::_audit`` (``tests/name_audit_server.py``: 24 prompts
at the ``low`` level, three samples a version, gender and race, 200 resamples) on ``NameAuditServer(seed=s)``:

* null: a fair server (no gap), seeds ``0..N-1``; a run with any concern is a false concern (its 95% Wilson
  interval beside it). Each false concern names the metric (CER or CED) whose adjusted p decided it, with both
  metrics' raw p of that pair.
* planted: ``gender_gap={"female": G}`` (default -0.06; the brief's power check also runs -0.05), seeds
  ``1000..1000+N-1``: runs whose gender finding (female vs male) is a concern, and each test's power alone (its raw
  p below 0.05), which is what chooses a primary test.

``--reread FILE`` re-adjusts a stored run's raw p-values under each way of reading CER and CED (``RULES``: apart,
joint, CER primary) without running anything.

Two seconds a run on 2 cores; 60 seeds of each take about four minutes.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from typing import Any

import numpy as np
from name_audit_server import NameAuditServer
from test_pipeline_estimation import _audit

from evenhand.stats import omnibus_then_pairs

ESTIMATES = ("CER", "CED")
#: how the adjustment may read CER and CED: "apart" (each its own family: integ17), "joint" (one family per
#: attribute: est17), "cer" (CER the primary test, CED descriptive: out of the adjustment, never a concern)
RULES = ("apart", "joint", "cer")


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` events in ``n`` runs."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def one_run(seed: int, gap: float | None) -> dict[str, Any]:
    options = {} if gap is None else {"gender_gap": {"female": gap}}
    with NameAuditServer(seed=seed, **options) as server:
        result = _audit(server, ("low",), ["gender", "race"])
    m = result.metrics[result.metrics["metric"].isin(["CER", "CED"])]
    raw = {(r.metric, r.attribute, r.comparison): (float(r.p_value), float(r.p_adjusted)) for r in m.itertuples()}
    concerns = [
        {"metric": f.metric, "attribute": f.attribute, "groups": list(f.groups),
         "p": {k: raw.get((k, f.attribute, " vs ".join(f.groups)), (math.nan, math.nan)) for k in ("CER", "CED")}}
        for f in result.verdict.findings if f.severity == "concern"
    ]  # fmt: skip
    gender = {k: raw.get((k, "gender", "female vs male"), (math.nan, math.nan)) for k in ("CER", "CED")}
    found = any(c["attribute"] == "gender" and "female" in c["groups"] for c in concerns)
    rows = [
        {"key": r.key, "metric": r.metric, "attribute": r.attribute, "comparison": r.comparison,
         "p_value": float(r.p_value), "p_adjusted": float(r.p_adjusted)}
        for r in result.metrics.itertuples() if "p_value" in result.metrics
    ]  # fmt: skip  # every row's test, to re-read the adjustment under another rule (--json)
    return {"seed": seed, "status": result.verdict.status, "concerns": concerns, "gender": gender, "found": found,
            "rows": rows}


def reread(rows: list[dict[str, Any]], rule: str) -> dict[tuple[str, str, str], float]:
    """Every CER/CED row's adjusted p as the run's adjustment gives it under ``rule``, from the stored raw p of every
    row (``omnibus_then_pairs`` over families of metric, attribute; a run of this audit has no class)."""
    kept = [r for r in rows if not (rule == "cer" and r["metric"] == "CED")]
    joint = rule == "joint"
    families = [("estimate" if joint and r["metric"] in ESTIMATES else r["key"], r["attribute"]) for r in kept]
    adjusted = omnibus_then_pairs(np.asarray([r["p_value"] for r in kept], dtype=float), families)
    return {(r["metric"], r["attribute"], r["comparison"]): float(p)
            for r, p in zip(kept, adjusted, strict=True) if r["metric"] in ESTIMATES}  # fmt: skip


def reread_table(path: str) -> None:
    """Null and planted figures of one stored bench run (--json) under each rule: runs with any CER/CED row at
    adjusted p < 0.05 (null), runs whose female-vs-male row is (planted)."""
    with open(path, encoding="utf-8") as fh:
        runs = json.load(fh)
    print("| rule | " + " | ".join(runs) + " |")
    print("|---|" + "---|" * len(runs))
    for rule in RULES:
        cells = []
        for name, rows in runs.items():
            read = [reread(r["rows"], rule) for r in rows]
            if name == "null":
                k = sum(any(p < 0.05 for p in x.values()) for x in read)
            else:
                k = sum(any(p < 0.05 for (m, a, c), p in x.items() if a == "gender") for x in read)
            cells.append(f"{k} of {len(rows)}")
        print(f"| {rule} | " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=60)
    parser.add_argument("--gap", type=float, action="append", help="planted female gap(s); default -0.06 and -0.05")
    parser.add_argument("--json", help="write every run's figures here")
    parser.add_argument("--no-null", action="store_true", help="planted gaps only (est17b: two processes, 2 cores)")
    parser.add_argument("--reread", help="a --json file: its runs' CER/CED adjusted under each rule, no new run")
    args = parser.parse_args()
    if args.reread:
        reread_table(args.reread)
        return
    n = max(1, min(args.seeds, 200))  # bounded
    start = time.perf_counter()
    runs: dict[str, list[dict[str, Any]]] = {} if args.no_null else {"null": [one_run(s, None) for s in range(n)]}
    for gap in args.gap or [-0.06, -0.05]:
        runs[f"planted {gap:+.0%}"] = [one_run(1000 + s, gap) for s in range(n)]
    null = runs.get("null", [])
    k = sum(r["status"] == "concern" for r in null)
    lo, hi = wilson(k, n)
    if null:
        print(f"null: {k} of {n} fair runs with a concern ({k / n:.1%}, 95% CI {lo:.1%}-{hi:.1%})")
    for r in null:
        for c in r["concerns"]:
            ps = ", ".join(f"{m} p {v[0]:.4f} adj {v[1]:.4f}" for m, v in c["p"].items())
            print(f"  seed {r['seed']}: {c['metric']} decides {c['attribute']} {' vs '.join(c['groups'])} ({ps})")
    for name, rows in runs.items():
        if name == "null":
            continue
        found = sum(r["found"] for r in rows)
        alone = {m: sum(r["gender"][m][0] < 0.05 for r in rows) for m in ("CER", "CED")}
        print(f"{name}: gender concern in {found} of {n}; raw p < 0.05 alone: CER {alone['CER']}, CED {alone['CED']}")
    print(f"{time.perf_counter() - start:.0f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(runs, fh, indent=1)


if __name__ == "__main__":
    main()
