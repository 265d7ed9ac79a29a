"""A config section the use case's task never reads (a recommendation section in a classification run) is named with
the task (exit 2), as an unknown key is, rather than accepted silently."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evenhand.config import ConfigError, load_config


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("task", "section"),
    [
        ("classification", "recommendation: {k: 3}"),
        ("estimation", "recommendation: {k: 3}"),
        ("text_generation", "classification: {positive_label: approve}"),
        ("recommendation", "estimation: {currency: $}"),
        ("text_generation", "impact_ratios: {table: true}"),
    ],
)
def test_a_section_for_another_task_is_a_config_error(tmp_path: Path, task: str, section: str) -> None:
    """Sections are strict (an unknown key is exit 2): a section the use case's task never reads would be ignored,
    so it is named, with the task, rather than accepted silently."""
    name = section.split(":")[0]
    text = f"use_case: {{task: {task}}}\nprompts: {{items: [a]}}\n{section}\n"
    with pytest.raises(ConfigError, match=rf"{name}: this section is for task .*; the use case's task is {task}"):
        load_config(write(tmp_path, "other.yaml", text))


@pytest.mark.parametrize(
    ("task", "section"),
    [
        ("classification", "classification: {positive_label: approve}"),
        ("recommendation", "recommendation: {k: 3}"),
        ("estimation", "estimation: {currency: $}"),
        ("estimation", "impact_ratios: {table: true}"),
        ("classification", "impact_ratios: {table: true}"),
        ("summarization", "scoring: {refusal_threshold: 0.6}"),
    ],
)
def test_a_section_for_its_own_task_is_accepted(tmp_path: Path, task: str, section: str) -> None:
    load_config(write(tmp_path, "own.yaml", f"use_case: {{task: {task}}}\nprompts: {{items: [a]}}\n{section}\n"))


def test_a_section_left_at_its_defaults_changes_nothing_and_is_accepted(tmp_path: Path) -> None:
    """A config dumped whole (every section at its defaults, as the CLI's --config with a responses file reloads it)
    is read again unchanged."""
    from evenhand.config import parse_config

    config = load_config(write(tmp_path, "c.yaml", "use_case: {task: text_generation}\nprompts: {items: [a]}\n"))
    assert parse_config(config.model_dump(mode="python")).use_case.task == "text_generation"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("use_case: {task: summarization, counterfactual_invarience: true}\n", "mean 'counterfactual_invariance'?"),
        ("use_case: {task: summarization}\nmodel: {provider: local, max_token: 32}\n", "did you mean 'max_tokens'?"),
        ("use_case: {task: summarization}\nstatistcs: {ci: 0.9}\n", "did you mean 'statistics'?"),
        ("use_case: {task: summarization}\nthresholds: [{metric: TF, maxx: 0.1}]\n", "did you mean 'max'?"),
        ("use_case: {task: summarization}\noutput: {zzz_unrelated: 1}\n", None),
    ],
)
def test_a_misspelt_key_is_named_with_the_key_it_was_probably_meant_to_be(
    tmp_path: Path, text: str, said: str | None
) -> None:
    """The most likely newcomer mistake in a config: a key misspelt. One line naming the key, and the nearest key of
    that section when one is close (a key like none of them gets no guess)."""
    with pytest.raises(ConfigError, match="Extra inputs are not permitted") as raised:
        load_config(write(tmp_path, "typo.yaml", "prompts: {items: [a]}\n" + text))
    message = str(raised.value)
    assert "\n" not in message
    assert (said in message) if said else ("did you mean" not in message), message


@pytest.mark.parametrize("key", ["use_case.task", "model.max_token"])
def test_the_config_errors_docs_cli_shows_are_the_ones_given(tmp_path: Path, key: str) -> None:
    """docs/cli.md shows what a wrong task name and a misspelt key print: those are the messages, word for word."""
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    (shown,) = re.findall(rf"`error: my\.yaml: {re.escape(key)}: ([^`]+)`", doc)
    section, name = key.split(".")
    value = "chatbot" if name == "task" else "32"
    text = f"use_case: {{task: summarization}}\nprompts: {{items: [a]}}\n{section}: {{{name}: {value}}}\n"
    if section == "use_case":
        text = f"use_case: {{task: {value}}}\nprompts: {{items: [a]}}\n"
    with pytest.raises(ConfigError) as raised:
        load_config(write(tmp_path, "my.yaml", text))
    assert str(raised.value).endswith(f"my.yaml: {key}: {shown}")
