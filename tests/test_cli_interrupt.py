"""Ctrl-C during ``evenhand assess``: exit code 130 with one line that says where the responses generated so far
are kept, and the store keeps them (the same command resumes from it)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from openai_stub import StubServer

from evenhand.cli import ExitCode


def _stored(path: Path) -> int:
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=1) as db:
            return int(db.execute("SELECT COUNT(*) FROM responses WHERE status = 'ok'").fetchone()[0])
    except sqlite3.OperationalError:  # the table is not there yet
        return 0


def _write_config(folder: Path, base_url: str, **extra: object) -> None:
    """A one-at-a-time text-generation run against the stub server, its prompts in prompts.txt, kept in out/."""
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "base_url": base_url, "model": "m", "concurrency": 1},
        "generation": {"count": 1, "progress": False},
        "scoring": {"embedder": False},
        **extra,
        "output": {"dir": "out"},
    }
    (folder / "c.yaml").write_text(json.dumps(config))


@pytest.mark.subprocess
def test_ctrl_c_says_what_is_kept_and_exits_130(tmp_path: Path) -> None:
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to Mrs. Lee about loan {i}." for i in range(40)))
    with StubServer(latency=0.25) as server:
        _write_config(tmp_path, server.base_url)
        env = {**os.environ, "OPENAI_API_KEY": "sk-interrupt-test-secret"}
        child = subprocess.Popen(
            [sys.executable, "-m", "evenhand", "assess", str(tmp_path / "c.yaml")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            # a child started from a test runner may inherit SIGINT ignored: give it the default, as a shell does
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        store = tmp_path / "out" / "generations.sqlite"
        deadline = time.monotonic() + 60
        while _stored(store) < 3 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        kept_before = _stored(store)
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
    assert kept_before >= 3, err
    assert child.returncode == ExitCode.INTERRUPTED, (out, err)
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines[-1].startswith("interrupted; the responses generated so far are kept in "), err
    assert "generations.sqlite: run the same command again to resume" in lines[-1]
    assert "Traceback" not in err and "sk-interrupt-test-secret" not in out + err
    assert _stored(store) >= kept_before  # nothing completed was lost


@pytest.mark.subprocess
@pytest.mark.parametrize("sigint", [signal.SIG_DFL, signal.SIG_IGN], ids=["sigint-default", "sigint-ignored"])
def test_sigterm_ends_the_run_as_ctrl_c_does_and_the_same_command_resumes_without_asking_again(
    tmp_path: Path, sigint: signal.Handlers
) -> None:
    """A supervisor's SIGTERM (a CI job cancelled, ``kill``, a container stopped) killed the process without a word:
    no line saying what is kept, replies received and not yet committed lost. Now it ends as Ctrl-C does, exit 143
    (128 + SIGTERM), and the same command asks only for what the store does not hold.

    Also when the process inherited SIGINT ignored, as a script's background job does (``evenhand assess c.yaml &``)
    and as a test runner's child may: SIGTERM raised SIGINT, which was ignored, and the run went on to its end
    (exit 0; the cause of this test's failures under the full suite in 2 of 6 CI runs of 2026-11-29)."""
    prompts = [f"Write to Mrs. Lee about loan {i}." for i in range(30)]
    (tmp_path / "prompts.txt").write_text("\n".join(prompts))
    with StubServer(latency=0.25) as server:
        _write_config(tmp_path, server.base_url, statistics={"n_resamples": 20})
        command = [sys.executable, "-m", "evenhand", "assess", str(tmp_path / "c.yaml")]
        child = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, sigint),
        )
        store = tmp_path / "out" / "generations.sqlite"
        # the signal goes in mid-generation: once the server has been asked a fourth time (one request at a time, so
        # three replies were committed) and the store shows them; the child's start-up under CI load can take long
        deadline = time.monotonic() + 240
        while (server.state.total < 4 or _stored(store) < 3) and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.1)
        assert child.poll() is None, "the run ended before the signal could be sent mid-generation"
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=60)
        assert child.returncode == 128 + signal.SIGTERM, (out, err)
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines[-1].startswith("interrupted; the responses generated so far are kept in "), err
        assert "Traceback" not in err
        kept, asked = _stored(store), server.state.total
        assert kept >= 3
        again = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert again.returncode == ExitCode.OK, again.stderr
        # every request answered before the signal was kept: the second run asks only for the rest
        total_samples = _stored(store)
        assert server.state.total - asked == total_samples - kept, (server.state.total, asked, total_samples, kept)


# The console script's own code (pip writes it: `from evenhand.cli import main; sys.exit(main())`), started with an
# import hook that sends this process SIGINT when the named module is first imported: a Ctrl-C pressed while the
# command is still importing, at a chosen moment instead of a guessed delay.
_CTRL_C_DURING_IMPORT = """
import importlib.abc, signal, sys
class CtrlC(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            signal.raise_signal(signal.SIGINT)
        return None
sys.meta_path.insert(0, CtrlC())
sys.argv = ["evenhand", "--version"]
from evenhand.cli import main
sys.exit(main())
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("module", ["typer", "rich.markup", "evenhand.cli.commands.assess", "evenhand.errors"])
def test_ctrl_c_while_the_command_is_still_importing_is_one_line_and_exit_130(module: str) -> None:
    """faults14: Ctrl-C pressed while ``evenhand ...`` was still importing (typer, rich, the commands: a second or
    more on a cold disk) printed a Python traceback; the CLI's contract is one line and exit 130."""
    child = subprocess.run(
        [sys.executable, "-c", _CTRL_C_DURING_IMPORT.format(module=module)],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert child.returncode == ExitCode.INTERRUPTED, (child.returncode, child.stderr)
    assert "Traceback" not in child.stderr and child.stderr.strip() == "interrupted", child.stderr
    assert child.stdout == ""


def _console_script_entry() -> tuple[str, str]:
    """The module and function ``[project.scripts]`` names for ``evenhand`` (what pip's console script imports)."""
    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    target = pyproject.split("[project.scripts]", 1)[1].split("evenhand = ", 1)[1].splitlines()[0].strip().strip('"')
    module, _, function = target.partition(":")
    return module, function


# pip's console script, the module and function read from pyproject.toml, started with an import hook that sends this
# process a signal when the named module is first imported (faults17: any module, the package's own __init__ too).
_SIGNAL_DURING_STARTUP = """
import importlib.abc, signal, sys
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {module!r}:
            sys.meta_path.remove(self)
            signal.raise_signal(signal.{signal})
        return None
sys.meta_path.insert(0, Hook())
sys.argv = ["evenhand", "--version"]
from {entry} import {function}
sys.exit({function}())
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize(
    "module", ["evenhand", "evenhand._assistants", "evenhand.cli", "typer", "evenhand.cli.commands.assess"]
)
def test_a_signal_while_the_console_script_starts_is_one_line_at_any_module(module: str, signame: str) -> None:
    """faults17: Ctrl-C while ``import evenhand`` itself ran (the package ``__init__``, before ``evenhand.cli`` could
    catch anything) printed a traceback, and SIGTERM at any moment of the start-up killed the process without a
    word. The console script now enters through ``evenhand_entry``, a module outside the package that catches both
    before it imports anything of evenhand: ``interrupted`` and 130 (143 for SIGTERM), as during a run."""
    entry, function = _console_script_entry()
    code = _SIGNAL_DURING_STARTUP.format(module=module, signal=signame, entry=entry, function=function)
    child = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    expected = ExitCode.INTERRUPTED if signame == "SIGINT" else ExitCode.TERMINATED
    assert child.returncode == expected, (child.returncode, child.stderr)
    assert "Traceback" not in child.stderr and child.stderr.strip() == "interrupted", child.stderr
    assert child.stdout == ""
