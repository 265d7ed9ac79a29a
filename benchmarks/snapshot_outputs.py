"""Fingerprints of every output evenhand writes, to show that a refactoring changed no byte of them.

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/snapshot_outputs.py OUTDIR [--demo-store generations.sqlite]

Runs the `benchmarks/bench_pipeline.py` cases (the instant stand-in model; 40 x 2 and 200 x 5) through
``evenhand.assess`` and writes results.json, metrics.csv, responses.csv and report.html for each, plus, with
``--demo-store``, the offline demo's config re-assessed from a store of its generations (so no model runs and the
responses are the same ones). What differs between two runs by nature is blanked before hashing: the creation
time, the timings, the evenhand version and temporary paths. Compare two snapshots with ``diff -r A B``: the
files ``SHA256SUMS`` list one hash per output.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pipeline import stand_in

import evenhand
from evenhand.pipeline.responses.tables import demo_prompts

ROOT = Path(__file__).resolve().parents[1]
VOLATILE_KEYS = {"created", "timings", "evenhand_version", "seconds"}


def _blank(doc: Any) -> Any:
    """``doc`` with the keys that differ between two runs by nature set to a fixed value."""
    if isinstance(doc, dict):
        return {k: ("<volatile>" if k in VOLATILE_KEYS else _blank(v)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [_blank(v) for v in doc]
    return doc


def _normalise(path: Path, tmp: str) -> bytes:
    text = path.read_text(encoding="utf-8").replace(tmp, "<tmp>")
    if path.suffix == ".json":
        text = json.dumps(_blank(json.loads(text)), indent=1, sort_keys=False)
    if path.suffix == ".html":  # the report prints the creation time, the version and the timings
        text = re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+\-Z0-9:]*", "<time>", text)
        text = text.replace(evenhand.__version__, "<version>")
        text = re.sub(r"\d+\.\d+ s\b", "<seconds>", text)
    return text.encode("utf-8")


def _keep(src: Path, dest: Path, tmp: str) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("results.json", "metrics.csv", "responses.csv", "report.html"):
        if (src / name).exists():
            (dest / name).write_bytes(_normalise(src / name, tmp))


def pipeline_case(n_prompts: int, count: int, dest: Path) -> None:
    base = demo_prompts()["prompt"].tolist()
    prompts = [f"{base[i % len(base)]} (case {i})" for i in range(n_prompts)]
    assessment = evenhand.assess(
        task="text_generation", prompts=prompts, client=stand_in, count=count,
        generation_options={"seed": 0, "concurrency": 64}, store=None, progress=False,
    )  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        assessment.write_json(Path(tmp) / "results.json")
        assessment.metrics.to_csv(Path(tmp) / "metrics.csv", index=False)
        assessment.export_responses(Path(tmp) / "responses.csv")
        assessment.to_html(Path(tmp) / "report.html")
        _keep(Path(tmp), dest, tmp)


def demo_case(store: Path, dest: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(store, Path(tmp) / "generations.sqlite")  # where `assess --out` keeps its store: resumed
        cli = Path(sys.executable).with_name("evenhand")
        config = ROOT / "evenhand" / "data" / "demo" / "demo.yaml"
        env = dict(os.environ, PYTHONHASHSEED="0")
        done = subprocess.run(
            [str(cli), "assess", str(config), "--out", tmp, "--no-progress"],
            capture_output=True, text=True, env=env, timeout=900,
        )  # fmt: skip
        (dest / "demo").mkdir(parents=True, exist_ok=True)
        (dest / "demo" / "stdout.txt").write_text(done.stdout.replace(tmp, "<tmp>"))
        (dest / "demo" / "exit_code.txt").write_text(f"{done.returncode}\n{done.stderr[-2000:]}".replace(tmp, "<tmp>"))
        _keep(Path(tmp), dest / "demo", tmp)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--demo-store", type=Path, help="a generations.sqlite of `evenhand demo` to re-assess")
    parser.add_argument("--sizes", default="40x2,200x5")
    args = parser.parse_args()
    if os.environ.get("PYTHONHASHSEED") != "0":
        sys.exit("run with PYTHONHASHSEED=0 (the stand-in model hashes prompts)")
    for size in args.sizes.split(","):
        n, m = (int(x) for x in size.split("x"))
        pipeline_case(n, m, args.out / f"pipeline-{size}")
    if args.demo_store is not None:
        demo_case(args.demo_store, args.out)
    sums = [
        f"{hashlib.sha256(p.read_bytes()).hexdigest()}  {p.relative_to(args.out)}"
        for p in sorted(args.out.rglob("*"))
        if p.is_file() and p.name != "SHA256SUMS"
    ]
    (args.out / "SHA256SUMS").write_text("\n".join(sums) + "\n")
    print("\n".join(sums))


if __name__ == "__main__":
    main()
