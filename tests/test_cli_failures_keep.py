"""A run that fails after its responses came in (a scorer raising, a full disk under the report) says in one line
what failed and that the responses are kept, exit 3, no traceback; the same command then asks the server for
nothing it already answered."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

import pytest
from openai_stub import StubServer

from evenhand.cli import ExitCode, main


def _config(tmp_path: Path, base_url: str) -> Path:
    (tmp_path / "prompts.txt").write_text("\n".join(f"Write to Mrs. Lee about loan {i}." for i in range(4)))
    config = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "base_url": base_url, "model": "m"},
        "generation": {"count": 1, "progress": False},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 20},
        "output": {"dir": "out"},
    }
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(config))
    return path


def _run(config: Path) -> int:
    with pytest.raises(SystemExit) as done:
        main(["assess", str(config)])
    return int(done.value.code or 0)


def _full_disk(self: Any, *args: Any, **kwargs: Any) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def _scorer_crash(self: Any, *args: Any, **kwargs: Any) -> None:
    raise RuntimeError("the scorer ran out of memory")


@pytest.mark.parametrize(
    ("target", "broken", "says"),
    [
        ("evenhand.pipeline.results.assessment.Assessment.to_html", _full_disk,
         "writing the outputs failed: {out}: No space left on device; nothing was written there"),
        ("evenhand.scorers.engine.LocalEngine.map", _scorer_crash,
         "assessment failed: RuntimeError: the scorer ran out of memory"),
    ],
    ids=["full disk under the report", "a scorer raising"],
)  # fmt: skip
@pytest.mark.pipeline
def test_a_failure_after_generation_says_the_responses_are_kept_and_the_rerun_asks_nothing_again(
    target: str, broken: Any, says: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    with StubServer() as server:
        config = _config(tmp_path, server.base_url)
        with monkeypatch.context() as patch:
            patch.setattr(target, broken)
            assert _run(config) == ExitCode.RUNTIME_FAILURE
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if line.strip()]
        assert lines[-1].startswith(says.format(out=tmp_path / "out")), err
        assert lines[-1].endswith("generations.sqlite: run the same command again to resume"), err
        assert "Traceback" not in err and "--debug" not in lines[-1]
        assert not (tmp_path / "out" / "results.json").exists()  # all or nothing: no half-written outputs
        asked = server.state.total
        assert asked > 0
        assert _run(config) == ExitCode.OK
        assert server.state.total == asked  # every reply was kept: nothing asked again
    assert (tmp_path / "out" / "report.html").exists()
