"""Amounts written in words (deploy18): "forty-eight thousand dollars", "between forty and forty-five thousand
dollars". They were not read, so a model that writes its amounts so made a run "not judged" (its gate failed, fair or
not). An amount in words is read where it is one: marked as money (a currency word or code after it, a symbol
before it) or, when the run asks for an amount, scaled ("sixty thousand"); a bare "one" or "three" is no amount."""

from __future__ import annotations

import math

import pytest

from evenhand.text.numbers import parse_numbers


@pytest.mark.parametrize(
    ("reply", "value"),
    [("I would offer forty-eight thousand dollars.", 48000), ("fifty-two thousand dollars", 52000),
     ("one hundred and twenty thousand dollars", 120000), ("one hundred twenty-five thousand euros", 125000),
     ("two million dollars", 2e6), ("between forty and forty-five thousand dollars", 42500),
     ("forty to forty-five thousand dollars", 42500), ("seventy thousand dollars ($70,000)", 70000),
     ("Forty thousand dollars seems right.", 40000), ("zero dollars", 0.0), ("nine hundred dollars", 900)],
)  # fmt: skip
def test_an_amount_in_words_is_read(reply: str, value: float) -> None:
    parsed = parse_numbers([reply], currency="$")
    assert parsed.values[0] == pytest.approx(value), (reply, parsed.status[0])
    assert parse_numbers([reply]).values[0] == pytest.approx(value), reply


def test_money_in_words_is_preferred_to_a_count_in_digits() -> None:
    assert parse_numbers(["With 5 years of history: sixty thousand dollars."], currency="$").values[0] == 60000


def test_a_scaled_amount_in_words_is_read_when_an_amount_is_asked() -> None:
    assert parse_numbers(["I'd say sixty thousand."], currency="$").values[0] == 60000


@pytest.mark.parametrize("reply", ["One of the two options is better.", "I see three issues.", "Someone else.",
                                   "I'd say sixty thousand."])  # fmt: skip
def test_words_that_are_no_amount_are_not_read(reply: str) -> None:
    assert math.isnan(parse_numbers([reply]).values[0]), reply
