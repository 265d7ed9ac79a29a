"""newcomer17: the English words before an amount ("an annual salary of", "monthly rent:") moved from a pattern in
evenhand/text/periods.py to the word list (periods.json, ``before_english``); null runs and a planted effect, and
the new pattern against the old one on random phrases.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_newcomer17.py [--runs 50] [--null-runs 300]
(``--only english`` for the fixture alone; the pattern check always runs first, in a second or two;
``NEWCOMER17_WITHOUT_ENGLISH=1`` runs the fixture with no English words before an amount read: its sensitivity).

* pattern check: 200,000 random phrases of 1-7 words from the adjectives, qualifiers, nouns and links (and a few
  other words), each searched with the old pattern (kept below as it was) and the one built from the word list:
  the phrases where one matches and the other does not, or they read another period, are counted (target: 0).
* ``english``: estimation per year over 16 salary requests x 2 answers, around $63,000 a year; half "An annual
  salary of $63,000." / "a yearly base salary of about $63,000", half the monthly "A monthly salary of $5,250." /
  "a monthly gross pay of roughly $5,250" (a monthly amount read as a yearly one if the English words were lost).
  Planted: the monthly amounts 5% lower for the female version.

Counted: runs with any concern (null: target at most 5%); runs whose allocational finding is a concern (planted:
target all). Prints markdown for benchmarks/RESULTS.md ("newcomer17").
"""

from __future__ import annotations

import os
import random
import re
from typing import Any

from _fixture_table import fixture_table
from bench_inputs14 import _estimates, _found

from evenhand.text import periods
from evenhand.text.periods import _ADJECTIVES, _BEFORE

#: the pattern as it was written in evenhand/text/periods.py before newcomer17
_OLD = re.compile(
    r"""\b(?P<adjective>annual|annualised|annualized|yearly|monthly|weekly|daily|hourly)\s+
      (?:(?:base|gross|net|starting|total|pre-tax)\s+)?
      (?:salary|salaries|pay|wages?|rate|income|rent|budget|fees?|compensation|stipend|allowance|premium|payments?|
         earnings|revenue|cost|price|spend(?:ing)?|bonus)
      (?:\s*(?::|=|of|is|at|would\ be|should\ be|around|about|approximately|roughly|~))*\s*\Z""",
    re.IGNORECASE | re.VERBOSE,
)
_WORDS = ["an", "Annual", "monthly", "weekly", "hourly", "daily", "yearly", "annualized", "base", "gross", "net",
          "salary", "wages", "wage", "fee", "payments", "spending", "spend", "rent", "of", "is", ":", "=", "~",
          "would be", "should be", "around", "about", "the", "cost", "at", "pay", "bonus", "offer", "we"]  # fmt: skip


def pattern_check(phrases: int = 200_000) -> tuple[int, int]:
    """(phrases either pattern matched, phrases where the two differ)."""
    rng = random.Random(0)
    matched = differ = 0
    for _ in range(phrases):
        text = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 7))) + rng.choice(["", " ", "  "])
        old, new = _OLD.search(text), _BEFORE.search(text)
        matched += old is not None or new is not None
        if (old is None) != (new is None) or (old and new and _ADJECTIVES[new["adjective"].lower()]
                                               != _ADJECTIVES[old["adjective"].lower()]):  # fmt: skip
            differ += 1
    return matched, differ


def english(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    yearly = ["An annual salary of ${y}.", "I'd suggest a yearly base salary of about ${y}."]
    monthly = ["A monthly salary of ${m}.", "I'd suggest a monthly gross pay of roughly ${m}."]

    def reply(prompt: str, **_: Any) -> str:
        year = 63_000 + rng.randint(-4, 4) * 500
        if rng.random() < 0.5:
            return rng.choice(yearly).format(y=f"{year:,}")
        month = round(year / 12 * (0.95 if planted and "Mrs." in prompt else 1.0))
        return rng.choice(monthly).format(m=f"{month:,}")

    return _found(_estimates(reply, "Salary", estimation={"period": "year"}), planted)


def main() -> None:
    if os.environ.get("NEWCOMER17_WITHOUT_ENGLISH"):  # the fixture's sensitivity: as if the English words were lost
        periods._BEFORE = re.compile(r"(?!)")
    matched, differ = pattern_check()
    print(f"pattern check: {matched:,} of 200,000 phrases matched; old and new patterns differ on {differ}\n")
    fixture_table(__doc__.split("\n\n")[0], {"english": ('English words before the amount, "an annual salary of", '
                                                         '"a monthly gross pay of" (estimates)', english)},
                  null_runs=300)  # fmt: skip


if __name__ == "__main__":
    main()
