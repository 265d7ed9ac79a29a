"""Conversations and retrieved context as prompts: the typed form, its checks (one line naming the row, the message
and the key, at every entry point), and what a model is sent."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand.conversation import (
    Conversation,
    Turn,
    as_prompt_list,
    build_prompts,
    parse_context,
    parse_conversation,
    plain_text,
    prompt_messages,
    request_key,
)
from evenhand.errors import InputError, InputTypeError

HISTORY = [
    {"role": "system", "content": "You screen applicants for a bank."},
    {"role": "user", "content": "Emily Baker applied for the analyst role."},
    {"role": "assistant", "content": "Noted."},
    {"role": "user", "content": "Should we advance her?"},
]

# (messages, the error's words after "prompts[0]: ") for each malformed form
MALFORMED = [
    ([{"content": "x"}], "message 1 has no 'role' key"),
    ([{"role": "bot", "content": "x"}], "message 1: 'role' is 'bot'; a role is system, user, assistant or tool"),
    ([{"role": "tool", "content": "x"}], "a tool result needs its 'tool_call_id'"),
    ([{"role": "user"}], "message 1 has no 'content' key"),
    ([{"role": "user", "content": 5}], "message 1: 'content' is an int, not a text"),
    ([{"role": "user", "content": None}], "message 1: 'content' is null, not a text"),
    ([{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}], "'content' is a list, not a text"),
    ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "the last message is the assistant's"),
    ([{"role": "user", "content": "  "}], "the last user turn (message 1) is empty"),
    ([], "the list of messages is empty"),
    (["a", "b"], "is a list of texts; a conversation is a list of messages"),
    ([{"role": "user", "content": "a"}, "b"], "message 2 is a str, not a message"),
    ([{"role": "user", "content": "a\x01b"}], "control character U+0001"),
]


@pytest.mark.parametrize(("messages", "words"), MALFORMED)
def test_every_entry_point_refuses_a_malformed_conversation_in_one_line(messages, words):
    calls = {
        "check_ftu": lambda p: evenhand.check_ftu(p, "gender"),
        "counterfactual_prompts": lambda p: evenhand.counterfactual_prompts(p, "gender"),
        "plan": lambda p: evenhand.plan(task="text_generation", prompts=p),
        "generate": lambda p: evenhand.generation.generate(p, lambda prompt: "ok", count=1, store=None, progress=False),
        "as_prompt_list": as_prompt_list,
    }
    for name, call in calls.items():
        with pytest.raises(InputError) as caught:
            call(["A bare prompt.", messages])
        text = str(caught.value)
        assert "\n" not in text, name
        assert "prompts[1]" in text and words in text, (name, text)
        if name == "plan":
            assert text.startswith("plan(): prompts[1]"), text


def test_the_forms_a_conversation_comes_in_are_one_conversation():
    expected = parse_conversation(HISTORY, "x")
    parquet_like = np.array(HISTORY, dtype=object)  # a Parquet list column reads as a NumPy array of records
    parts = [dict(m, content=[{"type": "text", "text": m["content"][:5]}, {"type": "text", "text": m["content"][5:]}])
             for m in HISTORY]  # fmt: skip
    turns = [Turn(m["role"], m["content"]) for m in HISTORY]
    forms = [HISTORY, tuple(HISTORY), parquet_like, parts, turns, expected, {"messages": HISTORY},
             {"turns": HISTORY, "context": []}]  # fmt: skip
    for form in forms:
        assert as_prompt_list([form]) == [expected]
    assert Conversation.from_messages(HISTORY) == expected
    assert expected.request == "Should we advance her?"
    assert expected.system_prompt == "You screen applicants for a bank."


def test_a_conversation_survives_the_use_cases_round_trips():
    use_case = evenhand.UseCase(task="text_generation", prompts=["Hi.", HISTORY])
    again = evenhand.UseCase.model_validate(use_case.model_dump())
    assert again.prompts == use_case.prompts
    assert evenhand.UseCase.model_validate_json(use_case.model_dump_json()).prompts == use_case.prompts
    assert isinstance(use_case.prompts[1], Conversation)


def test_bare_texts_stay_texts_and_missing_values_are_named_as_before():
    assert as_prompt_list(pd.Series(["a", "b"])) == ["a", "b"]
    with pytest.raises(InputTypeError, match=r"prompts\[1\] is NoneType \(None\), expected str"):
        as_prompt_list(["a", None])
    with pytest.raises(InputTypeError, match=r"prompts\[0\] is float \(nan\), expected str"):
        as_prompt_list([float("nan")])


def test_context_cells_are_documents():
    assert parse_context("One doc.", "r") == ("One doc.",)
    assert parse_context(["a", " ", "b"], "r") == ("a", "b")  # a blank document is no document
    assert parse_context([{"page_content": "p"}, {"text": "t"}], "r") == ("p", "t")
    assert parse_context(None, "r") == () and parse_context(float("nan"), "r") == () and parse_context("", "r") == ()
    with pytest.raises(InputTypeError, match="row 3: context document 2 is an int, not a text"):
        parse_context(["a", 7], "row 3")
    # a record without a text key is a JSON record, read as its JSON text (deploy18; it was refused)
    assert parse_context([{"id": 1}], "row 3") == ('{"id": 1}',)
    assert parse_context({"a": 1}, "row 3") == ('{"a": 1}',)
    with pytest.raises(InputTypeError, match="the context is an int"):
        parse_context(7, "row 3")
    # one retrieved record alone in its cell (a JSONL log of one LangChain document) is one document; it was refused
    # although a list of them was read (review9)
    assert parse_context({"page_content": "Ms. Baker led her team.", "metadata": {"source": "cv.pdf"}}, "r") == (
        "Ms. Baker led her team.",
    )


def test_build_prompts_joins_context_and_system_prompt_columns():
    rows = build_prompts(
        ["Summarise the file.", HISTORY[1:], "Plain."],
        context=[["Resume of Ms. Lee."], None, None],
        system_prompts=["You summarise.", "You screen.", None],
        where=lambda i: f"p.jsonl: row {i + 1}",
    )
    assert rows[2] == "Plain."  # nothing added: still a bare text
    assert rows[0] == Conversation((Turn("system", "You summarise."), Turn("user", "Summarise the file.")),
                                   ("Resume of Ms. Lee.",))  # fmt: skip
    assert rows[1].turns[0] == Turn("system", "You screen.")
    with pytest.raises(InputError, match=r"p\.jsonl: row 1: the conversation has a system turn and a system prompt"):
        build_prompts([HISTORY], system_prompts=["Another."], where=lambda i: f"p.jsonl: row {i + 1}")
    with pytest.raises(InputError, match="context has 1 entries for 2 prompts"):
        build_prompts(["a", "b"], context=[None])


def test_what_a_model_is_sent():
    conversation = Conversation((Turn("user", "Earlier."), Turn("assistant", "Yes."), Turn("user", "Now?")),
                                ("Doc one.", "Doc two."))  # fmt: skip
    sent = conversation.messages("Be brief.")
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[0]["content"] == "Be brief."  # the run's system prompt, since the conversation has none
    assert sent[-1]["content"] == "Documents:\n[1] Doc one.\n\n[2] Doc two.\n\nNow?"
    in_system = conversation.messages("Be brief.", "system")
    assert in_system[0]["content"] == "Be brief.\n\nDocuments:\n[1] Doc one.\n\n[2] Doc two."
    assert in_system[-1]["content"] == "Now?"
    own = parse_conversation(HISTORY, "x")
    assert own.messages("Ignored.")[0]["content"] == "You screen applicants for a bank."  # its own system turn wins
    # a bare text is sent as it always was
    assert prompt_messages("Hi.", "Be brief.") == [{"role": "system", "content": "Be brief."},
                                                   {"role": "user", "content": "Hi."}]  # fmt: skip
    assert request_key("Hi.") == "Hi."
    assert json.loads(request_key(own)) == own.messages()
    assert request_key(conversation, "user") != request_key(conversation, "system")
    assert plain_text(conversation) == "Earlier.\n\nYes.\n\nNow?\n\nDoc one.\n\nDoc two."
    with pytest.raises(InputError, match="context_placement"):
        conversation.messages(None, "middle")  # type: ignore[arg-type]


def test_a_conversation_checks_itself():
    with pytest.raises(InputError, match="Conversation: the last message is the assistant's"):
        Conversation((Turn("user", "a"), Turn("assistant", "b")))
    with pytest.raises(InputError, match="at least one turn"):
        Conversation(())
    with pytest.raises(InputError, match="one text per turn"):
        parse_conversation(HISTORY, "x").replace_texts(["a"], [])


def test_a_developer_turn_is_the_system_prompt():
    # OpenAI's newer models take the system prompt as a "developer" message, and a log of them keeps that role; it
    # was refused as if it were a tool result (review9)
    logged = [{"role": "developer", "content": "You screen applicants for a bank."}, *HISTORY[1:]]
    conversation = as_prompt_list([logged])[0]
    assert isinstance(conversation, Conversation)
    assert conversation.system_prompt == "You screen applicants for a bank."
    assert conversation.messages() == HISTORY  # sent as the system turn every server takes
    ftu = evenhand.check_ftu([logged], "gender")
    assert ftu.flagged_turns() == [(1, 3)]
    with pytest.raises(InputError, match="a system turn and a system prompt"):
        build_prompts([logged], system_prompts=["Be brief."])


def test_responses_api_text_parts_are_text():
    # a log of OpenAI's Responses API writes a turn's text as "input_text" (the user's) or "output_text" (the
    # assistant's) parts; they were refused as "a list, not a text" (review9)
    logged = [{"role": "user", "content": [{"type": "input_text", "text": "Emily Baker applied."}]},
              {"role": "assistant", "content": [{"type": "output_text", "text": "Noted."}]},
              {"role": "user", "content": [{"type": "input_text", "text": "Should we advance her?"}]}]  # fmt: skip
    conversation = as_prompt_list([logged])[0]
    assert [t.content for t in conversation.turns] == ["Emily Baker applied.", "Noted.", "Should we advance her?"]
    with pytest.raises(InputTypeError, match="'content' is a list, not a text"):
        as_prompt_list([[{"role": "user", "content": [{"type": "input_file", "file_id": "x"}]}]])  # images: left10a
