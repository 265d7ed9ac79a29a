"""``evenhand compare``: verdict on the difference first, table, comparison.json/.html, exit codes 0/1/2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_compare_fixtures import biased_run, fair_run
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app

runner = CliRunner()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, run in (("fair", fair_run()), ("biased", biased_run())):
        (root / name).mkdir()
        out[name] = root / name / "results.json"
        run.to_json(out[name])
    # a run written without responses inside results.json, with responses.csv beside it (output.responses: csv)
    (root / "csv").mkdir()
    biased_run().to_json(root / "csv" / "results.json", include_responses=False)
    biased_run().export_responses(root / "csv" / "responses.csv")
    out["csv"] = root / "csv" / "results.json"
    doc = json.loads(out["fair"].read_text())
    doc["plan"]["use_case"]["task"] = "classification"
    (root / "other_task.json").write_text(json.dumps(doc))
    out["other_task"] = root / "other_task.json"
    return out


def _invoke(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, ["compare", *map(str, args)])
    return result.exit_code, result.output


@pytest.mark.pipeline
def test_compare_prints_the_verdict_first_and_writes_both_files(files: dict[str, Path], tmp_path: Path) -> None:
    code, output = _invoke(files["fair"], files["biased"], "--label", "v1", "--label", "v2", "--out", tmp_path)
    assert code == ExitCode.OK, output
    lines = output.splitlines()
    assert lines[0].startswith("verdict on the difference: WORSE (v1 vs v2)")
    assert "finding appeared in v2: counterfactual (SCSP), gender, female vs male (ok -> concern)" in output
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["metric", "attribute"])
    sentence = next(i for i, line in enumerate(lines) if "v2 is worse than v1 on gender SCSP" in line)
    assert sentence < header < next(i for i, line in enumerate(lines) if line.split()[:1] == ["WCSP"])
    doc = json.loads((tmp_path / "comparison.json").read_text())
    assert (tmp_path / "comparison.html").read_text().startswith("<!DOCTYPE html>")
    assert doc["verdict"]["status"] == "worse"


def test_the_wrote_line_goes_to_stderr_as_every_command_s_does(files: dict[str, Path], tmp_path: Path) -> None:
    """stdout carries results only (docs/cli.md, Streams): `evenhand compare a b > diff.txt` holds the verdict and the
    table, and the `wrote ...` line naming the outputs is status, on stderr, with or without --json."""
    for extra in ([], ["--json"]):
        result = runner.invoke(app, ["compare", str(files["fair"]), str(files["biased"]), "--out", str(tmp_path),
                                     "--n-resamples", "200", *extra])  # fmt: skip
        assert result.exit_code == ExitCode.OK, result.output
        assert "wrote " not in result.stdout, extra
        assert f"wrote {tmp_path / 'comparison.json'} and {tmp_path / 'comparison.html'}" in result.stderr


def test_json_schema_keys(files: dict[str, Path], tmp_path: Path) -> None:
    code, output = _invoke(files["fair"], files["biased"], "--json", "--out", tmp_path, "--n-resamples", "200")
    assert code == 0, output
    doc = json.loads((tmp_path / "comparison.json").read_text())
    printed = json.loads(output[: output.rindex("}") + 1])
    assert printed["metrics"] == doc["metrics"]
    assert set(doc) == {
        "schema", "schema_version", "evenhand_version", "created", "baseline", "runs", "settings", "verdict",
        "metrics", "findings",
    }  # fmt: skip
    assert (doc["schema"], doc["schema_version"], doc["baseline"]) == ("evenhand/comparison", "1.1", "A")
    assert doc["settings"] == {"ci": 0.95, "n_resamples": 200, "seed": 0, "pairing": "auto"}
    assert set(doc["verdict"]) == {"status", "by_run", "sentences", "rule"}
    assert set(doc["runs"][0]) >= {"label", "source", "task", "model", "created", "n_prompts", "n_responses"}
    row = doc["metrics"][0]
    assert set(row) == {
        "key", "metric", "full_name", "attribute", "groups", "class", "comparison", "higher_is_fairer", "values",
        "intervals", "signed", "signed_stored", "differences",
    }  # fmt: skip
    assert set(row["differences"][0]) == {
        "run", "difference", "ci_low", "ci_high", "p_value", "p_adjusted", "method", "note", "n_units", "change",
        "sentence", "size_change",
    }  # fmt: skip
    assert set(doc["findings"][0]) >= {"risk", "attribute", "groups", "class", "before", "after", "change", "direction"}


@pytest.mark.pipeline
def test_responses_csv_beside_results_are_paired(files: dict[str, Path], tmp_path: Path) -> None:
    code, output = _invoke(files["fair"], files["csv"], "--json", "--out", tmp_path)
    assert code == 0, output
    doc = json.loads((tmp_path / "comparison.json").read_text())
    scsp = next(r for r in doc["metrics"] if r["metric"] == "SCSP")["differences"][0]
    assert scsp["method"] == "paired" and scsp["change"] == "worse"


@pytest.mark.parametrize(("gate", "expected"), [("never", 0), ("worse", 1), ("any", 1)])
@pytest.mark.pipeline
def test_fail_on_gates_ci(files: dict[str, Path], tmp_path: Path, gate: str, expected: int) -> None:
    code, output = _invoke(files["fair"], files["biased"], "--fail-on", gate, "--out", tmp_path)
    assert code == expected, output


@pytest.mark.pipeline
def test_fail_on_passes_when_nothing_got_worse(files: dict[str, Path], tmp_path: Path) -> None:
    code, output = _invoke(files["biased"], files["fair"], "--fail-on", "any", "--out", tmp_path)
    assert code == 0, output
    assert output.startswith("verdict on the difference: IMPROVED")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["fair"], "compare needs at least two results files, got 1"),
        (["fair", "missing"], "no such file"),
        (["fair", "other_task"], "only runs of the same task can be compared"),
        (["fair", "biased", "--label", "x"], "labels: 1 label(s) for 2 runs"),
        (["fair", "biased", "--fail-on", "sometimes"], "--fail-on must be one of never, worse, any"),
    ],
)
def test_bad_input_exits_2_with_one_line(files: dict[str, Path], tmp_path: Path, args: list[str], message: str) -> None:
    resolved = [str(files.get(a, tmp_path / "missing.json")) if a in ("fair", "biased", "missing", "other_task")
                else a for a in args]  # fmt: skip
    code, output = _invoke(*resolved, "--out", tmp_path)
    assert code == ExitCode.BAD_INPUT, output
    assert message in output and len(output.strip().splitlines()) == 1, output
    if "missing" in args:
        assert "missing.json" in output  # names the file
    if "other_task" in args:
        assert "other_task.json" in output


def test_output_folder_must_not_overwrite_an_input(files: dict[str, Path]) -> None:
    target = files["fair"].parent / "comparison.json"
    target.write_text(files["fair"].read_text())  # a results file named like the output
    code, output = _invoke(files["fair"], target, "--out", files["fair"].parent)
    target.unlink()
    assert code == ExitCode.BAD_INPUT and "is an input of this run" in output


def test_help() -> None:
    result = runner.invoke(app, ["compare", "--help"])
    assert result.exit_code == 0 and "--fail-on" in result.output and "baseline" in result.output


def test_an_out_path_that_is_a_file_exits_2(files: dict[str, Path], tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    code, output = _invoke(files["fair"], files["biased"], "--out", blocker)
    assert code == ExitCode.BAD_INPUT and f"--out {blocker}: cannot write" in output, output
