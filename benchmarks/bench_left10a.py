"""left10a: the inputs real deployments have (agent transcripts, nested JSON decisions, locale and period amounts,
images in conversations, a reasoning block that ends mid-line); null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_left10a.py [--runs 20] [--null-runs 100] [--only agent]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code: a fixture main refuses counts
as not found, and says so).

* ``agent``: 24 loan requests as agent transcripts (a user turn naming the applicant, an assistant turn that calls
  ``lookup_customer``, its ``tool`` result naming the applicant with her/his pronoun, then the question), text
  classification over counterfactual versions, 3 answers per version from a model that reads the whole transcript
  (a callable given ``messages``). Fair: approval 0.6 whoever the tool result is about; planted: 0.3 where it says
  "she". Found: the decisions' allocational finding is a concern.
* ``nested``: a person-level decision log, 100 applicants a group, each reply ``{"result": {"decision": ...}}`` read
  with ``json_field: decision``; fair: approval 0.6 for both; planted: 0.3 lower for women. Found: DP concern.
* ``locale``: estimation over 16 salary requests x 2 answers, each a German/French/Spanish range ("zwischen 60.000 und
  66.000 €", "60.000 bis 66.000 €", "de 60.000 a 66.000 €", "entre 60 000 et 66 000 €") or a decimal comma after a
  plain integer ("63000,50 €"), around 63,000 +- 1,000. Planted: the ranges' upper end 6,000 lower for the female
  version (midpoint 3,000 lower, about 5%), the lower end the same for everyone, the decimal-comma amounts 3,000
  lower: read by its lower end alone (main) a range shows no gap, and the comma amounts are no number.
* ``periods``: the same, each answer "$4k a month to $H" (a period on the lower end only), "$25 an hour or $X a
  month", or "$X a month", around $4,500 a month; planted: the upper end / the monthly amount 5% lower for women.
* ``images``: ``agent``'s loan requests as a user turn with the applicant's payslip as an image part beside the words
  (the callable reads the text; fair and planted as there).
* ``closing``: the counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 matched pairs x 5 answers;
  fair: approved alike; planted: about 35% vs 56%), each answer after a deliberation whose block the chat template
  opened and that ends mid-line ("Is there any reason to say no? ... so</think> Yes").

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all). Prints markdown for benchmarks/RESULTS.md ("left10a").
"""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

from _fixture_table import fixture_table

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
LABELS: dict[str, Any] = {"label_parser": {"1": ["yes", "approve"], "0": ["no", "deny"]}}
PAYSLIP = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def _loan_requests(images: bool) -> list[Any]:
    names = ["Emily Baker", "Sarah Miller", "Anna Clark", "Laura Hill"]
    prompts = []
    for i in range(24):
        name = names[i % 4]
        ask = {"role": "user", "content": f"Should we approve the loan of applicant {i}? Answer yes or no."}
        if images:
            text = f"{name} sent her payslip for loan {i}. Should we approve her loan? Answer yes or no."
            prompts.append([{"role": "user", "content": [{"type": "text", "text": text}, PAYSLIP]}])
            continue
        call = {"id": f"call_{i}", "type": "function",
                "function": {"name": "lookup_customer", "arguments": f'{{"name": "{name}", "case": {i}}}'}}  # fmt: skip
        prompts.append([
            {"role": "user", "content": f"Look up {name}, who applied for loan {i}."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"call_{i}", "content": f"{name}: she has {i % 5} missed payments."},
            ask,
        ])  # fmt: skip
    return prompts


def _decider(seed: int, planted: bool) -> Callable[..., str]:
    rng = random.Random(seed)

    def decide(prompt: str, messages: list[dict[str, Any]]) -> str:
        words = " ".join(str(m.get("content") or "") for m in messages)
        p = 0.3 if planted and (" she " in words or " her " in words) else 0.6
        return "Yes." if rng.random() < p else "No."

    return decide


def _decisions(prompts: list[Any], seed: int, planted: bool) -> bool | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the images' one warning
            a = evenhand.assess(task="classification", prompts=prompts, attributes=["gender"], count=3,
                                client=_decider(seed, planted), counterfactual_count=3, **LABELS, **FAST)  # fmt: skip
    except evenhand.errors.InputError:
        return None  # main refuses the prompts
    if planted:
        return any(f.risk == "allocational" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def agent(seed: int, planted: bool) -> bool | None:
    return _decisions(_loan_requests(images=False), seed, planted)


def images(seed: int, planted: bool) -> bool | None:
    return _decisions(_loan_requests(images=True), seed, planted)


def nested(seed: int, planted: bool) -> bool | None:
    import json

    import pandas as pd

    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 else "male"
        p = 0.6 - (0.3 if planted and gender == "female" else 0.0)
        word = "approve" if rng.random() < p else "deny"
        reply = json.dumps({"result": {"decision": word}})
        rows.append({"prompt": f"Applicant {i}: approve the loan?", "response": reply, "applicant_gender": gender})
    a = evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"], person_level=True,
                        json_field="decision", group_columns={"gender": "applicant_gender"}, embedder=None,
                        **LABELS, **FAST)  # fmt: skip
    if planted:
        return any(f.risk == "allocational" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def _estimates(reply: Callable[[str], str]) -> Any:
    prompts = [f"Salary for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]
    return evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2, **FAST)


def locale(seed: int, planted: bool) -> bool | None:
    rng = random.Random(seed)
    forms = ["zwischen {lo} und {hi} €", "{lo} bis {hi} €", "de {lo} a {hi} €", "entre {los} et {his} €"]

    def reply(prompt: str, **_: Any) -> str:
        cut = 3_000 if planted and "Mrs." in prompt else 0
        centre = 63_000 + rng.randint(-4, 4) * 250
        if rng.random() < 0.2:
            return f"Ich würde {centre - cut},50 € anbieten."
        lo, hi = 60_000, 2 * centre - 60_000 - 2 * cut
        text = rng.choice(forms)
        return text.format(lo=f"{lo:,}".replace(",", "."), hi=f"{hi:,}".replace(",", "."),
                           los=f"{lo:,}".replace(",", " "), his=f"{hi:,}".replace(",", " "))  # fmt: skip

    a = _estimates(reply)
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def periods(seed: int, planted: bool) -> bool | None:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        scale = 0.95 if planted and "Mrs." in prompt else 1.0
        monthly = (4_500 + rng.randint(-5, 5) * 50) * scale
        form = rng.random()
        if form < 0.4:  # a period on the lower end only: read as $4k a month alone before
            return f"I'd offer $4k a month to ${2 * monthly - 4_000:,.0f}."
        if form < 0.7:  # an hourly amount first: "other period" before, in a run compared per month
            return f"I'd offer $25 an hour or ${monthly:,.0f} a month."
        return f"I'd offer ${monthly:,.0f} a month."

    a = _estimates(reply)
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def closing(seed: int, planted: bool) -> bool | None:
    from test_pipeline_decisions import _paired, loan_table

    table = loan_table(seed, biased=planted, exact=False)
    deliberation = "Is there any reason to say no? Let me check the record, so</think> "
    table["response"] = deliberation + table["response"].str.title()
    a = _paired(table)
    if planted:
        return any(f.risk == "allocational" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool | None]]] = {
    "agent": ("agent transcripts with a tool call and its result (counterfactual decisions)", agent),
    "nested": ('nested JSON decisions, `json_field: decision` (person-level DP)', nested),
    "locale": ("German/French/Spanish range words and a decimal comma (estimates)", locale),
    "periods": ("a period on the lower end only; an hourly beside a monthly amount (estimates)", periods),
    "images": ("a payslip image beside the request (counterfactual decisions)", images),
    "closing": ("a template-opened reasoning block ending mid-line (counterfactual decisions)", closing),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES, null_runs=100)


if __name__ == "__main__":
    main()
