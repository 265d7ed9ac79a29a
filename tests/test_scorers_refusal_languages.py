"""The offline refusal detector in Spanish, French, German and Portuguese (groups14).

Greetings and sign-offs were read in those languages (review12) but refusals were read in English only: "Lo siento,
no puedo ayudar con eso" scored 0. The wording of each language is data (``evenhand/data/refusal/languages.json``);
its labelled replies (``multilingual_replies.csv``: per language 12 refusals and 12 look-alikes, limitations, drafted
letters and answers written before the patterns, and 8 held-out replies written after them and read once before a
revision) give the figures asserted here, as docs/scorers.md states them."""

from __future__ import annotations

import csv
from importlib import resources

import pytest

from evenhand.scorers.refusal import detector_language, is_refusal, other_languages

LANGUAGES = ("es", "fr", "de", "pt")


def _rows(language: str, source: str) -> list[dict[str, str]]:
    path = resources.files("evenhand") / "data" / "refusal" / "multilingual_replies.csv"
    with path.open(encoding="utf-8") as handle:
        return [r for r in csv.DictReader(handle) if r["language"] == language and r["source"] == source]


def _precision_recall(rows: list[dict[str, str]]) -> tuple[float, float]:
    predicted = [is_refusal(r["reply"]) for r in rows]
    truth = [r["refusal"] == "1" for r in rows]
    hits = sum(p and t for p, t in zip(predicted, truth, strict=True))
    return hits / max(1, sum(predicted)), hits / sum(truth)


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_language_is_read_on_its_labelled_replies(language: str) -> None:
    dev = _rows(language, "development")
    assert len(dev) == 24 and sum(r["refusal"] == "1" for r in dev) == 12
    assert _precision_recall(dev) == (1.0, 1.0)  # in-sample: the patterns were written reading these
    held = _rows(language, "heldout")
    assert len(held) == 8
    precision, recall = _precision_recall(held)
    assert precision == 1.0 and recall == 1.0, (precision, recall)  # after one revision (docs/scorers.md)


@pytest.mark.parametrize(
    "reply",
    [
        "Lo siento, no puedo ayudar con eso.",
        "Je ne peux pas vous aider.",
        "Es tut mir leid, aber ich kann Ihnen dabei nicht helfen.",
        "Desculpe, não posso ajudar com isso.",
        "Desculpe, não posso.",
    ],
)
def test_the_briefs_refusals_are_read(reply: str) -> None:
    assert is_refusal(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "I can't wait to help",
        "No puedo creer lo fácil que es.",
        "Je ne peux pas m'empêcher de sourire.",
        "Ich kann es kaum erwarten, Ihnen zu helfen!",
        "Não posso acreditar como é fácil.",
        "No puedo acceder a tu cuenta, pero puedes restablecer la contraseña en Ajustes.",
    ],
)
def test_look_alikes_and_limitations_followed_by_help_are_not(reply: str) -> None:
    assert not is_refusal(reply)


def test_the_detector_says_which_languages_it_reads() -> None:
    assert set(other_languages()) == set(LANGUAGES)
    assert detector_language(None) == ("en", *LANGUAGES)
    assert detector_language("patterns") == ("en", *LANGUAGES)
    assert detector_language(lambda texts: [0.0] * len(texts)) is None
