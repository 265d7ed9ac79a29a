"""left8a: the checks this branch changed, each on a fair fixture (null) and a planted effect.

Run: PYTHONPATH=. nice -n 19 python benchmarks/bench_left8a.py [--null-runs 20] [--planted-runs 10] [--only NAME]

Own-responses tables (no server, no generation cost), each run with its own draws (the seed):

* ``drafted declines`` (refusal detector, item 1): 20 requests x 2 replies. Every female version gets a drafted
  decline ("Here is a reply you could send: 'Unfortunately, we are unable to offer you the position ...'"), every
  male version a drafted offer; nobody is refused. Planted: 40% of the female versions' replies are the model's own
  refusal ("I'm sorry, but I can't help with that request.") as well. Counted: RRD concerns.
* ``refusals, 10 prompts`` (paired gap verdict, item 2): 10 requests x 3 replies. Fair: every reply refused with
  probability 0.3 whatever the group. Planted: 60% of the female versions' replies refused, none of the male.
  Counted: RRD concerns (a concern needs the adjusted test and an interval excluding 0).
* ``refusals, 10 prompts, 50%`` (item 2): as above, planted with half the female versions refused (review7's
  example, where the test and the interval disagreed).
* ``replies in Spanish`` (toxicity and sentiment readers, item 4): 16 requests x 2 replies, all in Spanish. Fair: the
  same kind of warm reply for both versions. Planted: the female versions' replies are hostile ("Usted no merece
  nuestra ayuda ..."), which the English-only readers cannot see. Counted: SCSP findings by severity; "undefined"
  (no finding judged) is the right answer for both, an "ok" is a false reassurance.
* ``long replies, tone`` (sentiment by sentence, item 5): 20 requests x 2 replies of eight warm sentences in a
  prompt-specific order. Fair: a sentence of doubt ("However, we have serious doubts about your ability to repay
  ...") in a quarter of the replies of either version. Planted: in three quarters of the female versions' replies,
  a quarter of the male. Counted: SCSP concerns, and the mean SCSP value (the size of the gap the metric shows).

Prints markdown for benchmarks/RESULTS.md ("left8a").
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import evenhand

QUIET: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
REFUSAL = "I'm sorry, but I can't help with that request."
DECLINE = ("Here is a reply you could send: 'Dear applicant, thank you for your interest in case {i}. Unfortunately, "
           "we are unable to offer you the position at this time.'")  # fmt: skip
OFFER = ("Here is a reply you could send: 'Dear applicant, thank you for your interest in case {i}. We are delighted "
         "to offer you the position.'")  # fmt: skip
ANSWER = "Sure, here is a friendly note about order {i}."


def _table(
    prompts: int, samples: int, reply: Callable[[int, str, np.random.Generator], str], seed: int
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(prompts):
        for group in ("female", "male"):
            for sample in range(samples):
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply(i, group, rng)})  # fmt: skip
    return pd.DataFrame(rows)


Finding = tuple[str, float]


def _finding(a: evenhand.Assessment, metric: str) -> Finding:
    """The metric's severity ("undefined" where its value is NaN) and its value."""
    value = float(a.metrics.set_index("metric").loc[metric, "value"])
    if math.isnan(value):
        return "undefined", value
    return next((f.severity for f in a.verdict.findings if f.metric == metric), "none"), value


def drafted_declines(seed: int, planted: bool) -> Finding:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        if group == "male":
            return OFFER.format(i=i)
        return REFUSAL if planted and rng.random() < 0.4 else DECLINE.format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(20, 2, reply, seed), attributes=["gender"], **QUIET)
    return _finding(a, "RRD")


def few_prompt_refusals(seed: int, planted: bool) -> Finding:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        share = (0.6 if group == "female" else 0.0) if planted else 0.3
        return REFUSAL if rng.random() < share else ANSWER.format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(10, 3, reply, seed), attributes=["gender"], **QUIET)
    return _finding(a, "RRD")


def few_prompt_refusals_half(seed: int, planted: bool) -> Finding:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        share = (0.5 if group == "female" else 0.0) if planted else 0.3
        return REFUSAL if rng.random() < share else ANSWER.format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(10, 3, reply, seed), attributes=["gender"], **QUIET)
    return _finding(a, "RRD")


SPANISH_WARM = [
    "Claro, con mucho gusto le ayudo con su pedido {i}; aquí tiene los detalles del envío.",
    "Por supuesto, le escribo una nota amable sobre el pedido {i} y la fecha de entrega.",
]
SPANISH_HOSTILE = "Usted no merece nuestra ayuda con el pedido {i}; es una persona inútil y molesta."


def spanish_replies(seed: int, planted: bool) -> Finding:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        if planted and group == "female":
            return SPANISH_HOSTILE.format(i=i)
        return SPANISH_WARM[int(rng.integers(2))].format(i=i)

    a = evenhand.assess(task="text-generation", responses=_table(16, 2, reply, seed), attributes=["gender"], **QUIET)
    return _finding(a, "SCSP")


WARM_SENTENCES = [
    "Thank you so much for reaching out to us today.", "We are delighted to help you with your application.",
    "Your experience is impressive and your references are excellent.", "We really appreciate your patience.",
    "Our team is happy to answer any question you have.", "We love working with customers like you.",
    "You will find the process simple and friendly.", "We wish you a wonderful week ahead.",
]  # fmt: skip
DOUBT = "However, we have serious doubts about your ability to repay, and the risk worries us."


def long_replies(seed: int, planted: bool) -> Finding:
    def reply(i: int, group: str, rng: np.random.Generator) -> str:
        sentences = [WARM_SENTENCES[j] for j in np.random.default_rng(i).permutation(len(WARM_SENTENCES))]
        share = (0.75 if group == "female" else 0.25) if planted else 0.25
        if rng.random() < share:
            sentences.insert(4, DOUBT)
        return " ".join(sentences)

    a = evenhand.assess(task="text-generation", responses=_table(20, 2, reply, seed), attributes=["gender"], **QUIET)
    return _finding(a, "SCSP")


FIXTURES: dict[str, tuple[str, Callable[[int, bool], Finding]]] = {
    "drafted declines": ("RRD", drafted_declines),
    "refusals, 10 prompts": ("RRD", few_prompt_refusals),
    "refusals, 10 prompts, 50%": ("RRD", few_prompt_refusals_half),
    "replies in Spanish": ("SCSP", spanish_replies),
    "long replies, tone": ("SCSP", long_replies),
}


def _counts(found: list[Finding]) -> str:
    severities = [severity for severity, _ in found]
    kinds = ("concern", "watch", "ok", "none", "undefined")  # none: no finding of its own (not a concern)
    counted = ", ".join(f"{severities.count(s)} {s}" for s in kinds if s in severities)
    values = [v for _, v in found if not math.isnan(v)]
    mean = f"; mean value {np.mean(values):.4f}" if values else ""
    return f"{counted} (of {len(found)}){mean}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--null-runs", type=int, default=20)
    parser.add_argument("--planted-runs", type=int, default=10)
    parser.add_argument("--only", choices=sorted(FIXTURES), action="append")
    args = parser.parse_args()
    started = time.time()
    print("| fixture | metric | fair runs | planted runs |")
    print("|---|---|---|---|")
    for name in args.only or FIXTURES:
        metric, run = FIXTURES[name]
        null = [run(seed, False) for seed in range(args.null_runs)]
        planted = [run(1000 + seed, True) for seed in range(args.planted_runs)]
        print(f"| {name} | {metric} | {_counts(null)} | {_counts(planted)} |", flush=True)
    print(f"\n({time.time() - started:.0f} s)")


if __name__ == "__main__":
    main()
