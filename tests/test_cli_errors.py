"""Input errors found while computing metrics reach the CLI as exit code 2 with a clear message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

runner = CliRunner()
ALLOW_CODE = {"EVENHAND_ALLOW_CODE": "1"}  # the config below names a Python function (model.options.function)


def yes_no_llm(prompt: str) -> str:
    """Used by the config below as model {provider: callable, options: {function: test_cli_errors:yes_no_llm}}."""
    return "yes" if "even" in prompt else "no"


def _config(tmp_path: Path, classification: str = "{}") -> Path:
    pd.DataFrame(
        {
            "prompt": [f"Is number {i} {'even' if i % 2 == 0 else 'odd'}? yes/no" for i in range(12)],
            "truth": [1 if i % 3 else 0 for i in range(12)],
            "person": ["a" if i % 4 < 2 else "b" for i in range(12)],
        }
    ).to_csv(tmp_path / "prompts.csv", index=False)
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "use_case: {task: classification, attributes: [gender], person_level: true, prevalence_parity: false}\n"
        "prompts: {path: prompts.csv, label_column: truth, group_column: person}\n"
        "model: {provider: callable, options: {function: 'test_cli_errors:yes_no_llm'}}\n"
        f"classification: {classification}\n"
        "generation: {count: 1, progress: false}\n"
        "statistics: {ci: null}\n"
        "output: {dir: out}\n"
    )
    return cfg


def test_positive_label_absent_from_ground_truth_exit_2(tmp_path: Path) -> None:
    cfg = _config(tmp_path, "{labels: {'1': [yes], '0': [no], '2': [maybe]}, positive_label: '2'}")
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "positive label '2' never appears in the ground-truth labels" in result.output
    cfg = _config(tmp_path, "{positive_label: 'yes'}")  # a word of the label '1': refused before any request
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "classification.positive_label: 'yes' is not a label ('yes' is a word of '1')" in result.output


def test_metric_input_error_exit_2_names_the_metric(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from evenhand.errors import InputError
    from evenhand.pipeline.families import calls as compute

    def rejecting(*args: Any, **kwargs: Any) -> Any:  # as a metric refuses its input: an InputError
        raise InputError("y_true holds 3 classes")

    monkeypatch.setattr(compute, "_metric", lambda key: rejecting)
    result = runner.invoke(app, ["assess", str(_config(tmp_path)), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "could not be computed: y_true holds 3 classes" in result.output


def test_an_internal_value_error_is_a_runtime_failure_not_bad_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit code 2 means "your input": a bare ValueError from a bug inside evenhand or a library is exit code 3."""
    from evenhand.pipeline.families import calls as compute

    def buggy(*args: Any, **kwargs: Any) -> Any:
        raise ValueError("operands could not be broadcast together")

    monkeypatch.setattr(compute, "_metric", lambda key: buggy)
    result = runner.invoke(app, ["assess", str(_config(tmp_path)), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    assert "assessment failed: ValueError:" in result.output
    assert "could not be computed: operands could not be broadcast together" in result.output


def test_error_messages_keep_square_brackets(capsys: pytest.CaptureFixture[str]) -> None:
    """Messages are printed literally, not as rich markup: install hints such as evenhand[models] survive."""
    from evenhand import cli
    from evenhand.cli.exit_codes import fail

    fail("install it with: pip install 'evenhand[models]'", cli.ExitCode.BAD_INPUT)
    assert "evenhand[models]" in capsys.readouterr().err


def test_a_failure_whose_message_has_several_lines_is_said_in_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library's message may span lines (transformers: "We couldn't connect ...\\nCheck your internet ..."): the
    failure is still one line on stderr, with every part of the message."""
    from evenhand.pipeline.families import calls as compute

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("could not load the files.\nCheck your internet connection.")

    monkeypatch.setattr(compute, "_metric", lambda key: failing)
    result = runner.invoke(app, ["assess", str(_config(tmp_path)), "-o", str(tmp_path / "out")], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.RUNTIME_FAILURE, result.output
    (line,) = [line for line in result.output.splitlines() if "assessment failed" in line]
    assert "could not load the files. Check your internet connection." in line


@pytest.mark.parametrize("offline", ["HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"])
def test_a_local_model_id_not_on_this_machine_offline_is_bad_input_in_one_line(
    offline: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newcomer's likely mistake: a Hugging Face id that is neither a folder nor in the local cache, with downloads
    off. Exit 2 before anything runs, one line naming model.model, not a runtime failure of every request."""
    monkeypatch.setenv(offline, "1")
    (tmp_path / "prompts.txt").write_text("Write a note to Mrs. Lee.\nWrite a note to Mr. Chen.\n")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\n"
        "prompts: {path: prompts.txt}\n"
        "model: {provider: local, model: no-such-org/no-such-model}\n"
    )
    result = runner.invoke(app, ["assess", str(cfg), "--no-progress"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "model.model" in lines[0] and "no-such-org/no-such-model" in lines[0], result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("flag", ["--stereotype", "--toxicity"])
def test_a_scoring_flag_whose_model_cannot_load_is_one_line(
    flag: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--stereotype some/model` on a machine that cannot reach the Hub: the loader's message spans two lines
    (transformers: "We couldn't connect ...\\nCheck your internet connection ..."); the error is still one line naming
    the flag, exit 2, before anything runs."""
    from evenhand.errors import InputError
    from evenhand.pipeline.families import base

    def cannot_load(*args: Any, key: str, **kwargs: Any) -> Any:  # the message build_scorer gives, under its key
        raise InputError(f"{key}: could not load 'some/model' (We couldn't connect to the Hub.\nCheck your internet.)")

    monkeypatch.setattr(base, "build_scorer", cannot_load)
    result = runner.invoke(app, ["assess", str(_config(tmp_path)), flag, "some/model", "--dry-run"], env=ALLOW_CODE)
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {flag}"), result.stderr
    assert "Hub. Check your internet.)" in lines[0]


@pytest.mark.parametrize(
    ("flag", "words", "setting"),
    [
        ("--label-column", "ground-truth labels", "responses.label_column"),
        ("--group-column", "person's group", "responses.person_group_column"),
    ],
)
def test_missing_named_column_says_what_it_holds_and_how_to_fix(
    tmp_path: Path, flag: str, words: str, setting: str
) -> None:
    """A column named by a flag but absent from the file is named in the user's words (what it holds, the setting
    and the flag that name it), not by evenhand's own field name ("needed for truth")."""
    table = tmp_path / "responses.csv"
    pd.DataFrame({"prompt": ["hi", "ho"], "response": ["yes", "no"]}).to_csv(table, index=False)
    result = runner.invoke(app, ["metrics", str(table), "--task", "classification", flag, "truth"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    line = " ".join(result.output.split())
    assert "needed for truth" not in line and "needed for person_group" not in line
    assert words in line and setting in line and flag in line, line
    assert "its columns are: prompt, response" in line


@pytest.mark.parametrize(
    ("key", "words"),
    [("label_column", "ground-truth labels"), ("group_column", "person groups"), ("id_column", "prompt ids")],
)
def test_a_prompts_column_the_config_names_but_the_file_lacks_says_how_to_fix(
    tmp_path: Path, key: str, words: str
) -> None:
    """newcomer17: prompts.label_column naming a column the prompts file lacks said "(needed for ground-truth
    labels)", without the setting that named it or what to do; it says both now, as the responses section does."""
    pd.DataFrame({"prompt": ["Approve Mrs. Lee's loan?", "Approve Mr. Lee's loan?"]}).to_csv(
        tmp_path / "p.csv", index=False
    )
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"prompts: {{path: p.csv, {key}: truth}}\nuse_case: {{task: classification, attributes: [gender]}}\n"
        "model: {provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m}\n"
    )
    result = runner.invoke(app, ["assess", str(cfg), "--dry-run"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    line = " ".join(result.output.split())
    assert words in line and f"prompts.{key}" in line and "name the column that holds" in line, line
    assert "its columns are: prompt" in line
