"""``evenhand.assess(**keywords)`` rejects a keyword the use case's task never reads (``k`` with classification), as a
config file's section for another task is rejected (evenhand/config/schema.py), with one line naming the keyword
and the task; a keyword left at its default, or one the task reads, is accepted."""

from __future__ import annotations

from typing import Any

import pytest

import evenhand
from evenhand.errors import InputError
from evenhand.pipeline.run import settings_from_keywords

REJECTED = [
    ("classification", {"k": 3}, "k", "recommendation"),
    ("classification", {"normalize": False}, "normalize", "recommendation"),
    ("recommendation", {"positive_label": "yes"}, "positive_label", "classification"),
    ("text_generation", {"group_columns": {"gender": "g"}}, "group_columns", "classification"),
    ("text_generation", {"estimation": {"currency": "$"}}, "estimation", "estimation"),
    ("recommendation", {"impact_ratios": {"min_share": 0.05}}, "impact_ratios", "classification or estimation"),
    ("recommendation", {"json_field": "decision"}, "json_field", "classification or estimation"),
]


@pytest.mark.parametrize(("task", "keywords", "name", "owner"), REJECTED)
def test_a_keyword_the_task_never_reads_is_one_clear_error(
    task: str, keywords: dict[str, Any], name: str, owner: str
) -> None:
    with pytest.raises(InputError) as caught:
        settings_from_keywords(task=task, **keywords)
    message = str(caught.value)
    assert message.startswith(f"{name}: "), message
    assert f"task {owner}" in message and f"task is {task}" in message and "\n" not in message, message


ACCEPTED = [
    ("classification", {"k": 5, "normalize": True}),  # assess()'s defaults, passed along with every call
    ("classification", {"positive_label": "yes", "json_field": "decision", "group_columns": {"gender": "g"}}),
    ("recommendation", {"k": 3, "positive_label": "1"}),
    ("estimation", {"json_field": "offer.salary", "estimation": {"currency": "$"}, "impact_ratios": None}),
    ("estimation", {"impact_ratios": {"min_share": 0.05}}),
    ("text_generation", {"toxicity_threshold": 0.3, "n_resamples": 10, "estimation": None}),
]


@pytest.mark.parametrize(("task", "keywords"), ACCEPTED)
def test_keywords_the_task_reads_or_left_at_their_default_are_accepted(task: str, keywords: dict[str, Any]) -> None:
    settings_from_keywords(task=task, **keywords)


def test_assess_says_so_before_anything_runs() -> None:
    with pytest.raises(InputError, match=r"^k: .*task recommendation.*task is classification"):
        evenhand.assess(task="classification", responses=["yes", "no"], prompts=["a?", "b?"], k=3, progress=False)
