"""A message's ``name`` (OpenAI's participant name: ``{"role": "user", "name": "Emily_Baker", "content": ...}``),
as chat logs and multi-user assistants keep it (deploy18).

It was dropped without a word: never sent to the model (which reads it in the deployment), never read by FTU (a
prompt whose only mention of the person was the name said "FTU is satisfied"), never changed in the counterfactual
versions. It is now kept on the turn, sent, read as the person's name (``_`` read as a space) and changed with the
other turns: the same replacement name, written back in the form the API accepts (``^[A-Za-z0-9_-]{1,64}$``)."""

from __future__ import annotations

import re
from typing import Any

import pytest

import evenhand
from evenhand.conversation import as_prompt_list, prompt_messages
from evenhand.errors import InputError

NAMED = [
    {"role": "system", "content": "You are the bank's assistant."},
    {"role": "user", "name": "Emily_Baker", "content": "Is my payment 3 blocked?"},
    {"role": "assistant", "content": "Let me check the payment."},
    {"role": "user", "name": "Emily_Baker", "content": "Thanks. What is its status?"},
]
_API_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def test_a_message_name_is_kept_and_sent() -> None:
    (prompt,) = as_prompt_list([NAMED])
    sent = prompt_messages(prompt)
    assert sent[1] == {"role": "user", "name": "Emily_Baker", "content": "Is my payment 3 blocked?"}
    assert "name" not in sent[2]


def test_a_name_field_is_read_by_ftu_and_changed_in_every_version() -> None:
    ftu = evenhand.check_ftu([NAMED], "gender")
    assert ftu.flagged.tolist() == [True]
    assert ftu.flagged_turns()[0][0] == 1  # the name of turn 1 (from 0)
    cf = evenhand.counterfactual_prompts([NAMED], "gender")
    male = prompt_messages(cf.prompts["male"][0])
    names = {m["name"] for m in male if "name" in m}
    assert len(names) == 1, names  # one replacement for the whole conversation
    (name,) = names
    assert name != "Emily_Baker" and _API_NAME.fullmatch(name), name
    assert name.endswith("_Baker")


def test_a_name_beside_the_text_changes_with_it() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "name": "Emily_Baker", "content": "Hi, I'm Emily Baker. She said my card is blocked."}
    ]
    cf = evenhand.counterfactual_prompts([messages], "gender")
    (male,) = prompt_messages(cf.prompts["male"][0])
    first = male["content"].split("I'm ")[1].split()[0]
    assert male["name"] == f"{first}_Baker" and "He said" in male["content"]


@pytest.mark.parametrize("bad", [7, "", " ", ["Emily"]])
def test_a_name_that_is_not_a_text_is_refused_in_one_line(bad: Any) -> None:
    with pytest.raises(InputError, match=r"prompts\[0\]: message 1: 'name' is .*; a participant's name is a text"):
        as_prompt_list([[{"role": "user", "name": bad, "content": "Hi"}]])


def test_a_null_name_is_no_name() -> None:
    (prompt,) = as_prompt_list([[{"role": "user", "name": None, "content": "Hi"}]])
    assert prompt_messages(prompt) == [{"role": "user", "content": "Hi"}]
