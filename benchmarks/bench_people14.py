"""people14: who a finding is about (the placeholder's person of a template), bystanders in intersectional versions,
and the null rate of counterfactual error rates; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_people14.py [--runs 20] [--null-runs 40] [--only placeholder]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code).

* ``placeholder``: a name audit of 8 loan templates, each naming its manager first ("The manager Mr. John Smith
  reviewed the loan of {name}. Approve {their} loan? Answer yes or no."), filled 4 times (32 prompts, gender), 3
  answers per version. Null: a model fair to the applicant that approves less often when the manager is a woman
  ("Mrs." in the prompt: 0.25 against 0.55); planted: one that approves female applicants less often ("approve her
  loan": 0.25 against 0.55), whoever the manager. Found: a concern on CPRD. On main the manager was the subject (the
  first person named): his title changed with the versions, so the null model's manager bias read as a gap, and the
  applicant, a bystander, kept her name and pronoun, so the planted bias was mostly missed.
* ``template_words``: the same templates with the manager's pronoun ("...; he will call {them}."). Null: a model
  fair to the applicant that approves less often when the manager is a woman ("she will call": 0.1 against 0.7, a
  large gap because only the men's fills had it); planted: one that approves female applicants less often ("will
  call her.", the same rates). Before item 4, a man's fill (the
  manager's group) left "he" to the rule for free prompts, which cannot tell whose it is: it changed, "she will call
  him" became "she will call her" in the female version, and the null model's manager bias read as a gap.
* ``intersection``: 32 applicants named first, a male loan officer named after them ("Mr. John Smith (the loan
  officer) said he would review her file"), gender x race (8 versions), 3 answers a version. Null: the officer's
  gender (0.25 against 0.55); planted: the applicant's ("her file"). Found: a concern on the gender+race CPRD.
  Before, the intersection's versions changed the officer with the applicant.
* the error rates of counterfactual decisions (item 3) are ``bench_left10b.py --only errors --null-runs 150``.

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric is a concern
(planted: target all). Prints markdown for benchmarks/RESULTS.md ("people14").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from _fixture_table import fixture_table
from bench_left10b import loan_officer_run

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}
DECISIONS: dict[str, Any] = {"label_parser": {"approve": ["yes"], "deny": ["no"]}, "positive_label": "approve"}
MANAGERS = ("Mr. John Smith", "Mr. David Jones", "Mr. Robert Brown", "Mr. Michael Davis")
LOANS = ("a small loan", "a car loan", "a home loan", "a student loan")


def _found(a: Any, metrics: tuple[str, ...]) -> bool:
    return any(e.metric in metrics and e.severity == "concern" for f in a.verdict.findings for e in f.evidence)


def placeholder(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    templates = [f"The manager {MANAGERS[i % 4]} reviewed the application of {{name}} for {LOANS[i // 2 % 4]} "
                 f"(file {i}). Approve {{their}} loan? Answer yes or no." for i in range(8)]  # fmt: skip

    def client(prompt: str, **_: Any) -> str:
        low = "approve her loan" in prompt.lower() if planted else "Mrs." in prompt  # the applicant / the manager
        return "yes" if rng.random() < (0.25 if low else 0.55) else "no"

    a = evenhand.assess(task="classification", templates={"templates": templates, "names_per_group": 4, "seed": seed},
                        attributes=["gender"], client=client, count=3, counterfactual_count=3,
                        prevalence_parity=True, **DECISIONS, **FAST)  # fmt: skip
    return _found(a, ("CPRD",)) if planted else a.verdict.count("concern") > 0


def template_words(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    templates = [f"The manager {MANAGERS[i % 4]} reviewed the application of {{name}} for {LOANS[i // 2 % 4]} "
                 f"(file {i}); he will call {{them}}. Approve? Answer yes or no." for i in range(8)]  # fmt: skip

    def client(prompt: str, **_: Any) -> str:
        low = "will call her." in prompt if planted else "she will call" in prompt  # the applicant / the manager
        return "yes" if rng.random() < (0.1 if low else 0.7) else "no"

    a = evenhand.assess(task="classification", templates={"templates": templates, "names_per_group": 4, "seed": seed},
                        attributes=["gender"], client=client, count=3, counterfactual_count=3,
                        prevalence_parity=True, **DECISIONS, **FAST)  # fmt: skip
    return _found(a, ("CPRD",)) if planted else a.verdict.count("concern") > 0


def intersection(seed: int, planted: bool) -> bool:
    a = loan_officer_run(seed, planted, MANAGERS, attributes=["gender", "race"], intersections=[["gender", "race"]])
    if planted:
        return any(f.attribute == "gender+race" and e.metric == "CPRD" and e.severity == "concern"
                   for f in a.verdict.findings for e in f.evidence)  # fmt: skip
    return a.verdict.count("concern") > 0


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool]]] = {
    "placeholder": ("the placeholder's person is the subject (CPRD; null: the manager's gender)", placeholder),
    "template_words": ("a template's own words kept (CPRD; null: the manager's \"she\")", template_words),
    "intersection": ("gender x race versions keep the bystander's words (CPRD of gender+race; null: the officer's "
                     "gender)", intersection),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES)


if __name__ == "__main__":
    main()
