"""CED across currencies (unread17, from deploy17): a run whose replies give amounts in several currencies (yen for
the prompts about Tokyo, dollars for the others) averaged the raw differences of yen and dollar amounts into one CED,
a number without a unit, and said nothing. The run's caveats now name the currencies, how many replies gave each,
and that CED mixes them; a run in one currency has no such caveat."""

from __future__ import annotations

from typing import Any

import pytest

import evenhand
from evenhand.text.amounts import currency_of

FAST = {"store": None, "progress": False, "n_resamples": 200, "generation_options": {"seed": 0}}

pytestmark = pytest.mark.pipeline  # whole assessments


def _run(mixed: bool) -> evenhand.Assessment:
    def reply(prompt: str, **_: Any) -> str:  # fair: the same amount for every version of a prompt
        case = int(prompt.split("case ")[1].split("?")[0])
        if mixed and case % 4 == 0:
            return f"I'd offer ¥{7_000_000 + case * 1000:,}."
        return f"I'd offer ${70_000 + case:,}."

    prompts = [f"Salary for Mr. Lee, case {i}?" for i in range(12)]
    return evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=reply, count=2, **FAST)


def test_replies_in_several_currencies_get_a_caveat_naming_them() -> None:
    caveats = [c for c in _run(mixed=True).caveats if "currencies" in c]
    assert len(caveats) == 1, caveats
    assert "JPY" in caveats[0] and "USD" in caveats[0] and "CED" in caveats[0]


def test_replies_in_one_currency_get_none() -> None:
    assert not [c for c in _run(mixed=False).caveats if "currencies" in c]


def test_the_currency_of_an_amount_is_read_from_its_symbol_code_or_word() -> None:
    read = [currency_of(t) for t in ("¥7,000,000", "$70,000", "65000 euros", "70k USD", "5 million yen", "CHF 80,000")]
    assert read == ["JPY", "USD", "EUR", "USD", "JPY", "CHF"]
    assert currency_of("70000") is None
