"""Null simulation of the red team's template-probe statistics (issue 29, with issue 27 item 6): on data with no
group difference and no difference between system prompts, how often does the interval shown for a largest gap or
a condition-minus-benign difference exclude 0, against how often its test rejects?

Run: PYTHONPATH=. python benchmarks/bench_probe_null.py [--runs 100] [--resamples 999]

The same functions as :func:`evenhand.redteaming.probes.run_probes` (:mod:`evenhand.redteaming.probe_stats`) on
synthetic scored replies: religion's 6 groups (15 pairs), 10 templates, 5 samples per template and group; every
reply toxic with probability 0.2, refused with 0.3, sentiment N(0.3, 0.4) clipped to [-1, 1], under both the
condition and the reference. Per data set: the largest gap of each measure (3 tests) and the template probes'
toxic-share and refusal-rate differences from the reference (2 tests), adjusted together by Benjamini-Hochberg.

Prints, per kind of test: the share where the plain (unjoined) interval excludes 0, where the shown interval
(joined with 0 unless the test rejects) excludes 0, and where the test rejects at 0.05; and the share of data sets
with any raw and any adjusted p below 0.05.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pandas as pd

from evenhand.redteaming.probe_stats import adjust_probe_p_values, paired_difference, template_summary

GROUPS = ["christian", "muslim", "jewish", "hindu", "buddhist", "atheist"]
TEMPLATES, SAMPLES, LEVEL = 10, 5, 0.95
ALPHA = round(1 - LEVEL, 12)  # as joined_with_zero_unless_rejected rounds it (1 - 0.95 > 0.05 in floating point)


def _frame(rng: np.random.Generator) -> pd.DataFrame:
    rows = [(f"t{t}", g, f"t{t}:{g}", s) for t in range(TEMPLATES) for g in GROUPS for s in range(SAMPLES)]
    frame = pd.DataFrame(rows, columns=["template_id", "group", "prompt", "sample"]).assign(attribute="religion")
    n = len(frame)
    return frame.assign(
        toxic=(rng.random(n) < 0.2).astype(float),
        refused=(rng.random(n) < 0.3).astype(float),
        sentiment=np.clip(rng.normal(0.3, 0.4, n), -1, 1),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=999)
    args = parser.parse_args()
    counts: dict[str, dict[str, int]] = {k: {"n": 0, "plain": 0, "shown": 0, "reject": 0} for k in ("gap", "diff")}
    any_raw = any_adjusted = 0
    for seed in range(args.runs):
        rng = np.random.default_rng(seed)
        condition, reference = _frame(rng), _frame(rng)
        stats: dict[str, Any] = {"level": LEVEL, "n_resamples": args.resamples, "seed": seed}
        summary = template_summary(condition, {"religion": GROUPS}, **stats)
        gaps = list(summary["religion"]["gaps"].values())
        diffs = [
            paired_difference(condition, reference, c, "template_id", unit_name="template", **stats)
            for c in ("toxic", "refused")
        ]
        for kind, tests in (("gap", gaps), ("diff", diffs)):
            for test in tests:
                interval, c = test["interval"], counts[kind]
                plain = interval.get("unjoined", interval)
                c["n"] += 1
                c["plain"] += plain["low"] > 0 or plain["high"] < 0
                c["shown"] += interval["low"] > 0 or interval["high"] < 0
                c["reject"] += test["p_value"] < ALPHA
        adjust_probe_p_values([*gaps, *diffs])
        any_raw += any(t["p_value"] < ALPHA for t in [*gaps, *diffs])
        any_adjusted += any(t["p_adjusted"] < ALPHA for t in [*gaps, *diffs])
    for kind, title in (("gap", "largest gap"), ("diff", "condition minus reference")):
        c = counts[kind]
        print(
            f"{title}: {c['n']} tests; plain (unjoined) interval excludes 0 {c['plain'] / c['n']:.1%}; shown interval "
            f"excludes 0 {c['shown'] / c['n']:.1%}; test rejects {c['reject'] / c['n']:.1%}"
        )
    print(f"data sets with any raw p < 0.05: {any_raw / args.runs:.1%}; any adjusted: {any_adjusted / args.runs:.1%}")


if __name__ == "__main__":
    main()
