"""Numbers read from replies (evenhand.text.numbers; a JSON field through evenhand.structured): a table of written
forms, property tests over generated amounts, and the vectorised call agreeing with one reply at a time."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.errors import InputError, InputTypeError
from evenhand.structured import ToolCall, tool_reply_text
from evenhand.text.numbers import (
    FIELD_IN_PLACES,
    NO_FIELD,
    NO_NUMBER,
    NO_REPLY,
    NUMBER,
    OTHER_PERIOD,
    RANGE,
    parse_number,
    parse_numbers,
)

WRITTEN = [
    ("I'd offer $71,300.", 71_300, NUMBER),
    ("$71.3k is fair.", 71_300, NUMBER),
    ("71,300", 71_300, NUMBER),
    ("USD 71,300 a year", 71_300, NUMBER),
    ("71300 dollars", 71_300, NUMBER),
    ("71 300 €", 71_300, NUMBER),
    ("71\u202f300 €", 71_300, NUMBER),
    ("CHF 71'300", 71_300, NUMBER),
    ("about 1.2M users", 1_200_000, NUMBER),
    ("$5m", 5_000_000, NUMBER),
    ("5m tall", 5, NUMBER),  # metres: a lowercase m is a million only beside a currency
    ("2 million", 2_000_000, NUMBER),
    ("$1.5bn", 1_500_000_000, NUMBER),
    ("$70k-$75k", 72_500, RANGE),
    ("$70k–$75k", 72_500, RANGE),
    ("70-75k", 72_500, RANGE),
    ("$70,000 to $80,000", 75_000, RANGE),
    ("Between $70,000 and $80,000, depending on experience.", 75_000, RANGE),
    ("1-2 million", 1_500_000, RANGE),
    ("5 to 7 years", 6, RANGE),
    ("-5 degrees", -5, NUMBER),
    ("\u22125", -5, NUMBER),
    ("-$5", -5, NUMBER),
    ("$-5", -5, NUMBER),
    ("-5 to -3", -4, RANGE),
    ("COVID-19 aside, 5", 5, NUMBER),  # "COVID-19" is a name: its 19 is neither -19 nor the answer
    ("v2.0 gives 3", 3, NUMBER),
    ("5 years and $70k", 5, NUMBER),  # "and" joins a range only after "between"
    ("a 5% raise", 5, NUMBER),
    ("300$", 300, NUMBER),
    (".5 of it", 0.5, NUMBER),
    ("I can't say.", math.nan, NO_NUMBER),
    ("", math.nan, NO_NUMBER),
    # scientific notation is one number, not its mantissa ("1.2e5" was read as 1.2); beyond a float: no number
    ("1.2e5", 120_000, NUMBER),
    ("about 1.5E+05 dollars", 150_000, NUMBER),
    ("3e-2 of it", 0.03, NUMBER),
    ("1e309", math.nan, NO_NUMBER),
    # grouping that is only read one way: European (dots, a decimal comma) and Indian (lakh) thousands; these were
    # read as their first group ("71.300,50" as 71.3, "₹12,00,000" as 12), a wrong number with no sign of it
    ("71.300,50 €", 71_300.5, NUMBER),
    ("1.234.567", 1_234_567, NUMBER),
    ("€1.234.567,89", 1_234_567.89, NUMBER),
    ("71 300,50 €", 71_300.5, NUMBER),
    ("₹12,00,000", 1_200_000, NUMBER),
    ("Rs. 1,23,45,678.50", 12_345_678.5, NUMBER),
    ("5 years, then $1,5", 5, NUMBER),
    # a decimal comma after a plain integer of four or more digits (left10a: "no number" before)
    ("65000,50 €", 65_000.5, NUMBER),
    ("Ich biete 65000,5 EUR.", 65_000.5, NUMBER),
    ("1234,56", 1_234.56, NUMBER),
    # range words of German, French and Spanish replies (left10a: the first end, or the first group, before)
    ("zwischen 60.000 und 65.000 €", 62_500, RANGE),
    ("60.000 bis 65.000 €", 62_500, RANGE),
    ("von 60.000 € bis 65.000 € im Jahr", 62_500, RANGE),
    ("entre 60 000 et 65 000 €", 62_500, RANGE),
    ("de 60 000 à 65 000 €", 62_500, RANGE),
    ("de 60.000 a 65.000 €", 62_500, RANGE),
    ("entre 60.000 y 65.000 €", 62_500, RANGE),
    ("60.000 und 5 Jahre", 60, NUMBER),  # "und" without "zwischen": two numbers (the first unmarked: a decimal)
    ("3 a 4", 3, NUMBER),  # "a" without "de": two numbers
    # thousands as German, Dutch, Brazilian, Danish or Swiss replies write them (review9): an amount marked as money
    # with one dot group ("65.000 €") was read as 65, beside the "65 000 €" (65,000) of other replies; the Swiss
    # typographic apostrophe ("CHF 85’000") as 85
    ("65.000 €", 65_000, NUMBER),
    ("I would offer 65.000 EUR.", 65_000, NUMBER),  # a German amount in a sentence (the sentence in English: the
    # suite's prompt-language sweep, tests/test_language_detection.py, reads every upper-case list)
    ("R$ 4.500 por mês", 4_500, NUMBER),
    ("60.000-70.000 €", 65_000, RANGE),
    ("€60.000 to €70.000", 65_000, RANGE),
    ("CHF 85’000", 85_000, NUMBER),
    ("85’000.50 CHF", 85_000.5, NUMBER),
    ("score 3.500", 3.5, NUMBER),  # not money: a decimal point, as before
    ("$3.49", 3.49, NUMBER),
    # a dot group that cannot be thousands stays a decimal point (review10: each was read as a thousand times it):
    # a leading zero ("$0.125 per kWh", 125), a scale after it ("$1.500 million", 1.5 billion), a price per a unit
    # of a good ("€1.789 per litre", "$3.499/gal", 1,789 and 3,499), also at the end of a range
    ("$0.125 per kWh", 0.125, NUMBER),
    ("€0.250", 0.25, NUMBER),
    ("$1.500 million", 1_500_000, NUMBER),
    ("₹1.250 crore", 12_500_000, NUMBER),
    ("€1.789 per litre", 1.789, NUMBER),
    ("Diesel: 1.789 €/l", 1.789, NUMBER),
    ("$3.499/gal", 3.499, NUMBER),
    ("$4.250 per share", 4.25, NUMBER),
    ("€1.749-1.789 per liter", 1.769, RANGE),
    # ... while a period after a thousands amount keeps it thousands
    ("€2.500 per month", 2_500, NUMBER),
    ("65.000 €/year", 65_000, NUMBER),
    # Indian replies state pay in lakhs and crores ("₹12 lakh" beside "₹12,00,000"): read as 12 (review9)
    ("₹12 lakh per annum", 1_200_000, NUMBER),
    ("I'd offer 12.5 lakhs.", 1_250_000, NUMBER),
    ("₹1.2 crore", 12_000_000, NUMBER),
    ("10-12 lakh", 1_100_000, RANGE),
]

#: A space between a number and its scale, or a currency and its number, changes nothing where the context is an
#: amount: "50 K" was read as 50 ("50K" as 50,000). A word that merely starts with the scale's letter is no scale
#: ("50 kids"), and a lowercase m / b, "mn" or "mil" after a space is a scale only beside a currency, as without one
#: ("5 m" is metres, "5 mn" minutes, "5 mil" a thickness).
SPACED = [
    ("a salary of 50 K", 50_000, NUMBER),
    ("pay: 50 k a year", 50_000, NUMBER),
    ("about 1.2 M in revenue", 1_200_000, NUMBER),
    ("$1.5 bn", 1_500_000_000, NUMBER),
    ("$5 m", 5_000_000, NUMBER),
    ("$ 50,000", 50_000, NUMBER),
    ("€ 50 000", 50_000, NUMBER),
    ("$ 50 K", 50_000, NUMBER),
    ("50 000", 50_000, NUMBER),  # a thousands group written the French way
    ("50\u00a0000 €", 50_000, NUMBER),
    ("50 000,50 €", 50_000.5, NUMBER),
    ("USD 50k", 50_000, NUMBER),
    ("USD 50 k", 50_000, NUMBER),
    ("50 k USD", 50_000, NUMBER),
    ("$70 k-$75 k", 72_500, RANGE),
    ("a budget of 70 K to 75 K", 72_500, RANGE),
    ("50 kids", 50, NUMBER),
    ("50 km away", 50, NUMBER),
    ("5 m tall", 5, NUMBER),
    ("5 mn later", 5, NUMBER),
    ("a 5 mil sheet", 5, NUMBER),
    ("grade 3 B", 3, NUMBER),
    ("5 MB of memory", 5, NUMBER),
    ("50 K-12 schools", 50, NUMBER),  # K-12 is a school span, not a thousand
]

#: After a space, "M" and "K" scale only an amount (a currency, a salary/price/budget word in the sentence, or the
#: run's currency or unit): "size 10 M" was read as 10 million. Without a space ("10M") they scale as before.
NOT_AN_AMOUNT = [
    ("size 10 M", 10),
    ("about 1.2 M users", 1.2),
    ("50 K", 50),
    ("a 10 K run", 10),
    ("Population: 8 M.", 8),
    ("70 K to 75 K", 72.5),
    ("The price is fair. Size 10 M fits.", 10),  # the amount word is in another sentence
]
AN_AMOUNT = [
    ("a budget of 10 M", 10e6),
    ("Price: 1.5 M", 1.5e6),
    ("10 M in revenue", 10e6),
    ("I'd offer 50 K.", 50e3),
    ("a 1.5 M valuation", 1.5e6),
    ("about 1.2M users", 1.2e6),  # no space: as before
    ("size 10M", 10e6),
    # an amount stated per a period is an amount (review8: "Final answer: 65 K a year" was 65 a year, beside the
    # "$65,000 a year" of other replies)
    ("Final answer: 65 K a year", 65e3),
    ("Estimate: 4.5 K per month", 4.5e3),
    ("I'd say 65 K annually.", 65e3),
]


@pytest.mark.parametrize(("reply", "value"), NOT_AN_AMOUNT)
def test_a_spaced_scale_letter_does_not_scale_a_size_or_a_count(reply: str, value: float) -> None:
    assert parse_number(reply) == pytest.approx(value), reply
    assert parse_number(reply, currency="$") == pytest.approx(value * (1e6 if " M" in reply else 1e3)), reply


@pytest.mark.parametrize(("reply", "value"), AN_AMOUNT)
def test_a_spaced_scale_letter_scales_an_amount(reply: str, value: float) -> None:
    assert parse_number(reply) == pytest.approx(value), reply


def test_the_runs_unit_makes_a_spaced_scale_letter_an_amount() -> None:
    assert parse_number("about 1.2 M users", unit="users") == pytest.approx(1.2e6)
    assert parse_number("Population: 8 M.", unit="people") == pytest.approx(8e6)


@pytest.mark.parametrize(("reply", "value", "status"), SPACED)
def test_a_space_before_a_scale_or_after_a_currency_changes_nothing(reply: str, value: float, status: str) -> None:
    parsed = parse_numbers([reply])
    assert (parsed.status[0], parsed.values[0]) == (status, pytest.approx(value)), parsed.matched[0]


#: A number that can be read more than one way (a decimal comma, a list, a version): not read, never read as its
#: first part ("1,5" was read as 1), and the number after it is not taken instead; ``matched`` shows it.
UNREADABLE = [("1,5", "1,5"), ("12,3456 units", "12,3456"), ("I'd say 1,5 or 5", "1,5"), ("1.2.3", "1.2.3")]


@pytest.mark.parametrize(("reply", "shown"), UNREADABLE)
def test_a_number_read_more_than_one_way_is_not_read(reply: str, shown: str) -> None:
    parsed = parse_numbers([reply])
    assert parsed.status[0] == NO_NUMBER and math.isnan(parsed.values[0]) and parsed.matched[0] == shown


@pytest.mark.parametrize(("reply", "value", "status"), WRITTEN)
def test_written_forms(reply: str, value: float, status: str) -> None:
    parsed = parse_numbers([reply])
    assert parsed.status[0] == status
    if math.isnan(value):
        assert math.isnan(parsed.values[0]) and parsed.matched[0] == ""
    else:
        assert parsed.values[0] == pytest.approx(value)


def test_currency_and_unit_prefer_the_marked_number() -> None:
    reply = "With 5 years of experience in 2024, I'd offer $71,300."
    assert parse_number(reply) == 5  # the first number
    assert parse_number(reply, currency="$") == 71_300  # the first amount marked as money
    assert parse_number("In 2024, about 12 years.", unit="years") == 12
    assert parse_number("About 12 years.", currency="USD") == 12  # nothing marked: the first number
    assert parse_number("Ranked 3rd; rate 4.5%", unit="%") == 4.5


@pytest.mark.parametrize("unit", ["%", "percent"])
@pytest.mark.parametrize(
    "reply",
    ["In 2024, I suggest a 5 percent raise.", "In 2024, 5 per cent.", "For 3 staff in 2024: 5 pct", "In 2024: 5%"],
)
def test_a_percentage_is_marked_by_the_word_as_by_the_sign(reply: str, unit: str) -> None:
    # with unit "%" the reply "In 2024, I suggest a 5 percent raise." was read as 2024: only the sign marked a share
    assert parse_number(reply, unit=unit) == 5


@pytest.mark.parametrize(
    ("reply", "unit"),
    [
        ("In 2024, a 5-year sentence.", "years"),
        ("Since 2019: a 5\u2011year term", "years"),  # the non-breaking hyphen
        ("By 2030, a 10-day stay.", "days"),
    ],
)
def test_a_unit_joined_by_a_hyphen_marks_its_number(reply: str, unit: str) -> None:
    # "In 2024, a 5-year sentence." with unit "years" was read as 2024: only a space could join a number to its unit
    assert parse_number(reply, unit=unit) in (5, 10)


def test_json_fields() -> None:
    replies = [
        '{"offer": {"salary": 71300, "currency": "USD"}}',
        'Here you go:\n```json\n{"offer": {"salary": "$71.3k"}}\n```',
        'Sure: {"offer": {"salary": "70-75k"}} Let me know.',
        '{"offer": {"salary": null}}',
        '{"offer": {"bonus": 5000}}',
        "I would offer about $70k.",
        '{"offer": {"salary": true}}',
        None,
    ]
    parsed = parse_numbers(replies, json_field="offer.salary")
    assert parsed.values[:3].tolist() == [71_300, 71_300, 72_500]
    assert parsed.status.tolist() == [NUMBER, NUMBER, RANGE, NO_NUMBER, NO_FIELD, NO_FIELD, NO_NUMBER, NO_REPLY]
    assert parsed.counts() == {NUMBER: 2, RANGE: 1, NO_NUMBER: 2, NO_FIELD: 2, FIELD_IN_PLACES: 0, NO_REPLY: 1,
                               OTHER_PERIOD: 0}  # fmt: skip
    assert parse_number('{"items": [{"price": 3}, {"price": 9.5}]}', json_field="items.1.price") == 9.5
    assert parse_number('{"items": [{"price": 3}]}', json_field="items.-1.price") == 3
    # the house's one JSON reader: a fenced block, a tool call's arguments, a key in another case
    assert parse_number('```json\n{"offer": {"salary": "$71.3k"}}\n```', json_field="offer.salary") == 71_300
    called = tool_reply_text(None, [ToolCall("make_offer", {"salary": 70_000})])
    assert parse_number(called, json_field="salary") == 70_000
    assert parse_number('{"Salary": 5}', json_field="salary") == 5
    with pytest.raises(InputError, match="dotted path"):
        parse_numbers(["5"], json_field="offer..salary")


def test_a_bare_field_name_is_read_once_at_any_depth_and_never_guessed_between_two() -> None:
    replies = ['{"offer": {"salary": "$71.3k"}}', '{"offer": {"salary": 70000}, "benchmark": {"salary": 65000}}',
               tool_reply_text(None, [ToolCall("make_offer", {"terms": {"salary": 72_000}})])]  # fmt: skip
    parsed = parse_numbers(replies, json_field="salary")
    assert parsed.status.tolist() == [NUMBER, FIELD_IN_PLACES, NUMBER]
    assert parsed.values[[0, 2]].tolist() == [71_300, 72_000]
    assert parsed.matched[1] == "benchmark.salary, offer.salary"


def test_inputs_and_bad_inputs() -> None:
    replies = ["$1", None, float("nan"), "x"]
    for given_as in (replies, np.array(replies, dtype=object), pd.Series(replies), tuple(replies)):
        assert parse_numbers(given_as).status.tolist() == [NUMBER, NO_REPLY, NO_REPLY, NO_NUMBER]
    with pytest.raises(InputTypeError, match="not a single text"):
        parse_numbers("$1")
    with pytest.raises(InputTypeError, match=r"replies\[1\] is int"):
        parse_numbers(["$1", 5])
    with pytest.raises(InputError, match="currency is empty"):
        parse_numbers(["$1"], currency=" ")
    assert len(parse_numbers([])) == 0
    assert parse_numbers(["9" * 400]).status.tolist() == [NO_NUMBER]  # not a finite number


# --------------------------------------------------------------------------------------------------- properties
amounts = st.integers(min_value=0, max_value=10**12)
filler = st.text(alphabet=st.sampled_from("abcdefghij ,.;:!?'\"()"), max_size=20).map(lambda t: f" {t.strip()} ")


@given(amounts)
def test_thousands_separators_and_currency_give_the_amount(n: int) -> None:
    for written in (f"{n:,}", f"${n:,}", f"{n:,} USD", f"USD {n:,}", f"{n} dollars", f"{n:,}".replace(",", "'")):
        assert parse_number(written) == n, written


@given(st.integers(min_value=1, max_value=999_999))
def test_scales(n: int) -> None:
    assert parse_number(f"${n / 10:g}k") == pytest.approx(n * 100)
    assert parse_number(f"{n} million") == pytest.approx(n * 1e6)
    assert parse_number(f"a salary of {n / 10:g} K") == parse_number(f"$ {n / 10:g} k") == pytest.approx(n * 100)
    assert parse_number(f"{n / 10:g} K") == pytest.approx(n / 10)  # no amount: a size or a count


@given(amounts, amounts)
def test_ranges_give_their_midpoint(low: int, high: int) -> None:
    for written in (f"${low:,}-${high:,}", f"{low:,} to {high:,}", f"between ${low:,} and ${high:,}"):
        parsed = parse_numbers([written])
        assert parsed.status[0] == RANGE and parsed.values[0] == pytest.approx((low + high) / 2), written


@given(amounts, filler, filler)
def test_text_around_a_number_changes_nothing(n: int, before: str, after: str) -> None:
    assert parse_number(f"{before}{n:,}{after}.") == n
    assert parse_number(f"{before}-{n:,}{after}") == -n


@given(st.lists(st.sampled_from([r for r, _, _ in WRITTEN] + [None]), max_size=30))
def test_a_column_reads_as_one_reply_at_a_time(replies: list[str | None]) -> None:
    together = parse_numbers(replies)
    for i, reply in enumerate(replies):
        alone = parse_numbers([reply])
        assert together.status[i] == alone.status[0] and together.matched[i] == alone.matched[0]
        assert together.values[i] == alone.values[0] or (math.isnan(together.values[i]) and math.isnan(alone.values[0]))


@given(st.text(alphabet=st.characters(blacklist_categories=("Nd",)), max_size=60))
def test_no_digit_no_number(text: str) -> None:
    assert parse_numbers([text]).status[0] in (NO_NUMBER,)


def test_amounts_as_findings_write_them() -> None:
    from evenhand.text.numbers import format_amount

    assert format_amount(71_300.4, currency="USD") == "$71,300" == format_amount(71_300, currency="$")
    assert format_amount(-5, currency="$") == "-$5" and format_amount(-0.0001, currency="$") == "-$0.0001"
    assert format_amount(71_300, currency="CHF") == "71,300 CHF" and format_amount(7, currency="eur") == "€7"
    assert format_amount(12.46, unit="years") == "12.5 years" and format_amount(4.5, unit="%") == "4.5%"
    assert format_amount(1_234_567) == "1,234,567" and format_amount(0.1234) == "0.123"
    assert format_amount(float("nan"), currency="$") == "n/a"


@given(st.floats(min_value=100, max_value=1e12, allow_nan=False))
def test_a_written_amount_reads_back(value: float) -> None:
    from evenhand.text.numbers import format_amount

    for currency in ("USD", "$", "EUR"):
        assert parse_number(format_amount(value, currency=currency), currency=currency) == round(value)


def test_a_currency_with_a_space_marks_the_amount_as_money() -> None:
    for reply in ("With 5 years: $ 50,000", "With 5 years: € 50 000", "With 5 years: $ 50 K", "With 5 years: 50 k USD"):
        assert parse_number(reply, currency="$") == 50_000, reply


#: Accounting parentheses mark a negative amount: "($5,000)" was read as +5,000. Only an amount marked as money and
#: alone in its parentheses; a parenthesis that restates the figure just written ("seventy thousand dollars
#: ($70,000)"), a year, a count or a list number in parentheses stays as it is.
NEGATIVE = [
    ("($5,000)", -5_000, NUMBER),
    ("(5,000 USD)", -5_000, NUMBER),
    ("$(5,000)", -5_000, NUMBER),
    ("( $5,000 )", -5_000, NUMBER),
    ("(€5,000)", -5_000, NUMBER),
    ("(5,000 dollars)", -5_000, NUMBER),
    ("Net change: ($5.2k) this year.", -5_200, NUMBER),
    ("($5,000)-($3,000)", -4_000, RANGE),
    ("-$5,000", -5_000, NUMBER),
    ("−5,000", -5_000, NUMBER),  # the minus sign U+2212
    ("−$5,000", -5_000, NUMBER),
    ("$−5,000", -5_000, NUMBER),
    # no accounting negative
    ("seventy thousand dollars ($70,000)", 70_000, NUMBER),
    ("about 70k ($70,000)", 70_000, NUMBER),
    ("(2024)", 2_024, NUMBER),
    ("(5 years)", 5, NUMBER),
    ("(5,000)", 5_000, NUMBER),  # not marked as money: a parenthetical figure
    ("(1) $70,000", 1, NUMBER),
    ("I'd offer $70,000 (USD)", 70_000, NUMBER),
    ("(around $5,000)", 5_000, NUMBER),  # not alone in its parentheses
    ("($5,000 to $6,000)", 5_500, RANGE),  # a range in parentheses: no accounting figure
]


@pytest.mark.parametrize(("reply", "value", "status"), NEGATIVE)
def test_accounting_parentheses_and_minus_signs_make_a_negative_amount(reply: str, value: float, status: str) -> None:
    parsed = parse_numbers([reply])
    assert (parsed.status[0], parsed.values[0]) == (status, pytest.approx(value)), parsed.matched[0]
    with_currency = parse_numbers([reply], currency="$")
    if "$" in reply or "USD" in reply or "dollars" in reply:
        assert with_currency.values[0] == pytest.approx(value if reply != "(1) $70,000" else 70_000)


def test_a_number_the_request_states_is_told_from_one_it_does_not() -> None:
    """Whether the number read from a reply is one of its request's numbers (what a refusal that repeats the request
    gives): the value as the request writes it in any form, never a number the request does not state."""
    from evenhand.text.numbers import stated_in_request

    replies = [
        "I can't recommend a salary for someone with 5 years of experience.",
        "I can't say; with 5 years, around 70,000.",  # 5 is read first, and the request states it
        "Around 70,000.",
        "I won't estimate that for a $70k role.",
        "I'd keep it at $70,000.",
        "No figure.",
        None,
    ]
    requests = [
        "Salary for Mrs. Lee, with 5 years of experience?",
        "Salary with 5 years?",
        "Salary with 5 years?",
        "Current pay: $70,000. A raise?",
        "Current pay: 70 thousand. Offer?",
        "Salary with 5 years?",
        "Salary with 5 years?",
    ]
    parsed = parse_numbers(replies)
    assert stated_in_request(parsed, requests).tolist() == [True, True, False, True, True, False, False]
    assert stated_in_request(parse_numbers([]), []).tolist() == []


@pytest.mark.parametrize(
    ("reply", "currency", "value"),
    [
        # a figure the reply cites before its answer is not the answer
        ("The market median for this role is $65,000. Given her record, my final answer: $60,000.", "$", 60_000.0),
        ("Benchmarks: $55k to $65k.\n\n**Offer:** $70k", "$", 70_000.0),
        ("| Item | Amount |\n|---|---|\n| Median | $65,000 |\n| **Offer** | $72,000 |", "$", 72_000.0),
        ("With 5 years of experience, Estimate: 70,000", None, 70_000.0),
        ("Range: $60,000-$70,000. Final answer: $64,000", "$", 64_000.0),  # the last marker
        ("I'd offer $70,000. Final answer: as above.", "$", 70_000.0),  # no number after it: the reply's first
        ("Final answer: around 5 years in, $70,000.", "$", 70_000.0),  # after the marker, money still first
        ("I'd offer $70,000 (the median is $65,000).", "$", 70_000.0),  # no marker: the first, as before
    ],
)
def test_the_number_after_an_answer_marker_is_the_reply_s(reply: str, currency: str | None, value: float) -> None:
    # "The market median is $65,000 ... final answer: $60,000" was read as 65,000 for every group: an estimator that
    # offered women less behind the same cited benchmark showed no gap
    assert parse_number(reply, currency=currency) == value


def test_a_number_the_request_states_per_another_period_is_told_before_conversion() -> None:
    """A refusal that repeats "$4,000 a month" from its request, in a run compared per year, read as 48,000: not one
    of the request's numbers, so the echo was taken for an estimate. The reply's number as written is compared (and,
    as before, the converted one); a number the request does not state stays an estimate."""
    from evenhand.text.numbers import stated_in_request

    replies = [
        "I can't judge whether $4,000 a month is fair for her.",  # the request's amount, per month: an echo
        "I won't say if $4,000/mo is right.",
        "I can't say; $4,500 a month, maybe.",  # not the request's number
        "I can't say; $48,000 a year, as asked.",  # the request's number per year, as written
        "I can't go below $4,000 a month.",  # per month, against a request per year: converted 48,000 (as before)
        "I can't say; $4,000 a week.",  # 4,000 as written is the request's number (a repeat, whatever its period)
    ]
    requests = [
        "Mrs. Lee earns $4,000 a month. A raise?",
        "Mrs. Lee earns $4,000 a month. A raise?",
        "Mrs. Lee earns $4,000 a month. A raise?",
        "Mrs. Lee earns $48,000 a year. A raise?",
        "Mrs. Lee earns $48,000 a year. A raise?",
        "Mrs. Lee earns $4,000 a month. A raise?",
    ]
    parsed = parse_numbers(replies, period="year")
    assert parsed.values.tolist() == [48_000, 48_000, 54_000, 48_000, 48_000, 208_000]
    assert stated_in_request(parsed, requests).tolist() == [True, True, False, True, True, True]
    per_month = parse_numbers(replies, period="month")  # 48,000 a year reads 4,000, 4,000 a month itself
    assert stated_in_request(per_month, requests).tolist() == [True, True, False, True, False, True]
    assert stated_in_request(parse_numbers(replies[:3]), requests[:3]).tolist() == [True, True, False]  # as written
