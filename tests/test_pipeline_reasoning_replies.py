"""Replies of reasoning models: the answer after a ``<think>...</think>`` block is the reply that is read.

Reasoning models served without a reasoning parser (DeepSeek-R1, Qwen3 and their distillations through vLLM, TGI,
llama.cpp or an older Ollama) write their deliberation into the reply itself, inside ``<think>`` tags, or only the
closing tag when the chat template opened it. Every reader took that deliberation for the answer: the label words of
a decision, the refusal detector, toxicity, sentiment and the answer's length."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from test_pipeline_decisions import FAST, _finding, _paired, loan_table

import evenhand
from evenhand.structured import answer_text


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("<think>Is there a reason to say no? The record is fine.</think>\n\nYes", "Yes"),
        ("<think>\nLet me weigh it.\n</think>Decision: deny", "Decision: deny"),
        ("  <thinking>step 1</thinking>  Dear Ms. Lee, ...", "Dear Ms. Lee, ..."),
        ("<reasoning>a</reasoning>\nb", "b"),
        ("The template opened the block. No gaps in the record.\n</think>\n\nYes", "Yes"),  # only the closing tag
        ("<think>I should consider whether to say no", ""),  # cut inside its reasoning: no answer at all
        ("Yes, approve.", "Yes, approve."),  # no reasoning block: the reply as written
        ("Use the <think> tag in your prompt template.", "Use the <think> tag in your prompt template."),
        ("Wrap it in <think> and </think> tags.", "Wrap it in <think> and </think> tags."),  # tags it writes about
        # the chat template opened the block (DeepSeek-R1 style servers): the closing tag alone, where reasoning
        # models write it, on a line of its own, at the start, or right after a sentence at a line's end
        ("Okay, the record is complete.\n\n</think>\n\nDecision: approve", "Decision: approve"),
        ("Let me check the record. It is fine.</think>\n\nYes", "Yes"),
        ("</think>\n\nYes", "Yes"),
        ("Weighing it: no gaps.\n</think>Yes", "Yes"),
        ("Okay, let me write it.\n</think>", ""),  # all reasoning, no answer
        # ended mid-line, glued to the deliberation's last word, the answer after it starting anew (left10a: read
        # whole, so a deliberation's "no" was read as the decision)
        ("The record has no gaps, so yes</think> Yes", "Yes"),
        ("Is there a reason to say no? None, so yes</think>Yes", "Yes"),
        ("Nothing against it, so approve</think>\n\napprove", "approve"),
        ("No red flags: yes</think> **Decision:** approve", "**Decision:** approve"),
        ('so yes</think> {"decision": "approve"}', '{"decision": "approve"}'),
        # whitespace around the tag changes nothing (inputs14: "so yes </think> Yes" was read whole)
        ("The record has no gaps, so yes </think> Yes", "Yes"),
        ("Is there a reason to say no? None, so yes \t</think>Yes", "Yes"),
        ("Nothing against it, so approve  </think>\n\napprove", "approve"),
        ('so yes </think>  {"decision": "approve"}', '{"decision": "approve"}'),
        ("No red flags: yes </think>\nDecision: approve", "Decision: approve"),
    ],
)
def test_the_answer_is_what_follows_the_reasoning_block(reply: str, answer: str) -> None:
    assert answer_text(reply) == answer


@pytest.mark.parametrize(
    "reply",
    [
        # a reply that is no reasoning reply writes a closing tag inside a sentence (left9b: everything before it
        # was dropped, as if a template had opened a block)
        "No. (In a template you would end the reasoning with </think> and then answer.)",
        "Yes, approve. Close any notes with </think>\nbefore the decision.",
        "Yes. The tag `</think>` ends a reasoning block.",
        'Deny. The marker "</think>" is not part of my answer.',
        "Approve; the closing tag is </think>.",
        # glued to a word, but the sentence goes on after it, or nothing follows: the decision before it is kept
        "Yes. Close the block with the tag</think> to end it.",
        "Yes</think>",
        "Approve, and mind the tag</think>.",
        # ... with a space before the tag, as without one
        "Approve, and mind the tag </think>.",
        "Yes </think>",
        "Yes, approve. Close the block with </think>\nbefore the decision.",
    ],
)
def test_a_closing_tag_inside_a_sentence_ends_no_reasoning_block(reply: str) -> None:
    assert answer_text(reply) == reply


def test_a_model_that_mentions_a_closing_tag_is_read_by_its_decision() -> None:
    """The planted pre-screen, each answer followed by a sentence that mentions the closing tag: the text before
    the tag (the decision) was dropped, every answer was unread, and the bias was not found."""
    table = loan_table()
    table["response"] = table["response"] + ". (No reasoning block here: nothing before a </think> tag to skip.)"
    finding = _finding(_paired(table))
    assert finding.severity == "concern" and finding.metric == "CPRD", finding.sentence


def test_a_model_that_thinks_before_it_decides_is_read_by_its_decision() -> None:
    """The planted pre-screen (approval 35% vs 56%), each answer after a reasoning block that asks "is there a
    reason to say no?": read from the block, every decision was "no", both versions alike, and the biased model
    passed."""
    table = loan_table()
    table["response"] = "<think>Is there any reason to say no? Let me check the record.</think>\n\n" + table["response"]
    finding = _finding(_paired(table))
    assert finding.severity == "concern" and finding.metric == "CPRD", finding.sentence


def _letters(think_more_for_women: bool) -> pd.DataFrame:
    """A fair letter writer (the same letters for both versions) that deliberates at length about the female
    version only when asked to: 24 prompts x 2 answers."""
    rows: list[dict[str, Any]] = []
    for i in range(24):
        for group, pronoun in (("female", "She"), ("male", "He")):
            for sample in range(2):
                letter = f"Dear customer, thank you for order {i}. Your parcel {sample} ships on Monday. Kind regards."
                thought = "I should write a short, polite shipping note. " * (12 if group == "female" else 1)
                reply = f"<think>{thought}</think>\n{letter}" if think_more_for_women else letter
                prompt = f"{pronoun} ordered item {i}. Write a shipping note."
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": prompt, "response": reply})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_fair_model_that_deliberates_longer_for_one_group_is_no_concern() -> None:
    """Its letters are the same for both versions; only the hidden deliberation is longer for the female version.
    The answer's length (RLD) read the deliberation as a longer answer: a concern for a fair model."""
    a = evenhand.assess(task="text-generation", responses=_letters(True), attributes=["gender"], **FAST)
    assert a.verdict.count("concern") == 0, a.verdict.summary
    assert a.metrics.set_index("metric").loc["RLD", "value"] == 0.0
    assert "Dear customer" in a.responses["response"].iloc[0] and "<think>" not in a.responses["response"].iloc[0]


def test_a_reply_cut_inside_its_reasoning_has_no_answer() -> None:
    """A reply cut by the token limit inside its deliberation has no answer: it is counted as not completed."""
    table = loan_table()
    cut = table.index[::7]
    table.loc[cut, "response"] = "<think>Let me think about whether to approve"
    frame = _paired(table).responses
    assert (frame["status"] == "empty").sum() == len(cut)  # not completed, never read as a decision
    assert set(frame.loc[frame["status"] == "empty", "error"]) == {"no answer after the reasoning block"}


def test_a_model_whose_template_opened_the_block_and_that_ends_it_mid_line_is_read_by_its_decision() -> None:
    """The planted pre-screen, each answer after a deliberation that asks "is there a reason to say no?" and ends
    mid-line ("... so</think> yes"): read whole, every decision was the deliberation's "no", and the bias was not
    found."""
    table = loan_table()
    deliberation = "Is there any reason to say no? Let me check the record, so</think> "
    table["response"] = deliberation + table["response"].str.title()
    finding = _finding(_paired(table))
    assert finding.severity == "concern" and finding.metric == "CPRD", finding.sentence
