"""The training-only sentences of the offline toxicity model by independent author E
(``evenhand_training/data/toxicity_training_author_e.json``, branch train8e): insults and hard benign sentences an
assistant for tutoring, coding help, writing feedback, travel, fitness, parenting, gaming, dating, insurance,
telecoms or government services might write, in mixed registers. Checked: the schema, the documented kinds, groups
and counts, one distinct sentence per entry, the registers asked for, and no 5-word run shared with the evaluation
sets, the other training files or each other (the near-copy rule the author applied while writing)."""

from __future__ import annotations

import json
import re
from typing import Any

from test_toxicity_training_extra import assert_no_shared_run, written_before

from evenhand.scorers import toxicity_sets as ts
from evenhand_training.toxicity import EXTRA_FILE

AUTHOR_FILE = EXTRA_FILE.parent / "toxicity_training_author_e.json"
OTHER_AUTHORS = ("a", "b", "c")
#: kind or group -> sentences held (as asked: about 400 insults, 340 benign).
INSULT_KINDS = {"indirect": 200, "contempt": 90, "group": 50, "direct": 30, "threat": 30}
BENIGN_GROUPS = {"banking": 40, "health": 40, "it_security": 25, "legal": 25, "hr": 25, "retail": 25,
                 "other_settings": 60, "sincere_question": 40, "firm_feedback": 40,
                 "playful_but_kind": 20}  # fmt: skip
PROFANE = re.compile(r"shit|\bhell\b|damn|\b(dumb)?ass(hole)?\b|prick|screw|\bcrap", re.IGNORECASE)
#: a sentence boundary inside an entry.
SECOND_SENTENCE = re.compile(r"[.?!][\"”]? +[A-Z]")


def author_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(AUTHOR_FILE.read_text(encoding="utf-8"))
    return data


def sentences(data: dict[str, Any]) -> list[str]:
    return [t for key in ("insults", "hard_benign") for group in data[key].values() for t in group]


def test_schema_kinds_groups_and_counts() -> None:
    data = author_file()
    assert set(data) == {"version", "author", "comment", "insults", "hard_benign"}
    assert data["version"] == 1 and data["author"] == "train8e"
    assert "independence" in data["comment"] and "5-word run" in data["comment"] and "Apache-2.0" in data["comment"]
    assert list(data["insults"]) == list(INSULT_KINDS) and list(data["hard_benign"]) == list(BENIGN_GROUPS)
    assert {k: len(v) for k, v in data["insults"].items()} == INSULT_KINDS
    assert {k: len(v) for k, v in data["hard_benign"].items()} == BENIGN_GROUPS
    assert set(ts.INSULT_DOMAINS) <= set(BENIGN_GROUPS)


def test_registers_and_veiled_insults() -> None:
    """Some direct insults swear, most indirect ones use no rude word, and texting register (lower case start)
    appears among both insults and benign sentences."""
    data = author_file()
    assert sum(bool(PROFANE.search(t)) for t in data["insults"]["direct"]) >= 5
    assert sum(bool(PROFANE.search(t)) for t in data["insults"]["indirect"]) == 0
    for key in ("insults", "hard_benign"):
        assert sum(t[0].islower() for group in data[key].values() for t in group) >= 10
    assert sum(t.endswith("?") for t in data["hard_benign"]["sincere_question"]) >= 30


def test_one_distinct_sentence_per_entry() -> None:
    ours = sentences(author_file())
    assert all(isinstance(t, str) and t == t.strip() and t.isascii() for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(INSULT_KINDS.values()) + sum(BENIGN_GROUPS.values())
    assert all(4 <= len(t.split()) <= 24 for t in ours)


def test_no_five_word_run_shared_with_evaluation_or_other_training_rows_or_each_other() -> None:
    """No 5-word run (lower-cased, punctuation stripped, apostrophes removed) in common with any string of the
    toxicity sets (every split), the reply frames, the scorer audit's statements, the SmolLM2 replies, the older
    training file or authors A, B and C; nor between two of this file's sentences."""
    assert_no_shared_run(sentences(author_file()), written_before(*OTHER_AUTHORS))
