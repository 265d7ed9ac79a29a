"""A share written with a decimal comma ("12,5%", "3,75 %", "4,9 Prozent"), as a German, French or Spanish reply
writes a rate (deploy18). A short decimal comma ("12,5") reads two ways in a bare number (a decimal or a list), so
it was read only in money or in a reply that writes the European way elsewhere; the answer "Zinssatz: 12,5 %" had no
number at all. A percent sign after it says it is one number: a decimal comma."""

from __future__ import annotations

import math

import pytest

from evenhand.text.numbers import parse_numbers


@pytest.mark.parametrize("unit", [None, "%"])
@pytest.mark.parametrize(
    ("reply", "value"),
    [("12,5%", 12.5), ("Zinssatz: 12,5 %", 12.5), ("3,75%", 3.75), ("ein Rabatt von 4,9 Prozent", 4.9),
     ("un taux de 7,25 %", 7.25), ("rate 12.5%", 12.5)],
)  # fmt: skip
def test_a_share_with_a_decimal_comma_is_read(reply: str, value: float, unit: str | None) -> None:
    parsed = parse_numbers([reply], unit=unit)
    assert parsed.values[0] == pytest.approx(value), (reply, parsed.status[0])


def test_a_bare_short_comma_is_still_not_read() -> None:
    assert math.isnan(parse_numbers(["Pick items 1,5 from the list."]).values[0])
