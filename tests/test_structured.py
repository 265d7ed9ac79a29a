"""Reading structured replies: a JSON field by dotted path, tool calls kept as text, and labels from both."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.errors import InputError, InputTypeError
from evenhand.structured import (
    MISSING,
    FieldInPlaces,
    JsonFieldLabelParser,
    LabelWords,
    ToolCall,
    ToolCallLabelParser,
    json_document,
    json_field,
    message_reply_text,
    openai_tool_calls,
    parse_path,
    read_path,
    tool_calls_in,
    tool_reply_text,
)

LABELS = {"1": ["advance", "yes"], "0": ["reject", "no"]}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"decision": "advance"}', {"decision": "advance"}),
        ('  [1, 2]\n', [1, 2]),
        ('Here you go:\n```json\n{"decision": "reject"}\n```\nThanks.', {"decision": "reject"}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('I think {"decision": "advance", "reason": "a {curly} word"} fits.', {"decision": "advance",
                                                                              "reason": "a {curly} word"}),
        ("{not json} then {\"a\": 2}", {"a": 2}),
        ("no JSON at all", MISSING),
        ("", MISSING),
        (None, MISSING),
    ],
)
def test_json_document_finds_the_json_a_reply_holds(reply, expected):
    assert json_document(reply) == expected if expected is not MISSING else json_document(reply) is MISSING


def test_dotted_paths():
    doc = {"result": {"Decision": "advance", "offers": [{"amount": 70}, {"amount": 80}], "0": "zero"}}
    assert parse_path("offers[1].amount") == ("offers", 1, "amount") == parse_path("offers.1.amount")
    assert read_path(doc, "result.offers.1.amount") == 80
    assert read_path(doc, "result.offers[-1].amount") == 80
    assert read_path(doc, "result.decision") == "advance"  # case folded when it names one key
    assert read_path(doc, "result.0") == "zero"  # digits name a key of an object
    assert read_path(doc, "result.offers.5.amount") is MISSING
    assert read_path(doc, "result.missing") is MISSING
    assert read_path({"a": None}, "a") is None  # null is a value, not a missing field
    for bad in ("", "  ", "..", 5):
        with pytest.raises(InputError, match="dotted path"):
            parse_path(bad)  # type: ignore[arg-type]


def test_the_numeric_readers_cases():
    """What the estimation task's reader (once its own module) held, kept by the one reader: a falsy value and null
    are values, a list in a sentence is found when no object is, space around a part is dropped, a typo in a path
    is an error naming it."""
    assert json_field('{"a": {"b": 0}}', "a.b") == 0
    assert json_field('{"a": {"b": null}}', "a.b") is None
    assert json_field('{"a": 1}', "a.b") is MISSING and not MISSING
    assert json_field("[1, 2]", "5") is MISSING
    assert json_document("no JSON {here") is MISSING and json_document("   ") is MISSING
    assert json_document("text [1, 2] more") == [1, 2]
    assert json_document('per policy [3]: {"decision": "advance"}') == {"decision": "advance"}  # the object first
    assert json_document('```js\n{"a": 1}\n```') == {"a": 1} == json_document('```json {"a": 1}```')
    assert parse_path(" offer . salary ") == ("offer", "salary")
    for bad in ("a..b", ".a", "a.", "a. .b"):
        with pytest.raises(InputError, match="dotted path"):
            parse_path(bad)
    with pytest.raises(InputTypeError, match="dotted path"):
        parse_path(3)  # type: ignore[arg-type]


def test_label_words_read_values():
    words = LabelWords({"1": ["yes", "true", "advance"], "0": ["no", "false", "reject"]})
    assert words.of_value("Advance ") == "1" and words.of_value("we reject this one") == "0"
    assert words.of_value(True) == "1" and words.of_value(False) == "0"
    assert words.of_value(1) == "1" and words.of_value(0.0) == "0" and words.of_value(2) is None
    assert words.of_value(None) is None and words.of_value({"a": 1}) is None and words.of_value(float("nan")) is None
    assert words.of_value("Do not advance") is None and words.of_value("not advance") is None  # were read as "1"
    numeric = LabelWords({"1": [], "0": []})
    assert numeric.of_value(True) == "1"  # a boolean reads as 1 / 0 when the labels are numbers
    with pytest.raises(InputError, match="signals both"):
        LabelWords({"1": ["yes"], "0": ["yes"]})


def test_json_field_label_parser():
    parse = JsonFieldLabelParser("decision", LABELS)
    assert parse('{"decision": "advance", "reason": "x"}') == "1"
    assert parse('Sure! ```json\n{"decision": "reject"}\n```') == "0"
    assert parse('{"decision": "maybe"}') is None
    assert parse('{"verdict": "advance"}') is None
    assert parse("advance") is None  # prose is not a JSON field: unparsed, never guessed
    nested = JsonFieldLabelParser("result.label", LABELS)
    assert nested('{"result": {"label": "yes"}}') == "1"
    # a reply of tool calls is read as the first call's arguments
    assert parse(tool_reply_text(None, [ToolCall("record", {"decision": "reject"})])) == "0"


def test_tool_calls_round_trip_as_text():
    calls = [ToolCall("advance_candidate", {"reason": "strong"}), ToolCall("note", "not json")]
    text = tool_reply_text("Calling it.", calls)
    assert json.loads(text)["content"] == "Calling it."
    assert tool_calls_in(text) == tuple(calls)
    assert json.loads(tool_reply_text(None, calls)).keys() == {"tool_calls"}
    for other in ('{"tool_calls": "x"}', '{"decision": 1, "tool_calls": []}', "tool_calls", None, "[]"):
        assert tool_calls_in(other) is None


def test_openai_tool_calls():
    message = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "a", "arguments": '{"x": 1}'}},
        {"id": "2", "type": "function", "function": {"name": "b", "arguments": "{broken"}},
        {"id": "3", "type": "function", "function": {"arguments": "{}"}},
    ]}  # fmt: skip
    assert openai_tool_calls(message) == (ToolCall("a", {"x": 1}), ToolCall("b", "{broken"))
    legacy = {"function_call": {"name": "c", "arguments": ""}}
    assert openai_tool_calls(legacy) == (ToolCall("c", {}),)
    assert openai_tool_calls({"content": "hi"}) == ()


def test_tool_call_label_parser():
    by_function = ToolCallLabelParser(functions={"advance_candidate": "1", "reject_candidate": "0"})
    assert by_function(tool_reply_text(None, [ToolCall("reject_candidate", {})])) == "0"
    assert by_function(tool_reply_text(None, [ToolCall("lookup", {}), ToolCall("advance_candidate", {})])) == "1"
    assert by_function(tool_reply_text(None, [ToolCall("lookup", {})])) is None
    assert by_function("I would advance them.") is None  # no call: unparsed
    # calls of two decisions in one reply were read as the first one's: they say two things, so they are unparsed
    both = [ToolCall("advance_candidate", {}), ToolCall("reject_candidate", {})]
    assert by_function(tool_reply_text(None, both)) is None
    again = [ToolCall("advance_candidate", {}), ToolCall("advance_candidate", {"note": "x"})]
    assert by_function(tool_reply_text(None, again)) == "1"  # the same decision twice is that decision
    by_argument = ToolCallLabelParser(function="record_decision", argument="decision", labels=LABELS)
    assert by_argument(tool_reply_text(None, [ToolCall("record_decision", {"decision": "no"})])) == "0"
    assert by_argument(tool_reply_text(None, [ToolCall("other", {"decision": "no"})])) is None
    any_function = ToolCallLabelParser(argument="decision", labels=LABELS)
    assert any_function(tool_reply_text(None, [ToolCall("x", {}), ToolCall("y", {"decision": "yes"})])) == "1"
    two = [ToolCall("x", {"decision": "yes"}), ToolCall("y", {"decision": "no"})]
    assert any_function(tool_reply_text(None, two)) is None
    for bad in (dict(), dict(functions={"a": "1"}, argument="d", labels=LABELS), dict(functions={}),
                dict(argument="d")):  # fmt: skip
        with pytest.raises(InputError):
            ToolCallLabelParser(**bad)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(JSON_VALUES, st.text(max_size=20))
def test_any_json_document_is_found_whole_and_any_text_is_safe(document, prose):
    text = json.dumps(document)
    assert json_document(text) == document
    json_field(prose, "a.b")  # never raises
    JsonFieldLabelParser("a", LABELS)(prose)


@pytest.mark.parametrize("module", ["evenhand.structured", "evenhand.conversation"])
def test_docstring_examples(module: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def _logged_message(*calls: tuple[str, dict[str, object]], content: str | None = None) -> dict[str, object]:
    """An assistant message as an OpenAI-compatible server returns it and a chat log keeps it: each call's
    ``arguments`` a JSON text, ``content`` null."""
    return {"role": "assistant", "content": content, "tool_calls": [
        {"id": f"call_{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}
        for i, (name, arguments) in enumerate(calls)
    ]}  # fmt: skip


def test_a_logged_openai_message_is_read_as_its_tool_calls():
    # a bank's decision log keeps the assistant message as the server sent it; read as text it held no call, and every
    # decision in it was unparsed (review9)
    logged = json.dumps(_logged_message(("lookup_credit", {"id": 7}), ("record_decision", {"decision": "no"})))
    calls = (ToolCall("lookup_credit", {"id": 7}), ToolCall("record_decision", {"decision": "no"}))
    assert tool_calls_in(logged) == calls
    assert ToolCallLabelParser(function="record_decision", argument="decision", labels=LABELS)(logged) == "0"
    assert ToolCallLabelParser(functions={"advance_candidate": "1", "reject_candidate": "0"})(
        json.dumps(_logged_message(("reject_candidate", {"reason": "x"}), content="Rejecting."))
    ) == "0"
    legacy = json.dumps({"role": "assistant", "content": None,
                         "function_call": {"name": "record_decision", "arguments": '{"decision": "yes"}'}})
    assert JsonFieldLabelParser("decision", LABELS)(legacy) == "1"
    # a message the model answered in words is not a call; a user message or a bare object is not a reply of calls
    assert tool_calls_in(json.dumps({"role": "assistant", "content": "Yes."})) is None
    assert tool_calls_in(json.dumps({"role": "user", "tool_calls": _logged_message(("a", {}))["tool_calls"]})) is None


def test_message_reply_text_is_how_an_assistant_message_is_stored():
    assert message_reply_text({"role": "assistant", "content": "Yes."}) == "Yes."
    assert message_reply_text({"role": "assistant", "content": [{"type": "text", "text": "Y"}, {"type": "text",
                                                                                             "text": "es"}]}) == "Yes"
    stored = message_reply_text(_logged_message(("record_decision", {"decision": "no"})))
    assert stored == tool_reply_text(None, [ToolCall("record_decision", {"decision": "no"})])
    assert message_reply_text({"role": "assistant", "content": None}) is None


def test_a_message_s_refusal_is_its_reply():
    # OpenAI's structured outputs send a refusal in "refusal", content null: it was no reply (a failed request),
    # never read as the refusal it is (review10)
    refusal = "I'm sorry, but I can't help with that request."
    assert message_reply_text({"role": "assistant", "content": None, "refusal": refusal}) == refusal
    assert message_reply_text({"role": "assistant", "content": "Yes.", "refusal": None}) == "Yes."


def test_json_field_reads_the_call_that_holds_the_field_among_parallel_calls():
    # parallel tool calls: a lookup first, the decision second; the first call's arguments have no such field, and
    # the reply was unparsed (review9)
    reply = tool_reply_text(None, [ToolCall("lookup_salary_band", {"role": "analyst"}),
                                   ToolCall("record_offer", {"salary": 72000, "decision": "yes"})])
    assert json_field(reply, "salary") == 72000
    assert JsonFieldLabelParser("decision", LABELS)(reply) == "1"
    # two calls that give the field two values say two things: not read
    two = tool_reply_text(None, [ToolCall("record", {"decision": "yes"}), ToolCall("record", {"decision": "no"})])
    assert json_field(two, "decision") is MISSING
    same = tool_reply_text(None, [ToolCall("record", {"decision": "yes"}), ToolCall("note", {"decision": "yes"})])
    assert json_field(same, "decision") == "yes"


def test_a_json_answer_beside_a_call_that_does_not_hold_the_field_is_read():
    # a message with content and tool calls: the decision in its JSON content, a call that logs the case; the calls
    # were searched alone and the reply was unparsed (review10). A call that holds the field still comes first.
    message = {"role": "assistant", "content": '{"decision": "yes"}', "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "log_case", "arguments": '{"case": 7}'}}]}  # fmt: skip
    assert json_field(json.dumps(message), "decision") == "yes"
    assert json_field(message_reply_text(message), "decision") == "yes"
    both = tool_reply_text('{"decision": "no"}', [ToolCall("record", {"decision": "yes"})])
    assert json_field(both, "decision") == "yes"
    assert json_field(tool_reply_text("No JSON here.", [ToolCall("log_case", {"case": 7})]), "decision") is MISSING


def test_arguments_encoded_twice_are_read():
    # some servers' tool parsers send the arguments as the JSON text of a JSON text; the decision in them was
    # unread (review9)
    twice = json.dumps(json.dumps({"decision": "no"}))
    message = {"role": "assistant", "content": None,
               "tool_calls": [{"id": "1", "type": "function", "function": {"name": "record", "arguments": twice}}]}
    assert openai_tool_calls(message) == (ToolCall("record", {"decision": "no"}),)
    plain = {"function_call": {"name": "note", "arguments": json.dumps("just a text")}}
    assert openai_tool_calls(plain) == (ToolCall("note", "just a text"),)


def test_a_bare_name_is_read_where_the_json_holds_it_once_at_any_depth():
    nested = '{"result": {"decision": "approve", "score": 7}}'
    assert json_field(nested, "decision") == "approve" == json_field(nested, "result.decision")
    assert json_field('[{"outcome": {"Decision": "deny"}}]', "decision") == "deny"  # in a list, case folded
    assert json_field('{"decision": "approve", "history": [{"decision": "deny"}]}', "decision") == "approve"  # top
    assert json_field(nested, "reason") is MISSING
    two = json_field('{"result": {"decision": "deny"}, "policy": {"decision": "approve"}}', "decision")
    assert isinstance(two, FieldInPlaces) and not two
    assert two.places == ("policy.decision", "result.decision") and "give one as a dotted path" in two.reason()
    assert JsonFieldLabelParser("decision", LABELS)('{"result": {"decision": "advance"}}') == "1"
    assert JsonFieldLabelParser("decision", LABELS)('{"a": {"decision": "advance"}, "b": {"decision": "no"}}') is None
    # a dotted path is never searched for elsewhere
    assert json_field('{"review": {"result": {"decision": "x"}}}', "result.decision") is MISSING


def test_a_bare_name_nested_in_tool_call_arguments_is_read():
    call = tool_reply_text(None, [ToolCall("record", {"application": {"decision": "advance"}})])
    assert json_field(call, "decision") == "advance"
    assert ToolCallLabelParser(function="record", argument="decision", labels=LABELS)(call) == "1"
    both = tool_reply_text(None, [ToolCall("record", {"a": {"decision": "advance"}, "b": {"decision": "reject"}})])
    assert isinstance(json_field(both, "decision"), FieldInPlaces)
    assert ToolCallLabelParser(function="record", argument="decision", labels=LABELS)(both) is None
