"""A parser of the user's own (``label_parser=callable``) reads the labels it returns; the config's label words
(default ``{"1": [...], "0": [...]}``) are not its labels. Counted as outcomes beside the two it returns
("approve", "deny"), they made a two-outcome pre-screen a four-outcome one: CPRD rows for '1' and '0' that no answer
can take ("the female version gets '1' 0% of the time") and a redundant 'deny' row, each a test in the run's
Benjamini-Hochberg family."""

from __future__ import annotations

from test_pipeline_decisions import FAST, loan_table

import evenhand


def _parse(answer: str) -> str:
    return "approve" if answer == "yes" else "deny"


def test_a_parser_of_ones_own_with_two_outcomes_adds_no_outcome_row() -> None:
    table = loan_table(1, biased=False, exact=False)
    a = evenhand.assess(task="classification", responses=table, attributes=["gender"], label_parser=_parse,
                        positive_label="approve", **FAST)  # fmt: skip
    cprd = a.metrics[a.metrics["metric"] == "CPRD"]
    assert len(cprd) == 1 and cprd["class"].isna().all(), cprd[["comparison", "class", "value"]]


def test_a_parser_of_ones_own_with_three_outcomes_compares_each() -> None:
    table = loan_table(1, biased=False, exact=False)
    table.loc[table.index[::4], "response"] = "maybe"

    def parse(answer: str) -> str:
        return "review" if answer == "maybe" else _parse(answer)

    a = evenhand.assess(task="classification", responses=table, attributes=["gender"], label_parser=parse,
                        positive_label="approve", **FAST)  # fmt: skip
    classes = set(a.metrics.loc[a.metrics["metric"] == "CPRD", "class"].dropna())
    assert classes == {"deny", "review"}, classes
