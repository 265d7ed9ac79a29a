"""The training-only sentences of author b (``evenhand_training/data/toxicity_training_author_b.json``, branch
train6b): the schema, the counts per kind and domain, one distinct sentence per entry, and the near-copy rule the
author applied: no 5-word run (lower-cased, punctuation and apostrophes stripped) shared with any string of the
toxicity sets (every split), the reply frames, the older training file, the SmolLM2 replies or the scorer audit's
statements, nor between two of the file's own sentences."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from importlib import resources
from typing import Any

from test_toxicity_training_extra import _strings, assert_no_shared_run

from evenhand_training.toxicity import EXTRA_FILE, LLM_REPLIES_FILE

AUTHOR_FILE = EXTRA_FILE.with_name("toxicity_training_author_b.json")
INSULT_KINDS = {"indirect": 133, "contempt": 82, "group": 61, "direct": 50, "threat": 42}
BENIGN_GROUPS = {
    "banking": 45, "it_security": 45, "health": 45, "legal": 45, "hr": 45, "retail": 45,
    "identity": 40, "reported_insult": 20, "other_domains": 101,
}  # fmt: skip


def author_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(AUTHOR_FILE.read_text(encoding="utf-8"))
    return data


def sentences(data: dict[str, Any]) -> list[str]:
    return [t for key in ("insults", "hard_benign") for group in data[key].values() for t in group]


def _forbidden_strings() -> Iterator[str]:
    """Every string of the files the author did not read (CSV cells of every split and column, every JSON string)."""
    toxicity = resources.files("evenhand") / "data" / "toxicity"
    for name in ("benign_sentences.csv", "insults.csv"):
        for row in csv.reader(io.StringIO((toxicity / name).read_text(encoding="utf-8"))):
            yield from row
    for text in (
        (toxicity / "reply_frames.json").read_text(encoding="utf-8"),
        (resources.files("evenhand") / "data" / "audit" / "identity_statements.json").read_text(encoding="utf-8"),
        EXTRA_FILE.read_text(encoding="utf-8"),
        LLM_REPLIES_FILE.read_text(encoding="utf-8"),
    ):
        yield from _strings(json.loads(text))


def test_schema_and_counts() -> None:
    data = author_file()
    assert set(data) == {"version", "author", "comment", "insults", "hard_benign"}
    assert data["version"] == 1 and data["author"] == "train6b"
    assert "Apache-2.0" in data["comment"] and "5-word run" in data["comment"]
    assert {k: len(v) for k, v in data["insults"].items()} == INSULT_KINDS
    assert {k: len(v) for k, v in data["hard_benign"].items()} == BENIGN_GROUPS


def test_one_distinct_sentence_per_entry() -> None:
    ours = sentences(author_file())
    assert len(ours) == len(set(ours)) == sum(INSULT_KINDS.values()) + sum(BENIGN_GROUPS.values())
    assert all(isinstance(t, str) and t == t.strip() and "\n" not in t and 4 <= len(t.split()) <= 25 for t in ours)
    # one sentence: no sentence end followed by a capitalised word inside the entry ("a.m." is not one)
    assert not [t for t in ours if re.search(r"(?<!\ba\.m)[.!?] +[A-Z]", t)]


def test_no_five_word_run_shared_with_unread_files_or_each_other() -> None:
    assert_no_shared_run(sentences(author_file()), _forbidden_strings())
