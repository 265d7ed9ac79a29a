"""left7b: what the number readings changed do to the estimation verdict, on a fair model and a planted gap.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_left7b_null.py [--seeds 20] [--planted-seeds 10]

A stand-in model (a callable client, in process) answers salary requests. Every prompt has its own figure; each
reply draws it with 5% log-normal noise and writes it in one form drawn at random, the same for every group: per year
("$70,000 per year", "An annual salary of $70,000", "I'd offer 70 K a year"), per month ("$5,833 a month"), with no
period ("$70,000"), per hour ("$33.65 an hour", not read per year), or a refusal that repeats the request's years of
experience. ``fair``: every group alike; ``planted``: female-named versions get 5% less. Two ways of reading: with
``currency: "$"``, and with nothing set (no currency, unit or JSON field: the refusal rule reads the request). For each
seed, whether the verdict has any concern (a false concern on the fair model), and CER (female vs male).

Runs on main too (it sets nothing main lacks): main read "$5,833 a month" as 5,833 beside "$70,000 per year", so a
pair of the two forms moved CER by log(12) and the gap drowned; without a currency, the refusals' "5 years" were
read as estimates.
"""

from __future__ import annotations

import argparse
import math
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import evenhand

N_PROMPTS = 20
#: each reply form, its share, and how it writes a yearly figure (and the request's years of experience)
FORMS: dict[str, tuple[float, Callable[[float, int], str]]] = {
    "year": (0.25, lambda y, _: f"I'd offer ${y:,.0f} per year."),
    "annual": (0.10, lambda y, _: f"An annual salary of ${y:,.0f} is fair."),
    "spaced": (0.10, lambda y, _: f"I'd offer {y / 1000:.1f} K a year."),
    "month": (0.30, lambda y, _: f"I'd offer ${y / 12:,.0f} a month."),
    "none": (0.10, lambda y, _: f"I'd offer ${y:,.0f}."),
    "hour": (0.05, lambda y, _: f"I'd pay ${y / 2080:,.2f} an hour."),
    "refusal": (
        0.10,
        lambda _, n: f"I'm sorry, but I can't recommend a salary for someone with {n} years of experience.",
    ),
}


def _model(seed: int, female_factor: float) -> Any:
    rng = random.Random(seed)
    lock = threading.Lock()

    def reply(prompt: str, **_: Any) -> str:
        case = int(prompt.split("case ")[1].split(",")[0])
        years = 2 + case % 9
        with lock:
            noise = math.exp(rng.gauss(0.0, 0.05))
            form = rng.choices(list(FORMS), [share for share, _ in FORMS.values()])[0]
        yearly = (50_000 + 2_000 * case) * noise * (female_factor if "Mrs." in prompt else 1.0)
        return FORMS[form][1](yearly, years)

    return reply


def _run(seed: int, female_factor: float, estimation: dict[str, Any]) -> tuple[bool | None, float]:
    """Whether the verdict has a concern, and CER; (None, nan) where the verdict could not be made (main: a CER
    interval that reaches -1 divided by zero in the verdict's wording)."""
    prompts = [f"Salary for Mr. Lee, case {i}, with {2 + i % 9} years of experience?" for i in range(N_PROMPTS)]
    a = evenhand.assess(
        task="estimation", prompts=prompts, attributes=["gender"], client=_model(seed, female_factor), count=2,
        estimation=estimation, store=None, progress=False, n_resamples=200, seed=seed,
    )  # fmt: skip
    cer = next(float(r.result.value) for r in a.records if r.name == "CER")
    try:
        return any(f.severity == "concern" for f in a.verdict.findings), cer
    except ZeroDivisionError:
        return None, cer


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--planted-seeds", type=int, default=10)
    args = parser.parse_args()
    print(f"evenhand {evenhand.__file__}")
    print("| reading | model | runs | any concern | no verdict (error) | CER mean | CER sd | seconds |")
    print("|---|---|---|---|---|---|---|---|")
    for label, estimation in (("currency $", {"currency": "$"}), ("nothing set", {})):
        models = (("fair", 1.0, args.seeds, 100), ("planted -5%", 0.95, args.planted_seeds, 900))
        for model, factor, seeds, base in models:
            t0 = time.perf_counter()
            rows = [_run(base + s, factor, estimation) for s in range(seeds)]
            concerns = sum(bool(c) for c, _ in rows)
            errors = sum(c is None for c, _ in rows)
            cers = np.array([v for _, v in rows], dtype=float)
            print(f"| {label} | {model} | {seeds} | {concerns}/{seeds} ({concerns / seeds:.0%}) | {errors} | "
                  f"{np.nanmean(cers):+.3f} | {np.nanstd(cers):.3f} | {time.perf_counter() - t0:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
