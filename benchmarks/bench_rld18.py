"""rld18: answer length (RLD) over the pairs where neither reply is a refusal; refusals are RRD's evidence alone.

Whole runs (``evenhand.assess`` on generated replies, 30 prompts x 5 replies a version, the offline refusal patterns
at their threshold), each data set judged twice: *before* (RLD over every pair, a refusal counted as a short answer:
the pair filter switched off) and *after* (this branch). Three cells:

* null: a fair model, both groups refused 10% of the time and answered at the same lengths (RLD false concern);
* planted length: one group's answers 30% shorter, no refusals (RLD still found: power before/after);
* planted refusal: one group refused 30% of the time, the other 5%, answers otherwise the same length (RRD finds it;
  RLD should no longer).

    PYTHONPATH=$PWD python benchmarks/bench_rld18.py --null 100 --planted 30
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import evenhand
import evenhand.pipeline.families.refusal_length as parity

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from _bias_fixtures import fixture_prompts

PROMPTS, SAMPLES = 30, 5
REFUSE = "I can't help with that request."
WORDS = ("the", "form", "send", "account", "next", "step", "we", "will", "confirm", "details", "within", "two", "days",
         "check", "amount", "receipt", "email", "statement", "change", "open", "app", "pick", "item")  # fmt: skip
FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
_filter = parity.answered_pairs


def replies(seed: int, refuse: dict[str, float], shorter: str | None) -> dict[str, Any]:
    """Replies to a female and a male version of each prompt: refused at ``refuse[group]``, else an answer of the
    prompt's length (Poisson around a prompt-level base, the same for both groups), 30% shorter for ``shorter``."""
    rng = np.random.default_rng(seed)
    out: dict[str, list[str]] = {"female": [], "male": []}
    for i in range(PROMPTS):
        base = int(rng.integers(20, 80))
        for _ in range(SAMPLES):
            for group in out:
                if rng.random() < refuse[group]:
                    out[group].append(REFUSE)
                    continue
                n = max(3, int(rng.poisson(base) * (0.7 if group == shorter else 1.0)))
                out[group].append(f"About item {i}: " + " ".join(rng.choice(WORDS, n)) + ".")
    originals = [f"About item {i}: " + " ".join(rng.choice(WORDS, 30)) for i in range(PROMPTS) for _ in range(SAMPLES)]
    return {"task": "text_generation", "prompts": fixture_prompts(PROMPTS), "responses": originals,
            "counterfactual_responses": {"gender": out}, "attributes": ["gender"]}  # fmt: skip


def severities(data: dict[str, Any], before: bool) -> dict[str, str]:
    """RLD's and RRD's severity in one run; ``before``: every pair kept (the pre-rld18 rule)."""
    parity.answered_pairs = (lambda found, threshold: np.ones(len(found), dtype=bool)) if before else _filter
    try:
        a = evenhand.assess(**data, **FAST)
    finally:
        parity.answered_pairs = _filter
    rows = a.metrics[a.metrics["attribute"] == "gender"].set_index("metric")
    return {m: str(rows.loc[m, "severity"]) for m in ("RLD", "RRD")}


CELLS: dict[str, tuple[str, Callable[[int], dict[str, Any]]]] = {
    "null": ("fair: both refused 10%, same lengths", lambda s: replies(s, {"female": 0.1, "male": 0.1}, None)),
    "length": ("planted: female answers 30% shorter, no refusals",
               lambda s: replies(s, {"female": 0.0, "male": 0.0}, "female")),
    "refusal": ("planted: female refused 30%, male 5%, same lengths",
                lambda s: replies(s, {"female": 0.3, "male": 0.05}, None)),
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null", type=int, default=100)
    parser.add_argument("--planted", type=int, default=30)
    args = parser.parse_args()
    start = time.perf_counter()
    print("| cell | data sets | RLD concern before | RLD concern after | RLD watch+ after | RRD concern after |")
    print("|---|---|---|---|---|---|")
    for key, (name, make) in CELLS.items():
        n = max(1, min(args.null if key == "null" else args.planted, 400))  # bounded
        counts = {"before": 0, "after": 0, "shown": 0, "rrd": 0}
        for seed in range(n):
            data = make(1000 * (1 + list(CELLS).index(key)) + seed)
            old, new = severities(data, before=True), severities(data, before=False)
            counts["before"] += old["RLD"] == "concern"
            counts["after"] += new["RLD"] == "concern"
            counts["shown"] += new["RLD"] in ("concern", "watch")
            counts["rrd"] += new["RRD"] == "concern"
        cells = " | ".join(f"{counts[c]} of {n} ({counts[c] / n:.0%})" for c in ("before", "after", "shown", "rrd"))
        print(f"| {name} | {n} | {cells} |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
