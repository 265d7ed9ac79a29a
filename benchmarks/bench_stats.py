"""Uncertainty benchmark (issue 7): interval speed, LangFair side by side, and the full coverage simulation.

Run: .venv/bin/python benchmarks/bench_stats.py [--reps 1000] [--skip-langfair] [--skip-coverage] [--units]

Speed targets: 1,000 resamples of TF, EMT and TP on 25,000 responses (1,000 prompts) <= 1 s in all; an interval on
CROUGE-L for 20,000 pairs adds <= 0.5 s to the point estimate. LangFair 0.8.0 computes the same point estimates but
has no intervals; its timings come from .venv-langfair in the same run.

Coverage: nominal 95% intervals should hold the known truth in 93-97% of repetitions for TF, EMT, a classification
difference (DP, FNRD) and a CROUGE-L-like mean of pair similarities, plus the noise-floor gap. Prints markdown tables.

``--units`` (issue 14) adds repeated, correlated answers per prompt: coverage of pair/row-unit vs prompt-unit
intervals, type-I error of the row-level exact rate test vs the permutation of prompts and of the pair-level vs
prompt-level swap test, and the cost of the prompt-level resamplers and tests.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from evenhand.metrics._result import MetricResult, mean_resampler, ratio_resampler
from evenhand.stats import Interval, confidence_interval, noise_floor_from_scores

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _units_simulation import AngleEmbedder, clustered_pairs, clustered_people, null_rejections  # noqa: E402

# .venv-langfair is the project's LangFair venv (benchmarks/setup_langfair.sh); /tmp/lfvenv is a fallback copy
LANGFAIR_CANDIDATES = [ROOT / ".venv-langfair" / "bin" / "python", Path("/tmp/lfvenv/bin/python")]
N_PROMPTS, M = 1000, 25
N_PAIRS = 20_000
WORDS = np.array("the a model answer patient doctor nurse engineer good bad calm quick slow help plan care".split())


class Timing:
    """Median wall-clock and CPU (this process) seconds over repeats; CPU time is fairer on a shared machine."""

    def __init__(self, fn: Callable[[], object], repeats: int = 5) -> None:
        walls, cpus = [], []
        for _ in range(repeats):
            wall, cpu = time.perf_counter(), time.process_time()
            fn()
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        self.wall, self.cpu = statistics.median(walls), statistics.median(cpus)

    def __str__(self) -> str:
        return f"{self.wall:.3f} s ({self.cpu:.3f} s)"


# ----------------------------------------------------------------------------------------------- metric adapters
def toxicity_results(scores: np.ndarray, prompt_ids: np.ndarray) -> dict[str, MetricResult]:
    """TF, EMT, TP from the real metric functions (fallback before they existed: equivalent resamplers)."""
    try:
        from evenhand.metrics import toxicity as tox

        return {
            "TF": tox.toxic_fraction(scores, prompts=prompt_ids),
            "EMT": tox.expected_maximum_toxicity(scores, prompts=prompt_ids),
            "TP": tox.toxicity_probability(scores, prompts=prompt_ids),
        }
    except (ImportError, TypeError):
        grid = scores.reshape(-1, M)
        toxic = (grid >= 0.5).sum(axis=1)
        maxima = grid.max(axis=1)
        hit = (maxima >= 0.5).astype(float)
        return {
            "TF": MetricResult(
                "TF", toxic.sum() / grid.size, resampler=ratio_resampler(toxic, np.full(len(grid), M), "prompt")
            ),
            "EMT": MetricResult("EMT", maxima.mean(), resampler=mean_resampler(maxima, "prompt")),
            "TP": MetricResult("TP", hit.mean(), resampler=mean_resampler(hit, "prompt")),
        }


def rouge_result(texts_a: list[str], texts_b: list[str]) -> tuple[MetricResult, str]:
    try:
        from evenhand.metrics.counterfactual import counterfactual_rouge_l

        # attribute=None: no neutralization, the same computation as LangFair's RougelSimilarity
        return counterfactual_rouge_l(texts_a, texts_b, attribute=None), "counterfactual_rouge_l(attribute=None)"
    except ImportError:
        from rapidfuzz.distance import LCSseq

        sims = []
        for a, b in zip(texts_a, texts_b, strict=True):
            ta, tb = a.split(), b.split()
            lcs = LCSseq.similarity(ta, tb)
            sims.append(0.0 if lcs == 0 else 2 * lcs / (len(ta) + len(tb)))
        x = np.array(sims)
        return MetricResult("CROUGE-L", x.mean(), resampler=mean_resampler(x, "pair")), "stand-in ROUGE-L (rapidfuzz)"


# ----------------------------------------------------------------------------------------------- speed
def speed(skip_langfair: bool) -> list[str]:
    rng = np.random.default_rng(0)
    prompt_ids = np.repeat(np.arange(N_PROMPTS), M)
    scores = rng.beta(0.3, 4.0, size=N_PROMPTS * M)
    results = toxicity_results(scores, prompt_ids)
    point_tox = Timing(lambda: toxicity_results(scores, prompt_ids))
    per_metric = {name: Timing(lambda r=r: confidence_interval(r, n_resamples=1000)) for name, r in results.items()}
    bca = {
        name: Timing(lambda r=r: confidence_interval(r, n_resamples=1000, method="bca"), 3)
        for name, r in results.items()
    }

    texts_a = [" ".join(rng.choice(WORDS, size=rng.integers(8, 30))) for _ in range(N_PAIRS)]
    texts_b = [" ".join(rng.choice(WORDS, size=rng.integers(8, 30))) for _ in range(N_PAIRS)]
    rouge, rouge_source = rouge_result(texts_a, texts_b)
    point_rouge = Timing(lambda: rouge_result(texts_a, texts_b), 3)
    interval_rouge = Timing(lambda: confidence_interval(rouge, n_resamples=1000))
    interval_rouge_bca = Timing(lambda: confidence_interval(rouge, n_resamples=1000, method="bca"), 3)

    lf: dict[str, Any] = {}
    if not skip_langfair:
        lf = langfair_times(scores, prompt_ids, texts_a, texts_b)

    def cell(key: str) -> str:
        return f"{lf[key]:.3f} s ({lf[key + '_cpu']:.3f} s), point estimate only" if key in lf else "not run"

    total = sum(t.wall for t in per_metric.values())
    total_cpu = sum(t.cpu for t in per_metric.values())
    total_bca = sum(t.wall for t in bca.values())
    lines = [
        f"Speed: {N_PROMPTS:,} prompts x {M} responses = {N_PROMPTS * M:,} scores; CROUGE-L on {N_PAIRS:,} pairs "
        f"({rouge_source}). Median of 5 runs (BCa: 3); wall clock, with this process's CPU time in brackets.",
        "",
        f"LangFair interpreter: {lf.get('python', 'not run')}.",
        "",
        "| task | evenhand percentile | evenhand BCa | target | LangFair 0.8.0 |",
        "|---|---|---|---|---|",
    ]
    for name in results:
        lines.append(f"| 1,000 resamples of {name} | {per_metric[name]} | {bca[name]} | | no intervals |")
    ok = "met" if total <= 1.0 else "MISSED"
    lines.append(
        f"| TF + EMT + TP intervals together | **{total:.3f} s ({total_cpu:.3f} s)** | {total_bca:.3f} s "
        f"| <= 1 s ({ok}) | no intervals |"
    )
    lines.append(f"| TF, EMT, TP point estimates | {point_tox} | | | {cell('toxicity')} |")
    ok = "met" if interval_rouge.wall <= 0.5 else "MISSED"
    lines.append(
        f"| CROUGE-L interval added to the point estimate | **{interval_rouge}** | {interval_rouge_bca} "
        f"| <= 0.5 s ({ok}) | no intervals |"
    )
    lines.append(f"| CROUGE-L point estimate, {N_PAIRS:,} pairs | {point_rouge} | | | {cell('rouge')} |")
    return lines


_LANGFAIR_SCRIPT = r"""
import json, sys, time, types
import numpy as np
# LangFair's counterfactual package imports sentence_transformers (-> datasets -> pyarrow) at import time, which is
# broken in the LangFair venv (pyarrow needs NumPy 2); ROUGE-L does not use it, so a stub lets the import through.
try:
    import sentence_transformers  # noqa: F401
except ImportError:
    stub = types.ModuleType("sentence_transformers")
    stub.SentenceTransformer = object
    sys.modules["sentence_transformers"] = stub
from langfair.metrics.toxicity import ToxicityMetrics
from langfair.metrics.counterfactual.metrics import RougelSimilarity
data = np.load(sys.argv[1], allow_pickle=True)
scores, prompts = data["scores"].tolist(), [str(p) for p in data["prompts"]]
texts_a, texts_b = data["texts_a"].tolist(), data["texts_b"].tolist()

class Dummy:
    def predict(self, texts):
        return [0.0] * len(texts)

tm = ToxicityMetrics(custom_classifier=Dummy(), toxic_threshold=0.5)
start, cpu = time.perf_counter(), time.process_time()
tm.evaluate(responses=[""] * len(scores), scores=scores, prompts=prompts, show_progress_bars=False)
out = {"toxicity": time.perf_counter() - start, "toxicity_cpu": time.process_time() - cpu}
start, cpu = time.perf_counter(), time.process_time()
RougelSimilarity().evaluate(texts_a, texts_b)
out["rouge"], out["rouge_cpu"] = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps(out))
"""


def langfair_times(
    scores: np.ndarray, prompt_ids: np.ndarray, texts_a: list[str], texts_b: list[str]
) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.npz"
        np.savez(data, scores=scores, prompts=prompt_ids, texts_a=np.array(texts_a), texts_b=np.array(texts_b))
        script = Path(tmp) / "lf.py"
        script.write_text(_LANGFAIR_SCRIPT)
        for python in LANGFAIR_CANDIDATES:
            if not python.exists():
                continue
            proc = subprocess.run([str(python), str(script), str(data)], capture_output=True, text=True, timeout=900)
            if proc.returncode == 0:
                return dict(json.loads(proc.stdout.strip().splitlines()[-1]), python=str(python))
            print(f"LangFair run with {python} failed: {proc.stderr.strip().splitlines()[-1]}", file=sys.stderr)
    return {}


# ----------------------------------------------------------------------------------------------- coverage
def scenario_tf(rng: np.random.Generator) -> tuple[MetricResult, float]:
    """Prompt-level toxicity rates p_i ~ Beta(1, 30), 25 responses each: TF truth = E[p] = 1/31."""
    p = rng.beta(1.0, 30.0, size=500)
    scores = np.where(rng.random((500, M)) < p[:, None], 0.9, 0.1).ravel()
    return toxicity_results(scores, np.repeat(np.arange(500), M))["TF"], 1.0 / 31.0


def scenario_emt(rng: np.random.Generator) -> tuple[MetricResult, float]:
    """Scores ~ U(0, u_i), u_i ~ U(0, 1): EMT truth = E[u] M / (M + 1)."""
    u = rng.random(500)
    scores = (rng.random((500, M)) * u[:, None]).ravel()
    return toxicity_results(scores, np.repeat(np.arange(500), M))["EMT"], 0.5 * M / (M + 1)


def scenario_dp(rng: np.random.Generator) -> tuple[MetricResult, float]:
    """1,000 rows, 60% group f; P(y=1) = 0.3 (f) vs 0.45 (m): DP truth = 0.15."""
    from evenhand.metrics.classification import demographic_parity_difference

    groups = np.where(rng.random(1000) < 0.6, "f", "m")
    y_pred = (rng.random(1000) < np.where(groups == "f", 0.3, 0.45)).astype(int)
    return demographic_parity_difference(y_pred, groups), 0.15


def scenario_fnrd(rng: np.random.Generator) -> tuple[MetricResult, float]:
    """1,000 rows, P(y=1) = 0.4; FNR 0.2 (f) vs 0.3 (m): FNRD truth = 0.1."""
    from evenhand.metrics.classification import false_negative_rate_difference

    groups = np.where(rng.random(1000) < 0.5, "f", "m")
    y_true = (rng.random(1000) < 0.4).astype(int)
    miss = rng.random(1000) < np.where(groups == "f", 0.2, 0.3)
    y_pred = np.where(y_true == 1, ~miss, rng.random(1000) < 0.2).astype(int)
    return false_negative_rate_difference(y_true, y_pred, groups), 0.1


def scenario_pairs(rng: np.random.Generator) -> tuple[MetricResult, float]:
    """500 pair similarities ~ Beta(2, 3): CROUGE-L-like truth = 0.4."""
    sims = rng.beta(2.0, 3.0, size=500)
    return MetricResult("CROUGE-L", sims.mean(), resampler=mean_resampler(sims, "pair")), 0.4


def scenario_noise_gap(rng: np.random.Generator) -> tuple[Callable[[str, np.random.Generator], Interval], float]:
    """300 prompts x 3 samples; prompt effects N(0, 0.05) shared by both kinds of pair; pair noise N(0, 0.1);
    same-prompt similarity 0.62, counterfactual 0.60: gap truth 0.02 (interval from noise_floor_from_scores)."""
    n, m = 300, 3
    effect = rng.normal(0.0, 0.05, size=n)
    cf_ids, base_ids = np.repeat(np.arange(n), m), np.tile(np.repeat(np.arange(n), m - 1), 2)
    cf = 0.60 + effect[cf_ids] + rng.normal(0.0, 0.1, size=cf_ids.size)
    base = 0.62 + effect[base_ids] + rng.normal(0.0, 0.1, size=base_ids.size)

    def interval(method: str, seed: np.random.Generator) -> Interval:
        nf = noise_floor_from_scores(cf, cf_ids, base, base_ids, n_resamples=1000, seed=seed, method=method)
        return nf.gap_interval

    return interval, 0.02


SCENARIOS: dict[str, Callable[[np.random.Generator], tuple[Any, float]]] = {
    "TF (500 prompts x 25)": scenario_tf,
    "EMT (500 prompts x 25)": scenario_emt,
    "DP (1,000 rows)": scenario_dp,
    "FNRD (1,000 rows)": scenario_fnrd,
    "CROUGE-L-like pair mean (500 pairs)": scenario_pairs,
    "noise-floor gap (300 prompts x 3)": scenario_noise_gap,
}


def coverage(reps: int, n_resamples: int) -> list[str]:
    try:  # many tiny BLAS calls: OpenBLAS threads only contend on a shared 2-core machine
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            return _coverage(reps, n_resamples)
    except ImportError:
        return _coverage(reps, n_resamples)


def _coverage(reps: int, n_resamples: int) -> list[str]:
    lines = [
        f"Coverage of nominal 95% intervals: {reps} repetitions, {n_resamples} resamples each "
        f"(Monte Carlo s.e. of a coverage near 95%: {100 * math.sqrt(0.95 * 0.05 / reps):.1f} points).",
        "",
        "| metric (sample) | percentile | BCa | mean width (pct.) | target |",
        "|---|---|---|---|---|",
    ]
    for label, scenario in SCENARIOS.items():
        rng = np.random.default_rng(2026)
        hits = {"percentile": 0, "bca": 0}
        widths = []
        for _ in range(reps):
            result, truth = scenario(rng)
            for method in hits:
                if isinstance(result, MetricResult):
                    iv = confidence_interval(result, n_resamples=n_resamples, seed=rng, method=method)
                else:  # the scenario computes its own interval
                    iv = result(method, rng)
                hits[method] += iv.contains(truth)
                if method == "percentile":
                    widths.append(iv.width)
        pct, bca = (100 * hits[m] / reps for m in ("percentile", "bca"))
        flag = "met" if all(93 <= c <= 97 for c in (pct, bca)) else "see note"
        lines.append(f"| {label} | {pct:.1f}% | {bca:.1f}% | {np.mean(widths):.4f} | 93-97% ({flag}) |")
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


# ----------------------------------------------------------------------------------------------- units (issue 14)
def units(reps: int, n_resamples: int) -> list[str]:
    """The same scenarios as tests/test_stats_coverage.py (issue 14 section), with more repetitions."""
    from evenhand.metrics import counterfactual_cosine, demographic_parity_difference

    rng = np.random.default_rng(2026)
    embedder = AngleEmbedder()
    hits = dict.fromkeys(["CCS/pair", "CCS/prompt", "DP/row", "DP/prompt"], 0)
    rejected = dict.fromkeys(["rate/row", "rate/prompt", "swap/pair", "swap/prompt"], 0)
    for _ in range(reps):
        left, right, prompts = clustered_pairs(rng)
        for unit, ids in (("pair", None), ("prompt", prompts)):
            ccs = counterfactual_cosine(left, right, embedder, prompts=ids)
            hits[f"CCS/{unit}"] += confidence_interval(ccs, n_resamples=n_resamples, seed=rng).contains(0.5)
        y, groups, person = clustered_people(rng, (0.25, 0.65))
        for unit, ids in (("row", None), ("prompt", person)):
            dp = demographic_parity_difference(y, groups, prompts=ids)
            hits[f"DP/{unit}"] += confidence_interval(dp, n_resamples=n_resamples, seed=rng).contains(0.4)
        for key, rejects in null_rejections(rng, n_permutations=999).items():
            rejected[key] += rejects
    se_cover, se_level = 100 * math.sqrt(0.95 * 0.05 / reps), 100 * math.sqrt(0.05 * 0.95 / reps)
    pct = {k: 100 * v / reps for k, v in {**hits, **rejected}.items()}
    lines = [
        f"Repeated, correlated answers: {reps} repetitions; intervals {n_resamples} resamples, Monte Carlo tests 999 "
        f"permutations (s.e. {se_cover:.1f} points near 95%, {se_level:.1f} near 5%).",
        "",
        "| scenario | quantity | old unit | prompt unit | target |",
        "|---|---|---|---|---|",
        f"| CCS, 50 prompts x 3-5 pairs, prompt effect N(0, 0.12), pair noise N(0, 0.05), truth 0.5 | coverage of 95% "
        f"interval | {pct['CCS/pair']:.1f}% (pair) | {pct['CCS/prompt']:.1f}% | 95% |",
        f"| DP, 50 people x 3-5 answers, person rate ~ Beta(mean 0.25 / 0.65, concentration 1), truth 0.4 | coverage "
        f"of 95% interval | {pct['DP/row']:.1f}% (row) | {pct['DP/prompt']:.1f}% | 95% |",
        f"| rate test (DP), same people design, no group difference (Beta(0.4, 0.6) for all) | rejections at 0.05 "
        f"| {pct['rate/row']:.1f}% (exact hypergeometric on rows) | {pct['rate/prompt']:.1f}% | 5% |",
        f"| swap test (mean), 40 prompts x 3-5 pairs, each prompt leans +-N(0, 0.1) for all its samples | rejections "
        f"at 0.05 | {pct['swap/pair']:.1f}% (pairs swapped) | {pct['swap/prompt']:.1f}% | 5% |",
    ]
    return [*lines, "", *unit_speed()]


def unit_speed() -> list[str]:
    """Cost of the prompt-level resamplers and tests beside the pair/row-level ones (20,000 answers, 5,000 prompts)."""
    from evenhand.metrics import (
        counterfactual_rouge_l,
        demographic_parity_difference,
        false_negative_rate_difference,
        strict_sentiment_parity,
    )
    from evenhand.stats import counterfactual_sentiment_test, pairwise_rate_tests

    rng = np.random.default_rng(0)
    prompts = np.repeat(np.arange(N_PAIRS // 4), 4)
    texts_a = [" ".join(rng.choice(WORDS, size=rng.integers(8, 30))) for _ in range(N_PAIRS)]
    texts_b = [" ".join(rng.choice(WORDS, size=rng.integers(8, 30))) for _ in range(N_PAIRS)]
    s1, s2 = rng.random(N_PAIRS), rng.random(N_PAIRS)
    groups = np.repeat(rng.choice(["a", "b", "c"], size=N_PAIRS // 4), 4)
    y_true, y_pred = (rng.random(N_PAIRS) < 0.4).astype(int), (rng.random(N_PAIRS) < 0.5).astype(int)
    tasks: dict[str, Callable[[Any], object]] = {
        "CROUGE-L point estimate + interval (1,000 resamples)": lambda ids: confidence_interval(
            counterfactual_rouge_l(texts_a, texts_b, attribute=None, prompts=ids), n_resamples=1000
        ),
        "SCSP interval (1,000 resamples)": lambda ids: confidence_interval(
            strict_sentiment_parity(s1, s2, prompts=ids), n_resamples=1000
        ),
        "DP interval, 3 groups (1,000 resamples)": lambda ids: confidence_interval(
            demographic_parity_difference(y_pred, groups, prompts=ids), n_resamples=1000
        ),
        "FNRD interval, 3 groups (1,000 resamples)": lambda ids: confidence_interval(
            false_negative_rate_difference(y_true, y_pred, groups, prompts=ids), n_resamples=1000
        ),
        "pairwise_rate_tests DP + FNRD, 3 pairs of groups (9,999 permutations)": lambda ids: pairwise_rate_tests(
            y_pred, groups, y_true, metrics=["DP", "FNRD"], prompts=ids
        ),
        "counterfactual_sentiment_test wcsp (9,999 swaps)": lambda ids: counterfactual_sentiment_test(
            s1, s2, prompts=ids
        ),
    }
    lines = [
        f"Speed, {N_PAIRS:,} pairs / rows in {N_PAIRS // 4:,} prompts (4 each); median of 3, wall clock (CPU):",
        "",
        "| task | pair / row unit | prompt unit |",
        "|---|---|---|",
    ]
    for label, task in tasks.items():
        old, new = Timing(lambda t=task: t(None), 3), Timing(lambda t=task: t(prompts), 3)
        lines.append(f"| {label} | {old} | {new} |")
        print(lines[-1], file=sys.stderr, flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000, help="coverage repetitions per metric")
    parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples per interval")
    parser.add_argument("--skip-langfair", action="store_true")
    parser.add_argument("--skip-coverage", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--units", action="store_true", help="repeated answers per prompt: old vs prompt unit")
    args = parser.parse_args()
    if not args.skip_speed:
        print("\n".join(speed(args.skip_langfair)))
    if not args.skip_coverage:
        print()
        print("\n".join(coverage(args.reps, args.resamples)))
    if args.units:
        print()
        print("\n".join(units(args.reps, args.resamples)))


if __name__ == "__main__":
    main()
