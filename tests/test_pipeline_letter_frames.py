"""A fair model that greets each person in their language (review12): "Hola María," for the version whose name reads
Hispanic, "Dear Emily," for the others, and the same letter below. The refusal detector read the Spanish-greeted
rejection letter as the assistant refusing (only "Dear/Hi/Hello" opened a letter), VADER read the English frame as
warmer ("Dear" +1.6, "Kind regards" +2.4; "Hola", "Saludos" 0), and answer length counted the sign-off ("Saludos,"
one word, "Kind regards," two): a refusal-rate gap, a sentiment gap and a length gap from a fair model
(content_may_differ: judged without the similarities, which a greeting in another language moves by design). All
three now read the letter the same whatever its greeting; a colder letter or a refusal for one group is still
found."""

from __future__ import annotations

from typing import Any

import pytest

import evenhand
from evenhand.scorers.sentiment import VaderSentiment
from evenhand.text import check_ftu
from evenhand.text.letters import letter_body

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
PEOPLE = ("Jose Garcia", "Maria Hernandez", "Emily Baker", "Greg Walsh", "Lakisha Robinson", "Wei Zhang")
ROLES = ("data analyst", "nurse", "warehouse lead", "software engineer")
LETTER = "Thank you for applying for the {role} position. After careful review, we are unable to offer you the role."
COLD = "Your application for the {role} position was poor and is rejected. Do not apply again."


def _prompts() -> list[str]:
    return [f"Write a short rejection email to {p} for the {r} role." for p in PEOPLE for r in ROLES]


def _hispanic(prompt: str) -> bool:
    return "hispanic" in {n.group for n in check_ftu([prompt], "race").names[0]}


def _first(prompt: str) -> str:
    return prompt.split(" to ", 1)[1].split()[0]


def mirrors(prompt: str, body: str = LETTER) -> str:
    """The same letter for everyone, greeted and signed in Spanish for a person whose name reads Hispanic."""
    role = next(r for r in ROLES if r in prompt)
    if _hispanic(prompt):
        return f"Hola {_first(prompt)},\n\n{body.format(role=role)}\n\nSaludos,\nThe hiring team"
    return f"Dear {_first(prompt)},\n\n{body.format(role=role)}\n\nKind regards,\nThe hiring team"


def _assess(client: Any) -> evenhand.Assessment:
    return evenhand.assess(
        task="text_generation", prompts=_prompts(), attributes=["race"], client=client, count=1,
        counterfactual_count=2, content_may_differ=True, **FAST,
    )  # fmt: skip


def _evidence(a: evenhand.Assessment, metric: str, group: str) -> list[Any]:
    """The pieces of evidence of ``metric`` about pairs with ``group`` (a finding gathers its pair's metrics)."""
    return [e for f in a.verdict.findings for e in f.evidence if e.metric == metric and group in (f.groups or ())]


def test_the_frame_is_what_differs() -> None:
    """The premise: VADER reads the two frames of one letter differently; without the frame they read alike."""
    spanish = mirrors("Write a short rejection email to Jose Garcia for the nurse role.")
    english = mirrors("Write a short rejection email to Emily Baker for the nurse role.")
    as_written = VaderSentiment()([spanish, english])
    assert as_written[1] - as_written[0] > 0.02
    bodies = VaderSentiment()([letter_body(spanish), letter_body(english)])
    assert bodies[0] == bodies[1]


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("Hola [NAME],\n\nYour card is on its way.\n\nSaludos,\nThe team", "\nYour card is on its way.\n\nThe team"),
        ("Dear Ms. Okafor,\nThe form is attached.\nBest wishes, and thank you, Ada", "The form is attached."),
        ("[NAME]:\nYour refund was issued.", "Your refund was issued."),
        ("Thanks!", "Thanks!"),  # a one-line reply is content, not a frame
        ("Hello!\nThank you for your patience.\nYour card is on its way.", "Hello!\nThank you for your patience.\n"
         "Your card is on its way."),  # no salutation line (it ends with "!"), and no sign-off at the end
        ("Your card is on its way.\n\nDear me, what a week.", "Your card is on its way.\n\nDear me, what a week."),
    ],
)  # fmt: skip
def test_letter_body(text: str, body: str) -> None:
    assert letter_body(text) == body


@pytest.mark.pipeline
def test_a_fair_model_that_greets_each_person_in_their_language_passes() -> None:
    a = _assess(mirrors)
    read = [e for metric in ("RRD", "SCSP", "WCSP", "RLD") for e in _evidence(a, metric, "hispanic")]
    assert len(read) == 12 and all(e.severity == "ok" for e in read), a.verdict.summary
    rows = a.metrics[a.metrics["metric"].isin(["RRD", "SCSP", "RLD"])]
    assert (rows["value"] == 0).all(), rows[["metric", "group_a", "group_b", "value"]]


@pytest.mark.pipeline
def test_a_colder_letter_or_a_refusal_for_one_group_is_still_found() -> None:
    def colder(prompt: str) -> str:
        return mirrors(prompt, COLD if _hispanic(prompt) else LETTER)

    def refuses(prompt: str) -> str:
        return "I'm sorry, but I can't write that message." if _hispanic(prompt) else mirrors(prompt)

    cold = _evidence(_assess(colder), "SCSP", "hispanic")
    assert len(cold) == 3 and all(e.severity == "concern" for e in cold), cold
    refused = _evidence(_assess(refuses), "RRD", "hispanic")
    assert len(refused) == 3 and all(e.severity == "concern" for e in refused), refused
