"""The benign contrast sentences of the offline toxicity model by independent author F
(``evenhand_training/data/toxicity_training_author_f.json``, branch train8f): kind, sincere, odd or unfinished
sentences in the forms a small chat model (SmolLM2-135M) writes (praise of the reader's kindness, story characters
with fond flaws, poetic fragments, replies cut off by a token limit, offers and invitations, clumsy small-model text,
everyday advice, assistant hedges), all label 0. Checked: the schema, the documented groups and counts, one distinct
sentence per entry, and no 5-word run shared with the evaluation sets, the other training files or each other (the
near-copy rule the author applied while writing)."""

from __future__ import annotations

import json
import re
from typing import Any

from test_toxicity_training_extra import assert_no_shared_run, written_before

from evenhand_training.toxicity import EXTRA_FILE

AUTHOR_FILE = EXTRA_FILE.parent / "toxicity_training_author_f.json"
OTHER_AUTHORS = ("a", "b", "c", "d", "e")
#: group -> sentences held.
BENIGN_GROUPS = {"sincere_praise_of_kindness": 60, "story_characters": 60, "poetic_fragments": 50,
                 "cut_off_sentences": 60, "offers_gifts_invitations": 50, "clumsy_small_model_text": 60,
                 "second_person_advice": 50, "assistant_hedges": 40}  # fmt: skip
#: the groups whose entries may be fragments of 3-12 words without final punctuation.
FRAGMENT_GROUPS = ("poetic_fragments", "cut_off_sentences")
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
    assert data["version"] == 1 and data["author"] == "train8f" and data["insults"] == {}
    assert "independence" in data["comment"].lower() and "5-word run" in data["comment"]
    assert "Apache-2.0" in data["comment"]
    assert {k: len(v) for k, v in data["hard_benign"].items()} == BENIGN_GROUPS
    assert list(data["hard_benign"]) == list(BENIGN_GROUPS)


def test_one_distinct_sentence_per_entry() -> None:
    data = author_file()
    ours = sentences(data)
    assert all(isinstance(t, str) and t == t.strip() and t for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(BENIGN_GROUPS.values())
    for group, texts in data["hard_benign"].items():
        low = 3 if group in FRAGMENT_GROUPS else 4
        assert all(low <= len(t.split()) <= 24 for t in texts), group


def test_cut_off_sentences_end_mid_phrase() -> None:
    """A reply truncated by a token limit: no final punctuation, at most 12 words."""
    cut = author_file()["hard_benign"]["cut_off_sentences"]
    assert all(t[-1].isalpha() and len(t.split()) <= 12 for t in cut)


def test_no_five_word_run_shared_with_evaluation_or_other_training_rows_or_each_other() -> None:
    """No 5-word run (lower-cased, punctuation stripped, apostrophes removed) in common with any string of the
    toxicity sets (every split), the reply frames, the scorer audit's statements, the SmolLM2 replies, the older
    training file or authors A to E; nor between two of this file's sentences."""
    assert_no_shared_run(sentences(author_file()), written_before(*OTHER_AUTHORS))
