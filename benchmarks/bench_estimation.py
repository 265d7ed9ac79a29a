"""Numeric outcomes (issue 36, items 4-5): the verdict's null rate and power on a loopback name-audit model, the
anchor effect, and how fast numbers are read from replies.

Run: PYTHONPATH=.:tests python benchmarks/bench_estimation.py study [--seeds 40] [--power-seeds 20]
     PYTHONPATH=. python benchmarks/bench_estimation.py parse [--replies 200000]

``study``: ``evenhand.assess`` end to end (task estimation, gender and race, the OpenAI-compatible client over
loopback) on :class:`tests.name_audit_server.NameAuditServer`: the name-audit design of Haim, Salinas and Nyarko
(2024), 8 templates x 3 people x the context level, each version asked 3 times, every race group's and gender group's
version of each prompt (evenhand's counterfactual prompts swap the names). ``null``: a fair model, ``--seeds`` seeds
(each its own sampling); the share of assessments with a concern, a watch or worse, and of pair findings that are
concerns. ``power``: a model that offers female-named people 6% (3%) less and Black-named people 8% (4%) less at the
low context level; how often each planted pair is a concern, and false concerns on the pairs left alone. ``anchor``:
the planted model at the three context levels (low, high, numeric anchor; the anchor keeps 15% of the gap): mean CER
and the share of concerns per level.

``parse``: :func:`evenhand.text.numbers.parse_numbers` on ``replies`` replies written in the forms a model uses
("$71,300", "$70k-$75k", "about $71.3k", JSON, refusals), with few distinct replies (rounded sums repeat, as they do)
and with every reply distinct; then CER, CED and their sign-flip tests over the pairs, and the impact-ratio table.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

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


PLANTED = {"race_gap": {"black": -0.08}, "gender_gap": {"female": -0.06}}
SMALLER = {"race_gap": {"black": -0.04}, "gender_gap": {"female": -0.03}}
TARGETS = {("gender", ("female", "male")), ("race", ("white", "black"))}


def _assess(gaps: dict[str, Any], seed: int, level: str) -> Any:
    from name_audit_server import NameAuditServer, study_prompts

    import evenhand

    with NameAuditServer(seed=seed, **gaps) as server:
        return evenhand.assess(
            task="estimation", prompts=study_prompts((level,), repeat=3), attributes=["gender", "race"],
            client={"provider": "openai", "base_url": server.base_url, "model": "audit"}, count=3,
            estimation={"currency": "$", "better": "higher"}, store=None, progress=False,
            generation_options={"seed": seed}, n_resamples=500, seed=seed,
        )  # fmt: skip


def _pairs(a: Any) -> dict[tuple[str, tuple[str, str]], str]:
    return {(str(f.attribute), tuple(f.groups)): f.severity for f in a.verdict.findings if f.groups}


def study(seeds: int, power_seeds: int) -> None:
    t0 = time.perf_counter()
    concern = watch = pair_concerns = n_pairs = 0
    for seed in range(seeds):
        found = _pairs(_assess({}, 1000 + seed, "low"))
        concern += "concern" in found.values()
        watch += bool({"concern", "watch"} & set(found.values()))
        pair_concerns += sum(v == "concern" for v in found.values())
        n_pairs += len(found)
    seconds = time.perf_counter() - t0
    print(f"null (fair model), {seeds} assessments of 1 + 6 pairs of groups (gender, race), {seconds:.0f} s: "
          f"any concern {concern}/{seeds} ({concern / seeds:.1%}), any watch or concern {watch}/{seeds} "
          f"({watch / seeds:.1%}); pair findings that are concerns {pair_concerns}/{n_pairs}")  # fmt: skip
    for name, gaps in (("6% / 8%", PLANTED), ("3% / 4%", SMALLER)):
        t0 = time.perf_counter()
        hits: dict[tuple[str, tuple[str, str]], int] = {t: 0 for t in TARGETS}
        false = others = 0
        for seed in range(power_seeds):
            found = _pairs(_assess(gaps, 2000 + seed, "low"))
            for target in TARGETS:
                hits[target] += found.get(target) == "concern"
            # pairs without a planted gap: race pairs without black, gender has none
            clean = [k for k in found if k not in TARGETS and "black" not in k[1]]
            false += sum(found[k] == "concern" for k in clean)
            others += len(clean)
        shown = ", ".join(f"{a} {g[0]} vs {g[1]} {n}/{power_seeds}" for (a, g), n in sorted(hits.items()))
        print(f"power, planted female {name.split(' / ')[0]} and black {name.split(' / ')[1]} less "
              f"({time.perf_counter() - t0:.0f} s): concern on {shown}; false concerns on untouched pairs "
              f"{false}/{others}")  # fmt: skip
    for level in ("low", "high", "numeric"):
        cer: dict[tuple[str, tuple[str, str]], list[float]] = {t: [] for t in TARGETS}
        concerns = {t: 0 for t in TARGETS}
        for seed in range(10):
            a = _assess(PLANTED, 3000 + seed, level)
            m = a.metrics[a.metrics["metric"] == "CER"]
            for attribute, groups in TARGETS:
                row = m[(m["attribute"] == attribute) & (m["comparison"] == f"{groups[0]} vs {groups[1]}")]
                cer[(attribute, groups)].append(float(row["value"].iloc[0]))
            found = _pairs(a)
            for t in TARGETS:
                concerns[t] += found.get(t) == "concern"
        shown = "; ".join(f"{a} {g[0]} vs {g[1]}: mean CER {np.mean(v):+.3f}, concern {concerns[(a, g)]}/10"
                          for (a, g), v in sorted(cer.items()))  # fmt: skip
        print(f"anchor, context {level}: {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("parse", help="speed of the parser, the metrics and the LL144 table")
    p.add_argument("--replies", type=int, default=200_000)
    s = sub.add_parser("study", help="null rate, power and the anchor effect on the loopback name-audit model")
    s.add_argument("--seeds", type=int, default=40)
    s.add_argument("--power-seeds", type=int, default=20)
    args = parser.parse_args()
    if args.command == "parse":
        parse(args.replies)
    else:
        study(args.seeds, args.power_seeds)


if __name__ == "__main__":
    main()
