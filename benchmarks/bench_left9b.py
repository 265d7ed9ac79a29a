"""left9b: ranges whose ends state their period, a closing think tag alone, error rates per outcome, and
``assess(settings=...)`` keywords; null runs and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_left9b.py [--runs 20] [--only ranges]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code).

* ``ranges``: 16 salary requests x 2 answers, no currency, unit or period set. Fair: each answer (group-blind) is
  "I'd offer $X a year." or "$Lk a month to $Hk a month" around $4,500 a month +- $250 (so the two forms state two
  periods and are compared per the one stated most). Planted: every answer is a range "$4.0k a month to $Hk a
  month" whose lower end is the same for everyone and whose upper end is lower for the female version (midpoint 5%
  lower): read by its lower end alone the gap is not there.

* ``closing tag``: the counterfactual loan table of ``tests/test_pipeline_decisions.py`` (32 matched female/male
  applicants x 5 answers; fair: both versions approved alike; planted: approval about 35% vs 56%), every answer of a
  model that does not reason followed by a sentence that mentions the closing tag ("<answer>. (No reasoning block
  here: nothing before a </think> tag to skip.)").
* ``error rates``: person-level classification with three outcomes and ground truth: 80 applicants per group
  (female, male), each with a true outcome among approve / review / deny (uniform, group-blind), answered right with
  probability 0.8, else one of the other two (group-blind). Planted: 40% of the women answered right whose truth is
  "review" or "deny" get the other of the two (each outcome's predicted rate unchanged in expectation, approvals
  untouched): only the error rates of "review" and "deny" differ. The plan leaves prevalence parity unanswered, so DP
  and all four error rates are computed. Found: a concern on an error-rate row of an outcome (``class`` set).

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding on the fixture's own
metric is a concern (planted: target all). Prints markdown for benchmarks/RESULTS.md ("left9b").
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from _fixture_table import fixture_table

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}


def ranges(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)

    def reply(prompt: str, **_: Any) -> str:
        if planted:
            top = 5.0 - (0.45 if "Mrs." in prompt else 0.0) + rng.randint(-2, 2) * 0.05  # midpoint 4.5k or 4.275k
            return f"I'd offer $4.0k a month to ${top:.2f}k a month."
        monthly = 4_500 + rng.randint(-5, 5) * 50
        if rng.random() < 0.5:
            return f"I'd offer ${monthly * 12:,.0f} a year."
        return f"I'd offer ${(monthly - 500) / 1000:.2f}k a month to ${(monthly + 500) / 1000:.2f}k a month."

    prompts = [f"Salary for Mr. Lee, case {i}, with {i % 7 + 2} years of experience?" for i in range(16)]
    a = evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2, **FAST)
    if planted:
        return any(f.severity == "concern" and f.risk == "allocational" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


def closing_tag(seed: int, planted: bool) -> bool:
    from test_pipeline_decisions import _paired, loan_table

    table = loan_table(seed, biased=planted, exact=False)
    table["response"] = table["response"] + ". (No reasoning block here: nothing before a </think> tag to skip.)"
    a = _paired(table)
    if planted:  # the decisions' finding (main: none, every answer unread)
        return any(f.risk == "allocational" and f.severity == "concern" for f in a.verdict.findings)
    return a.verdict.count("concern") > 0


OUTCOMES = ("approve", "review", "deny")


def error_rates(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    groups, answers, truth = [], [], []
    for group in ("female", "male"):
        for _ in range(80):
            true = rng.choice(OUTCOMES)
            answer = true if rng.random() < 0.8 else rng.choice([o for o in OUTCOMES if o != true])
            if planted and group == "female" and answer == true != "approve" and rng.random() < 0.4:
                answer = "deny" if true == "review" else "review"
            groups.append(group)
            answers.append(f"Decision: {answer}")
            truth.append(true)
    prompts = [f"Applicant {i}: approve, review or deny the loan?" for i in range(len(groups))]
    by_prompt = dict(zip(prompts, answers, strict=True))
    a = evenhand.assess(task="classification", prompts=prompts, client=lambda p: by_prompt[p], groups=groups,
                        labels=truth, person_level=True, attributes=["gender"], count=1, positive_label="approve",
                        label_parser={o: [o] for o in OUTCOMES}, **FAST)  # fmt: skip
    concerns = [f for f in a.verdict.findings if f.severity == "concern"]
    if planted:
        return any(f.cls is not None and f.metric in ("FNRD", "FORD", "FPRD", "FDRD") for f in concerns)
    return bool(concerns)


FIXTURES: dict[str, tuple[str, Callable[[int, bool], bool]]] = {
    "ranges": ("ranges whose ends state their period (estimates)", ranges),
    "closing": ("a closing think tag inside a sentence (decisions)", closing_tag),
    "errors": ("error rates per outcome, 3 outcomes (person-level classification)", error_rates),
}


def main() -> None:
    fixture_table(__doc__.split("\n\n")[0], FIXTURES)


if __name__ == "__main__":
    main()
