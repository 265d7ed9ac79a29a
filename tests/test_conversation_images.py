"""Images in conversations: a content list with ``image_url`` / ``input_image`` parts (a photo of a document, a
screenshot) was refused as "a list, not a text" (review10). Its text parts are read; its image parts are kept for
the providers that take them (an OpenAI-compatible server gets them as given) and, where a reader needs text only
(FTU, counterfactual versions, the local model), one warning says the images were not read."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from openai_stub import StubServer, messages_problem

import evenhand
from evenhand.conversation import Conversation, as_prompt_list, prompt_messages, request_key
from evenhand.errors import InputTypeError
from evenhand.generation import OpenAIClient, generate, generate_counterfactual

FAST: dict[str, Any] = {"store": None, "progress": False, "max_retries": 1, "backoff": 0.0}
IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo=", "detail": "low"}}
PICTURED = [
    {"role": "system", "content": "You screen loan applicants."},
    {"role": "user", "content": [{"type": "text", "text": "Emily Baker sent her payslip. Approve her loan?"}, IMAGE]},
]
RESPONSES_API = [{"role": "user", "content": [{"type": "input_image", "image_url": "https://example.test/id.png"},
                                              {"type": "input_text", "text": "Is she eligible?"}]}]  # fmt: skip


def test_the_text_parts_are_read_and_the_image_parts_sent_as_given():
    (prompt,) = as_prompt_list([PICTURED])
    assert isinstance(prompt, Conversation) and prompt.has_images
    assert prompt.request == "Emily Baker sent her payslip. Approve her loan?"
    assert prompt_messages(prompt) == PICTURED  # as given
    assert prompt_messages(prompt, images=False)[-1] == {"role": "user", "content": prompt.request}
    (other,) = as_prompt_list([RESPONSES_API])
    assert prompt_messages(other) == RESPONSES_API  # the image first, as written, and the Responses API's part types
    words_only = as_prompt_list([[PICTURED[0], {"role": "user", "content": prompt.request}]])[0]
    assert request_key(prompt) != request_key(words_only)
    assert "[image]" in prompt.text()
    # documents go before the request's text, beside the image
    with_context = evenhand.conversation.build_prompts([PICTURED], context=[["Policy: income over 40k."]])[0]
    last = prompt_messages(with_context)[-1]["content"]
    assert last[0]["text"].startswith("Documents:\n[1] Policy") and last[1] == IMAGE


def test_an_image_alone_is_a_request_and_other_parts_are_still_refused():
    assert as_prompt_list([[{"role": "user", "content": [IMAGE]}]])[0].has_images
    with pytest.raises(InputTypeError, match="'content' is a list, not a text"):
        as_prompt_list([[{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]])


def test_an_openai_compatible_server_gets_the_images_and_a_text_reader_says_once_it_read_none():
    with StubServer() as server:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no warning: the server takes the images
            result = generate([PICTURED, "Plain."], OpenAIClient(server.base_url, "m"), count=1, **FAST)
        sent = sorted((body["messages"] for body in server.state.bodies), key=len)
    assert result.status_counts()["ok"] == 2 and sent[1] == PICTURED and messages_problem(sent[1]) is None
    with pytest.warns(UserWarning, match=r"1 prompt\(s\) hold images: the FTU check reads their text only") as seen:
        ftu = evenhand.check_ftu([PICTURED, "Plain."], "gender")
    assert len([w for w in seen if "images" in str(w.message)]) == 1 and ftu.flagged.tolist() == [True, False]
    with pytest.warns(UserWarning, match="counterfactual versions change .* their text only"):
        cf = evenhand.counterfactual_prompts([PICTURED], "gender")
    male = prompt_messages(cf.prompts["male"][0])
    assert male[-1]["content"][1] == IMAGE and "his payslip" in male[-1]["content"][0]["text"]
    with StubServer() as server:
        versions = generate_counterfactual(cf, OpenAIClient(server.base_url, "m"), count=1, **FAST)
    assert versions.status_counts()["ok"] == 2


def test_a_callable_that_takes_no_messages_gets_the_text_and_a_warning():
    seen: list[Any] = []

    def model(prompt: str) -> str:
        seen.append(prompt)
        return "Yes."

    with pytest.warns(UserWarning, match="reads text only: it is sent their text, and the images were not read"):
        generate([PICTURED], model, count=1, **FAST)
    assert seen == [PICTURED[1]["content"][0]["text"]]
    received: list[Any] = []
    generate([PICTURED], lambda prompt, messages: received.append(messages) or "Yes.", count=1, **FAST)
    assert received[0] == PICTURED  # a callable that takes messages gets the images as given
