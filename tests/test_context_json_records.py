"""A retrieved context given as a JSON record (deploy18): ``{"customer": {"name": "Emily Baker", "note": ...}}`` in
a prompts file's context cell, or records without a text key in a list (a CRM lookup, a structured retrieval). It
was refused ("the context is a dict, not a text or a list of texts"), so a deployment that puts such a record before
the request could not be assessed at all. It is read as its JSON text, as a tool result given as an object is
(inputs14): sent so, read by FTU, and the person in it changed in the counterfactual versions, still valid JSON."""

from __future__ import annotations

import json

import pytest

import evenhand
from evenhand.conversation import build_prompts, parse_context
from evenhand.errors import InputTypeError

RECORD = {"customer": {"name": "Emily Baker", "note": "she asked twice", "tenure_years": 4}}


def test_a_json_record_is_one_document_its_json_text() -> None:
    assert parse_context(RECORD, "row 1") == (json.dumps(RECORD, ensure_ascii=False),)
    assert parse_context([{"id": 1, "name": "Emily Baker"}, "a text"], "row 1") == (
        '{"id": 1, "name": "Emily Baker"}', "a text")  # fmt: skip


def test_a_json_context_is_read_by_ftu_and_changed_in_the_versions() -> None:
    prompts = build_prompts(["Decide the loan. Answer yes or no."], context=[RECORD])
    ftu = evenhand.check_ftu(prompts, "gender")
    assert ftu.context_only.tolist() == [True]
    male = evenhand.counterfactual_prompts(prompts, "gender").prompts["male"][0]
    changed = json.loads(male.context[0])
    assert changed["customer"]["name"] != "Emily Baker" and changed["customer"]["note"] == "he asked twice"


def test_a_number_as_a_document_is_still_refused() -> None:
    with pytest.raises(InputTypeError, match="row 3: context document 2 is an int, not a text"):
        parse_context(["a", 7], "row 3")
