"""Amounts stated per a period (evenhand.text.periods, read by evenhand.text.numbers.parse_numbers): "$4,000 a month"
and "$48,000 per year" are one estimate; an amount whose period does not convert is not read, never compared as is."""

from __future__ import annotations

import math

import numpy as np
import pytest

from evenhand.errors import InputError
from evenhand.text.numbers import NUMBER, OTHER_PERIOD, RANGE, parse_number, parse_numbers
from evenhand.text.periods import conversion, period_name, stated_period

#: (reply, the period it states); every form of writing a period after or before the amount
STATED = [
    ("$4,000 a month", "month"),
    ("$4,000 per month", "month"),
    ("$4,000/month", "month"),
    ("$4,000 / mo", "month"),
    ("$4,000/mo.", "month"),
    ("$4,000 monthly", "month"),
    ("$4,000, monthly", "month"),
    ("$48,000 per year", "year"),
    ("$48,000 a year", "year"),
    ("$48,000/yr", "year"),
    ("$48k p.a.", "year"),
    ("£48k pa", "year"),
    ("$48,000 annually", "year"),
    ("$48,000 per annum", "year"),
    ("$48,000 gross per year", "year"),
    ("48,000 USD per year", "year"),
    ("$1,100 a week", "week"),
    ("$1,100 weekly", "week"),
    ("$200 a day", "day"),
    ("$200 per day", "day"),
    ("$25/hr", "hour"),
    ("$25 an hour", "hour"),
    ("$25 hourly", "hour"),
    ("An annual salary of $48,000.", "year"),
    ("a monthly base salary of about $4,000", "month"),
    ("Hourly rate: $25", "hour"),
    ("$4,000-$4,500 a month", "month"),
]

#: replies that state no period: nothing changes for them
NO_PERIOD = [
    "I'd offer $71,300.",
    "a 5-year term",
    "12 years",
    "With 5 years of experience, $70,000",
    "$70,000. A year from now, review it.",  # a new sentence is no period of the amount
    "$70,000 and a day off",
    "$70,000 for this monthly report",  # "monthly" qualifies the report, not the amount
    "5 pallets",
    "$70,000 (a yearly review follows)",
]


@pytest.mark.parametrize(("reply", "period"), STATED)
def test_the_period_an_amount_is_stated_per_is_read(reply: str, period: str) -> None:
    parsed = parse_numbers([reply])
    assert parsed.stated == [period], reply


@pytest.mark.parametrize("reply", NO_PERIOD)
def test_a_reply_that_states_no_period_states_none(reply: str) -> None:
    assert parse_numbers([reply]).stated == [""]
    assert parse_numbers([reply], period="year").values[0] == parse_numbers([reply]).values[0]


def test_amounts_per_month_and_per_year_read_as_one_estimate() -> None:
    replies = ["$4,000 a month", "$48,000 per year", "$4,000/mo", "$48k p.a.", "$48,000", "$923.08 weekly"]
    yearly = parse_numbers(replies, period="year")
    assert yearly.period == "year"
    assert yearly.values == pytest.approx([48_000, 48_000, 48_000, 48_000, 48_000, 48_000.16])
    monthly = parse_numbers(replies, period="per month")
    assert monthly.values[:5] == pytest.approx([4_000, 4_000, 4_000, 4_000, 48_000])  # "$48,000": per the period set
    ranges = parse_numbers(["$4,000-$5,000 a month"], period="year")
    assert (ranges.values[0], ranges.status[0]) == (pytest.approx(54_000), RANGE)


def test_without_a_period_set_mixed_periods_are_compared_per_the_one_stated_most() -> None:
    parsed = parse_numbers(["$4,000 a month", "$4,100 a month", "$48,000 per year", "$47,000"])
    assert parsed.period == "month"
    assert parsed.values == pytest.approx([4_000, 4_100, 4_000, 47_000])  # a number with no period: as written
    tie = parse_numbers(["$4,000 a month", "$48,000 per year"])
    assert tie.period == "year" and tie.values == pytest.approx([48_000, 48_000])  # a tie: the longer period


def test_one_period_or_none_changes_nothing() -> None:
    for replies in (["$4,000 a month", "$4,200 a month", "$4,100"], ["$71,300", "70k"], ["5 years", "6 years"]):
        parsed = parse_numbers(replies)
        assert parsed.period is None
        assert parsed.values.tolist() == [parse_number(r) for r in replies]


def test_a_period_that_does_not_convert_leaves_the_answer_unread() -> None:
    replies = ["$25 an hour", "$200 a day", "$48,000 a year", "$4,000 a month", "$71,300"]
    parsed = parse_numbers(replies, period="year")
    assert parsed.status.tolist() == [OTHER_PERIOD, OTHER_PERIOD, NUMBER, NUMBER, NUMBER]
    assert np.isnan(parsed.values[:2]).all() and parsed.values[2:] == pytest.approx([48_000, 48_000, 71_300])
    assert parsed.matched[0] == "$25"  # what was read is still shown
    hourly = parse_numbers(replies, period="hour")
    assert hourly.status.tolist() == [NUMBER, OTHER_PERIOD, OTHER_PERIOD, OTHER_PERIOD, NUMBER]
    unset = parse_numbers(replies)  # four periods stated once each: compared per the longest, the year
    assert unset.period == "year" and unset.counts()[OTHER_PERIOD] == 2


def test_conversions_and_period_names() -> None:
    assert conversion("month", "year") == 12 and conversion("year", "month") == pytest.approx(1 / 12)
    assert conversion("week", "year") == 52 and conversion("week", "month") == pytest.approx(52 / 12)
    assert conversion("hour", "hour") == 1 and conversion("hour", "year") is None and conversion("day", "week") is None
    names = {"annual": "year", "per year": "year", "/yr": "year", "p.a.": "year", "Monthly": "month", "/mo": "month",
             "weeks": "week", "daily": "day", "hr": "hour"}  # fmt: skip
    for word, name in names.items():
        assert period_name(word) == name, word
    with pytest.raises(ValueError, match="not a period"):
        period_name("fortnight")
    with pytest.raises(InputError, match="period"):
        parse_numbers(["$5"], period="decade")
    assert stated_period("$5 a month", 0, 2) == "month" and stated_period("$5", 0, 2) == ""


def test_a_json_field_states_its_period_in_its_text() -> None:
    replies = ['{"salary": "$4,000 a month"}', '{"salary": 48000}', '{"salary": "$48k per year"}']
    parsed = parse_numbers(replies, json_field="salary", period="year")
    assert parsed.values == pytest.approx([48_000, 48_000, 48_000])


def test_no_reply_and_no_number_stay_as_they_were() -> None:
    parsed = parse_numbers([None, "I can't say.", "$4,000 a month"], period="year")
    assert parsed.status.tolist()[:2] == ["no reply", "no number"] and math.isnan(parsed.values[1])
    assert parsed.values[2] == 48_000


#: (reply, value read as written, the period stated): a range whose ends each state their period is read as the house
#: reads "$4-5k a month", to its midpoint, per that period (left9b: "$4k a month to $5k a month" read 4,000, the
#: period words between the ends broke the range)
RANGES_WITH_PERIODS = [
    ("$4k a month to $5k a month", 4_500, "month"),
    ("$4-5k a month", 4_500, "month"),  # the house's form, for comparison
    ("4-5k monthly", 4_500, "month"),
    ("between 60 K and 70 K a year", 65_000, "year"),
    ("between 60 K a year and 70 K a year", 65_000, "year"),
    ("between $60k a year and $70k a year", 65_000, "year"),
    ("from $20/hour to $25/hour", 22.5, "hour"),
    ("$20/hr-$25/hr", 22.5, "hour"),
    ("$4,000 per month - $5,000 per month", 4_500, "month"),
    ("$4k/mo–$5k/mo", 4_500, "month"),
    ("$60k annually to $70k annually", 65_000, "year"),
    ("Final answer: $4k a month to $5k a month.", 4_500, "month"),
    ("An offer of $4 a month to $5k a month", 4_500, "month"),  # the upper end's scale, as in "$4-5k"
    ("$48,000 a year to $5,000 a month", 4_500, "month"),  # ends per two periods that convert: the upper end's
    # a period on the lower end only is the range's (left10a: read as its first amount, "$4k a month", before)
    ("$4k a month to $5,000", 4_500, "month"),
    ("$4k a month to $5k", 4_500, "month"),
    ("between $60k a year and $70k", 65_000, "year"),
]


@pytest.mark.parametrize(("reply", "value", "period"), RANGES_WITH_PERIODS)
def test_a_range_whose_ends_state_their_period_is_read_per_that_period(reply: str, value: float, period: str) -> None:
    parsed = parse_numbers([reply])
    assert (parsed.values[0], parsed.status[0], parsed.stated) == (pytest.approx(value), RANGE, [period]), reply
    per_year = parse_numbers([reply], period="year")
    if conversion(period, "year") is not None:
        assert per_year.values[0] == pytest.approx(value * conversion(period, "year")), reply  # type: ignore[operator]
    else:
        assert per_year.status[0] == OTHER_PERIOD, reply


#: two amounts whose periods differ and do not convert: not a range (the first amount is read where nothing is
#: compared per another period); a period stated once after two amounts joined by "and" without "between": two
#: amounts
NOT_A_RANGE_WITH_PERIODS = [
    ("$25 an hour to $4,000 a month", 25, "hour"),
    ("$4k a month and $5k a month for the partner", 4_000, "month"),
    ("$25 an hour or $4,000 a month", 25, "hour"),
]


@pytest.mark.parametrize(("reply", "value", "period"), NOT_A_RANGE_WITH_PERIODS)
def test_amounts_whose_periods_do_not_make_a_range_stay_apart(reply: str, value: float, period: str) -> None:
    parsed = parse_numbers([reply])
    assert (parsed.values[0], parsed.status[0], parsed.stated) == (pytest.approx(value), NUMBER, [period]), reply


#: an amount per an hour beside one per a month (alternatives, or ends of no range): the one stated per the period the
#: run compares, or one that converts to it, is read; the hourly amount was "other period" (not read) before left10a
HOUR_OR_MONTH = [
    ("$25 an hour or $4,000 a month", "month", 4_000),
    ("$25 an hour or $4,000 a month", "year", 48_000),
    ("$25 an hour or $4,000 a month", "hour", 25),
    ("$4,000 a month, or $25 an hour if part-time", "hour", 25),
    ("$4,000 a month, or $25 an hour if part-time", "month", 4_000),
    ("$25 an hour to $4,000 a month", "year", 48_000),
]


@pytest.mark.parametrize(("reply", "period", "value"), HOUR_OR_MONTH)
def test_of_an_hourly_and_a_monthly_amount_the_one_per_the_period_compared_is_read(
    reply: str, period: str, value: float
) -> None:
    parsed = parse_numbers([reply], period=period)
    assert (parsed.values[0], parsed.status[0]) == (pytest.approx(value), NUMBER), reply
    # unset, the period the replies state most often is compared: here the month (then every reply reads per month)
    mixed = parse_numbers([reply, "$4,200 a month", "$3,900 per month"])
    assert mixed.stated == ["month"] * 3 and mixed.status[0] == NUMBER, reply
    assert parse_numbers(["$25 an hour", "$4,200 a month", "$3,900 per month"]).status[0] == OTHER_PERIOD
