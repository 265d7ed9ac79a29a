"""Peak memory and time of writing results.json with every response: the streamed writer against the former one.

    .venv/bin/python benchmarks/bench_results_json.py              # 100,000 responses (scale 2.5)
    .venv/bin/python benchmarks/bench_results_json.py --scale 10   # 400,000

Each writer runs in a fresh process on the same assessment: the plan and metric rows of a small real run, with the
response frame replaced by a synthetic one (:mod:`synthetic`, plus toxicity and sentiment columns as a run adds
them). "before" is the former ``to_json`` body (``json.dumps(to_dict(), indent=1)`` then one write), "after" is
``Assessment.write_json(path)``, "document" writes only the part both share (everything but the responses). The peak
is the resident set size sampled every 5 ms during the write, minus the RSS just before it (so what building the
frame cost is left out). The before and after files are then loaded and compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss_mb() -> float:
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * PAGE / 2**20


def _assessment(scale: float):  # type: ignore[no-untyped-def]
    from synthetic import paper_scale_table

    import evenhand
    from evenhand.pipeline.responses.frame import finish_frame

    table = paper_scale_table(scale)
    small = evenhand.assess(
        task="text_generation", responses=table.head(400), attributes=["gender"], embedder=False, ci=None,
        progress=False,
    )  # fmt: skip
    frame = finish_frame(table.assign(status="ok", error=None))
    rng = np.random.default_rng(0)
    frame["toxicity"] = rng.random(len(frame))
    sentiment = rng.random(len(frame))
    sentiment[rng.random(len(frame)) < 0.1] = np.nan
    frame["sentiment"] = sentiment
    return replace(small, responses=frame)


def child(mode: str, scale: float, path: Path) -> None:
    from evenhand._files import write_text

    a = _assessment(scale)
    base = _rss_mb()
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb())
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    if mode == "before":
        write_text(path, json.dumps(a.to_dict(), indent=1, ensure_ascii=False))
    elif mode == "after":
        a.write_json(path)
    else:  # what both share: the document without its responses (plots, worst examples, summaries)
        write_text(path, json.dumps(a._document(), indent=1, ensure_ascii=False))
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    print(json.dumps({"mode": mode, "responses": len(a.responses), "rss_before_mb": round(base),
                      "write_peak_mb": round(peak[0] - base), "seconds": round(seconds, 2),
                      "file_mb": round(path.stat().st_size / 2**20, 1)}))  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=2.5)
    parser.add_argument("--child", choices=["before", "after", "document"])
    parser.add_argument("--path", type=Path)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.scale, args.path)
        return
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for mode in ("before", "after", "document"):
            paths[mode] = Path(tmp) / f"{mode}.json"
            cmd = [sys.executable, __file__, "--child", mode, "--scale", str(args.scale), "--path", str(paths[mode])]
            print(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1])
        docs = [json.loads(paths[mode].read_text(encoding="utf-8")) for mode in ("before", "after")]
        for doc in docs:  # the small run behind each process has its own timestamp and timings
            doc.pop("created", None)
            doc.pop("timings", None)
            for audit in doc.get("scorer_audit", {}).values():
                audit.pop("seconds", None)
        if docs[0] != docs[1]:
            print("differing keys:", [k for k in docs[0] if docs[0].get(k) != docs[1].get(k)])
        print("json.load equal:", docs[0] == docs[1])


if __name__ == "__main__":
    main()
