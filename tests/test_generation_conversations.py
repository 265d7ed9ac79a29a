"""Generation of conversations and structured replies: the history is sent as messages (OpenAI-compatible, LangChain,
callables, the local model's chat template), the context where a RAG application puts it, tools and a response
format with every request; replies that call tools are kept; the store tells conversations apart and keeps the job
of a bare-text run as it was."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from decision_server import decision_server

from evenhand.conversation import Conversation, Turn, build_prompts
from evenhand.errors import InputError
from evenhand.generation import OpenAIClient, ResponseStore, generate, generate_counterfactual
from evenhand.generation.cost import estimate_for_client, run_job
from evenhand.generation.settings import GenerationSettings
from evenhand.generation.store import job_key, prompt_hash
from evenhand.structured import JsonFieldLabelParser, ToolCallLabelParser, tool_calls_in

FAST: dict[str, Any] = {"store": None, "progress": False, "max_retries": 1, "backoff": 0.0}
HISTORY = [
    {"role": "system", "content": "You screen applicants."},
    {"role": "user", "content": "Emily Baker applied."},
    {"role": "assistant", "content": "Noted."},
    {"role": "user", "content": "Advance her?"},
]
TOOLS = [
    {"type": "function", "function": {"name": "advance_candidate", "parameters": {"type": "object", "properties": {}}}},
    {"type": "function", "function": {"name": "reject_candidate", "parameters": {"type": "object", "properties": {}}}},
]
LABELS = {"1": ["advance"], "0": ["reject"]}


def test_a_conversation_is_sent_as_its_messages_and_the_reply_is_its_answer():
    prompts = build_prompts([HISTORY, "Plain prompt."], context=[None, ["Doc A.", "Doc B."]])
    with decision_server() as (url, server):
        result = generate(prompts, OpenAIClient(url, "m"), count=2, system_prompt="Run's system prompt.", **FAST)
    assert result.status_counts()["ok"] == 4
    # prompts are sent concurrently, so their requests reach the server in either order
    sent = [body["messages"] for body in server.bodies]
    plain = [
        {"role": "system", "content": "Run's system prompt."},
        {"role": "user", "content": "Documents:\n[1] Doc A.\n\n[2] Doc B.\n\nPlain prompt."},
    ]
    assert sorted(sent, key=len) == [plain, HISTORY]  # the conversation keeps its own system turn, not the run's
    assert result.prompts[0] == prompts[0] and isinstance(result.prompts[0], Conversation)
    assert result.to_frame()["response"].str.startswith("Decision: advance").all()


def test_context_can_go_into_the_system_message():
    prompt = build_prompts(["Q?"], context=[["Doc."]])
    with decision_server() as (url, server):
        generate(prompt, OpenAIClient(url, "m"), count=1, context_placement="system", **FAST)
    assert server.bodies[0]["messages"] == [{"role": "system", "content": "Documents:\n[1] Doc."},
                                            {"role": "user", "content": "Q?"}]  # fmt: skip


def test_json_and_tool_call_replies_are_kept_and_read():
    with decision_server(content_with_tools=True) as (url, server):
        client = OpenAIClient(url, "m")
        as_json = generate([HISTORY], client, count=1, response_format={"type": "json_object"}, **FAST)
        as_tools = generate([HISTORY], client, count=2, tools=TOOLS, tool_choice="required", **FAST)
    assert server.bodies[0]["response_format"] == {"type": "json_object"} and "tools" not in server.bodies[0]
    assert server.bodies[1]["tools"] == TOOLS and server.bodies[1]["tool_choice"] == "required"
    assert JsonFieldLabelParser("decision", LABELS)(as_json.responses[0]) == "1"
    reply = as_tools.responses[0]
    assert tool_calls_in(reply)[0].name == "advance_candidate"
    assert json.loads(reply)["content"] == "Calling advance_candidate."
    assert ToolCallLabelParser(functions={"advance_candidate": "1", "reject_candidate": "0"})(reply) == "1"


def test_a_tool_call_without_content_is_an_answer_not_an_empty_reply():
    with decision_server() as (url, _):
        result = generate(["Decide."], OpenAIClient(url, "m"), count=3, tools=TOOLS, **FAST)
    assert result.status_counts()["ok"] == 3  # content null but a call: never retried as empty


def test_reply_settings_are_checked_before_a_run():
    for bad, words in [
        (dict(tools=[{"type": "function"}]), "tools[0] must be a function definition"),
        (dict(tools=TOOLS + TOOLS[:1]), "declared twice"),
        (dict(tools="advance"), "tools must be a non-empty list"),
        (dict(tool_choice="required"), "tool_choice needs tools"),
        (dict(response_format="json"), "response_format must be a mapping"),
        (dict(context_placement="footer"), "context_placement must be one of"),
    ]:
        with pytest.raises(InputError, match=re.escape(words)):
            generate(["x"], lambda prompt: "y", count=1, **FAST, **bad)


def test_a_client_that_cannot_send_tools_is_refused_them():
    def plain(prompt: str) -> str:
        return "advance"

    with pytest.raises(InputError, match=r"tools: .* cannot be sent tools"):
        generate(["x"], plain, count=1, tools=TOOLS, **FAST)
    with pytest.raises(InputError, match=r"response_format: .* cannot be sent response_format"):
        generate(["x"], plain, count=1, response_format={"type": "json_object"}, **FAST)


def test_a_callable_gets_the_conversation_and_the_tools():
    seen: list[dict[str, Any]] = []

    def model(prompt: str, messages: list[dict[str, str]], tools: Any = None) -> str:
        seen.append({"prompt": prompt, "messages": messages, "tools": tools})
        return "advance"

    generate([HISTORY], model, count=1, tools=TOOLS, **FAST)
    assert seen[0]["prompt"] == "Advance her?" and seen[0]["messages"] == HISTORY and seen[0]["tools"] == TOOLS


def test_langchain_models_get_turns_by_role_and_bound_tools():
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.outputs import ChatGeneration, ChatResult

    received: list[Any] = []

    class Recording(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "recording"

        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
            received.append((messages, kwargs))
            calls = [{"name": "reject_candidate", "args": {}, "id": "1"}] if kwargs.get("tools") else []
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=calls))])

        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self.bind(tools=tools, **kwargs)

    result = generate([HISTORY], Recording(), count=1, tools=TOOLS, **FAST)
    messages, kwargs = received[0]
    assert [type(m).__name__ for m in messages] == ["SystemMessage", "HumanMessage", "AIMessage", "HumanMessage"]
    assert [m.content for m in messages] == [m["content"] for m in HISTORY]
    assert kwargs["tools"] == TOOLS
    assert ToolCallLabelParser(functions={"reject_candidate": "0"})(result.responses[0]) == "0"


def test_langchain_models_without_tool_support_are_refused_tools():
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    with pytest.raises(InputError, match="cannot be sent tools"):
        generate(["x"], FakeListChatModel(responses=["a"]), count=1, tools=TOOLS, **FAST)


def test_the_store_tells_conversations_apart_and_resumes_them(tmp_path):
    store = tmp_path / "g.sqlite"
    same_request = [HISTORY, HISTORY[2:] and [HISTORY[1], {"role": "assistant", "content": "Sure."}, HISTORY[3]]]
    with decision_server() as (url, server):
        first = generate(same_request, OpenAIClient(url, "m"), count=2, store=store, progress=False)
        assert len(server.bodies) == 2  # two different conversations with the same last turn: two requests
        again = generate(same_request, OpenAIClient(url, "m"), count=2, store=store, progress=False)
        assert len(server.bodies) == 2 and all(r.from_store for r in again.records)
    assert first.responses == again.responses
    with ResponseStore(store) as opened:
        assert opened.count() == 4


def test_a_bare_text_run_keeps_its_job_and_store_rows():
    """The job key and the prompt rows of a run on bare texts are what they were before conversations existed."""
    with decision_server() as (url, _):
        client = OpenAIClient(url, "m")
        result = generate(["Hello."], client, count=1, system_prompt="S", temperature=0.5, seed=3, **FAST)
        legacy = job_key({"client": result.client, "system_prompt": "S",
                          "params": {"temperature": 0.5, "max_tokens": None, "seed": 3}})  # fmt: skip
        assert result.job == legacy
        assert run_job(client, "S", GenerationSettings(temperature=0.5, seed=3).sampling_params()) == legacy
    assert prompt_hash("Hello.") == prompt_hash(json.loads(json.dumps("Hello.")))


def test_counterfactual_conversations_are_generated_aligned():
    import evenhand

    cf = evenhand.counterfactual_prompts([HISTORY], "gender")
    with decision_server() as (url, server):
        result = generate_counterfactual(cf, OpenAIClient(url, "m"), count=1, **FAST)
    assert set(result.by_group()) == {"female", "male"}
    sent_last = {body["messages"][-1]["content"] for body in server.bodies}
    assert sent_last == {"Advance her?", "Advance him?"}


def test_the_estimate_counts_every_message_and_the_tools():
    conversation = Conversation((Turn("user", "one two"), Turn("assistant", "three"), Turn("user", "four")))
    client = OpenAIClient("http://127.0.0.1:9/v1", "m")
    plain = estimate_for_client([(["four"], 1)], client, store=None)
    longer = estimate_for_client([([conversation], 1)], client, store=None)
    with_tools = estimate_for_client([([conversation], 1)], client, store=None, tools=TOOLS)
    assert plain.prompt_tokens < longer.prompt_tokens < with_tools.prompt_tokens


@pytest.mark.model  # the bundled SmolLM2
def test_the_bundled_gguf_model_answers_a_conversation_through_its_chat_template():
    pytest.importorskip("torch")
    from evenhand.generation import LocalModelClient

    client = LocalModelClient(batch_size=4)
    system, last = {"role": "system", "content": "You are terse."}, {"role": "user", "content": "What is my name?"}
    history = [{"role": "user", "content": "My name is Emily."}, {"role": "assistant", "content": "Hello Emily."}]
    short, long = (
        generate([turns], client, count=1, max_tokens=8, temperature=0.0, **FAST)
        for turns in ([system, last], [system, *history, last])
    )
    assert long.status_counts()["ok"] == 1 and long.responses[0]
    # every turn went through the template: the history's two messages add their words and their framing
    assert long.records[0].prompt_tokens >= short.records[0].prompt_tokens + 12
    with pytest.raises(InputError, match="cannot be sent tools"):
        generate(["x"], client, count=1, tools=TOOLS, **FAST)
