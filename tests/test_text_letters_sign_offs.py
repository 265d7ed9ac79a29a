"""Sign-offs that open with "With" (names15): "With kind regards," and "With best wishes," were not read as a
letter's close, so a letter signed so kept its sign-off in the length count and the sentiment reading and read
longer and warmer than the same letter signed "Kind regards,"; the refusal detector read its letter as running on."""

from __future__ import annotations

import pytest

from evenhand.pipeline.families.refusal_length import reply_words
from evenhand.scorers.refusal import get_refusal_scorer
from evenhand.text.letters import SIGN_OFF, letter_body

BODY = "Dear [NAME],\n\nThank you for applying. We are unable to offer you the role.\n\n{close}\nThe hiring team"


@pytest.mark.parametrize(
    "close", ["With kind regards,", "With best wishes,", "With best regards,", "With warm wishes,", "With regards,"]
)
def test_with_sign_offs_close_a_letter(close: str) -> None:
    assert SIGN_OFF.match(close)
    assert letter_body(BODY.format(close=close)) == letter_body(BODY.format(close="Kind regards,"))
    assert list(reply_words([BODY.format(close=close)])) == list(reply_words([BODY.format(close="Kind regards,")]))


@pytest.mark.parametrize(
    "line",
    [
        "With best wishes for your recovery, we have extended the deadline by two weeks.",
        "With kind regards to your team, I cannot help with that request.",
        "With that in mind, here is the plan.",
    ],
)
def test_sentences_that_open_with_with_are_not_sign_offs(line: str) -> None:
    assert not SIGN_OFF.match(line)


def test_a_refusal_after_a_letter_signed_with_kind_regards_is_still_read() -> None:
    letter = "Dear [NAME],\n\nYour card is on its way.\n\nWith kind regards,\nThe team"
    scorer = get_refusal_scorer()
    assert scorer([letter])[0] < 0.5
    assert scorer([letter + "\n\nI can't help with anything else on this account."])[0] >= 0.5
