"""Numeric outcomes (issue 36, items 4-5): how fast numbers are read from replies, and the metrics and the LL144 table
on large inputs.

Run: PYTHONPATH=. python benchmarks/bench_estimation.py parse [--replies 200000]

``parse``: :func:`evenhand.text.numbers.parse_numbers` on ``replies`` replies written in the forms a model uses
("$71,300", "$70k-$75k", "about $71.3k", JSON, refusals), with few distinct replies (rounded sums repeat, as they do)
and with every reply distinct; then CER, CED and their sign-flip tests over the pairs, and the impact-ratio table.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from evenhand.metrics import counterfactual_estimate_difference, counterfactual_estimate_ratio, impact_ratio_table
from evenhand.stats import paired_prompt_test
from evenhand.text.numbers import parse_numbers


def _replies(n: int, distinct: bool, rng: np.random.Generator) -> list[str]:
    values = np.round(rng.lognormal(11.0, 0.4, n), 0 if distinct else -3)
    forms = rng.integers(0, 6, n)
    out = []
    for v, f in zip(values.tolist(), forms.tolist(), strict=True):
        if f == 0:
            out.append(f"I'd suggest offering around ${v:,.0f}.")
        elif f == 1:
            out.append(f"A reasonable offer would be ${v * 0.97:,.0f}-${v * 1.03:,.0f}, depending on the details.")
        elif f == 2:
            out.append(f"About ${v / 1000:g}k.")
        elif f == 3:
            out.append(json.dumps({"amount": v, "currency": "USD"}))
        elif f == 4:
            out.append(f"With 5 years of experience in 2024, offer {v:,.0f} dollars.")
        else:
            out.append("I'm sorry, but I can't estimate an amount from a person's name alone.")
    return out


def parse(n: int) -> None:
    rng = np.random.default_rng(0)
    for distinct in (False, True):
        replies = _replies(n, distinct, rng)
        t0 = time.perf_counter()
        parsed = parse_numbers(replies, currency="$")
        seconds = time.perf_counter() - t0
        kinds = len(set(replies))
        print(f"parse_numbers: {n:,} replies ({kinds:,} distinct): {seconds:.2f} s "
              f"({n / seconds:,.0f} replies/s); {parsed.counts()}")  # fmt: skip
    values = parsed.values
    half = n // 2
    prompts = np.arange(half) // 5
    t0 = time.perf_counter()
    cer = counterfactual_estimate_ratio(values[:half], values[half : 2 * half], prompts=prompts)
    ced = counterfactual_estimate_difference(values[:half], values[half : 2 * half], prompts=prompts)
    both = ~np.isnan(values[:half]) & ~np.isnan(values[half : 2 * half])
    test = paired_prompt_test(np.log(values[:half][both]), np.log(values[half : 2 * half][both]), prompts[both])
    seconds = time.perf_counter() - t0
    print(f"CER, CED and the sign-flip test (9,999 swaps) over {half:,} pairs of {prompts.max() + 1:,} prompts: "
          f"{seconds:.2f} s (CER {cer.value:+.4f}, CED {ced.value:+.1f}, p {test.p_value:.3f})")  # fmt: skip
    sex = rng.choice(["female", "male"], n)
    race = rng.choice(["white", "black", "hispanic", "asian", "native"], n, p=[0.5, 0.2, 0.2, 0.09, 0.01])
    t0 = time.perf_counter()
    table = impact_ratio_table({"sex": sex, "race/ethnicity": race}, scores=values)
    seconds = time.perf_counter() - t0
    print(f"impact_ratio_table (scoring) over {n:,} individuals: {seconds:.2f} s, {len(table.frame)} rows, "
          f"{int(table.frame['excluded'].sum())} under 2%")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parse", help="speed of the parser, the metrics and the LL144 table")
    p.add_argument("--replies", type=int, default=200_000)
    args = parser.parse_args()
    if args.command == "parse":
        parse(args.replies)


if __name__ == "__main__":
    main()
