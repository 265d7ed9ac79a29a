"""The config keys of deployed use cases: conversations and context in the prompts section, structured decisions in
the classification section, tools and a response format in the model section; each bad value one line."""

from __future__ import annotations

from typing import Any

import pytest

from evenhand.config import ConfigError, parse_config
from evenhand.structured import JsonFieldLabelParser, ToolCall, ToolCallLabelParser, tool_reply_text

BASE: dict[str, Any] = {
    "use_case": {"task": "classification", "person_level": True},
    "prompts": {"items": ["Approve Ms. Lee?", [{"role": "user", "content": "Approve him?"}]]},
    "model": {"provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m"},
}
TOOLS = [{"type": "function", "function": {"name": "record", "parameters": {"type": "object"}}}]


def _config(**sections: Any) -> Any:
    data = {k: dict(v) if isinstance(v, dict) else v for k, v in BASE.items()}
    for section, values in sections.items():
        data[section] = {**data.get(section, {}), **values}
    return parse_config(data, source="c.yaml")


def test_a_json_field_decision():
    config = _config(classification={"json_field": "result.decision", "labels": {"1": ["advance"], "0": ["reject"]}},
                     model={"response_format": {"type": "json_object"}})  # fmt: skip
    parser = config.classification.structured_parser()
    assert isinstance(parser, JsonFieldLabelParser) and parser('{"result": {"decision": "reject"}}') == "0"
    settings = config.generation_settings()
    assert settings.response_format == {"type": "json_object"} and settings.tools is None


def test_a_tool_decision_by_function_sends_tools_made_from_it():
    config = _config(classification={"tool": {"functions": {"advance_candidate": "1", "reject_candidate": "0"}}})
    settings = config.generation_settings()
    assert [t["function"]["name"] for t in settings.tools] == ["advance_candidate", "reject_candidate"]
    assert settings.tool_choice == "required"
    parser = config.classification.structured_parser()
    assert isinstance(parser, ToolCallLabelParser)
    assert parser(tool_reply_text(None, [ToolCall("reject_candidate", {})])) == "0"


def test_a_tool_decision_by_argument_and_declared_tools():
    config = _config(classification={"tool": {"function": "record", "argument": "decision"}})
    tool = config.generation_settings().tools[0]["function"]
    assert tool["name"] == "record" and "yes" in tool["parameters"]["properties"]["decision"]["enum"]
    declared = _config(classification={"tool": {"argument": "decision"}}, model={"tools": TOOLS, "tool_choice": "auto"})
    assert declared.generation_settings().tools == TOOLS and declared.generation_settings().tool_choice == "auto"
    # a nested argument needs declared tools: none are made up
    nested = _config(classification={"tool": {"function": "record", "argument": "decision.label"}})
    assert nested.generation_settings().tools is None


def test_context_and_system_prompt_columns():
    config = parse_config(
        {"use_case": {"task": "text_generation"},
         "prompts": {"path": "p.jsonl", "column": "messages", "context_column": "docs",
                     "system_prompt_column": "system", "context_placement": "system"}},
        source="c.yaml",
    )  # fmt: skip
    assert config.prompts.context_column == "docs"
    assert config.generation_settings().context_placement == "system"
    assert _config().generation_settings().context_placement == "user"


@pytest.mark.parametrize(
    ("sections", "words"),
    [
        ({"classification": {"json_field": "a", "pattern": "(yes)"}}, "json_field: the label is read one way"),
        ({"classification": {"json_field": ".."}}, "dotted path"),
        ({"classification": {"tool": {}}}, "classification.tool: give functions"),
        ({"classification": {"tool": {"functions": {"a": "yes"}}}}, "'yes' is not a label (labels: 1, 0)"),
        ({"classification": {"tool": {"functions": {"a": "1"}, "function": "a"}}}, "with functions, leave it out"),
        ({"classification": {"tool": {"functions": {"a": "1"}}}, "model": {"provider": "local", "base_url": None,
                                                                          "model": None}}, "cannot call tools"),
        ({"model": {"tools": [{"type": "function"}]}}, "model: tools[0] must be a function definition"),
        ({"model": {"tool_choice": "required"}}, "tool_choice needs tools"),
        ({"model": {"provider": "local", "base_url": None, "model": None, "response_format": {"type": "json_object"}}},
         "model.response_format: the local model cannot be sent response_format"),
        ({"prompts": {"items": [[{"role": "bot", "content": "x"}]]}}, "prompts.items.0: message 1: 'role' is 'bot'"),
        ({"prompts": {"context_column": "docs"}}, "prompts.context_column names a column of prompts.path"),
        ({"prompts": {"path": "p.jsonl", "items": [], "context_placement": "footer"}}, "context_placement"),
    ],
)  # fmt: skip
def test_bad_values_are_one_line(sections, words):
    with pytest.raises(ConfigError) as caught:
        _config(**sections)
    assert "\n" not in str(caught.value) and words in str(caught.value), str(caught.value)
    assert str(caught.value).startswith("c.yaml: ")
