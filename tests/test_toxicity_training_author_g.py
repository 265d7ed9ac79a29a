"""Author G's training-only file of the offline toxicity model (``toxicity_training_author_g.json``, branch trainG;
issue 34): insults aimed at groups of people and veiled insults, and hard benign sentences (first-person identity
statements, the six domains' charged words, sincere questions, firm feedback). Checked like the files of
``test_toxicity_training_authors``: schema, the documented kinds, groups and counts, one distinct sentence per
entry, and the near-copy rule (no 5-word run shared with the evaluation sets, the older training files, authors A-F,
the SmolLM2 replies of both files, or another of its own sentences)."""

from __future__ import annotations

import json
import re
from typing import Any

from test_toxicity_training_authors import PROFANE, SECOND_SENTENCE
from test_toxicity_training_extra import assert_no_shared_run, written_before

from evenhand.scorers import toxicity_sets as ts
from evenhand_training.toxicity import EXTRA_FILE

FILE = EXTRA_FILE.parent / "toxicity_training_author_g.json"
INSULTS = {"group": 160, "indirect": 150, "contempt": 60, "direct": 40, "threat": 30}
BENIGN = {"identity": 120, "banking": 60, "legal": 50, "retail": 50, "health": 40, "it_security": 40, "hr": 40,
          "sincere_question": 40, "firm_feedback": 40}  # fmt: skip
FIRST_PERSON = re.compile(r"\b(I|I'm|my|me)\b")


def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(FILE.read_text(encoding="utf-8"))
    return loaded


def sentences(author: dict[str, Any]) -> list[str]:
    return [t for key in ("insults", "hard_benign") for group in author[key].values() for t in group]


def test_schema_kinds_groups_and_counts() -> None:
    author = data()
    assert set(author) == {"version", "author", "comment", "insults", "hard_benign"}
    assert author["version"] == 1 and author["author"] == "trainG"
    comment = author["comment"]
    assert "independen" in comment.lower() and "5-word run" in comment and "Apache-2.0" in comment
    assert {k: len(v) for k, v in author["insults"].items()} == INSULTS
    assert {k: len(v) for k, v in author["hard_benign"].items()} == BENIGN
    assert list(author["insults"]) == list(INSULTS) and list(author["hard_benign"]) == list(BENIGN)
    assert set(ts.INSULT_DOMAINS) <= set(author["hard_benign"])


def test_one_distinct_ascii_sentence_of_4_to_24_words_per_entry() -> None:
    ours = sentences(data())
    assert all(isinstance(t, str) and t == t.strip() and t and t.isascii() for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(INSULTS.values()) + sum(BENIGN.values())
    assert all(4 <= len(t.split()) <= 24 for t in ours)


def test_what_the_brief_asked_of_the_groups() -> None:
    """Some direct insults swear, the veiled ones do not; most identity statements are in the first person; the
    sincere questions are questions or gentle reminders (most end with a question mark)."""
    author = data()
    assert sum(bool(PROFANE.search(t)) for t in author["insults"]["direct"]) >= 15
    assert not [t for t in author["insults"]["indirect"] if PROFANE.search(t)]
    assert sum(bool(FIRST_PERSON.search(t)) for t in author["hard_benign"]["identity"]) >= 105
    assert sum(t.endswith("?") for t in author["hard_benign"]["sincere_question"]) >= 35


def test_no_five_word_run_shared_with_evaluation_or_earlier_training_rows_or_each_other() -> None:
    """No 5-word run (lower-cased, punctuation stripped, apostrophes removed) in common with any string of the
    toxicity sets (every split, fresh6 included), the reply frames, the scorer audit's statements, the SmolLM2
    replies (``toxicity_llm_replies.json`` and ``toxicity_llm_replies_more.json``), the older training file or the
    files of authors A-F; nor between two of this file's sentences."""
    more = json.loads((EXTRA_FILE.parent / "toxicity_llm_replies_more.json").read_text(encoding="utf-8"))
    others = written_before("a", "b", "c", "d", "e", "f") + list(_strings(more))
    assert_no_shared_run(sentences(data()), others)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [t for item in items for t in _strings(item)]
