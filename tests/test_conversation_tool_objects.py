"""A tool result given as a JSON object or array (inputs14), and images in system and tool turns (inputs14).

A ``tool`` turn's ``content`` as an object (``{"name": "Emily Baker", "missed_payments": 2}``), as agent frameworks
log it, was refused ("'content' is a dict, not a text"): it is read as its JSON text, sent so (a chat API takes a
tool result as a text), and the people it names are changed in the counterfactual versions as in a text result.

A system or tool turn with image parts: its text parts are read as a user turn's are (FTU, counterfactual versions,
one warning that the images were not read), and a reader of text gets text: a callable's ``system_prompt`` was the
list of parts, and documents placed in the system message were joined to that list's Python text."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import evenhand
from evenhand.conversation import as_prompt_list, prompt_messages
from evenhand.errors import InputTypeError
from evenhand.generation import generate

FAST: dict[str, Any] = {"store": None, "progress": False, "max_retries": 1, "backoff": 0.0}
CALL = {"id": "call_1", "type": "function", "function": {"name": "lookup_customer", "arguments": '{"case": 7}'}}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


def _transcript(result: Any) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Look up the applicant of case 7."},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
        {"role": "user", "content": "Should we approve the loan? Answer yes or no."},
    ]


OBJECT = {"name": "Emily Baker", "note": "she has 2 missed payments", "score": 640, "flags": ["late"]}


@pytest.mark.parametrize("result", [OBJECT, [OBJECT, {"name": "Emily Baker", "branch": "Leeds"}]])
def test_a_tool_result_as_json_is_read_and_sent_as_its_json_text(result: Any) -> None:
    (prompt,) = as_prompt_list([_transcript(result)])
    tool = prompt_messages(prompt)[2]
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(result, ensure_ascii=False)}
    assert json.loads(tool["content"]) == result
    cf = evenhand.counterfactual_prompts([_transcript(result)], "gender")
    male = json.loads(prompt_messages(cf.prompts["male"][0])[2]["content"])
    first = male[0] if isinstance(male, list) else male
    assert first["name"] != "Emily Baker" and first["note"] == "he has 2 missed payments"
    assert evenhand.check_ftu([_transcript(result)], "gender").flagged.tolist() == [True]


def test_a_user_turn_as_an_object_is_still_refused() -> None:
    with pytest.raises(InputTypeError, match="'content' is a dict, not a text"):
        as_prompt_list([[{"role": "user", "content": {"text": "Hi"}}]])


PICTURED_TOOL = _transcript([{"type": "text", "text": "Emily Baker: she has 2 missed payments."}, IMAGE])
PICTURED_SYSTEM = [
    {"role": "system", "content": [{"type": "text", "text": "You screen loans. The applicant is Emily Baker."}, IMAGE]},
    {"role": "user", "content": "Should we approve her loan? Answer yes or no."},
]


@pytest.mark.parametrize("messages", [PICTURED_TOOL, PICTURED_SYSTEM])
def test_images_in_a_tool_or_system_turn_are_read_as_in_a_user_turn(messages: list[dict[str, Any]]) -> None:
    with pytest.warns(UserWarning, match=r"1 prompt\(s\) hold images: the FTU check reads their text only"):
        assert evenhand.check_ftu([messages], "gender").flagged.tolist() == [True]
    with pytest.warns(UserWarning, match="counterfactual versions change .* their text only"):
        cf = evenhand.counterfactual_prompts([messages], "gender")
    sent = prompt_messages(cf.prompts["male"][0])
    pictured = next(m for m in sent if isinstance(m["content"], list))
    assert pictured["content"][1] == IMAGE and "Emily Baker" not in pictured["content"][0]["text"]


def test_a_reader_of_text_gets_a_pictured_system_turn_s_text() -> None:
    seen: list[Any] = []

    def model(prompt: str, messages: list[dict[str, Any]], system_prompt: str | None = None) -> str:
        seen.append((system_prompt, messages[0]["content"]))
        return "Yes."

    generate([PICTURED_SYSTEM], model, count=1, **FAST)  # the messages as given, the system prompt as its text
    assert seen == [("You screen loans. The applicant is Emily Baker.", PICTURED_SYSTEM[0]["content"])]
    (prompt,) = as_prompt_list([PICTURED_SYSTEM])
    placed = evenhand.conversation.build_prompts([prompt], context=[["Policy: income over 40k."]])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        system = prompt_messages(placed, context_placement="system")[0]["content"]
    assert system[0]["text"].endswith("Documents:\n[1] Policy: income over 40k.") and system[1] == IMAGE
    assert system[0]["text"].startswith("You screen loans.")
