"""house18: the prompts' language is read one way (``evenhand.text.language.detect_prompt_language``): FTU's own check
(``FTUResult.language``), the plan's FTU summary and the plan's notes on the readers of replies all hand the language
detector the same texts, conversations read as their plain text (turns and documents). Before, each of the three spelt
the reading out itself, so one could start reading conversations otherwise (the last turn only, say) without a word."""

from __future__ import annotations

from typing import Any

import pytest
from test_language_detection import SPANISH

import evenhand.text.language
from evenhand import plan
from evenhand.conversation import Conversation, Turn, plain_text
from evenhand.framework.ftu import prompts_language
from evenhand.framework.use_case import UseCase
from evenhand.text.ftu import check_ftu
from evenhand.text.language import LanguageGuess, detect_prompt_language

#: Conversations whose words sit in a system turn, an earlier turn and a document as well as in the request: a reading
#: of the last turn alone would see other texts than the plain text does.
PROMPTS: list[Any] = [
    Conversation(
        (Turn("system", "Eres un asistente de seguros."), Turn("user", text), Turn("assistant", "De acuerdo."),
         Turn("user", "Gracias, ¿y ahora?")),
        context=("Póliza de hogar: cubre daños por agua.",),
    )
    for text in SPANISH
] + SPANISH[:3]  # fmt: skip


def _recorded(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    seen: list[list[str]] = []
    real = evenhand.text.language.detect_language

    def recording(texts: Any, **options: Any) -> LanguageGuess:
        seen.append(list(texts))
        return real(texts, **options)

    monkeypatch.setattr(evenhand.text.language, "detect_language", recording)
    return seen


def test_every_reader_of_the_prompts_language_sees_their_plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = [plain_text(p) for p in PROMPTS]
    seen = _recorded(monkeypatch)
    guess = check_ftu(PROMPTS, "gender").language  # FTU's own check
    plan(task="text_generation", prompts=PROMPTS)  # the plan's FTU summary
    use_case = UseCase(task="text_generation", prompts=PROMPTS)
    notes_guess = prompts_language(use_case, None, ["toxicity scorer"])  # the notes where FTU had nothing to compare
    assert len(seen) == 3
    assert all(texts == plain for texts in seen)
    assert guess == notes_guess == detect_prompt_language(PROMPTS)
    assert guess.code == "es"
