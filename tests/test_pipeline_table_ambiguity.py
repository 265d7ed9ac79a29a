"""A table that names a column twice (a CSV header, a JSON Lines object's key) is refused in one line naming the
file, the name and where: pandas kept the first CSV column as ``response`` and renamed the second ``response.1``,
and ``json.loads`` kept the last key, so a run read one of two answers without a word."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.pipeline.responses.tables import read_table

ROWS = "Write to Mrs. Lee,Dear Mrs. Lee,Approved\nWrite to Mr. Lee,Dear Mr. Lee,Denied\n"


@pytest.mark.parametrize(
    ("name", "text", "says"),
    [
        ("r.csv", "prompt,response,response\n" + ROWS,
         "column 'response' appears twice in its header (columns 2 and 3)"),
        ("r.tsv", "prompt\tresponse\tresponse\n" + ROWS.replace(",", "\t"), "column 'response' appears twice"),
        ("r.csv", "\ufeffprompt,prompt,response\r\n" + ROWS.replace("\n", "\r\n"), "column 'prompt' appears twice"),
        ("r.jsonl", '{"prompt": "Write to Mrs. Lee", "response": "a", "response": "b"}\n',
         "line 1 has the key 'response' twice"),
    ],
)  # fmt: skip
def test_a_name_given_twice_is_refused_naming_it(name: str, text: str, says: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", newline="")
    with pytest.raises(ValueError, match="twice") as refused:
        read_table(path)
    assert str(path) in str(refused.value) and says in str(refused.value), refused.value
    result = CliRunner().invoke(app, ["metrics", str(path), "--task", "text_generation", "-a", "gender",
                                      "--out", str(tmp_path / "out"), "--no-progress"])  # fmt: skip
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and says in error[0] and "Traceback" not in result.output


def test_names_that_only_look_alike_are_read(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("prompt,response,response.1,Response\n" + "a,b,c,d\n", encoding="utf-8")
    assert list(read_table(path).columns) == ["prompt", "response", "response.1", "Response"]
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"prompt": "p", "response": "r", "meta": {"response": "kept apart"}}\n', encoding="utf-8")
    assert read_table(jsonl)["response"].tolist() == ["r"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_utf16_table_is_named_as_such_not_as_latin1(encoding: str, tmp_path: Path) -> None:
    """Excel's "Unicode text" and PowerShell's default write UTF-16 with a byte-order mark; the error said "byte 0xff
    on line 1, e.g. latin-1 or Windows-1252", which sends the user to the wrong fix."""
    path = tmp_path / "r.csv"
    path.write_bytes(("\ufeff" if encoding == "utf-16-be" else "").encode(encoding) + ROWS.encode(encoding))
    with pytest.raises(ValueError, match=r"is UTF-(16|32) text \(its byte-order mark says so\); save it as UTF-8"):
        read_table(path)
