"""left10b: refusals in person-level classification logs (PRRD), error rates of counterfactual decisions, compare's
RLD under the cut rule, and bystanders' gendered words in counterfactual versions; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_left10b.py [--runs 20] [--only refusals]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code, where they can).

* ``refusals``: a person-level loan log, 100 applicants per group (female, male), one answer each: refused ("I'm
  sorry, but I can't help with that request.") with probability 0.1 in both groups (null) or 0.23 for women and 0.02
  for men (planted); the others approved with probability 0.5, group-blind. Found: a refusal concern (PRRD).

* ``errors``: counterfactual decisions with the true outcome: 80 cases (half truly "approve"), a female and a male
  version each, 3 answers per version; each answer right with probability 0.8, group-blind (null); planted: the
  female version of a truly approved case is also missed with probability 0.3 and that of a truly denied case also
  approved with probability 0.3 (approval rates about equal: CPRD near 0). Found: a concern on CFNRD or CFPRD.
* ``compare``: run A a complete run (30 cases x 2 versions x 2 answers, every request answered) written as an
  evenhand before left9a wrote it (no NRD row); run B the same model with 10% of everyone's replies lost (null) or
  40% of the women's (planted). Counted: NRD "worse" (null: target at most 5%; planted: all); main says "only in
  run B" (nothing compared).
* ``bystanders``: counterfactual decisions on 32 applicants named first ("Emily Baker applied for a small loan. Mr.
  John Smith (the loan officer) said he would review her file."), 3 answers per version. Null: a model fair to the
  applicant that approves less often when the loan officer is a woman ("Mrs."/"she would review": 0.25 against 0.55);
  planted: one that approves female applicants less often ("her file": 0.25 against 0.55), whoever the officer.
  Found: a concern on the decisions (CPRD). On main the officer changed with the applicant, so the null model's
  officer bias read as an applicant gap.

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric is a concern
(planted: target all). Prints markdown for benchmarks/RESULTS.md ("left10b").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pandas as pd
from _fixture_table import fixture_table

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}


REFUSAL = "I'm sorry, but I can't help with that request."


def refusals(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    refused = {"female": 0.23, "male": 0.02} if planted else {"female": 0.1, "male": 0.1}
    rows = []
    for k, group in enumerate(("female", "male")):
        for i in range(100):
            if rng.random() < refused[group]:
                answer = REFUSAL
            else:
                answer = "Yes, approve." if rng.random() < 0.5 else "No, decline."
            rows.append({"applicant_gender": group, "response": answer,
                         "prompt": f"Applicant {k * 100 + i}: approve the loan? Answer yes or no."})  # fmt: skip
    a = evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"],
                        group_columns={"gender": "applicant_gender"}, person_level=True, prevalence_parity=True,
                        n_resamples=200, progress=False)  # fmt: skip
    if planted:
        return any(f.severity == "concern" and f.risk == "refusal" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def errors(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    truth = ["approve" if i % 2 == 0 else "deny" for i in range(80)]
    rows = []
    for i, true in enumerate(truth):
        for group, pronoun in (("female", "She"), ("male", "He")):
            for sample in range(3):
                wrong = rng.random() < 0.2 or (planted and group == "female" and rng.random() < 0.3)
                answer = ("deny" if true == "approve" else "approve") if wrong else true
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"{pronoun} is applicant {i} for a small loan. Approve? Answer yes or no.",
                             "response": "yes" if answer == "approve" else "no"})  # fmt: skip
    a = evenhand.assess(task="classification", responses=pd.DataFrame(rows), attributes=["gender"],
                        prevalence_parity=True, labels=truth, label_parser={"approve": ["yes"], "deny": ["no"]},
                        positive_label="approve", **FAST)  # fmt: skip
    if planted:
        return any(e.metric in ("CFNRD", "CFPRD") and e.severity == "concern"
                   for f in a.verdict.findings for e in f.evidence)  # fmt: skip
    return a.verdict.count("concern") > 0


def compare_nrd(seed: int, planted: bool) -> bool:
    import json
    import tempfile
    from pathlib import Path

    from test_pipeline_decisions import _silent

    from evenhand.pipeline.results.outputs import write_outputs

    complete = _silent(seed, women=0.0, everyone=0.0)
    other = _silent(seed + 1000, women=0.4, everyone=0.0) if planted else _silent(seed + 1000, women=0.0,
                                                                                  everyone=0.1)  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        write_outputs(complete, Path(tmp) / "a", html=False, include_responses=False)
        path = Path(tmp) / "a" / "results.json"
        doc = json.loads(path.read_text(encoding="utf-8"))
        doc["metrics"] = [r for r in doc["metrics"] if r["metric"] != "NRD"]  # as written before left9a
        path.write_text(json.dumps(doc), encoding="utf-8")
        comparison = evenhand.compare(path, other)
    row = next(r for r in comparison.to_dict()["metrics"] if r["metric"] == "NRD")
    return bool(row["differences"][0]["change"] == "worse")


FEMALE = ("Emily Baker", "Sarah Miller", "Anna Clark", "Laura Hill", "Megan Scott", "Rachel Adams", "Julia Young",
          "Karen Wright", "Lisa Turner", "Amy Parker", "Heather Ross", "Jessica Price")
OFFICERS = ("Mr. John Smith", "Mr. David Jones", "Mr. Robert Brown", "Mr. Michael Davis")


def loan_officer_run(seed: int, planted: bool, officers: tuple[str, ...] = OFFICERS, **options: Any) -> Any:
    """32 loan applications of women, each naming a male loan officer ("... said he would review her file"); the
    model approves less often where the applicant is a woman (planted) or where the officer became one (fair: a
    version that changed the bystander's words reads as a difference). Also bench_people14's intersection fixture."""
    rng = random.Random(seed)
    prompts = [f"{FEMALE[i % len(FEMALE)]} applied for a small loan (case {i}). {officers[i % len(officers)]} "
               "(the loan officer) said he would review her file. Approve? Answer yes or no." for i in range(32)]

    def client(prompt: str, **_: Any) -> str:
        if planted:
            low = "review her file" in prompt  # the applicant is a woman
        else:
            low = "Mrs." in prompt or "she would review" in prompt  # the officer is a woman
        return "yes" if rng.random() < (0.25 if low else 0.55) else "no"

    return evenhand.assess(task="classification", prompts=prompts, client=client, count=3, counterfactual_count=3,
                           prevalence_parity=True, label_parser={"approve": ["yes"], "deny": ["no"]},
                           positive_label="approve", **FAST, **options)  # fmt: skip


def bystanders(seed: int, planted: bool) -> bool:
    a = loan_officer_run(seed, planted, attributes=["gender"])
    if planted:
        return any(e.metric == "CPRD" and e.severity == "concern" for f in a.verdict.findings for e in f.evidence)
    return a.verdict.count("concern") > 0


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool]]] = {
    "refusals": ("refusals in a person-level log, 23% vs 2% (PRRD)", refusals),
    "errors": ("error rates of counterfactual decisions (CFNRD, CFPRD)", errors),
    "compare": ("compare: an old complete run without an NRD row (NRD worse)", compare_nrd),
    "bystanders": ("bystanders' words kept (CPRD; null: a loan officer's gender)", bystanders),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES)


if __name__ == "__main__":
    main()
