"""The attacker's inputs: every command fed files and settings that are wrong in the ways real ones are (a folder
for a file, a header without rows, latin-1 bytes, one broken JSON line, lists in cells, clashing prompt ids, YAML
with tabs, several errors at once, an output folder that cannot exist ...). The contract: exit code 2 and one
line on stderr that names the file, column, row or key, no traceback, and no output file left behind; the same
inputs through the Python API raise ValueError/TypeError with that message. Inputs that are merely unusual (a
byte-order mark, CRLF line ends, a 1 MB cell) are read correctly. ``test_cli_bad_inputs.py`` has the rest."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.pipeline.responses.tables import read_table

runner = CliRunner()
OWN = "prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee thanks.\nThank the client.,Thank you.\n"
FAST = ["--no-progress", "--ci", "0", "--embedder", "none"]


def _bad_input(result: Any, *needles: str) -> None:
    """Exit 2, one error line on stderr naming what is wrong, no traceback or Python repr noise."""
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    for noise in ("Traceback", "codec can't decode", "DataFrame constructor", "<unicode string>", "Errno"):
        assert noise not in result.output, result.output
    for needle in needles:
        assert needle in lines[0], lines[0]


# ------------------------------------------------------------------------------------------ response tables

RESPONSE_FILES: dict[str, tuple[str, bytes, tuple[str, ...]]] = {
    "empty CSV": ("r.csv", b"", ("r.csv",)),
    "zero-byte Parquet": ("r.parquet", b"", ("r.parquet", "parquet")),
    "header only": ("r.csv", b"prompt,response\n", ("r.csv", "no rows")),
    "misspelled columns": ("r.csv", b"promt,respons\na,b\n", ("r.csv", "no column", "promt")),
    "latin-1 bytes": ("r.csv", "prompt,response\nCaf\xe9,ol\xe9\n".encode("latin-1"), ("r.csv", "UTF-8", "line 2")),
    "broken JSONL line": (
        "r.jsonl",
        b'{"prompt": "a", "response": "b"}\n{"prompt": "c", "resp\n{"prompt": "d", "response": "e"}\n',
        ("r.jsonl", "line 2"),
    ),
    "JSONL line not an object": ("r.jsonl", b'{"prompt": "a", "response": "b"}\n[1, 2]\n', ("line 2", "list")),
    "JSON scalar": ("r.json", b"5", ("r.json",)),
    "all-null responses": (
        "r.jsonl",
        b'{"prompt": "Hi Mrs Lee", "response": null}\n{"prompt": "b", "response": null}\n',
        ("r.jsonl", "'response'", "no response text"),
    ),
    "list in a response cell": (
        "r.jsonl",
        b'{"prompt": "a", "response": "ok"}\n{"prompt": "b", "response": [1, 2]}\n',
        ("r.jsonl", "'response'", "row 2", "list"),
    ),
    "null prompt": (
        "r.jsonl",
        b'{"prompt": null, "response": "ok"}\n{"prompt": "b", "response": "fine"}\n',
        ("'prompt'", "row 1", "empty"),
    ),
    "one id, two prompts": (
        "r.csv",
        b"prompt_id,prompt,response\n1,Hi Mrs Lee,ok\n1,Other text,fine\n",
        ("r.csv", "'prompt_id'", "'1'", "different original prompts"),
    ),
    "missing prompt id (CSV blank)": ("r.csv", b"prompt_id,prompt,response\n,Hi,ok\n2,b,fine\n", ("row 1", "no id")),
    "missing prompt id (JSON null)": (
        "r.jsonl",
        b'{"prompt_id": 1, "prompt": "a", "response": "ok"}\n{"prompt_id": null, "prompt": "b", "response": "x"}\n',
        ("'prompt_id'", "row 2", "no id"),
    ),
    "sample not a number": (
        "r.csv",
        b"prompt_id,sample,prompt,response\n1,0,a,ok\n1,first,a,fine\n",
        ("'sample'", "row 2", "'first'"),
    ),
    "misspelled attribute": (
        "r.csv",
        b"prompt_id,attribute,group,prompt,response\n1,gendr,female,Hi Mrs. Lee,ok\n1,gendr,male,Hi Mr. Lee,ok\n",
        ("'attribute'", "row 1", "'gendr'"),
    ),
    "misspelled group": (
        "r.csv",
        b"prompt_id,attribute,group,prompt,response\n1,gender,female,Hi Mrs. Lee,ok\n1,gender,mael,Hi Mr. Lee,ok\n",
        ("'group'", "row 2", "'mael'", "female, male"),
    ),
    "same sample twice": (
        "r.csv",
        b"prompt_id,sample,prompt,response\n1,0,a,ok\n2,0,b,x\n1,0,a,again\n",
        ("rows 1 and 3", "same sample"),
    ),
}


@pytest.mark.parametrize("case", list(RESPONSE_FILES))
def test_metrics_rejects_a_bad_responses_file(case: str, tmp_path: Path) -> None:
    name, data, needles = RESPONSE_FILES[case]
    (tmp_path / name).write_bytes(data)
    out = tmp_path / "out"
    _bad_input(runner.invoke(app, ["metrics", str(tmp_path / name), *FAST, "-o", str(out)]), *needles)
    assert not (out / "results.json").exists()


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["missing.csv"], ("no such file", "missing.csv")),
        (["folder.csv"], ("folder.csv", "is a folder")),
        (["own.csv", "--out", "own.csv/inside"], ("own.csv/inside", "cannot be created")),
        (["own.csv", "--task", "ranking"], ("--task", "use_case.task")),  # the flag, and the key it sets
        (["own.csv", "-a", "caste"], ("-a/--attribute", "use_case.attributes", "caste")),
        (["own.csv", "--response-column", "answer"], ("no column 'answer'",)),
        (["own.csv", "--scorer-option", "toxicity"], ("--scorer-option toxicity",)),
        (["own.csv", "--scorer-option", "toxicity.batch_size=[1"], ("--scorer-option", "not valid YAML")),
    ],
    ids=["missing", "folder", "out inside a file", "task", "attribute", "column flag", "option", "option YAML"],
)
def test_metrics_rejects_bad_paths_and_flags(args: list[str], needles: tuple[str, ...], tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    (tmp_path / "folder.csv").mkdir()
    _bad_input(runner.invoke(app, ["metrics", *args, *FAST]), *needles)
    assert not (tmp_path / "evenhand-out" / "results.json").exists()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("bom.csv", "\ufeffprompt,response\r\nHi Mrs. Lee,ok\r\nb,fine\r\n".encode()),
        ("bom.jsonl", '\ufeff{"prompt": "Hi Mrs. Lee", "response": "ok"}\r\n\r\n{"prompt": "b", "response": "x"}\r\n'
         .encode()),
        ("bom.tsv", "\ufeffprompt\tresponse\r\nHi Mrs. Lee\tok\r\n".encode()),
        ("bom.txt", "\ufeffHi Mrs. Lee\r\nb\r\n".encode()),
        ("bom.json", '\ufeff[{"prompt": "Hi Mrs. Lee", "response": "ok"}]'.encode()),
    ],
)  # fmt: skip
def test_byte_order_marks_and_crlf_are_read_as_text(name: str, data: bytes, tmp_path: Path) -> None:
    (tmp_path / name).write_bytes(data)
    table = read_table(tmp_path / name)
    assert table.columns[0] == "prompt" and table["prompt"].iloc[0] == "Hi Mrs. Lee"
    assert not any("\r" in str(v) or "\ufeff" in str(v) for v in table.to_numpy().ravel())


@pytest.mark.pipeline
def test_a_one_megabyte_cell_is_assessed(tmp_path: Path) -> None:
    big = "word " * 200_000
    (tmp_path / "big.csv").write_text(f"prompt,response\nHi Mrs. Lee,{big}\nThank the client.,fine\n", "utf-8")
    result = runner.invoke(app, ["metrics", str(tmp_path / "big.csv"), *FAST, "--no-html", "-o", str(tmp_path / "o")])
    assert result.exit_code == ExitCode.OK, result.output
    doc = json.loads((tmp_path / "o" / "results.json").read_text(encoding="utf-8"))
    assert max(len(r["response"]) for r in doc["responses"]) == len(big)


# ---------------------------------------------------------------------------------------------------- configs

OWN_CONFIG = "use_case: {task: text_generation, attributes: [gender]}\nresponses: {path: own.csv}\n"
CONFIGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "a list": ("- use_case\n- prompts\n", ("top level must be a mapping", "list")),
    "a scalar": ("just words\n", ("top level must be a mapping", "str")),
    "empty": ("", ("top level must be a mapping",)),
    "tabs": ("use_case:\n\ttask: text_generation\n", ("not valid YAML", "line 2", "spaces, not tabs")),
    "unknown key": (OWN_CONFIG + "statistcs: {ci: 0.9}\n", ("statistcs", "Extra inputs")),
    "string for a number": (OWN_CONFIG + "statistics: {n_resamples: many}\n", ("statistics.n_resamples",)),
    "negative count": (OWN_CONFIG + "generation: {count: -3}\n", ("generation.count",)),
    "ci 1.5": (OWN_CONFIG + "statistics: {ci: 1.5}\n", ("statistics.ci",)),
    "resamples 0": (OWN_CONFIG + "statistics: {n_resamples: 0}\n", ("statistics.n_resamples",)),
    "threshold metric": (OWN_CONFIG + "thresholds: [{metric: TOXIC, max: 1}]\n", ("thresholds.0.metric", "TOXIC")),
    "threshold attribute": (OWN_CONFIG + "thresholds: [{metric: TF, attribute: caste, max: 1}]\n", ("caste",)),
    "unknown attribute": (
        OWN_CONFIG.replace("[gender]", "[gendr]"), ("use_case.attributes", "gendr", "did you mean 'gender'?")
    ),
    "custom attribute not a mapping": (
        OWN_CONFIG.replace("attributes: [gender]", "custom_attributes: {caste: [a, b]}"),
        ("use_case.custom_attributes.caste",),
    ),
    "custom attribute one group": (
        OWN_CONFIG.replace("attributes: [gender]", "custom_attributes: {caste: {a: [x]}}"),
        ("caste", "two groups"),
    ),
    "two errors, one line": (
        "use_case: {task: text_generation}\nprompts: {items: [null, 3]}\n",
        ("prompts.items.0", "prompts.items.1"),
    ),
    "responses path a folder": (OWN_CONFIG.replace("own.csv", "."), ("is a folder",)),
    "blank prompt in a file": ("use_case: {task: text_generation}\nprompts: {path: blank.csv}\n", ("row 2", "empty")),
    "duplicate prompt ids": (
        "use_case: {task: text_generation}\nprompts: {path: ids.csv, id_column: id}\n",
        ("ids.csv", "rows 1 and 2", "'7'"),
    ),
    "store is a folder": (
        "use_case: {task: text_generation}\nprompts: {items: [Hi.]}\ngeneration: {store: .}\n"
        "model: {provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m}\n",
        ("generation.store", "is a folder"),
    ),
    "store not SQLite": (
        "use_case: {task: text_generation}\nprompts: {items: [Hi.]}\ngeneration: {store: notes.txt}\n"
        "model: {provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m}\n",
        ("generation.store", "notes.txt", "not a SQLite file"),
    ),
    "a key written twice": (OWN_CONFIG + "statistics: {ci: 0.9}\nstatistics: {ci: 0.8}\n", ("'statistics'", "twice")),
    "a Python tag": ("use_case: !!python/object/apply:os.system ['true']\n", ("not valid YAML", "python/object")),
    "local model path missing": (
        "use_case: {task: text_generation}\nprompts: {items: [Hi.]}\nmodel: {provider: local, model: /no/such/model}\n",
        ("model.model", "/no/such/model"),
    ),
    "headers not a mapping": (
        "use_case: {task: text_generation}\nprompts: {items: [Hi.]}\n"
        "model: {provider: openai, base_url: 'http://127.0.0.1:9/v1', model: m, options: {headers: [a]}}\n",
        ("model.options.headers",),
    ),
}


@pytest.mark.parametrize("case", list(CONFIGS))
def test_assess_rejects_a_bad_config_in_one_line(case: str, tmp_path: Path) -> None:
    text, needles = CONFIGS[case]
    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    (tmp_path / "blank.csv").write_text("prompt\nHi Mrs. Lee\n\"\"\n", encoding="utf-8")
    (tmp_path / "ids.csv").write_text("prompt,id\nHi Mrs. Lee,7\nThank him.,7\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("my notes, not a database\n", encoding="utf-8")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    _bad_input(runner.invoke(app, ["assess", str(cfg), "--no-progress", "-o", str(out)]), *needles)
    assert not (out / "results.json").exists()


def test_config_paths_that_are_not_config_files(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").mkdir()
    _bad_input(runner.invoke(app, ["assess", str(tmp_path / "c.yaml")]), "c.yaml", "is a folder")
    _bad_input(runner.invoke(app, ["plan", str(tmp_path / "c.yaml")]), "c.yaml", "is a folder")
    _bad_input(runner.invoke(app, ["assess", str(tmp_path / "none.yaml")]), "none.yaml", "not found")


def test_an_output_folder_that_cannot_be_made_fails_before_any_work(tmp_path: Path) -> None:
    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(OWN_CONFIG, encoding="utf-8")
    target = tmp_path / "own.csv" / "out"
    _bad_input(runner.invoke(app, ["assess", str(tmp_path / "c.yaml"), "-o", str(target)]), str(target))
    assert (tmp_path / "own.csv").read_text(encoding="utf-8") == OWN


def test_an_output_folder_without_write_permission_fails_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from evenhand.pipeline.results import outputs

    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(OWN_CONFIG, encoding="utf-8")
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    def access(path: Any, mode: int) -> bool:  # as for a user without write permission there (tests run as root)
        return not (Path(path) == locked and mode & os.W_OK) and real_access(path, mode)

    monkeypatch.setattr(outputs.os, "access", access)
    _bad_input(runner.invoke(app, ["assess", str(tmp_path / "c.yaml"), "-o", str(locked)]), "locked", "not writable")
    assert not any(locked.iterdir())


@pytest.mark.pipeline
def test_a_failure_while_writing_leaves_the_previous_outputs_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from evenhand.pipeline.results.assessment import Assessment

    (tmp_path / "own.csv").write_text(OWN, encoding="utf-8")
    out = tmp_path / "out"
    args = ["metrics", str(tmp_path / "own.csv"), *FAST, "-o", str(out)]
    assert runner.invoke(app, args).exit_code == ExitCode.OK
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}

    def disk_full(self: Any, path: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Assessment, "to_html", disk_full)
    (tmp_path / "own.csv").write_text(OWN.replace("Thank you.", "Thanks a lot."), encoding="utf-8")
    assert runner.invoke(app, args).exit_code != ExitCode.OK
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == before  # the old set, whole: no new results.json beside an old report.html, no staging debris


# ------------------------------------------------------------------------------------------ plan --prompts


@pytest.mark.parametrize(
    ("name", "data", "needles"),
    [
        ("p.csv", b"prompt\n", ("p.csv", "no prompts")),
        ("p.jsonl", b'{"prompt": null}\n{"prompt": "Hi Mrs. Lee"}\n', ("p.jsonl", "row 1", "empty")),
        ("p.csv", "prompt\nCaf\xe9\n".encode("latin-1"), ("p.csv", "not UTF-8")),
    ],
    ids=["header only", "null prompt", "latin-1"],
)
def test_plan_rejects_bad_prompt_files(name: str, data: bytes, needles: tuple[str, ...], tmp_path: Path) -> None:
    (tmp_path / name).write_bytes(data)
    result = runner.invoke(app, ["plan", "--task", "text_generation", "--prompts", str(tmp_path / name), "--no-ask"])
    _bad_input(result, *needles)


def test_plan_prompts_without_a_prompt_column_names_the_columns(tmp_path: Path) -> None:
    """`id,text`: the ids are not the prompts. plan read the first column, found no group word in "1" and "2", and
    said FTU holds; with several columns and none named prompt (or messages) it now asks, naming them."""
    plan = ["plan", "--task", "text_generation", "--no-ask", "--prompts"]
    (tmp_path / "p.csv").write_text("id,text\n1,Write to Mrs. Lee.\n2,Write to the client.\n")
    result = runner.invoke(app, [*plan, str(tmp_path / "p.csv")])
    _bad_input(result, "p.csv", "no column 'prompt'", "id, text")
    (tmp_path / "one.csv").write_text("text\nWrite to Mrs. Lee.\nWrite to the client.\n")  # one column: the prompts
    result = runner.invoke(app, [*plan, str(tmp_path / "one.csv")])
    assert result.exit_code == ExitCode.OK and "1 of 2 prompts" in result.output, result.output


# ------------------------------------------------------------------------------- results for report / compare


@pytest.fixture(scope="module")
def results_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("results")
    (folder / "own.csv").write_text(OWN, encoding="utf-8")
    result = runner.invoke(app, ["metrics", str(folder / "own.csv"), *FAST, "--no-html", "-o", str(folder / "out")])
    assert result.exit_code == ExitCode.OK, result.output
    return folder / "out" / "results.json"


def _results_variant(good: Path, case: str) -> bytes:
    text = good.read_text(encoding="utf-8")
    doc = json.loads(text)
    if case == "truncated":
        return text[: len(text) // 2].encode()
    if case == "not JSON":
        return b"<html>not json</html>"
    if case == "empty":
        return b""
    if case == "another schema version":
        return json.dumps(doc | {"schema_version": "99.0"}).encode()
    if case == "another schema":
        return json.dumps(doc | {"schema": "someone-else/results"}).encode()
    if case == "a list":
        return b"[1, 2, 3]"
    raise AssertionError(case)


RESULT_CASES = {
    "truncated": "not valid JSON",
    "not JSON": "not valid JSON",
    "empty": "not valid JSON",
    "another schema version": "schema version 99.0",
    "another schema": "not an evenhand results file",
    "a list": "not an evenhand results file",
}


@pytest.mark.parametrize("command", ["report", "compare"])
@pytest.mark.parametrize("case", list(RESULT_CASES))
def test_report_and_compare_reject_bad_results(case: str, command: str, results_json: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_bytes(_results_variant(results_json, case))
    out = tmp_path / "out"
    if command == "report":
        args = ["report", str(bad), "--out", str(out / "report.html")]
    else:
        args = ["compare", str(results_json), str(bad), "--out", str(out), "--n-resamples", "10"]
    _bad_input(runner.invoke(app, args), "bad.json", RESULT_CASES[case])
    assert not out.exists() or not any(out.iterdir())


def test_a_folder_given_for_results_is_named_as_a_folder(results_json: Path, tmp_path: Path) -> None:
    _bad_input(runner.invoke(app, ["report", str(tmp_path)]), str(tmp_path), "is a folder")
    _bad_input(runner.invoke(app, ["compare", str(results_json), str(tmp_path)]), str(tmp_path), "is a folder")


@pytest.mark.parametrize("inside", [False, True])
def test_compare_out_blocked_by_a_file_fails_before_comparing(inside: bool, results_json: Path, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("keep", encoding="utf-8")
    out = tmp_path / "file.txt" / "cmp" if inside else tmp_path / "file.txt"
    result = runner.invoke(app, ["compare", str(results_json), str(results_json), "--out", str(out)])
    _bad_input(result, "--out", "file.txt is a file")
    assert result.stdout == "" and (tmp_path / "file.txt").read_text(encoding="utf-8") == "keep"  # no table first


@pytest.mark.parametrize("where", ["a folder", "inside a file"])
def test_report_out_that_cannot_be_written_is_exit_2(where: str, results_json: Path, tmp_path: Path) -> None:
    (tmp_path / "file.txt").write_text("keep", encoding="utf-8")
    target = tmp_path if where == "a folder" else tmp_path / "file.txt" / "report.html"
    _bad_input(runner.invoke(app, ["report", str(results_json), "--out", str(target)]), "--out", "cannot write")
    assert (tmp_path / "file.txt").read_text(encoding="utf-8") == "keep"


# ------------------------------------------------------------------------------------------------ Python API


@pytest.mark.parametrize(
    ("table", "error", "match"),
    [
        (pd.DataFrame({"prompt": [], "response": []}), ValueError, "no rows"),
        (pd.DataFrame({"text": ["a"], "response": ["b"]}), ValueError, "no column 'prompt'"),
        (pd.DataFrame({"prompt": ["a", "b"], "response": ["x", {"k": 1}]}), ValueError, "row 2 holds a dict"),
        (pd.DataFrame({"prompt": ["a", None], "response": ["x", "y"]}), ValueError, "'prompt'.*row 2 is empty"),
        (pd.DataFrame({"prompt": ["a", "b"], "response": [None, float("nan")]}), ValueError, "no response text"),
        (pd.DataFrame({"prompt_id": [3, 3], "prompt": ["a", "b"], "response": ["x", "y"]}), ValueError,
         "id '3' names different original prompts"),
    ],
    ids=["no rows", "no prompt column", "dict cell", "missing prompt", "no text", "id clash"],
)  # fmt: skip
def test_python_api_rejects_bad_tables_with_a_clear_error(table: pd.DataFrame, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        evenhand.assess(task="text_generation", responses=table, embedder=False, ci=None, progress=False)


# ------------------------------------------------------------------------------------ flags the parser rejects


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (["demo", "--limit", "0"], ("evenhand demo", "'--limit'")),
        (["metrics", "r.csv", "--ci", "abc"], ("evenhand metrics", "'--ci'")),
        (["assess", "c.yaml", "--count", "-1"], ("evenhand assess", "'--count'")),
        (["assess"], ("evenhand assess", "Missing argument")),
        (["metrics", "r.csv", "--bogus"], ("--bogus",)),
        (["asess", "c.yaml"], ("No such command 'asess'",)),
    ],
    ids=["limit 0", "ci not a number", "negative count", "no config", "unknown option", "misspelled command"],
)
def test_usage_errors_are_one_line_too(args: list[str], needles: tuple[str, ...]) -> None:
    _bad_input(runner.invoke(app, args), *needles)


@pytest.mark.subprocess
def test_usage_errors_from_the_console_script_and_help_without_arguments() -> None:
    import os
    import subprocess
    import sys

    script = str(Path(sys.executable).with_name("evenhand"))
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run([script, "demo", "--limit", "0"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == ExitCode.BAD_INPUT and done.stdout == "", done
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "'--limit'" in done.stderr, done.stderr
    bare = subprocess.run([script], capture_output=True, text=True, timeout=120, env=env)
    assert "Usage" in bare.stdout + bare.stderr and "error:" not in bare.stdout + bare.stderr  # the help, as before


def _write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    """``rows`` as the file's format: CSV (numbers come back as numbers), JSON Lines or Parquet."""
    import pandas as pd

    if path.suffix == ".csv":
        pd.DataFrame(rows).to_csv(path, index=False)
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        pd.DataFrame(rows).to_parquet(path)


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_shared_prompt_ids_and_a_column_of_numbers_are_bad_input_in_every_format(suffix: str, tmp_path: Path) -> None:
    """A shared id joins one response to two prompts (prompt_key); a prompt column of numbers only is another column
    named by mistake (its prompts were read as the texts "7", "8"). Each is one line naming the file and column."""
    table = tmp_path / f"p{suffix}"
    cfg = tmp_path / "c.yaml"
    texts = ["Hi Mrs. Lee", "Thank him.", "Greet her.", "Ask him.", "Call her."]
    _write_table(table, [{"prompt": t, "id": i} for t, i in zip(texts, [7, 8, 7, 9, 8], strict=True)])
    cfg.write_text(f"use_case: {{task: text_generation}}\nprompts: {{path: p{suffix}, id_column: id}}\n", "utf-8")
    result = runner.invoke(app, ["assess", str(cfg), "--no-progress", "-o", str(tmp_path / "out")])
    shared = ("rows 1 and 3 share the id '7'", "2 ids are shared", "'8' (rows 2, 5)")
    _bad_input(result, f"p{suffix}", "column 'id'", *shared)
    cfg.write_text(f"use_case: {{task: text_generation}}\nprompts: {{path: p{suffix}, column: id}}\n", "utf-8")
    result = runner.invoke(app, ["assess", str(cfg), "--no-progress", "-o", str(tmp_path / "out")])
    _bad_input(result, f"p{suffix}", "column 'id' (prompts)", "every row is a number", "'7'")


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_a_number_among_prompts_is_read_as_its_text(suffix: str, tmp_path: Path) -> None:
    from evenhand.pipeline.responses.tables import prompt_column, read_table

    table = tmp_path / f"p{suffix}"
    _write_table(table, [{"prompt": "Hi Mrs. Lee"}, {"prompt": "123"}])
    assert prompt_column(read_table(table), "prompt", source=str(table)) == ["Hi Mrs. Lee", "123"]


@pytest.mark.parametrize(
    ("args", "help_line"),
    [
        (["assess"], "evenhand assess --help"),
        (["asess", "c.yaml"], "evenhand --help"),
        (["demo", "--limit", "0"], "evenhand demo --help"),
    ],
    ids=["no config", "misspelled command", "limit 0"],
)
def test_a_usage_error_says_where_the_options_and_examples_are(args: list[str], help_line: str) -> None:
    """newcomer17: `evenhand assess` alone said only "Missing argument 'config'"; a usage error now names the help
    that lists the command's options and ends with examples of its use (one line still)."""
    result = runner.invoke(app, args)
    _bad_input(result, help_line)
    assert "examples" in result.output
