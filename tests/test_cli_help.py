"""``--help`` a newcomer can act on: every command shows examples that name only its own flags and files that exist,
and no option's help is a placeholder or a stale list (every task the framework knows, each threshold its key)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from evenhand.cli import app
from evenhand.framework import TASKS

ROOT = Path(__file__).resolve().parents[1]
GROUP: Any = typer.main.get_command(app)
COMMANDS = sorted(GROUP.commands)
runner = CliRunner()


def _help(*command: str) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def _examples(text: str) -> list[list[str]]:
    """The example command lines after "Examples:", continuation lines (ending in a backslash) joined, comments cut."""
    lines, joined = text.split("Examples:", 1)[1].splitlines(), []
    for line in (line.split("#", 1)[0].strip() for line in lines):
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line
        elif line.startswith("evenhand "):
            joined.append(line)
    return [line.split() for line in joined]


def _options(command: Any) -> set[str]:
    return {o for param in command.params for o in (*param.opts, *param.secondary_opts) if o.startswith("-")}


@pytest.mark.parametrize("name", ["", *COMMANDS])
def test_every_help_ends_with_examples_that_name_real_flags_and_files(name: str) -> None:
    text = _help(*([name] if name else []))
    examples = _examples(text) if "Examples:" in text else []
    assert examples, f"evenhand {name} --help shows no example"
    for words in examples:
        command = words[1] if name == "" else name
        assert words[1] == command or (name == "" and command in COMMANDS) or words[1] == "COMMAND", words
        if command not in COMMANDS:
            continue
        options = _options(GROUP.commands[command]) | {"--help"}
        for word in words[2:]:
            if word.startswith("-"):
                assert word.split("=", 1)[0] in options, (word, words)
            elif word.startswith(("evenhand/", "examples/")):
                assert (ROOT / word).is_file(), word


def test_metrics_task_help_lists_every_task_of_the_framework() -> None:
    text = " ".join(_help("metrics").split())
    described = text.split("--task <str>", 1)[1].split("--", 1)[0]
    assert all(task in described for task in TASKS), described


@pytest.mark.parametrize("name", ["assess", "metrics", "redteam"])
def test_each_threshold_flag_names_its_own_config_key(name: str) -> None:
    text = " ".join(_help(name).split())
    assert "<name>" not in text
    for scorer in ("toxicity", "stereotype", "sentiment", "refusal"):
        described = text.split(f"--{scorer}-threshold", 1)[1].split(" --", 1)[0]
        assert f"scoring.{scorer}_threshold" in described, described
