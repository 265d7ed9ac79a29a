"""A results.json from an older evenhand, or one edited by hand, that lacks a section the report reads (``summary``,
``settings``, ``timings``) renders (the section's defaults), and one whose section has the wrong kind is exit 2 naming
the key: never exit 3 with a template's ``UndefinedError`` (faults18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

runner = CliRunner()
OWN = "prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee thanks.\nThank the client.,Thank you.\n"


@pytest.fixture(scope="module")
def results_doc(tmp_path_factory: pytest.TempPathFactory) -> dict:
    folder = tmp_path_factory.mktemp("run")
    (folder / "own.csv").write_text(OWN, encoding="utf-8")
    cfg = folder / "c.yaml"
    cfg.write_text(
        "use_case: {task: text_generation, attributes: [gender]}\nresponses: {path: own.csv}\n"
        "scoring: {embedder: false}\nstatistics: {ci: null}\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(folder / "out")])
    assert result.exit_code == 0, result.output
    return json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))


@pytest.mark.pipeline
@pytest.mark.parametrize("section", ["summary", "settings", "timings"])
def test_a_results_file_without_a_section_renders(results_doc: dict, tmp_path: Path, section: str) -> None:
    doc = {k: v for k, v in results_doc.items() if k != section}
    (tmp_path / "old.json").write_text(json.dumps(doc), encoding="utf-8")
    old = str(tmp_path / "old.json")
    for command in (["report", old, "-o", str(tmp_path / "r.html")], ["compare", old, old, "-o", str(tmp_path / "c")]):
        result = runner.invoke(app, command)
        assert result.exit_code == ExitCode.OK, result.output
    assert (tmp_path / "r.html").stat().st_size > 0


@pytest.mark.pipeline
@pytest.mark.parametrize("value", [None, 5, "x"])
def test_timings_of_the_wrong_kind_is_exit_2(results_doc: dict, tmp_path: Path, value: object) -> None:
    (tmp_path / "bad.json").write_text(json.dumps({**results_doc, "timings": value}), encoding="utf-8")
    result = runner.invoke(app, ["report", str(tmp_path / "bad.json"), "-o", str(tmp_path / "r.html")])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "bad.json" in result.output and "timings" in result.output, result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
