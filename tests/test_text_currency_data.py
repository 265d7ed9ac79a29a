"""The currencies an amount is read in are data (evenhand/data/wordlists/currencies.json, deploy18), not a map in
code: every symbol, code and word the file lists is read as an amount's marker and named by its code."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from evenhand.text.amounts import currency_of
from evenhand.text.numbers import format_amount, parse_numbers

_DATA = json.loads(resources.files("evenhand.data").joinpath("wordlists/currencies.json").read_text(encoding="utf-8"))
_CASES = [(code, kind, marker) for code, c in _DATA["currencies"].items()
          for kind in ("symbols", "codes", "words") for marker in c.get(kind, ())]  # fmt: skip


@pytest.mark.parametrize(("code", "kind", "marker"), _CASES)
def test_every_marker_of_the_data_file_is_read_as_its_currency(code: str, kind: str, marker: str) -> None:
    text = f"I would offer 12,500 {marker}." if kind == "words" else f"I would offer {marker}12,500."
    assert currency_of(text) == code, text
    assert parse_numbers([text], currency=code).values[0] == 12500, text


def test_a_finding_writes_an_amount_with_the_data_file_s_symbol() -> None:
    assert format_amount(71300.4, currency="EUR") == f"{_DATA['currencies']['EUR']['format']}71,300"
