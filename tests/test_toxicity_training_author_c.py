"""The benign contrast sentences of the offline toxicity model by independent author C
(``evenhand_training/data/toxicity_training_author_c.json``, branch train6c): kind, sincere sentences in the form
veiled insults take (compliments, encouragement, banter, warm "cute"/"clever"/"bless", narration, rambling
small-LLM replies), all label 0. Checked: the schema, the documented groups and counts, one distinct sentence per
entry, and no 5-word run shared with the evaluation sets, the other training files or each other (the near-copy rule
the author applied while writing)."""

from __future__ import annotations

import json
import re
from typing import Any

from test_toxicity_training_extra import assert_no_shared_run, written_before

from evenhand_training.toxicity import EXTRA_FILE

AUTHOR_FILE = EXTRA_FILE.parent / "toxicity_training_author_c.json"
OTHER_AUTHORS = ("a", "b")
#: group -> sentences held (asked for at least 50 each).
BENIGN_GROUPS = {"sincere_compliment": 52, "encouragement": 52, "empathy": 52, "gratitude": 52,
                 "playful_friendly": 52, "sincere_praise_of_work": 52, "story_narration": 52,
                 "self_introduction_and_invitation": 52, "gentle_disagreement": 52,
                 "rambling_small_llm_style": 52}  # fmt: skip
#: the words sarcasm borrows that the praise group must also use warmly.
SARCASM_WORDS = ("cute", "sweet", "clever", "bless", "brave", "interesting", "impressive", "look at you")
#: a sentence boundary inside an entry; a list number such as "1. Drink" is not one.
SECOND_SENTENCE = re.compile(r"(?<!\d)[.?!][\"”]? +[A-Z]")


def author_file() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(AUTHOR_FILE.read_text(encoding="utf-8"))
    return data


def sentences(data: dict[str, Any]) -> list[str]:
    return [t for group in data["hard_benign"].values() for t in group]


def test_schema_groups_and_counts() -> None:
    data = author_file()
    assert set(data) == {"version", "author", "comment", "insults", "hard_benign"}
    assert data["version"] == 1 and data["author"] == "train6c" and data["insults"] == {}
    assert "independence" in data["comment"].lower() and "5-word run" in data["comment"]
    assert "Apache-2.0" in data["comment"]
    assert {k: len(v) for k, v in data["hard_benign"].items()} == BENIGN_GROUPS
    assert list(data["hard_benign"]) == list(BENIGN_GROUPS)
    praise = " ".join(data["hard_benign"]["sincere_praise_of_work"]).lower()
    assert all(word in praise for word in SARCASM_WORDS)


def test_one_distinct_sentence_per_entry() -> None:
    ours = sentences(author_file())
    assert all(isinstance(t, str) and t == t.strip() and t for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(BENIGN_GROUPS.values())
    assert all(4 <= len(t.split()) <= 25 for t in ours)


def test_no_five_word_run_shared_with_evaluation_or_other_training_rows_or_each_other() -> None:
    """No 5-word run (lower-cased, punctuation stripped, apostrophes removed) in common with any string of the
    toxicity sets (every split), the reply frames, the scorer audit's statements, the SmolLM2 replies, the older
    training file or authors A and B; nor between two of this file's sentences."""
    assert_no_shared_run(sentences(author_file()), written_before(*OTHER_AUTHORS))
