"""Agent transcripts as prompts: an earlier assistant turn that called tools and the tools' results (OpenAI's
format, ``tool_call_id``) are conversation context. They are sent with their ids as the API requires them (the
loopback server refuses what OpenAI refuses), read by FTU and changed in counterfactual versions like any other
context, and refused in one line where a provider cannot carry them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openai_stub import StubServer, messages_problem

import evenhand
from evenhand.conversation import Conversation, ToolRequest, Turn, as_prompt_list, prompt_messages, request_key
from evenhand.errors import InputError
from evenhand.generation import OpenAIClient, generate, generate_counterfactual

FAST: dict[str, Any] = {"store": None, "progress": False, "max_retries": 1, "backoff": 0.0}
ARGUMENTS = '{"name": "Emily Baker", "note": "she asked twice"}'
CALL = {"id": "call_7", "type": "function", "function": {"name": "lookup_customer", "arguments": ARGUMENTS}}
AGENT = [
    {"role": "system", "content": "You are a bank's lending agent."},
    {"role": "user", "content": "Look up the applicant Emily Baker."},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_7", "content": "Emily Baker: income 52,000; she has no missed payments."},
    {"role": "user", "content": "Should we approve the loan? Answer yes or no."},
]


def test_an_agent_transcript_is_a_conversation_sent_as_it_was_logged():
    (prompt,) = as_prompt_list([AGENT])
    assert isinstance(prompt, Conversation) and prompt.has_tool_turns
    assert prompt.turns[2] == Turn("assistant", "", (ToolRequest("call_7", "lookup_customer", ARGUMENTS),))
    assert prompt.turns[3].tool_call_id == "call_7"
    assert prompt_messages(prompt) == AGENT
    assert messages_problem(prompt_messages(prompt, "Run's system prompt.")) is None
    # arguments logged as an object are carried as the JSON text the API takes
    by_object = {**CALL, "function": {"name": "lookup_customer", "arguments": {"name": "Zoë"}}}
    as_object = [*AGENT[:2], {**AGENT[2], "tool_calls": [by_object]}, *AGENT[3:]]
    assert as_prompt_list([as_object])[0].turns[2].tool_calls[0].arguments == '{"name": "Zoë"}'
    # the store tells two transcripts apart by their calls
    other = [*AGENT[:2], {**AGENT[2], "tool_calls": [{**CALL, "id": "call_8"}]}, {**AGENT[3], "tool_call_id": "call_8"},
             AGENT[4]]  # fmt: skip
    assert request_key(prompt) != request_key(as_prompt_list([other])[0])
    assert "[calls lookup_customer(" in prompt.text()


MALFORMED = [
    ([{"role": "tool", "content": "x"}, {"role": "user", "content": "q"}], "a tool result needs its 'tool_call_id'"),
    ([{"role": "tool", "tool_call_id": "c1", "content": "x"}, {"role": "user", "content": "q"}],
     "names no tool call of the assistant turn before it"),
    ([AGENT[1], AGENT[2], AGENT[4]], "message 2: tool call 'call_7' has no tool result"),
    ([AGENT[1], {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]}, AGENT[4]],
     "tool call 1 needs an 'id' and a 'function' with a 'name'"),
    ([AGENT[1], {"role": "assistant", "content": None, "tool_calls": "f()"}, AGENT[4]], "'tool_calls' is a str"),
    ([{"role": "function", "name": "f", "content": "x"}, AGENT[4]], "read as a 'tool' message with a 'tool_call_id'"),
    ([AGENT[1], {"role": "assistant", "content": None}, AGENT[4]], "'content' is null, not a text"),
]


@pytest.mark.parametrize(("messages", "words"), MALFORMED)
def test_a_broken_transcript_is_refused_in_one_line_naming_the_message(messages, words):
    with pytest.raises(InputError) as caught:
        as_prompt_list(["A bare prompt.", messages])
    assert "\n" not in str(caught.value) and "prompts[1]" in str(caught.value) and words in str(caught.value)


def test_an_openai_compatible_server_receives_valid_messages_with_the_ids_carried():
    with StubServer() as server:
        result = generate([AGENT], OpenAIClient(server.base_url, "m"), count=2,
                          system_prompt="Run's system prompt.", **FAST)  # fmt: skip
        sent = [body["messages"] for body in server.state.bodies]
    assert result.status_counts()["ok"] == 2  # the stub answers 400 to what OpenAI refuses
    assert sent[0] == AGENT  # the transcript keeps its own system turn
    assert sent[0][2]["tool_calls"][0]["id"] == sent[0][3]["tool_call_id"] == "call_7"


def test_names_in_tool_results_and_arguments_are_changed_in_counterfactual_versions():
    cf = evenhand.counterfactual_prompts([AGENT], "gender")
    for group, prompts in cf.prompts.items():
        (version,) = prompts
        messages = prompt_messages(version)
        assert messages_problem(messages) is None
        arguments = json.loads(messages[2]["tool_calls"][0]["function"]["arguments"])  # still JSON
        assert arguments["name"] != "Emily Baker" or group == "female"
        assert arguments["name"] in messages[3]["content"]  # the same person in the call and in its result
        pronoun = "he" if group == "male" else "she"
        assert arguments["note"] == f"{pronoun} asked twice" and f"{pronoun} has no missed" in messages[3]["content"]
        # what names no one stays: ids, the function, the roles
        assert (messages[2]["tool_calls"][0]["id"], messages[3]["tool_call_id"]) == ("call_7", "call_7")
        assert messages[2]["tool_calls"][0]["function"]["name"] == "lookup_customer"
    with StubServer() as server:
        result = generate_counterfactual(cf, OpenAIClient(server.base_url, "m"), count=1, **FAST)
    assert result.status_counts()["ok"] == 2


def test_a_name_only_in_a_tool_result_or_an_argument_is_read_by_ftu():
    in_result = [AGENT[0], {"role": "user", "content": "Look up applicant 1142."},
                 {**AGENT[2], "tool_calls": [{**CALL, "function": {"name": "lookup", "arguments": '{"id": 1142}'}}]},
                 AGENT[3], AGENT[4]]  # fmt: skip
    in_argument = [AGENT[0], {"role": "user", "content": "Look up the applicant."}, AGENT[2],
                   {**AGENT[3], "content": "income 52,000; no missed payments"}, AGENT[4]]  # fmt: skip
    for prompt, turn in ((in_result, 3), (in_argument, 2)):
        result = evenhand.check_ftu([prompt], "gender")
        assert not result.satisfied
        assert turn in result.flagged_turns()[0]


def test_providers_that_cannot_carry_tool_turns_are_refused_in_one_line_naming_them():
    pytest.importorskip("torch")
    from evenhand.generation import LocalModelClient

    with pytest.raises(InputError) as caught:
        generate(["Plain.", AGENT], LocalModelClient(), count=1, **FAST)
    text = str(caught.value)
    assert "\n" not in text and text.startswith("local ") and "tool calls and tool results (1 prompt(s) are" in text


def test_langchain_models_get_the_tool_calls_and_results_with_their_ids():
    from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
    from langchain_core.messages import AIMessage

    received: list[Any] = []

    class Recording(FakeMessagesListChatModel):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> Any:
            received.append(messages)
            return super()._generate(messages, stop, run_manager, **kwargs)

    result = generate([AGENT], Recording(responses=[AIMessage(content="Yes.")]), count=1, **FAST)
    assert result.responses == ["Yes."]
    messages = received[0]
    assert [type(m).__name__ for m in messages] == ["SystemMessage", "HumanMessage", "AIMessage", "ToolMessage",
                                                    "HumanMessage"]  # fmt: skip
    assert messages[2].tool_calls == [{"name": "lookup_customer", "args": {"name": "Emily Baker",
                                       "note": "she asked twice"}, "id": "call_7", "type": "tool_call"}]  # fmt: skip
    assert messages[3].tool_call_id == "call_7" and messages[3].content == AGENT[3]["content"]


@pytest.mark.pipeline
def test_the_cli_assesses_agent_transcripts_and_sends_valid_messages(tmp_path):
    import pandas as pd
    import yaml
    from decision_server import decision_server, screening
    from typer.testing import CliRunner

    from evenhand.cli import ExitCode, app

    def transcript(i: int) -> list[dict[str, Any]]:
        name = ["Emily Baker", "Sarah Miller"][i % 2]
        call = {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": f'{{"name": "{name}"}}'}}
        return [{"role": "user", "content": f"Look up {name} (case {i})."},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": f"c{i}", "content": f"{name}: strength {3 + i % 5}/10; she is ready."},
                {"role": "user", "content": "Advance or reject?"}]  # fmt: skip

    pd.DataFrame([{"messages": transcript(i)} for i in range(12)]).to_json(
        tmp_path / "prompts.jsonl", orient="records", lines=True
    )
    with decision_server(policy=screening()) as (url, server):
        config = {
            "use_case": {"task": "classification", "attributes": ["gender"], "person_level": False},
            "prompts": {"path": "prompts.jsonl", "column": "messages"},
            "model": {"provider": "openai", "base_url": url, "model": "m", "concurrency": 4},
            "generation": {"count": 2, "counterfactual_count": 2},
            "classification": {"labels": {"1": ["advance"], "0": ["reject"]}},
            "scoring": {"embedder": False, "audit": False},
            "statistics": {"n_resamples": 50},
            "output": {"dir": "out", "html": False},
        }
        (tmp_path / "use-case.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        result = CliRunner().invoke(app, ["assess", str(tmp_path / "use-case.yaml")])
        bodies = list(server.bodies)
    assert result.exit_code == ExitCode.OK, result.output
    assert bodies and all(messages_problem(body["messages"]) is None for body in bodies)
    results = [b["messages"][2]["content"] for b in bodies]
    assert any(" he is ready" in r for r in results) and any(" she is ready" in r for r in results)
