"""Every available toxicity scorer on evenhand's toxicity sets (issue 34), and the new default's cost at paper scale.

    PYTHONPATH=$PWD python benchmarks/bench_toxicity_sets.py [--speed]
        [--split heldout|fresh|fresh2|fresh3|fresh4|fresh5|fresh6|fresh7|dev]

Part 1, quality (``evenhand_training.toxicity_report.scorer_figures`` on the held-out split): false positives per
domain on benign sentences, insult recall (alone and inside polite replies, worst sentence and whole reply), AUC,
and the scorer audit's identity figures, for alt-profanity-check (raw and identity-masked, the old default),
evenhand-minilm-toxicity (identity-masked; with and without its screen), and Detoxify or a Hugging
Face model when their weights are on this machine (offline they are not: the row says why).

Part 2, speed (``--speed [--sample N] [--no-quality] [--runtimes onnx torch]``): the scorer as the pipeline builds
it (identity-masked, worst unit) on the paper-scale synthetic table's 40,000 responses (``synthetic.py``) or ``N``
of them, scored in one call, beside the lexical default; reported with the texts the screen sent to the encoder, the
load average before and after, and the time scaled by distinct units to the whole table; and, under the same load,
the bundled MiniLM embedding 600 replies (a paper-scale run is mostly that embedding of 15,000 replies), which gives
the toxicity scorer's share of a paper-scale run: T / (embedding + other work + T), the lexical default's time taken
out.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
#: Replies the embedder yardstick encodes, and the seconds of a paper-scale run that are neither embedding nor
#: toxicity (RESULTS.md "Lean at scale": 226 s end to end on the idle machine, 193 s of them the embedding).
EMBED_SAMPLE = 600
OTHER_SECONDS = 33.0
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def scorers() -> dict[str, Any]:
    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity

    out: dict[str, Any] = {
        "alt-profanity-check": get_toxicity_scorer(),
        "alt-profanity-check, masked (old default)": IdentityMaskedScorer(get_toxicity_scorer()),
        "evenhand-minilm-toxicity, masked": IdentityMaskedScorer(MiniLMToxicity()),
        "evenhand-minilm-toxicity, masked, no screen": IdentityMaskedScorer(MiniLMToxicity(screen=False)),
    }
    for spec in ("detoxify-unbiased", "detoxify-original"):
        try:
            out[spec] = get_toxicity_scorer(spec, device="cpu")
        except Exception as exc:  # offline: the weights cannot be downloaded
            out[spec] = f"not available offline: {type(exc).__name__}: {str(exc)[:120]}"
    return out


def quality(split: str) -> dict[str, Any]:
    from evenhand_training.toxicity_report import scorer_figures

    results: dict[str, Any] = {}
    for name, scorer in scorers().items():
        if isinstance(scorer, str):
            results[name] = scorer
            print(f"{name}: {scorer}")
            continue
        fig = scorer_figures(scorer, split=split)
        results[name] = fig
        s = fig["summary"]
        fp = " ".join(f"{d[:5]} {v:.1%}" for d, v in s["fp_by_domain"].items())
        print(
            f"{name}\n  FP by domain: {fp}\n  insult recall: sentence {s['recall_sentence']:.1%}, polite reply worst "
            f"sentence {s['recall_worst']:.1%} (benign replies flagged {s['fp_worst']:.1%}), whole reply "
            f"{s['recall_whole']:.1%} ({s['fp_whole']:.1%}); AUC sentence {s['auc_sentence']:.3f}, reply "
            f"{s['auc_worst']:.3f}\n  audit: benign flagged {s['audit_fpr']:.1%}, worst BPSN AUC "
            f"{s['audit_worst_bpsn_auc']:.3f}, largest gap per attribute "
            + ", ".join(f"{a} {g:.3f}" for a, g in s["audit_largest_gap"].items())
            + f"  ({s['seconds']:.1f} s)"
        )
    return results


def speed(sample: int | None = None, screen: bool = True, runtimes: tuple[str, ...] = ("auto",)) -> dict[str, Any]:
    """The scorer as the pipeline builds it on the paper-scale table's responses (all, or ``sample`` of them drawn
    with seed 0), beside the lexical default, with the machine's load before and after; the time scaled by distinct
    units to the whole table estimates the cost in a paper-scale run. One MiniLM row per encoder runtime in
    ``runtimes`` (each loads its encoder before the clock starts: an ONNX export, once a machine, is not timed)."""
    import os

    import numpy as np
    import pandas as pd
    from synthetic import write_table

    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers.masking import IdentityMaskedScorer
    from evenhand.scorers.sentences import WorstSentenceScorer, split_units
    from evenhand.scorers.toxicity_minilm import MiniLMToxicity

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "table.parquet"
        write_table(path)
        texts = pd.read_parquet(path)["response"].astype(str).tolist()
    inners = {runtime: MiniLMToxicity(screen=screen, runtime=runtime) for runtime in runtimes}
    for inner in inners.values():
        inner.encoder()
    units = next(iter(inners.values())).min_sentence_words
    all_units = len({u for t in texts for u in split_units(t, units)})
    if sample:
        texts = [texts[i] for i in sorted(np.random.default_rng(0).permutation(len(texts))[:sample])]
    distinct = len({u for t in texts for u in split_units(t, units)})
    out: dict[str, Any] = {"responses": len(texts), "distinct_units": distinct, "table_distinct_units": all_units,
                           "load_before": os.getloadavg()}  # fmt: skip
    rows = [("lexical default", WorstSentenceScorer(IdentityMaskedScorer(get_toxicity_scorer())))]
    rows += [(f"evenhand-minilm-toxicity ({inner.runtime})", WorstSentenceScorer(IdentityMaskedScorer(inner)))
             for inner in inners.values()]  # fmt: skip
    for name, scorer in rows:
        load = os.getloadavg()[0]
        started, cpu = time.perf_counter(), time.process_time()
        scores = np.asarray(scorer(texts))
        took = time.perf_counter() - started
        out[name] = {"seconds": round(took, 2), "scaled_to_table_seconds": round(took * all_units / distinct, 1),
                     "cpu_seconds": round(time.process_time() - cpu, 2), "flagged_share": float((scores >= 0.5).mean()),
                     "load_1min": [load, os.getloadavg()[0]]}  # fmt: skip
    out["encoded"] = {inner.runtime: inner.n_encoded for inner in inners.values()}
    # the yardstick under the same load: a paper-scale run is ~85% the bundled MiniLM embedding 15,000
    # counterfactual replies (RESULTS.md, "Lean at scale": 193 of 226 s on the idle machine)
    from evenhand.scorers import get_embedder

    embedder = get_embedder(device="cpu")
    embedder.encode(texts[:8])
    started = time.perf_counter()
    embedder.encode(texts[:EMBED_SAMPLE])
    out["embedder_seconds_15000_replies"] = round((time.perf_counter() - started) * 15000 / EMBED_SAMPLE, 1)
    run = out["embedder_seconds_15000_replies"] + OTHER_SECONDS
    lexical = out["lexical default"]["scaled_to_table_seconds"]
    for inner in inners.values():
        tox = out[f"evenhand-minilm-toxicity ({inner.runtime})"]["scaled_to_table_seconds"]
        out[f"share_of_paper_scale_run ({inner.runtime})"] = round(tox / (run - lexical + tox), 3)
    out["load_after"] = os.getloadavg()
    print(json.dumps(out, indent=1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    from evenhand.scorers.toxicity_sets import SPLITS

    parser.add_argument("--split", default="heldout", choices=SPLITS)
    parser.add_argument("--speed", action="store_true")
    parser.add_argument("--quality", action=argparse.BooleanOptionalAction, default=True, help="part 1 (default on)")
    parser.add_argument("--sample", type=int, default=None, help="--speed on this many responses of the table")
    parser.add_argument("--no-screen", action="store_true", help="--speed without the screen")
    parser.add_argument("--runtimes", nargs="+", default=["auto"], choices=["auto", "onnx", "torch"],
                        help="--speed: the MiniLM encoder's runtime(s), one row each (default: auto)")  # fmt: skip
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args()
    results: dict[str, Any] = {"quality": quality(args.split)} if args.quality else {}
    if args.speed:
        results["speed"] = speed(args.sample, screen=not args.no_screen, runtimes=tuple(args.runtimes))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    main()
