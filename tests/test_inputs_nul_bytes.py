"""A prompts or responses file holding NUL bytes (faults17): UTF-16 text saved without a byte-order mark (every other
byte NUL), a binary file named .txt, or one stray NUL. Read as UTF-8 it became prompts like ``W\\x00r\\x00i\\x00...``,
sent to the model and scored, exit 0. A NUL is never part of a prompt's text: the file is refused (exit 2), in one
line that names it and the line of the first NUL, whatever its format (one check in ``read_table``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.errors import InputError
from evenhand.pipeline.responses.tables import read_table

PROMPTS = "Write to Mrs. Lee about her loan.\nThank Mr. Park for the call.\n"


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        ("utf16.txt", PROMPTS.encode("utf-16-le"), 1),
        ("utf16be.txt", PROMPTS.encode("utf-16-be"), 1),
        ("stray.txt", PROMPTS.encode().replace(b"Park", b"Pa\x00rk"), 2),
        ("only-nul-line.txt", PROMPTS.encode() + b"\x00\x00\n", 3),
        ("rows.csv", ("prompt\n" + PROMPTS).encode().replace(b"her", b"h\x00er"), 2),
        ("rows.jsonl", b'{"prompt": "Write to Mrs. Lee."}\n{"prompt": "Thank \x00 Mr. Park."}\n', 2),
    ],
)
def test_a_file_with_a_nul_byte_is_refused_naming_the_file_and_line(
    tmp_path: Path, name: str, data: bytes, line: int
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(InputError) as caught:
        read_table(path)
    message = str(caught.value)
    assert str(path) in message and f"NUL byte on line {line}" in message, message
    assert "\n" not in message and "\x00" not in message


def test_an_escaped_nul_in_json_is_text_and_is_read(tmp_path: Path) -> None:
    """Only a raw NUL byte is refused: JSON's escaped \\u0000 is a value the file means, read as written."""
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps({"prompt": "Write to Mrs. Lee.\u0000"}) + "\n", encoding="utf-8")
    assert read_table(path)["prompt"].tolist() == ["Write to Mrs. Lee.\x00"]


def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path: Path) -> None:
    own = tmp_path / "own.csv"
    own.write_bytes("prompt,response\nWrite to Mrs. Lee.,Dear Mrs. Lee.\n".encode("utf-16-le"))
    result = CliRunner().invoke(app, ["metrics", str(own), "--no-progress", "--ci", "0", "--embedder", "none"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "Traceback" not in result.output and "NUL byte on line 1" in result.output, result.output
