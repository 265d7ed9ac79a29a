"""A config file is data: code it names (model.options.function) is imported only when allowed from outside it
(``allow_code=True``, ``evenhand assess --allow-code``, ``EVENHAND_ALLOW_CODE=1``); a Python callable needs nothing."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.config import parse_config
from evenhand.generation import CallableClient, get_client
from evenhand.pipeline.from_config import assess_config, code_keys

ENV = "EVENHAND_ALLOW_CODE"
KEY_NAME = r"model\.options\.function"


@pytest.fixture
def booby_trapped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A module whose import writes a marker file (so 'was any code run?' has a visible answer)."""
    marker = tmp_path / "imported.marker"
    name = f"evenhand_trap_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(
        "from pathlib import Path\n"
        f"Path({str(marker)!r}).write_text('imported')\n"
        "def answer(prompt):\n"
        "    return 'Thanks, dear customer.'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv(ENV, raising=False)
    yield f"{name}:answer", marker
    sys.modules.pop(name, None)


def _config(tmp_path: Path, function: str, **options: Any) -> Any:
    return parse_config(
        {
            "use_case": {"task": "text_generation", "attributes": ["gender"]},
            "prompts": {"items": ["Write to Mrs. Lee about her loan.", "Thank him."]},
            "model": {"provider": "callable", "options": {"function": function, **options}},
            "generation": {"count": 1, "counterfactual_count": 1, "progress": False, "store": "g.sqlite"},
            "scoring": {"embedder": False},
            "statistics": {"ci": None},
            "output": {"dir": "out"},
        },
        base=tmp_path,
    )


def test_config_code_is_refused_by_default(booby_trapped: tuple[str, Path], tmp_path: Path) -> None:
    target, marker = booby_trapped
    config = _config(tmp_path, target)
    assert code_keys(config) == {"model.options.function": target}
    with pytest.raises(ValueError, match=r"model\.options\.function") as refused:
        assess_config(config)
    message = str(refused.value)
    assert "--allow-code" in message and "EVENHAND_ALLOW_CODE=1" in message and target in message
    assert not marker.exists()  # nothing was imported


def test_os_system_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    created = tmp_path / "pwned"
    config = _config(tmp_path, "os:system")
    config.prompts.items = [f"touch {created}"]
    with pytest.raises(ValueError, match=KEY_NAME):
        assess_config(config)
    with pytest.raises(ValueError, match=KEY_NAME):
        assess_config(config, allow_code=False)
    assert not created.exists()


def test_a_config_cannot_allow_itself(booby_trapped: tuple[str, Path], tmp_path: Path) -> None:
    target, marker = booby_trapped
    for key in ("allow_code", "trust", "allow"):
        with pytest.raises(ValueError, match=KEY_NAME):
            assess_config(_config(tmp_path, target, **{key: True}))
    # nor can options smuggle the callable provider in under another one
    disguised = _config(tmp_path, target, provider="callable")
    disguised.model = disguised.model.model_copy(update={"provider": "local"})
    assert disguised.model.client_spec()["provider"] == "callable"
    with pytest.raises(ValueError, match=KEY_NAME):
        assess_config(disguised)
    assert not marker.exists()


@pytest.mark.pipeline
def test_opt_in_by_argument_and_by_environment(
    booby_trapped: tuple[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target, marker = booby_trapped
    a = assess_config(_config(tmp_path, target), allow_code=True)
    assert marker.exists() and (a.responses["response"] == "Thanks, dear customer.").all()
    assert a.meta["model"] == {"provider": "callable", "function": target}

    monkeypatch.setenv(ENV, "1")
    assert len(assess_config(_config(tmp_path, target)).responses) > 0
    with pytest.raises(ValueError, match=KEY_NAME):  # an explicit False wins over the variable
        assess_config(_config(tmp_path, target), allow_code=False)
    for off in ("0", "", "no"):
        monkeypatch.setenv(ENV, off)
        with pytest.raises(ValueError, match=KEY_NAME):
            assess_config(_config(tmp_path, target))


def test_factory_refuses_named_code_but_takes_functions(
    booby_trapped: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    target, marker = booby_trapped
    with pytest.raises(ValueError, match="EVENHAND_ALLOW_CODE") as refused:
        get_client({"provider": "callable", "function": target})
    assert "'function'" in str(refused.value) or "function names" in str(refused.value)
    assert not marker.exists()
    with pytest.raises(ValueError, match="EVENHAND_ALLOW_CODE"):
        get_client({"type": "callable", "function": "os:system"})

    def mine(prompt: str) -> str:
        return prompt

    assert isinstance(get_client({"provider": "callable", "function": mine}), CallableClient)  # Python is code
    assert isinstance(get_client(mine), CallableClient)
    assert isinstance(get_client({"provider": "callable", "function": target}, allow_code=True), CallableClient)
    assert marker.exists()
    monkeypatch.setenv(ENV, "1")
    assert isinstance(get_client({"provider": "callable", "function": "os.path:basename"}), CallableClient)
    with pytest.raises(ValueError, match=r"package\.module:name"):
        get_client({"provider": "callable", "function": "no_colon_here"})
    with pytest.raises(ValueError, match="cannot import"):
        get_client({"provider": "callable", "function": "evenhand_no_such_module_xyz:f"})
    with pytest.raises(ValueError, match="needs 'function'"):
        get_client({"provider": "callable"})


def _callable_config_file(tmp_path: Path, target: str) -> Path:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\n"
        "prompts: {items: [Write to Mrs. Lee about her loan., Thank him.]}\n"
        f"model: {{provider: callable, options: {{function: '{target}'}}}}\n"
        "generation: {count: 1, progress: false}\nscoring: {embedder: false}\nstatistics: {ci: null}\n"
    )
    return cfg


@pytest.mark.pipeline
def test_cli_refuses_and_plan_never_imports(booby_trapped: tuple[str, Path], tmp_path: Path) -> None:
    target, marker = booby_trapped
    cfg = _callable_config_file(tmp_path, target)
    runner = CliRunner()
    refused = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env={ENV: ""})
    assert refused.exit_code == ExitCode.BAD_INPUT, refused.output
    assert "model.options.function" in refused.output and "--allow-code" in refused.output
    assert not marker.exists()
    planned = runner.invoke(app, ["plan", str(cfg), "--no-ask"], env={ENV: ""})
    assert planned.exit_code == ExitCode.OK, planned.output
    assert not marker.exists()
    allowed = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env={ENV: "1"})
    assert allowed.exit_code in (ExitCode.OK, ExitCode.THRESHOLD_FAILED), allowed.output
    assert marker.exists()


@pytest.mark.pipeline
def test_cli_allow_code_flag(booby_trapped: tuple[str, Path], tmp_path: Path) -> None:
    target, marker = booby_trapped
    cfg = _callable_config_file(tmp_path, target)
    allowed = CliRunner().invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out"), "--allow-code"], env={ENV: ""})
    assert allowed.exit_code == ExitCode.OK, allowed.output
    assert marker.exists()
