"""review11: coverage of every family's reported interval at the edges, and the default gate on fair data.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_review11.py [--reps 200] [--only NAME,...] [--gate | --power]

**Coverage.** Each repetition draws a data set with a known truth, computes the metric with its real function
(``prompts=``: the prompt, or the person, is the unit) and the interval the registry declares for it
(``evenhand.stats.metric_interval(result, METRICS[key].interval)``: what the pipeline reports before a distance is
joined with 0), and checks whether it holds the truth. Cells: true event rate ``p`` in {0, 0.5%, 1%, 2%, 5%} (a toxic
reply, a refusal, a missing reply, a changed list, a flipped decision, a changed estimate, a wrong classification)
and ``k`` in {3, 5, 10, 20, 40} prompts (or persons per group) with ``m = 5`` replies (pairs) per prompt, 3 answers per
person; each prompt (person) has its own event rate ``u_i ~ Beta`` with mean ``p`` and intra-prompt correlation
0.3, so the replies of one prompt are correlated. The designs (``DESIGNS``; truth in brackets):

* toxicity: ``TF`` replies toxic at ``u_i`` [p]; ``TP`` the same replies [E 1 - (1 - u)^m, by simulation];
  ``EMT`` a toxic reply scores U(0.6, 1), another Beta(1, 30) [E max over m, by simulation]; ``TSD`` the first
  version's replies toxic at ``u_i``, the second's never [p]; ``MTD`` the same scores [p (0.8 - 1/31)];
* refusal: ``RRD`` both versions refused at ``u_i`` [0]; ``RRD one side`` only the first [p]; ``RRD paired`` both
  versions refused alike at the prompt's own rate (uniform 0-0.6), the second also at ``u_i`` [-0.7 p];
  ``NRD one side`` the first version's reply missing at ``u_i`` [p]; ``RLD`` lengths ``L_i + Poisson(3)`` on both
  sides, the first 50% longer at ``u_i`` [p / 2 up to the Poisson noise, by simulation];
* counterfactual: ``CROUGE-L``/``CBLEU`` pairs of one identical sentence, changed at ``u_i`` to a fixed other
  sentence of similarity ``s0`` [1 - p (1 - s0)]; ``SCSP``/``WCSP`` the two versions' sentiment equal (U(0.3, 0.9),
  the prompt's own mean), the second version's 0.25 lower at ``u_i`` [SCSP 0.25 p; WCSP p P(0.5 < S <= 0.75)];
* classification (``k`` persons per group, 3 answers each): ``DP`` the first group approved at ``u_i``, the second
  never [p]; ``DP both`` both groups at ``u_i`` [0]; ``FNRD``/``FPRD`` the first group's actual positives missed
  (negatives approved) at ``u_i``, the second's never [p]; ``DP rare outcome`` three outcomes, "review" given to the
  first group at ``u_i`` (the per-outcome row, one-vs-rest) [p];
* recommendation: ``Jaccard-K``/``SERP-K``/``PRAG-K`` the two versions' top-5 lists identical, the second's last
  item replaced at ``u_i`` [1 - p (1 - s0)];
* counterfactual decisions: ``DFR`` a version's decision flipped at ``u_i`` [p]; ``CPRD`` an approval of the first
  version turned into a denial of the second at ``u_i`` [p E q = p / 2];
* estimation: ``CED``/``CER`` each version's estimate ``B_i exp(N(0, 0.05))``, the second's 10% lower at ``u_i``
  [CED 0.1 p E(B); CER exp(-p log 0.9) - 1].

Each coverage figure over 200 repetitions is within about 3 points (two standard errors at 95%): a cell is flagged
below nominal when it is under 95% - 2 sqrt(0.95 * 0.05 / reps). An interval that is NaN (no bound follows) counts
as not covering and is counted apart.

**Power** (``--power``): the share of intervals that exclude 0 at a planted one-sided 20% rate (``POWER``), which a
concern on RRD, NRD and CPRD needs beside its paired test; run it on main too (``PYTHONPATH=/work/main``).

**Gate** (``--gate``): end-to-end ``evenhand.assess`` on fair own-responses tables of ``k`` prompts (see
``gate_tables``), and the share of runs the default gate ``{verdict: concern, max: 0}`` fails.
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS
from evenhand.stats import metric_interval

RATES = (0.0, 0.005, 0.01, 0.02, 0.05)
UNITS = (3, 5, 10, 20, 40)
PER_PROMPT = 5
ANSWERS_PER_PERSON = 3
ICC = 0.3
TRUTH_DRAWS = 400_000

Draw = Callable[[np.random.Generator, float, int], tuple[MetricResult, float]]


def latent(rng: np.random.Generator, p: float, k: int) -> np.ndarray:
    """Each prompt's (person's) own event rate: Beta with mean ``p`` and intra-class correlation ``ICC``."""
    if p <= 0.0:
        return np.zeros(k)
    scale = (1.0 - ICC) / ICC
    return rng.beta(p * scale, (1.0 - p) * scale, size=k)


def events(rng: np.random.Generator, u: np.ndarray, m: int = PER_PROMPT) -> np.ndarray:
    return rng.random((u.size, m)) < u[:, None]


def ids(k: int, m: int = PER_PROMPT) -> np.ndarray:
    return np.repeat(np.arange(k), m)


# toxicity ------------------------------------------------------------------------------------------------------
def tox_scores(rng: np.random.Generator, toxic: np.ndarray) -> np.ndarray:
    return np.where(toxic, rng.uniform(0.6, 1.0, toxic.shape), rng.beta(1.0, 30.0, toxic.shape))


def tf(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    s = tox_scores(rng, events(rng, latent(rng, p, k)))
    return M.toxic_fraction(s.ravel(), 0.5, ids(k)), p


def _truth_tp(p: float) -> float:
    rng = np.random.default_rng(1)
    u = latent(rng, p, TRUTH_DRAWS)
    return float(np.mean(1.0 - (1.0 - u) ** PER_PROMPT))


def _truth_emt(p: float) -> float:
    rng = np.random.default_rng(2)
    return float(tox_scores(rng, events(rng, latent(rng, p, TRUTH_DRAWS))).max(axis=1).mean())


def tp(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    s = tox_scores(rng, events(rng, latent(rng, p, k)))
    return M.toxicity_probability(s.ravel(), ids(k), 0.5), truth(_truth_tp, p)


def emt(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    s = tox_scores(rng, events(rng, latent(rng, p, k)))
    return M.expected_maximum_toxicity(s.ravel(), ids(k)), truth(_truth_emt, p)


def _one_sided_scores(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    a = tox_scores(rng, events(rng, latent(rng, p, k))).ravel()
    b = tox_scores(rng, np.zeros((k, PER_PROMPT), dtype=bool)).ravel()
    return a, b


def tsd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _one_sided_scores(rng, p, k)
    return M.toxic_share_difference(a, b, 0.5, prompts=ids(k)), p


def mtd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _one_sided_scores(rng, p, k)
    return M.mean_toxicity_difference(a, b, prompts=ids(k)), p * (0.8 - 1.0 / 31.0)


# refusal -------------------------------------------------------------------------------------------------------
def rrd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    u = latent(rng, p, k)
    a, b = events(rng, u).astype(float).ravel(), events(rng, u).astype(float).ravel()
    return M.refusal_rate_difference(a, b, prompts=ids(k)), 0.0


def rrd_one_side(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a = events(rng, latent(rng, p, k)).astype(float).ravel()
    return M.refusal_rate_difference(a, np.zeros_like(a), prompts=ids(k)), p


def rrd_paired(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    q = rng.uniform(0.0, 0.6, size=k)[:, None]
    a = rng.random((k, PER_PROMPT)) < q
    b = a | events(rng, latent(rng, p, k))  # the second version: the same refusals, and more at u_i
    return M.refusal_rate_difference(a.astype(float).ravel(), b.astype(float).ravel(), prompts=ids(k)), -0.7 * p


def nrd_one_side(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a = events(rng, latent(rng, p, k)).astype(float).ravel()
    return M.non_completion_rate_difference(a, np.zeros_like(a), prompts=ids(k)), p


def _lengths(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    base = rng.integers(20, 120, size=k)[:, None]
    longer = events(rng, latent(rng, p, k))
    a = np.round((base + rng.poisson(3.0, (k, PER_PROMPT))) * np.where(longer, 1.5, 1.0))
    b = base + rng.poisson(3.0, (k, PER_PROMPT))
    return a.ravel(), b.ravel().astype(float)


def _truth_rld(p: float) -> float:
    a, b = _lengths(np.random.default_rng(3), p, TRUTH_DRAWS // PER_PROMPT)
    return float(a.sum() / b.sum() - 1.0)


def rld(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _lengths(rng, p, k)
    return M.relative_length_difference(a, b, prompts=ids(k)), truth(_truth_rld, p)


# counterfactual ------------------------------------------------------------------------------------------------
SAME = "the applicant has a strong record and we recommend an interview next week"
CHANGED = "the applicant has a weak record and we do not recommend an interview"


def _pairs(rng: np.random.Generator, p: float, k: int) -> tuple[list[str], list[str]]:
    changed = events(rng, latent(rng, p, k)).ravel()
    return [SAME] * changed.size, [CHANGED if c else SAME for c in changed]


def _similarity(function: Callable[..., MetricResult]) -> Draw:
    s0 = float(function([SAME], [CHANGED]).value)

    def draw(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
        a, b = _pairs(rng, p, k)
        return function(a, b, prompts=ids(k)), 1.0 - p * (1.0 - s0)

    return draw


def _sentiment(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    mean = rng.uniform(0.35, 0.85, size=k)[:, None]
    a = np.clip(mean + rng.uniform(-0.05, 0.05, (k, PER_PROMPT)), 0.3, 0.9)
    b = np.where(events(rng, latent(rng, p, k)), a - 0.25, a)
    return a.ravel(), b.ravel()


def _truth_wcsp(p: float) -> float:
    a, b = _sentiment(np.random.default_rng(4), p, TRUTH_DRAWS // PER_PROMPT)
    return float(abs(np.mean(a > 0.5) - np.mean(b > 0.5)))


def _truth_scsp(p: float) -> float:
    a, b = _sentiment(np.random.default_rng(5), p, TRUTH_DRAWS // PER_PROMPT)
    return float(a.mean() - b.mean())  # b <= a everywhere: the Wasserstein-1 distance is the mean shift


def scsp(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _sentiment(rng, p, k)
    return M.strict_sentiment_parity(a, b, prompts=ids(k)), truth(_truth_scsp, p)


def wcsp(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _sentiment(rng, p, k)
    return M.weak_sentiment_parity(a, b, 0.5, prompts=ids(k)), truth(_truth_wcsp, p)


# classification ------------------------------------------------------------------------------------------------
def _persons(k: int) -> tuple[np.ndarray, np.ndarray]:
    m = ANSWERS_PER_PERSON
    groups = np.repeat(["a", "b"], k * m)
    persons = np.repeat(np.arange(2 * k), m)
    return groups, persons


def _approved(rng: np.random.Generator, p_a: float, p_b: float, k: int) -> np.ndarray:
    m = ANSWERS_PER_PERSON
    return np.concatenate([events(rng, latent(rng, p_a, k), m).ravel(), events(rng, latent(rng, p_b, k), m).ravel()])


def dp(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    groups, persons = _persons(k)
    return M.demographic_parity_difference(_approved(rng, p, 0.0, k).astype(int), groups, prompts=persons), p


def dp_both(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    groups, persons = _persons(k)
    return M.demographic_parity_difference(_approved(rng, p, p, k).astype(int), groups, prompts=persons), 0.0


def _error_design(rng: np.random.Generator, p: float, k: int, positives: bool) -> tuple[np.ndarray, ...]:
    groups, persons = _persons(k)
    half = np.repeat(np.arange(2 * k) % 2 == 0, ANSWERS_PER_PERSON)  # each group: half its persons positive
    y_true = half.astype(int) if positives else (~half).astype(int)
    wrong = _approved(rng, p, 0.0, k)
    y_pred = np.where(y_true == 1, np.where(wrong, 0, 1), np.where(wrong, 1, 0))
    return y_true, y_pred, groups, persons


def fnrd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    y_true, y_pred, groups, persons = _error_design(rng, p, k, True)
    return M.false_negative_rate_difference(y_true, y_pred, groups, prompts=persons), p


def fprd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    y_true, y_pred, groups, persons = _error_design(rng, p, k, False)
    return M.false_positive_rate_difference(y_true, y_pred, groups, prompts=persons), p


def dp_rare_outcome(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    groups, persons = _persons(k)
    review = _approved(rng, p, 0.0, k)
    other = np.where(rng.random(review.size) < 0.5, "approve", "deny")
    y_pred = np.where(review, "review", other)
    return M.demographic_parity_difference(y_pred == "review", groups, prompts=persons), p  # one-vs-rest


# recommendation ------------------------------------------------------------------------------------------------
LIST = ["item-1", "item-2", "item-3", "item-4", "item-5"]
LIST_CHANGED = ["item-1", "item-2", "item-3", "item-4", "item-9"]


def _lists(function: Callable[..., MetricResult]) -> Draw:
    s0 = float(function([LIST], [LIST_CHANGED], k=5).value)

    def draw(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
        changed = events(rng, latent(rng, p, k)).ravel()
        b = [LIST_CHANGED if c else LIST for c in changed]
        return function([LIST] * changed.size, b, k=5, prompts=ids(k)), 1.0 - p * (1.0 - s0)

    return draw


# counterfactual decisions --------------------------------------------------------------------------------------
def dfr(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    q = rng.uniform(0.2, 0.8, size=k)[:, None]
    a = rng.random((k, PER_PROMPT)) < q
    b = np.where(events(rng, latent(rng, p, k)), ~a, a)
    return M.decision_flip_rate(a.astype(int).ravel(), b.astype(int).ravel(), prompts=ids(k)), p


def cprd(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    q = rng.uniform(0.2, 0.8, size=k)[:, None]
    a = rng.random((k, PER_PROMPT)) < q
    b = a & ~events(rng, latent(rng, p, k))
    result = M.counterfactual_positive_rate_difference(a.astype(int).ravel(), b.astype(int).ravel(), prompts=ids(k))
    return result, p * 0.5


# estimation ----------------------------------------------------------------------------------------------------
def _estimates(rng: np.random.Generator, p: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    base = 50_000.0 * np.exp(rng.normal(0.0, 0.2, size=k))[:, None]
    a = base * np.exp(rng.normal(0.0, 0.05, (k, PER_PROMPT)))
    b = base * np.exp(rng.normal(0.0, 0.05, (k, PER_PROMPT))) * np.where(events(rng, latent(rng, p, k)), 0.9, 1.0)
    return a.ravel(), b.ravel()


def ced(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _estimates(rng, p, k)
    mean_base = 50_000.0 * math.exp(0.2**2 / 2) * math.exp(0.05**2 / 2)
    return M.counterfactual_estimate_difference(a, b, prompts=ids(k)), 0.1 * p * mean_base


def cer(rng: np.random.Generator, p: float, k: int) -> tuple[MetricResult, float]:
    a, b = _estimates(rng, p, k)
    return M.counterfactual_estimate_ratio(a, b, prompts=ids(k)), math.exp(-p * math.log(0.9)) - 1.0


_TRUTHS: dict[tuple[str, float], float] = {}


def truth(function: Callable[[float], float], p: float) -> float:
    key = (function.__name__, p)
    if key not in _TRUTHS:
        _TRUTHS[key] = function(p)
    return _TRUTHS[key]


DESIGNS: dict[str, tuple[Draw, str]] = {
    "TF": (tf, "toxic_fraction"),
    "TP": (tp, "toxicity_probability"),
    "EMT": (emt, "expected_maximum_toxicity"),
    "TSD": (tsd, "toxic_share_difference"),
    "MTD": (mtd, "mean_toxicity_difference"),
    "RRD": (rrd, "refusal_rate_difference"),
    "RRD one side": (rrd_one_side, "refusal_rate_difference"),
    "RRD paired": (rrd_paired, "refusal_rate_difference"),
    "NRD one side": (nrd_one_side, "non_completion_rate_difference"),
    "RLD": (rld, "relative_length_difference"),
    "CROUGE-L": (_similarity(M.counterfactual_rouge_l), "counterfactual_rouge_l"),
    "CBLEU": (_similarity(M.counterfactual_bleu), "counterfactual_bleu"),
    "SCSP": (scsp, "strict_sentiment_parity"),
    "WCSP": (wcsp, "weak_sentiment_parity"),
    "DP": (dp, "demographic_parity_difference"),
    "DP both": (dp_both, "demographic_parity_difference"),
    "FNRD": (fnrd, "false_negative_rate_difference"),
    "FPRD": (fprd, "false_positive_rate_difference"),
    "DP rare outcome": (dp_rare_outcome, "demographic_parity_difference"),
    "Jaccard-K": (_lists(M.jaccard_at_k), "jaccard_at_k"),
    "SERP-K": (_lists(M.serp_at_k), "serp_at_k"),
    "PRAG-K": (_lists(M.prag_at_k), "prag_at_k"),
    "DFR": (dfr, "decision_flip_rate"),
    "CPRD": (cprd, "counterfactual_positive_rate_difference"),
    "CED": (ced, "counterfactual_estimate_difference"),
    "CER": (cer, "counterfactual_estimate_ratio"),
}


def coverage_cell(name: str, p: float, k: int, reps: int) -> dict[str, float]:
    draw, key = DESIGNS[name]
    rng = np.random.default_rng([round(p * 10_000), k, sum(map(ord, name))])
    hit = undefined = 0
    widths: list[float] = []
    for _ in range(reps):
        result, true_value = draw(rng, p, k)
        iv = metric_interval(result, METRICS[key].interval)
        if not (math.isfinite(iv.low) and math.isfinite(iv.high)):
            undefined += 1
            continue
        tolerance = 1e-9 * max(1.0, abs(true_value))
        hit += iv.low - tolerance <= true_value <= iv.high + tolerance
        widths.append(iv.high - iv.low)
    return {"coverage": hit / reps, "undefined": undefined / reps,
            "width": float(np.mean(widths)) if widths else math.nan}  # fmt: skip


POWER = {"RRD paired": 0.2, "RRD one side": 0.2, "CPRD": 0.2, "TSD": 0.2, "NRD one side": 0.2, "MTD": 0.2}


def power_table(reps: int) -> None:
    """The share of data sets whose interval excludes 0 at a planted effect (a concern on RRD, NRD and CPRD needs
    it beside the paired test): the event rate ``POWER[design]`` on one side only."""
    print(f"reps {reps} per cell: the share of intervals that exclude 0 at a planted rate\n")
    print("| design | planted rate | truth | " + " | ".join(f"{k} units" for k in UNITS) + " |")
    print("|---|---|---|" + "---|" * len(UNITS))
    for name, p in POWER.items():
        draw, key = DESIGNS[name]
        cells, truths = [], []
        for k in UNITS:
            rng = np.random.default_rng([round(p * 10_000), k, sum(map(ord, name)), 7])
            found = 0
            for _ in range(reps):
                result, true_value = draw(rng, p, k)
                iv = metric_interval(result, METRICS[key].interval)
                found += bool(iv.low > 0 or iv.high < 0)
                truths.append(true_value)
            cells.append(f"{found / reps:.1%}")
        print(f"| {name} | {p:.0%} | {np.mean(truths):+.3f} | " + " | ".join(cells) + " |", flush=True)


def coverage_table(names: list[str], reps: int) -> list[tuple[str, float, int, dict[str, float]]]:
    floor = 0.95 - 2.0 * math.sqrt(0.95 * 0.05 / reps)
    print(f"reps {reps} per cell, {PER_PROMPT} replies (pairs) per prompt, {ANSWERS_PER_PERSON} answers per person, "
          f"icc {ICC}; flagged (**) below {floor:.1%}\n")  # fmt: skip
    print("| design | true rate | " + " | ".join(f"{k} units" for k in UNITS) + " |")
    print("|---|---|" + "---|" * len(UNITS))
    rows = []
    for name in names:
        for p in RATES:
            cells = []
            for k in UNITS:
                c = coverage_cell(name, p, k, reps)
                rows.append((name, p, k, c))
                mark = "**" if c["coverage"] < floor else ""
                nan = f", {c['undefined']:.0%} NaN" if c["undefined"] else ""
                cells.append(f"{mark}{c['coverage']:.1%}{mark} ({c['width']:.3g}{nan})")
            print(f"| {name} | {p:.1%} | " + " | ".join(cells) + " |", flush=True)
    return rows


# the default gate on fair tables (--gate) -----------------------------------------------------------------------
FAST: dict[str, object] = {"n_resamples": 200, "progress": False, "store": None}
REPLIES = ("Sure, here is a friendly note about order {i}: it ships on Monday.",
           "Happy to help with order {i}. It leaves our warehouse on Monday.",
           "Order {i} is on its way; expect it early next week.",
           "Thanks for asking about order {i}. It should arrive next week.")  # fmt: skip
REFUSAL = "I'm sorry, but I can't help with that request."
TOXIC = "Shut up, you stupid worthless idiot, nobody cares about your order."


def text_table(rng: np.random.Generator, k: int, rate: float, planted: bool) -> Any:
    """``k`` requests x (the original and 2 versions) x 5 replies; every reply refused at ``rate`` and toxic at ``rate``
    (the original's at ``rate / 10``, so that TF and TP stay under their 1% concern) whatever the group (planted: the
    female version's replies refused at ``rate + 0.4``)."""
    import pandas as pd

    rows = []
    for i in range(k):
        for group in (None, "female", "male"):  # the original prompt (TF, EMT, TP), then its two versions
            for sample in range(PER_PROMPT):
                draw = rng.random()
                refused = rate + (0.4 if planted and group == "female" else 0.0)
                toxic = rate if group else rate / 10  # TF, TP: under their 1% rule; TSD: as the refusals
                reply = (REFUSAL if draw < refused else TOXIC if draw < refused + toxic
                         else REPLIES[int(rng.integers(len(REPLIES)))].format(i=i))  # fmt: skip
                whom = {None: "her" if i % 2 else "him", "female": "her", "male": "him"}[group]
                rows.append({"prompt_id": i, "attribute": group and "gender", "group": group, "sample": sample,
                             "prompt": f"Write to {whom} about order {i}.", "response": reply})  # fmt: skip
    return pd.DataFrame(rows)


def gate_text(seed: int, k: int, rate: float, planted: bool) -> Any:
    import evenhand

    table = text_table(np.random.default_rng(seed), k, rate, planted)
    return evenhand.assess(task="text-generation", responses=table, attributes=["gender"], embedder=False, **FAST)


def gate_persons(seed: int, k: int, rate: float, planted: bool) -> Any:
    """``k`` applicants per group x 3 answers, each applicant's truth ("approve" for half); every answer wrong at
    the applicant's own error rate (mean ``rate``; planted: the women's wrong at ``rate + 0.4``)."""
    import pandas as pd

    import evenhand

    rng = np.random.default_rng(seed)
    rows, groups, truth = [], [], []
    for person in range(2 * k):
        group = "female" if person % 2 else "male"
        wrong = float(latent(rng, rate, 1)[0]) + (0.4 if planted and group == "female" else 0.0)
        true = "approve" if (person // 2) % 2 == 0 else "deny"
        for sample in range(ANSWERS_PER_PERSON):
            answer = true if rng.random() >= wrong else ("deny" if true == "approve" else "approve")
            rows.append({"prompt_id": f"A{person}", "sample": sample, "response": f"Decision: {answer}",
                         "prompt": f"Applicant {person}'s file is attached. Approve or deny the loan?"})  # fmt: skip
        groups.append(group)
        truth.append(true)
    return evenhand.assess(task="classification", responses=pd.DataFrame(rows), groups=groups, labels=truth,
                           person_level=True, attributes=["gender"], positive_label="approve",
                           label_parser={"approve": ["approve"], "deny": ["deny"]}, embedder=None, **FAST)  # fmt: skip


def gate_decisions(seed: int, k: int, rate: float, planted: bool) -> Any:
    """``k`` applicants x 2 versions x 5 answers; each applicant approved at a rate of their own (uniform 0-1 times
    ``4 rate``: hardly ever at the edge; 0 at 0%) for both versions (planted: uniform 0.5-1, the female version's
    0.5 lower)."""
    import pandas as pd

    import evenhand

    rng = np.random.default_rng(seed)
    rows = []
    for i in range(k):
        approval = float(rng.uniform(0.5, 1.0)) if planted else float(rng.uniform(0.0, 1.0)) * min(4.0 * rate, 1.0)
        for group, pronoun in (("female", "She"), ("male", "He")):
            p = max(approval - (0.5 if planted and group == "female" else 0.0), 0.0)
            for sample in range(PER_PROMPT):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"{pronoun} is applicant {i} for a small loan. Approve? Answer yes or no.",
                             "response": "yes" if rng.random() < p else "no"})  # fmt: skip
    return evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"],
                           prevalence_parity=True, label_parser={"approve": ["yes"], "deny": ["no"]},
                           positive_label="approve", **FAST)  # fmt: skip


def gate_estimates(seed: int, k: int, rate: float, planted: bool) -> Any:
    """``k`` salary requests x 2 answers; each answer the request's own figure with 2% noise, 10% lower at ``rate``
    for either version (planted: the female version's answers 10% lower every time)."""
    import evenhand

    rng = np.random.default_rng(seed)
    prompts = [f"What salary should we offer Mr. Lee, case {i}, with {i % 7 + 2} years of experience?"
               for i in range(k)]  # fmt: skip

    def reply(prompt: str, **_: object) -> str:
        case = int(prompt.split("case ")[1].split(",")[0])
        low = rng.random() < rate or (planted and ("Mrs." in prompt or "Ms." in prompt))
        salary = (60_000 + 2_000 * case) * float(np.exp(rng.normal(0.0, 0.02))) * (0.9 if low else 1.0)
        return f"I'd offer ${salary:,.0f} a year."

    return evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2, **FAST)


def gate_lists(seed: int, k: int, rate: float, planted: bool) -> Any:
    """``k`` film requests x 2 answers; each answer the same 3 films, one replaced at ``rate`` whatever the group
    (planted: the female version's list replaced by another half the time)."""
    import evenhand

    rng = np.random.default_rng(seed)
    prompts = [f"Recommend 3 films for a man who likes genre {i}." for i in range(k)]

    def reply(prompt: str, **_: object) -> str:
        films = ["Heat", "Zodiac", "Ronin"]
        if rng.random() < rate:
            films[int(rng.integers(3))] = "Alien"
        if planted and "woman" in prompt and rng.random() < 0.5:
            films = ["Emma", "Clueless", "Amelie"]
        return "\n".join(f"{n}. {f}" for n, f in enumerate(films, 1))

    return evenhand.assess(task="recommendation", prompts=prompts, client=reply, k=3, count=2, attributes=["gender"],
                           **FAST)  # fmt: skip


GATES: dict[str, Callable[[int, int, float, bool], Any]] = {
    "text": gate_text, "persons": gate_persons, "decisions": gate_decisions, "estimates": gate_estimates,
    "lists": gate_lists,
}
GATE_RATES = (0.0, 0.01)


def concerns(a: Any) -> list[str]:
    return sorted({f.metric for f in a.verdict.findings if f.severity == "concern"})


def gate_table(reps: int, names: list[str], planted_reps: int, rates: tuple[float, ...] = GATE_RATES) -> None:
    print(f"fair runs per cell {reps}, planted runs {planted_reps}; the default gate {{verdict: concern, max: 0}} "
          "fails on a run with any concern\n")  # fmt: skip
    print("| fixture | event rate | " + " | ".join(f"{k} prompts" for k in UNITS[:-1]) + " | metrics concerned |")
    print("|---|---|" + "---|" * (len(UNITS) - 1) + "---|")
    for name in names or list(GATES):
        run = GATES[name]
        for rate in rates if reps else ():
            cells, named = [], set()
            for k in UNITS[:-1]:
                failed = 0
                for seed in range(reps):
                    found = concerns(run(seed, k, rate, False))
                    failed += bool(found)
                    named.update(found)
                cells.append(f"{failed / reps:.1%}")
            print(f"| {name} | {rate:.0%} | " + " | ".join(cells) + f" | {', '.join(sorted(named)) or '-'} |",
                  flush=True)  # fmt: skip
        if planted_reps:
            found_k = [sum(bool(concerns(run(1000 + s, k, 0.01, True))) for s in range(planted_reps)) / planted_reps
                       for k in UNITS[:-1]]  # fmt: skip
            print(f"| {name}, planted | 1% | " + " | ".join(f"{f:.0%} found" for f in found_k) + " | |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--only", default="", help="comma-separated designs (default: all)")
    parser.add_argument("--gate", action="store_true", help="the default gate on fair tables instead")
    parser.add_argument("--power", action="store_true", help="intervals that exclude 0 at a planted effect instead")
    parser.add_argument("--planted", type=int, default=20, help="planted runs per fixture and size (--gate)")
    parser.add_argument("--gate-rates", default="0,0.01", help="event rates of the fair tables (--gate)")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.power:
        power_table(args.reps)
    elif args.gate:
        rates = tuple(float(r) for r in args.gate_rates.split(","))
        gate_table(args.reps, [n.strip() for n in args.only.split(",") if n.strip()], args.planted, rates)
    else:
        names = [n.strip() for n in args.only.split(",") if n.strip()] or list(DESIGNS)
        coverage_table(names, args.reps)
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

