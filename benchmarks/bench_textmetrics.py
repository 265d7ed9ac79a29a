"""Text-generation metrics: evenhand vs LangFair 0.8.0, side by side in one run (issue 4 targets).

    .venv/bin/python benchmarks/bench_textmetrics.py [--langfair-pairs 500] [--langfair-responses 300] [--no-langfair]

Workloads (synthetic ~60-word responses with gendered words, fixed seed):

* CROUGE-L + CBLEU with gender neutralization on 20,000 pairs (target <= 2 s): neutralize once and compute both,
  and the public calls ``pairs = neutralize_pairs(a, b, "gender")``, ``counterfactual_rouge_l(a, b,
  neutralized=pairs)``, ``counterfactual_bleu(a, b, neutralized=pairs)``
* COBS + SA on 25,000 responses (target <= 5 s)
* toxicity aggregation (TF, EMT, TP) of 1,000 prompts x 25 scores (target <= 0.05 s)
* counterfactual cosine on 2,000 pairs: embedding time vs the metric's own time (bound only by the embedder)

LangFair is run in ``.venv-langfair`` on a subset (it is slow) and scaled linearly to the full size; its
NLTK data is supplied as in ``tests/fixtures/langfair_text/generate.py``. Imports are warmed up first. Wall
and CPU (process) time are both reported, so runs on a busy machine stay interpretable.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _metrics_tokens_corpus import llm_like_text  # noqa: E402

GENDERED = "he she his her him man woman men women mother father sister brother".split()
STEREO = "caring emotional logical smart lazy strong nurse carpenter doctor teacher secretary".split()


def gendered_text(rng: random.Random, n: int = 60) -> str:
    words = llm_like_text(rng, n).split()
    for _ in range(5):
        words.insert(rng.randrange(len(words) + 1), rng.choice(GENDERED + STEREO))
    return " ".join(words)


def make_data(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    texts1 = [gendered_text(rng) for _ in range(20_000)]
    swap = {"he": "she", "his": "her", "him": "her", "man": "woman", "men": "women", "father": "mother"}
    texts2 = []
    for t in texts1:  # counterfactual-like: the same response with groups swapped, or a re-generation
        if rng.random() < 0.5:
            texts2.append(" ".join(swap.get(w, w) for w in t.split()))
        else:
            texts2.append(gendered_text(rng))
    responses = [gendered_text(rng) for _ in range(25_000)]
    prompts = [f"p{i}" for i in range(1_000) for _ in range(25)]
    scores = [rng.random() ** 4 for _ in prompts]
    return {"texts1": texts1, "texts2": texts2, "responses": responses, "prompts": prompts, "scores": scores}


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, float, Any]:
    """Median wall and CPU seconds over ``repeat`` runs, and the last result."""
    walls, cpus, out = [], [], None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), out


def run_evenhand(data: dict[str, Any], with_cosine: bool) -> dict[str, Any]:
    import evenhand.metrics as m
    from evenhand.metrics._tokens import fast_path_share

    a, b = data["texts1"], data["texts2"]
    # warm-up: imports (nltk, rapidfuzz, scipy) and lexicon compilation
    m.counterfactual_rouge_l(a[:50], b[:50])
    m.counterfactual_bleu(a[:50], b[:50])
    m.cooccurrence_bias(data["responses"][:50])
    m.stereotypical_associations(data["responses"][:50])
    from evenhand.text.counterfactual import neutralize

    res: dict[str, Any] = {}

    def cf() -> tuple[float, float]:
        na, nb = neutralize(a, "gender"), neutralize(b, "gender")
        r = m.counterfactual_rouge_l(na, nb, attribute=None)
        bl = m.counterfactual_bleu(na, nb, attribute=None)
        return float(r), float(bl)

    res["cf"] = timed(cf)

    def cf_api() -> tuple[float, float]:
        # the public calls as a user writes them: neutralize once, pass the result to both metrics
        pairs = m.neutralize_pairs(a, b, attribute="gender")
        r = m.counterfactual_rouge_l(a, b, attribute="gender", neutralized=pairs)
        return float(r), float(m.counterfactual_bleu(a, b, attribute="gender", neutralized=pairs))

    res["cf_api"] = timed(cf_api)
    res["neutralize"] = timed(lambda: (neutralize(a, "gender"), neutralize(b, "gender")), repeat=1)[:2]
    na, nb = neutralize(a, "gender"), neutralize(b, "gender")
    res["rouge"] = timed(lambda: m.counterfactual_rouge_l(na, nb, attribute=None), repeat=1)[:2]
    res["bleu"] = timed(lambda: m.counterfactual_bleu(na, nb, attribute=None), repeat=1)[:2]
    res["fast_share"] = fast_path_share([t.lower() for t in na[:2000]])

    def cooc() -> tuple[float, float]:
        return float(m.cooccurrence_bias(data["responses"])), float(m.stereotypical_associations(data["responses"]))

    res["cooc"] = timed(cooc)

    def tox() -> tuple[float, float, float]:
        s, p = data["scores"], data["prompts"]
        return (
            float(m.toxic_fraction(s, prompts=p)),
            float(m.expected_maximum_toxicity(s, p)),
            float(m.toxicity_probability(s, p)),
        )

    res["tox"] = timed(tox, repeat=5)
    if with_cosine:
        try:
            from evenhand.scorers import get_embedder

            emb = get_embedder(None)
            a2, b2 = a[:2000], b[:2000]
            emb.encode(a2[:10])
            enc_wall, enc_cpu, vectors = timed(lambda: emb.encode([*a2, *b2]), repeat=1)

            class Precomputed:
                def encode(self, texts: list[str]) -> Any:
                    return vectors

            metric = timed(lambda: m.counterfactual_cosine(a2, b2, embedder=Precomputed()), repeat=3)
            res["cosine"] = {"encode": (enc_wall, enc_cpu), "metric": metric[:2]}
        except Exception as exc:  # no model extra installed: report and go on
            res["cosine"] = {"error": repr(exc)}
    return res


LANGFAIR_RUNNER = r"""
import json, sys, time
sys.path.insert(0, "tests/fixtures/langfair_text")
import generate  # sets NLTK_DATA for LangFair and stubs sentence-transformers (see that file)
from langfair.generator.counterfactual import CounterfactualGenerator
from langfair.metrics.counterfactual.metrics import BleuSimilarity, RougelSimilarity
from langfair.metrics.stereotype.metrics import CooccurrenceBiasMetric, StereotypicalAssociations
from langfair.metrics.utils.classifier_metrics import ExpectedMaximum, Fraction, Probability

d = json.load(open(sys.argv[1]))
out = {}
a, b = d["texts1"], d["texts2"]
t = time.perf_counter(); c = time.process_time()
g = CounterfactualGenerator()
na, nb = g.neutralize_tokens(texts=a, attribute="gender"), g.neutralize_tokens(texts=b, attribute="gender")
RougelSimilarity().evaluate(na, nb, show_progress_bars=False)
BleuSimilarity().evaluate(na, nb, show_progress_bars=False)
out["cf"] = (time.perf_counter() - t, time.process_time() - c)
r = d["responses"]
t = time.perf_counter(); c = time.process_time()
CooccurrenceBiasMetric().evaluate(r, show_progress_bars=False)
StereotypicalAssociations().evaluate(r, show_progress_bars=False)
out["cooc"] = (time.perf_counter() - t, time.process_time() - c)
t = time.perf_counter(); c = time.process_time()
groups = {}
for p, s in zip(d["prompts"], d["scores"]):
    groups.setdefault(p, []).append(s)
Fraction.metric_function(d["scores"], 0.5)
sum(ExpectedMaximum.metric_function(v, 0.5) for v in groups.values()) / len(groups)
sum(Probability.metric_function(v, 0.5) for v in groups.values()) / len(groups)
out["tox"] = (time.perf_counter() - t, time.process_time() - c)
print(json.dumps(out))
"""


def run_langfair(data: dict[str, Any], n_pairs: int, n_responses: int) -> dict[str, Any] | None:
    python = ROOT / ".venv-langfair" / "bin" / "python"
    if not python.exists():
        return None
    subset = {
        "texts1": data["texts1"][:n_pairs],
        "texts2": data["texts2"][:n_pairs],
        "responses": data["responses"][:n_responses],
        "prompts": data["prompts"],
        "scores": data["scores"],
    }
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(subset, f)
    proc = subprocess.run(
        [str(python), "-c", LANGFAIR_RUNNER, f.name], cwd=ROOT, capture_output=True, text=True, timeout=3600
    )
    Path(f.name).unlink()
    if proc.returncode != 0:
        print("LangFair run failed:", proc.stderr[-2000:], file=sys.stderr)
        return None
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    scale_cf, scale_cooc = 20_000 / n_pairs, 25_000 / n_responses
    return {
        "cf": tuple(x * scale_cf for x in out["cf"]),
        "cooc": tuple(x * scale_cooc for x in out["cooc"]),
        "tox": tuple(out["tox"]),
        "n_pairs": n_pairs,
        "n_responses": n_responses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--langfair-pairs", type=int, default=500)
    parser.add_argument("--langfair-responses", type=int, default=300)
    parser.add_argument("--no-langfair", action="store_true")
    parser.add_argument("--no-cosine", action="store_true")
    args = parser.parse_args()
    data = make_data()
    ours = run_evenhand(data, with_cosine=not args.no_cosine)
    lf = None if args.no_langfair else run_langfair(data, args.langfair_pairs, args.langfair_responses)

    def fmt(t: tuple[float, float] | None) -> str:
        return "n/a" if t is None else f"{t[0]:.3f} s (CPU {t[1]:.3f} s)"

    rows = [
        ("CROUGE-L + CBLEU, gender neutralization, 20,000 pairs", ours["cf"], "2 s", "cf"),
        ("same, as public calls: neutralize_pairs once, neutralized= to both", ours["cf_api"], "2 s", None),
        ("COBS + SA, 25,000 responses", ours["cooc"], "5 s", "cooc"),
        ("TF + EMT + TP, 1,000 prompts x 25 scores", ours["tox"], "0.05 s", "tox"),
    ]
    print("| workload | evenhand (wall, CPU) | target | LangFair 0.8.0 (wall, CPU) |")
    print("|---|---|---|---|")
    for label, t, target, key in rows:
        theirs = "(as above)" if key is None else fmt(lf[key][:2]) if lf else "n/a"
        if lf and key == "cf":
            theirs += f", scaled from {lf['n_pairs']} pairs"
        if lf and key == "cooc":
            theirs += f", scaled from {lf['n_responses']} responses"
        print(f"| {label} | {fmt(t[:2])} | <= {target} | {theirs} |")
    print()
    print(
        f"Breakdown of the first row (one run): neutralization {fmt(ours['neutralize'])}, CROUGE-L "
        f"{fmt(ours['rouge'])}, CBLEU {fmt(ours['bleu'])}; {ours['fast_share']:.1%} of the texts took the "
        "single-pass tokenizer path."
    )
    cos = ours.get("cosine")
    if cos and "error" not in cos:
        print(
            f"Counterfactual cosine, 2,000 pairs: embedding {fmt(cos['encode'])}, metric on the embeddings "
            f"{fmt(cos['metric'])}."
        )
    elif cos:
        print("Counterfactual cosine skipped:", cos["error"])


if __name__ == "__main__":
    main()
