"""A dot or a comma that reads two ways (inputs14): "12,50 €", "$1.500", "€1.200 per unit". Each is read from the
evidence in its reply (the currency and its side, the digits after the separator, the reply's other money amounts),
as docs/estimation.md's table "A dot or a comma that reads two ways" says; every row of that table is tested here."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from evenhand.text.numbers import NO_NUMBER, NUMBER, RANGE, parse_numbers

#: (reply, value read (NaN: no number), status): the table of docs/estimation.md, row by row
LOCALES = [
    # a comma after one to three digits followed by one or two: a decimal comma in money (no grouping writes one or
    # two digits after a separator); "no number" before
    ("12,50 €", 12.5, NUMBER),
    ("Der Preis: 12,50 EUR.", 12.5, NUMBER),
    ("€ 1,5", 1.5, NUMBER),
    ("12,50-15,00 €", 13.75, RANGE),
    # ... and where the reply writes money the European way elsewhere
    ("Stufe 2,5 bei 1.234,56 €", 2.5, NUMBER),
    # with no evidence, not money: a list or a decimal comma; not read
    ("1,5", math.nan, NO_NUMBER),
    ("Zinssatz: 12,5 %", 12.5, NUMBER),  # a share's sign after a short comma: a decimal comma (deploy18)
    ("Stufe 2,5, $1,234.56", math.nan, NO_NUMBER),
    # one dot group of three digits: money with no other evidence is thousands (no currency read has three decimals)
    ("$1.500", 1_500, NUMBER),
    ("65.000 €", 65_000, NUMBER),
    ("€1.200 per unit", 1_200, NUMBER),
    ("$2.350 per ounce", 2_350, NUMBER),
    # ... a decimal point where the reply writes its money with a decimal point or comma thousands
    ("$1.500 per unit, plus $12.50 shipping", 1.5, NUMBER),
    ("€1.200 per unit; €24,000 for the lot", 1.2, NUMBER),
    # ... thousands where it writes its money the European way; a symbol after the number is the European way
    ("$1.500 per unit, plus $12,50 shipping", 1_500, NUMBER),
    ("1.200 € pro Stück, 2,50 € Versand", 1_200, NUMBER),
    ("1.500 €, $2.50 fee", 1_500, NUMBER),
    # ... a decimal point in a price per a unit of a good priced to a tenth of a cent (fuel, energy, shares)
    ("€1.789 per litre", 1.789, NUMBER),
    ("Diesel: 1.789 €/l", 1.789, NUMBER),
    ("$4.250 per share", 4.25, NUMBER),
    # ... and in a number that is not money, unless the reply writes numbers the European way
    ("score 3.500", 3.5, NUMBER),
    ("3.500 von 1.234.567 Punkten", 3_500, NUMBER),
    # one comma group of three digits (small16): read by the reply's convention like a dot group; with the symbol
    # after it ("1,500 €") it is no English evidence (an English writer puts € before), so a European reply's
    # decimal comma decides; with no evidence, money is thousands
    ("1,500 €, Gesamt 1.234,56 €", 1.5, NUMBER),
    ("1,500 € pro Stück, 2,50 € Versand", 1.5, NUMBER),
    ("1,500 €", 1_500, NUMBER),
    ("€1,500 per unit, plus €12.50 shipping", 1_500, NUMBER),
]


@pytest.mark.parametrize(("reply", "value", "status"), LOCALES)
def test_a_separator_that_reads_two_ways_is_read_from_the_reply_s_evidence(
    reply: str, value: float, status: str
) -> None:
    parsed = parse_numbers([reply])
    assert parsed.status[0] == status, parsed.matched[0]
    if math.isnan(value):
        assert math.isnan(parsed.values[0])
    else:
        assert parsed.values[0] == pytest.approx(value), parsed.matched[0]


def test_the_docs_table_is_the_tested_one() -> None:
    """docs/estimation.md's table lists exactly these examples (a row added there and not here fails)."""
    doc = (Path(__file__).parents[1] / "docs" / "estimation.md").read_text(encoding="utf-8")
    section = doc.split("### A dot or a comma that reads two ways", 1)[1].split("\n\n**", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    documented = [re.findall(r"`([^`]+)`", row.split(" | ")[0])[0] for row in rows]
    assert documented == [reply for reply, _, _ in LOCALES]
