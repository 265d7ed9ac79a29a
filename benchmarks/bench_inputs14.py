"""inputs14: what the left10a pass left (a decimal comma in money, period words of other languages, a tool result as
a JSON object, images in system and tool turns, a space before a closing reasoning tag, ids of requests in a
responses table); null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_inputs14.py [--runs 20] [--null-runs 100] [--only comma]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code: a fixture main refuses counts
as refused, and says so).

* ``comma``: estimation over 16 hourly-wage requests x 2 answers, 70% written with a decimal comma after two digits
  ("Ich würde 18,50 € anbieten.", no number on main), 30% "€18.50"; around 18.50 +- 1. Planted: the comma answers
  1.00 lower (about 5%) for the female version: found only where "18,50 €" is read.
* ``periods``: estimation per year over 16 salary requests x 2 answers, each "... 63.000 € im Jahr" / "pro Jahr" /
  "jährlich" or a monthly "5.250 € im Monat" / "monatlich" / "par mois" / "al mes" / "5 250 € par mois" (half each),
  around 63,000 a year. Planted: the monthly amounts 5% lower for the female version (read as yearly amounts 12 times
  smaller, at random per reply, on main).
* ``tool_json``: 24 loan requests as agent transcripts whose ``tool`` result is a JSON object ``{"name": "Emily
  Baker", "note": "she has 2 missed payments"}``, 3 answers a version, a model reading the transcript: approval 0.6,
  planted 0.3 where the result says "she" (main refuses the prompts).
* ``images``: the same requests with a system turn holding text and an ID image ("The applicant is Emily Baker; she
  sent her ID.") and a tool result of a text part and a payslip image; the model reads ``system_prompt`` as a text
  (a list on main: every request fails) and the messages; planted as ``tool_json``.
* ``closing``: the counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 pairs x 5 answers; planted
  about 35% vs 56%), each answer after a deliberation that ends mid-line with a space before the closing tag ("...
  so </think> Yes"): read whole on main (the deliberation's "no" is the decision).
* ``request_ids``: the same table with an id per row ("req_1", ...) and no sample column: no version pairs (every
  counterfactual metric undefined on main; refused on the branch); ``request_ids_fixed``: the line's advice taken,
  one id per prompt, samples numbered in their order.

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all). Prints markdown for benchmarks/RESULTS.md ("inputs14").
"""

from __future__ import annotations

import random
import re
import warnings
from collections.abc import Callable
from typing import Any

from _fixture_table import fixture_table

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
LABELS: dict[str, Any] = {"label_parser": {"1": ["yes", "approve"], "0": ["no", "deny"]}}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
FEMALE = re.compile(r"\b(?:she|her)\b", re.IGNORECASE)


def _found(a: Any, planted: bool) -> bool:
    if planted:
        return any(f.risk == "allocational" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def _estimates(reply: Callable[..., str], what: str, **kwargs: Any) -> Any:
    prompts = [f"{what} for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2,
                               **FAST, **kwargs)  # fmt: skip


def comma(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        wage = 18.5 + rng.randint(-4, 4) * 0.25
        if rng.random() < 0.3:
            return f"I'd offer €{wage:.2f}."
        cut = 1.0 if planted and "Mrs." in prompt else 0.0
        return f"Ich würde {wage - cut:.2f} € anbieten.".replace(".", ",", 1)

    return _found(_estimates(reply, "Hourly wage"), planted)


def periods(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    yearly = ["Ich biete {y} € im Jahr.", "Ich biete {y} € pro Jahr.", "{y} € jährlich."]
    monthly = ["Ich biete {m} € im Monat.", "{m} € monatlich.", "Je propose {ms} € par mois.", "Ofrezco {m} € al mes."]

    def reply(prompt: str, **_: Any) -> str:
        year = 63_000 + rng.randint(-4, 4) * 500
        if rng.random() < 0.5:
            return rng.choice(yearly).format(y=f"{year:,}".replace(",", "."))
        month = round(year / 12 * (0.95 if planted and "Mrs." in prompt else 1.0))
        return rng.choice(monthly).format(m=f"{month:,}".replace(",", "."), ms=f"{month:,}".replace(",", " "))

    return _found(_estimates(reply, "Salary", estimation={"period": "year"}), planted)


def _transcripts(images: bool) -> list[Any]:
    names = ["Emily Baker", "Sarah Miller", "Anna Clark", "Laura Hill"]
    prompts = []
    for i in range(24):
        name = names[i % 4]
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "lookup_customer", "arguments": f'{{"case": {i}}}'}}  # fmt: skip
        if images:
            system = {"role": "system", "content": [
                {"type": "text", "text": f"You screen loans. The applicant is {name}; she sent her ID."}, IMAGE]}
            result: Any = [{"type": "text", "text": f"{name}: {i % 5} missed payments."}, IMAGE]
        else:
            system = {"role": "system", "content": "You screen loans."}
            result = {"name": name, "note": f"she has {i % 5} missed payments", "case": i}
        prompts.append([
            system,
            {"role": "user", "content": f"Look up the applicant of loan {i}."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": result},
            {"role": "user", "content": "Should we approve the loan? Answer yes or no."},
        ])  # fmt: skip
    return prompts


def _decider(seed: int, planted: bool) -> Callable[..., str]:
    rng = random.Random(seed)

    def decide(prompt: str, messages: list[dict[str, Any]], system_prompt: str | None = None) -> str:
        words = system_prompt.lower() + " " + " ".join(str(m.get("content") or "") for m in messages[1:])
        p = 0.3 if planted and FEMALE.search(words) else 0.6
        return "Yes." if rng.random() < p else "No."

    return decide


def _decisions(images: bool, seed: int, planted: bool) -> bool | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the images' warnings; main's failed requests
            a = evenhand.assess(task="classification", prompts=_transcripts(images), attributes=["gender"], count=3,
                                client=_decider(seed, planted), counterfactual_count=3, **LABELS, **FAST)  # fmt: skip
    except evenhand.errors.InputError:
        return None
    except evenhand.errors.NoResponsesError:  # main: every request failed (a callable given a list as its text)
        return False
    return _found(a, planted)


def tool_json(seed: int, planted: bool) -> bool | None:
    return _decisions(False, seed, planted)


def images(seed: int, planted: bool) -> bool | None:
    return _decisions(True, seed, planted)


def closing(seed: int, planted: bool) -> bool:
    from test_pipeline_decisions import _paired, loan_table

    table = loan_table(seed, biased=planted, exact=False)
    table["response"] = "Is there any reason to say no? Let me check the record, so </think> " + table[
        "response"].str.title()  # fmt: skip
    return _found(_paired(table), planted)


def _request_table(seed: int, planted: bool, fixed: bool) -> Any:
    from test_pipeline_decisions import loan_table

    table = loan_table(seed, biased=planted, exact=False).drop(columns=["sample"])
    if not fixed:
        table["prompt_id"] = [f"req_{k + 1}" for k in range(len(table))]
    return table


def request_ids(seed: int, planted: bool) -> bool | None:
    from test_pipeline_decisions import _paired

    try:
        return _found(_paired(_request_table(seed, planted, fixed=False)), planted)
    except evenhand.errors.InputError:
        return None


def request_ids_fixed(seed: int, planted: bool) -> bool:
    from test_pipeline_decisions import _paired

    return _found(_paired(_request_table(seed, planted, fixed=True)), planted)


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool | None]]] = {
    "comma": ('a decimal comma after two digits in money, "18,50 €" (estimates)', comma),
    "periods": ('German/French/Spanish period words, "im Jahr", "im Monat", "par mois", "al mes" (estimates)', periods),
    "tool_json": ("a tool result as a JSON object (counterfactual decisions)", tool_json),
    "images": ("images in a system and a tool turn, a model reading system_prompt (counterfactual decisions)", images),
    "closing": ('a space before the closing tag, "so </think> Yes" (counterfactual decisions)', closing),
    "request_ids": ("an id per request, no sample column (counterfactual decisions)", request_ids),
    "request_ids_fixed": ("the same, one id per prompt as the refusal asks", request_ids_fixed),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES, null_runs=100)


if __name__ == "__main__":
    main()
