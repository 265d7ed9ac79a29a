"""The README's examples run as written and say true things (offline; the model server is a loopback stub).

- its Python blocks run in order, like a notebook, and every value a comment shows is the value computed;
- the config keys it tells a newcomer to set, merged into a copy of the demo config as it says, give a valid config
  that assesses a model behind an OpenAI-compatible server;
- every file and subcommand its shell block names exists.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
BASH_BLOCKS = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
YAML_BLOCKS = re.findall(r"```yaml\n(.*?)```", README, flags=re.S)

# How the README's comments state a value: `# float(...) == 0.5`, `# Interval(estimate=0.5, low=..., ...)`, or a
# Python literal, optionally followed by ": explanation".
FLOAT_COMMENT = re.compile(r"float\(\.\.\.\) == ([-+0-9.e]+)")
CALL_COMMENT = re.compile(r"(\w+)\((.*)\)$")


def _commented_expressions(block: str) -> list[tuple[ast.stmt, str]]:
    """Top-level statements of a block with the comment at the end of their last line (expressions only)."""
    lines = block.splitlines()
    found = []
    for node in ast.parse(block).body:
        last = lines[(node.end_lineno or node.lineno) - 1]
        if isinstance(node, ast.Expr) and "#" in last:
            found.append((node, last.split("#", 1)[1].strip()))
    return found


def _check_comment(value: Any, comment: str) -> None:
    """Assert that ``value`` is what the README's comment says it is."""
    if match := FLOAT_COMMENT.match(comment):
        assert float(value) == pytest.approx(float(match.group(1)), abs=1e-9), comment
        return
    if (match := CALL_COMMENT.match(comment)) and match.group(1) == type(value).__name__:
        for field in match.group(2).split(", "):
            if field == "...":
                continue
            name, expected = field.split("=", 1)
            assert getattr(value, name) == pytest.approx(ast.literal_eval(expected)), comment
        return
    literal = comment.split(": ", 1)[0] if comment.startswith(("(", "[", "{")) else comment
    assert value == ast.literal_eval(literal), comment


def test_python_blocks_run_and_their_comments_hold() -> None:
    assert len(PYTHON_BLOCKS) >= 2
    namespace: dict[str, Any] = {"__name__": "__readme__"}
    checked = 0
    for index, block in enumerate(PYTHON_BLOCKS):  # the blocks build on each other
        exec(compile(block, f"README.md[python {index}]", "exec"), namespace)
        for node, comment in _commented_expressions(block):
            expression = ast.Expression(node.value)  # type: ignore[attr-defined]
            value = eval(compile(expression, f"README.md[python {index}]", "eval"), namespace)
            _check_comment(value, comment)
            checked += 1
    assert checked >= 6


def test_shell_block_names_files_and_subcommands_that_exist() -> None:
    commands = [line.split("#", 1)[0].split() for block in BASH_BLOCKS for line in block.splitlines()]
    evenhand_calls = [words for words in commands if words and words[0] == ".venv/bin/evenhand"]
    known = {command.name or command.callback.__name__ for command in app.registered_commands}  # type: ignore[union-attr]
    assert {words[1] for words in evenhand_calls} <= known
    assert {"plan", "assess", "metrics", "report", "compare"} <= {words[1] for words in evenhand_calls}
    for words in evenhand_calls:
        for word in words[2:]:
            if word.startswith(("evenhand/", "examples/")):
                assert (ROOT / word).is_file(), word
    for path in re.findall(r"`((?:docs|scripts|benchmarks)/[\w./-]+\.(?:md|sh))`", README):
        assert (ROOT / path).is_file(), path


@pytest.mark.pipeline
def test_own_model_config_from_the_readme_assesses_a_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from openai_stub import StubServer

    assert YAML_BLOCKS, "the README shows the keys to set in my-use-case.yaml"
    keys = yaml.safe_load(YAML_BLOCKS[0])
    assert set(keys) == {"prompts", "model", "thresholds"}
    config = yaml.safe_load((ROOT / "evenhand" / "data" / "demo" / "demo.yaml").read_text(encoding="utf-8"))
    config.update(keys)  # `cp demo.yaml my-use-case.yaml`, then set the README's keys
    # the README's config sits in the repository root; this copy sits in tmp_path, so its relative path moves with it
    config["prompts"]["path"] = str(ROOT / keys["prompts"]["path"])
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-not-stored")
    with StubServer() as server:
        config["model"]["base_url"] = server.base_url
        path = tmp_path / "my-use-case.yaml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        result = CliRunner().invoke(app, ["assess", str(path), "--limit", "4", "--no-progress"])
        assert server.state.total > 0
    # exit 0 or 1 only: the thresholds ran (1 = one failed, with a line naming it), nothing was bad input or crashed
    assert result.exit_code in (ExitCode.OK, ExitCode.THRESHOLD_FAILED), result.output
    out = tmp_path / "evenhand-out"  # output.dir is relative to the config file, as the README says
    assert {"results.json", "metrics.csv", "responses.csv", "report.html"} <= {p.name for p in out.iterdir()}
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["model"]["provider"] == "openai" and len(doc["thresholds"]) >= 2
    assert (result.exit_code == ExitCode.THRESHOLD_FAILED) == (doc["summary"]["passed"] is False)
    assert "sk-readme-not-stored" not in (out / "results.json").read_text(encoding="utf-8")


def test_what_the_readme_says_of_the_demos_cut_replies_is_its_config() -> None:
    """The README and docs/cli.md explain the demo's undefined answer-length rows by its max_tokens: the one in
    demo.yaml."""
    config = yaml.safe_load((ROOT / "evenhand" / "data" / "demo" / "demo.yaml").read_text(encoding="utf-8"))
    said = f"`max_tokens: {config['model']['max_tokens']}`"
    assert said in README and said in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
