"""Period words of German, French, Spanish and Portuguese replies (inputs14): "65.000 € im Jahr", "4.000 € monatlich",
"25 € die Stunde", "60 000 € par an", "25 € de l'heure", "4.000 € al mes", "25 € por hora" were read as stating no
period, so a monthly amount was compared with yearly ones as it is. The words are data
(evenhand/data/wordlists/periods.json), not code."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from evenhand.text.numbers import OTHER_PERIOD, parse_numbers
from evenhand.text.periods import PERIODS, stated_period

STATED = [
    ("65.000 € im Jahr", "year"),
    ("65.000 € pro Jahr", "year"),
    ("65.000 € brutto im Jahr", "year"),
    ("65.000 € jährlich", "year"),
    ("4.000 € im Monat", "month"),
    ("4.000 € pro Monat", "month"),
    ("4.000 € monatlich", "month"),
    ("4.000 €/Monat", "month"),
    ("25 € pro Stunde", "hour"),
    ("25 € die Stunde", "hour"),
    ("900 € pro Woche", "week"),
    ("200 € am Tag", "day"),
    ("60 000 € par an", "year"),
    ("60 000 € brut par an", "year"),
    ("5 000 € par mois", "month"),
    ("25 € de l'heure", "hour"),
    ("25 € de l’heure", "hour"),
    ("60.000 € al año", "year"),
    ("60.000 € anuales", "year"),
    ("4.000 € al mes", "month"),
    ("4.000 € mensuales", "month"),
    ("25 € por hora", "hour"),
    ("R$ 4.500 por mês", "month"),
]


@pytest.mark.parametrize(("reply", "period"), STATED)
def test_a_period_word_of_another_language_is_read(reply: str, period: str) -> None:
    end = reply.index("€") + 1 if "€" in reply else reply.index("4.500") + 5  # right after the amount
    assert stated_period(reply, 0, end) == period


def test_replies_per_a_month_and_per_a_year_compare_per_one_period() -> None:
    replies = ["Ich biete 60.000 € im Jahr.", "Ich biete 5.000 € im Monat.", "Je propose 5 000 € par mois.",
               "Ofrezco 60.000 € al año.", "Ich biete 25 € pro Stunde."]  # fmt: skip
    parsed = parse_numbers(replies, period="year")
    assert parsed.values[:4].tolist() == [60_000, 60_000, 60_000, 60_000]
    assert parsed.status[4] == OTHER_PERIOD
    assert parsed.stated == ["year", "month", "month", "year", "hour"]


def test_words_that_are_no_period_stay_none() -> None:
    for reply in ["65.000 € im Jahresvergleich", "60 000 € parmi eux", "4.000 € al mesero", "25 € pro Stundenplan"]:
        assert stated_period(reply, 0, reply.index("€") + 1) == "", reply


def test_the_period_words_are_data() -> None:
    words = json.loads(resources.files("evenhand.data").joinpath("wordlists/periods.json").read_text("utf-8"))
    assert set(words["after"]) == set(PERIODS)
    assert "im Jahr" in words["after"]["year"] and "por hora" in words["after"]["hour"]


#: (reply, the period it states): a period named before the amount in German, French, Spanish, Portuguese (small16:
#: "Jahresgehalt von 50.000 €" stated no period, so a yearly salary was compared with monthly ones as it was)
BEFORE = [
    ("Ein Jahresgehalt von 50.000 €", "year"),
    ("Jahresgehalt: 50.000 €", "year"),
    ("ein Bruttojahresgehalt von etwa 50.000 €", "year"),
    ("Monatsgehalt von 4.000 €", "month"),
    ("Stundenlohn von 25 €", "hour"),
    ("un salaire annuel de 40 000 €", "year"),
    ("un salaire annuel brut d'environ 40 000 €", "year"),
    ("un loyer mensuel de 900 €", "month"),
    ("un salario anual de 40.000 €", "year"),
    ("un sueldo mensual de unos 3.000 €", "month"),
    ("um salário anual de R$ 40.000", "year"),
]


@pytest.mark.parametrize(("reply", "period"), BEFORE)
def test_a_period_word_of_another_language_before_the_amount_is_read(reply: str, period: str) -> None:
    start = reply.index("R$") if "R$" in reply else next(i for i, ch in enumerate(reply) if ch.isdigit())
    assert stated_period(reply, start, len(reply)) == period


def test_period_words_before_are_data_and_need_the_amount_right_after() -> None:
    words = json.loads(resources.files("evenhand.data").joinpath("wordlists/periods.json").read_text("utf-8"))
    assert set(words["before"]) <= set(PERIODS) and "Jahresgehalt" in words["before"]["year"]
    # the salary must qualify this amount: a word further back, or another figure in between, is no period of it
    for reply in ["Das Jahresgehalt ist gut; dazu kommen 500 €", "salaire annuel : voir plus bas. Prime de 500 €"]:
        assert stated_period(reply, reply.index("500"), len(reply)) == "", reply
    parsed = parse_numbers(["Ein Jahresgehalt von 60.000 €.", "Ein Monatsgehalt von 5.000 €."], period="year")
    assert parsed.values.tolist() == [60_000, 60_000] and parsed.stated == ["year", "month"]


def test_english_words_before_an_amount_are_data_too() -> None:
    """newcomer17: "an annual salary of", "monthly rent of" were a pattern in evenhand/text/periods.py while the other
    languages' words were data; they are in periods.json's ``before_english`` now, and every word there reads."""
    words = json.loads(resources.files("evenhand.data").joinpath("wordlists/periods.json").read_text("utf-8"))
    english = words["before_english"]
    assert set(english["adjectives"]) <= set(PERIODS) and "salary" in english["nouns"] and "of" in english["links"]
    for period, adjectives in english["adjectives"].items():
        for adjective in adjectives:
            for noun in english["nouns"]:
                reply = f"An {adjective} {english['qualifiers'][0]} {noun} {english['links'][-1]} $70,000."
                assert stated_period(reply, reply.index("$"), len(reply) - 1) == period, reply
    source = resources.files("evenhand.text").joinpath("periods.py").read_text("utf-8")
    assert "stipend" not in source and "compensation" not in source  # the words of the list are not in the code
