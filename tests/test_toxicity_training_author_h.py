"""The training-only file of the offline toxicity model by independent author H (trainH, issue 34):
``evenhand_training/data/toxicity_training_author_h.json``. Group-aimed and veiled insults and hard benign sentences
(first-person identity statements, charged words of settings beyond the six main domains, kind banter, questions,
frank feedback, reported insults). Its schema, groups and counts, one distinct sentence per entry, and no 5-word run
shared with the evaluation sets, the older training files, authors A-F, the SmolLM2 replies (both files), or itself.
"""

from __future__ import annotations

import json
from typing import Any

from test_toxicity_training_authors import PROFANE, SECOND_SENTENCE, sentences
from test_toxicity_training_extra import _strings, assert_no_shared_run, written_before

from evenhand_training.toxicity import EXTRA_FILE

PATH = EXTRA_FILE.parent / "toxicity_training_author_h.json"
MORE_REPLIES = EXTRA_FILE.parent / "toxicity_llm_replies_more.json"
INSULTS = {"group": 150, "indirect": 150, "contempt": 60, "direct": 40, "threat": 30}
BENIGN = {"identity": 120, "other_settings": 150, "playful_but_kind": 50, "sincere_question": 40,
          "firm_feedback": 40, "reported_insult": 40}  # fmt: skip


def data() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(PATH.read_text(encoding="utf-8"))
    return loaded


def test_schema_groups_and_counts() -> None:
    author = data()
    assert set(author) == {"version", "author", "comment", "insults", "hard_benign"}
    assert author["version"] == 1 and author["author"] == "trainH"
    comment = author["comment"]
    assert "independen" in comment.lower() and "5-word run" in comment and "Apache-2.0" in comment
    assert {k: len(v) for k, v in author["insults"].items()} == INSULTS
    assert {k: len(v) for k, v in author["hard_benign"].items()} == BENIGN
    assert list(author["insults"]) == list(INSULTS) and list(author["hard_benign"]) == list(BENIGN)


def test_one_distinct_ascii_sentence_per_entry_of_4_to_24_words() -> None:
    ours = sentences(data())
    assert all(isinstance(t, str) and t == t.strip() and t.isascii() for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(INSULTS.values()) + sum(BENIGN.values())
    assert all(4 <= len(t.split()) <= 24 for t in ours)


def test_registers_veiled_insults_and_questions() -> None:
    """Veiled insults use no rude word, some direct ones swear, the texting register (a lower-case start) appears
    among insults and benign sentences, and the sincere questions are questions."""
    author = data()
    assert not [t for t in author["insults"]["indirect"] if PROFANE.search(t)]
    assert sum(bool(PROFANE.search(t)) for t in author["insults"]["direct"]) >= 15
    for key in ("insults", "hard_benign"):
        assert sum(t[0].islower() for group in author[key].values() for t in group) >= 8
    assert sum(t.endswith("?") for t in author["hard_benign"]["sincere_question"]) >= 35


def test_no_five_word_run_shared_with_earlier_rows_or_each_other() -> None:
    """The near-copy rule the author applied: no 5-word run (lower-cased, punctuation stripped, apostrophes removed)
    in common with the evaluation sets (every split), the reply frames, the audit's statements, the SmolLM2 replies
    (both files), the older training file and authors A-F; nor between two of this file's sentences."""
    before = written_before("a", "b", "c", "d", "e", "f")
    before += list(_strings(json.loads(MORE_REPLIES.read_text(encoding="utf-8"))))
    assert_no_shared_run(sentences(data()), before)
