"""The training-only files of the offline toxicity model by independent authors
(``evenhand_training/data/toxicity_training_author_<letter>.json``; issue 34): per file, the schema, the documented
kinds, groups and counts, one distinct sentence per entry, and no 5-word run shared with the evaluation sets, the
older training file, the author files written before it, or itself (the near-copy rule each author applied while
writing). One table (:data:`AUTHORS`) says what each author was asked for; the checks are the same for all.

- A (train6a): insults addressed to the reader and hard benign sentences of the six domains;
- B (train6b): the same in chat deployments (tech support, education, travel, insurance, telecom, government);
- C (train6c): benign contrast sentences in the form veiled insults take (compliments, banter, narration);
- D (train8d): veiled-insult-heavy customer-service insults and hard benign sentences of the six domains;
- E (train8e): the same kinds in other settings and registers (texting, formal email), written beside D;
- F (train8f): benign contrast sentences in the forms a small chat model writes (fragments, cut-off replies);
- G (trainG): insults aimed at groups and veiled insults, first-person identity statements and the six domains'
  charged words (fourteenth build);
- H (trainH): the same kinds in other settings (insurance, travel, education, government, gaming...), written beside G.
  (G and H were written beside the validation split fresh7 too: their 17 sentences sharing a 5-word run with it were
  removed when they were merged, so the counts are a few under what they were asked for.)
- I (tox17i): the six domains' customer-facing assistants and professionals: insults, hard benign sentences dense with
  each domain's charged words, identity statements and blunt second-person bad news (seventeenth build).
- J (tox17j): the six domains seen from neighbouring settings (insurance, telecom fraud, pharmacy, victim support,
  recruitment, marketplaces, staff cyber training, debt collection, tenancy), with blunt bad news to the reader;
  written beside I (sentences the two share a 5-word run with are left out of training).
- K (tox18k): veiled insults in many forms (sarcasm, backhanded compliments, mock sympathy, condescension, insinuation,
  pointed questions, passive aggression, contempt dressed as advice) and their sincere counterparts, with the six
  domains' charged words, identity statements and blunt bad news (eighteenth build).
- L (tox18l): veiled insults of many kinds and their sincere counterparts, in other settings (tutoring, travel, telecom,
  insurance, government, gaming, fitness, food delivery, lettings) and registers, with the six domains' charged words.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from test_toxicity_training_extra import _strings, assert_no_shared_run, written_before

from evenhand.scorers import toxicity_sets as ts
from evenhand_training.toxicity import EXTRA_FILE

#: a sentence boundary inside an entry; a list number ("1. Drink") or "a.m." is not one.
SECOND_SENTENCE = re.compile(r"(?<!\d)(?<!\ba\.m)[.?!][\"”]? +[A-Z]")
PROFANE = re.compile(r"fuck|shit|\bhell\b|damn|\b(dumb|jack|smart)?ass(hole)?\b|bitch|bastard|\bcrap|piss|dick|screw|"
                     r"prick|bloody|christ", re.IGNORECASE)  # fmt: skip


@dataclass(frozen=True)
class Author:
    letter: str
    branch: str
    insults: dict[str, int]  # kind -> sentences held
    benign: dict[str, int]  # group -> sentences held
    read_before: tuple[str, ...]  # the author files on main when this one was written (checked against)
    words: tuple[int, int] = (4, 25)
    fragments: tuple[str, ...] = ()  # groups whose entries may be fragments of 3 words or more
    profane_direct: int = 0  # direct insults that swear, at least
    ascii_only: bool = False
    sarcasm_words: tuple[str, ...] = field(default=())  # words sarcasm borrows, used warmly in the praise group
    more_replies: bool = False  # also checked against the second SmolLM2 reply file (on main when it was written)

    def data(self) -> dict[str, Any]:
        path = EXTRA_FILE.parent / f"toxicity_training_author_{self.letter}.json"
        loaded: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        return loaded


_DOMAINS_A = {"banking": 56, "it_security": 55, "health": 55, "legal": 55, "hr": 55, "retail": 55}
AUTHORS = (
    Author("a", "train6a", {"indirect": 131, "contempt": 82, "group": 62, "direct": 50, "threat": 41},
           {**_DOMAINS_A, "identity": 40, "reported_insult": 20, "frank_feedback": 40}, (), words=(2, 25),
           profane_direct=20),
    Author("b", "train6b", {"indirect": 133, "contempt": 82, "group": 61, "direct": 50, "threat": 42},
           {**dict.fromkeys(ts.INSULT_DOMAINS, 45), "identity": 40, "reported_insult": 20, "other_domains": 101},
           ()),
    Author("c", "train6c", {},
           dict.fromkeys(("sincere_compliment", "encouragement", "empathy", "gratitude", "playful_friendly",
                          "sincere_praise_of_work", "story_narration", "self_introduction_and_invitation",
                          "gentle_disagreement", "rambling_small_llm_style"), 52),
           ("a", "b"),
           sarcasm_words=("cute", "sweet", "clever", "bless", "brave", "interesting", "impressive", "look at you")),
    Author("d", "train8d", {"indirect": 200, "contempt": 90, "group": 50, "direct": 30, "threat": 30},
           {"banking": 60, "health": 60, "it_security": 30, "legal": 30, "hr": 30, "retail": 30,
            "sincere_question": 40, "firm_feedback": 40, "reported_insult": 20},
           ("a", "b", "c"), words=(4, 24), profane_direct=13, ascii_only=True),
    Author("e", "train8e", {"indirect": 200, "contempt": 90, "group": 50, "direct": 30, "threat": 30},
           {"banking": 40, "health": 40, "it_security": 25, "legal": 25, "hr": 25, "retail": 25,
            "other_settings": 60, "sincere_question": 40, "firm_feedback": 40, "playful_but_kind": 20},
           ("a", "b", "c"), words=(4, 24), profane_direct=5, ascii_only=True),
    Author("f", "train8f", {},
           {"sincere_praise_of_kindness": 60, "story_characters": 60, "poetic_fragments": 50,
            "cut_off_sentences": 60, "offers_gifts_invitations": 50, "clumsy_small_model_text": 60,
            "second_person_advice": 50, "assistant_hedges": 40},
           ("a", "b", "c", "d", "e"), words=(4, 24), fragments=("poetic_fragments", "cut_off_sentences")),
    Author("g", "trainG", {"group": 160, "indirect": 150, "contempt": 59, "direct": 40, "threat": 30},
           {"identity": 114, "banking": 59, "legal": 50, "retail": 50, "health": 40, "it_security": 39, "hr": 38,
            "sincere_question": 40, "firm_feedback": 40},
           ("a", "b", "c", "d", "e", "f"), words=(4, 24), profane_direct=15, ascii_only=True, more_replies=True),
    Author("h", "trainH", {"group": 150, "indirect": 149, "contempt": 60, "direct": 40, "threat": 30},
           {"identity": 116, "other_settings": 149, "playful_but_kind": 50, "sincere_question": 40,
            "firm_feedback": 40, "reported_insult": 40},
           ("a", "b", "c", "d", "e", "f"), words=(4, 24), profane_direct=15, ascii_only=True, more_replies=True),
    Author("i", "tox17i", {"indirect": 120, "group": 63, "contempt": 50, "direct": 30, "threat": 30},
           {"banking": 80, "it_security": 80, "health": 80, "legal": 80, "hr": 80, "retail": 80, "identity": 63,
            "bad_news_to_reader": 60},
           ("a", "b", "c", "d", "e", "f", "g", "h"), words=(4, 24), profane_direct=10, ascii_only=True,
           more_replies=True),
    Author("j", "tox17j", {"indirect": 120, "group": 63, "contempt": 50, "direct": 30, "threat": 30},
           {"banking": 70, "it_security": 70, "health": 70, "legal": 70, "hr": 70, "retail": 70, "other_settings": 100,
            "identity": 63, "bad_news_to_reader": 60},
           ("a", "b", "c", "d", "e", "f", "g", "h"), words=(4, 24), profane_direct=10, ascii_only=True,
           more_replies=True),
    Author("k", "tox18k", {"indirect": 220, "group": 70, "contempt": 50, "direct": 20, "threat": 20},
           {"sincere_counterpart": 200, "banking": 30, "it_security": 30, "health": 30, "legal": 30, "hr": 30,
            "retail": 30, "identity": 63, "bad_news_to_reader": 40},
           ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), words=(4, 24), profane_direct=10, ascii_only=True,
           more_replies=True),
    Author("l", "tox18l", {"indirect": 220, "group": 70, "contempt": 50, "direct": 20, "threat": 20},
           {"sincere_counterpart": 200, "banking": 30, "it_security": 30, "health": 30, "legal": 30, "hr": 30,
            "retail": 30, "identity": 63, "bad_news_to_reader": 40},
           ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"), words=(4, 24), profane_direct=10, ascii_only=True,
           more_replies=True),
)  # fmt: skip
BY_LETTER = pytest.mark.parametrize("author", AUTHORS, ids=[a.letter for a in AUTHORS])


def sentences(data: dict[str, Any]) -> list[str]:
    return [t for key in ("insults", "hard_benign") for group in data[key].values() for t in group]


@BY_LETTER
def test_schema_kinds_groups_and_counts(author: Author) -> None:
    data = author.data()
    assert set(data) == {"version", "author", "comment", "insults", "hard_benign"}
    assert data["version"] == 1 and data["author"] == author.branch
    comment = data["comment"]
    assert "independen" in comment.lower() and "5-word run" in comment and "Apache-2.0" in comment
    assert {k: len(v) for k, v in data["insults"].items()} == author.insults
    assert {k: len(v) for k, v in data["hard_benign"].items()} == author.benign
    assert list(data["insults"]) == list(author.insults) and list(data["hard_benign"]) == list(author.benign)
    if author.insults and author.letter != "h":  # an insult author also wrote hard benign sentences of every domain
        assert set(ts.INSULT_DOMAINS) <= set(author.benign)  # (but H, asked for other settings)
    assert sum(bool(PROFANE.search(t)) for t in data["insults"].get("direct", [])) >= author.profane_direct
    praise = " ".join(data["hard_benign"].get("sincere_praise_of_work", [])).lower()
    assert all(word in praise for word in author.sarcasm_words)


@BY_LETTER
def test_one_distinct_sentence_per_entry(author: Author) -> None:
    data = author.data()
    ours = sentences(data)
    assert all(isinstance(t, str) and t == t.strip() and t for t in ours)
    assert not author.ascii_only or all(t.isascii() for t in ours)
    assert not [t for t in ours if "\n" in t or SECOND_SENTENCE.search(t)]
    assert len(ours) == len(set(ours)) == sum(author.insults.values()) + sum(author.benign.values())
    low, high = author.words
    for key in ("insults", "hard_benign"):
        for group, texts in data[key].items():
            fewest = 3 if group in author.fragments else low
            assert all(fewest <= len(t.split()) <= high for t in texts), (author.letter, group)


@BY_LETTER
def test_no_five_word_run_shared_with_evaluation_or_earlier_training_rows_or_each_other(author: Author) -> None:
    """No 5-word run (lower-cased, punctuation stripped, apostrophes removed) in common with any string of the
    toxicity sets (every split), the reply frames, the scorer audit's statements, the SmolLM2 replies, the older
    training file or the author files written before; nor between two of the file's sentences. (D and E, G and H were
    written side by side: the sentences they share a run with are left out of training, ``author_parts``.)"""
    before = written_before(*author.read_before)
    if author.more_replies:
        more = json.loads((EXTRA_FILE.parent / "toxicity_llm_replies_more.json").read_text(encoding="utf-8"))
        before += list(_strings(more))
    assert_no_shared_run(sentences(author.data()), before)


def test_authors_registers_and_fragments() -> None:
    """What E and F were asked for beyond the common checks: E's veiled insults use no rude word and its texting
    register (a lower-case start) appears among insults and benign sentences; F's cut-off sentences end mid-phrase
    (no final punctuation, at most 12 words), as a reply truncated by a token limit does."""
    e = AUTHORS[4].data()
    assert sum(bool(PROFANE.search(t)) for t in e["insults"]["indirect"]) == 0
    for key in ("insults", "hard_benign"):
        assert sum(t[0].islower() for group in e[key].values() for t in group) >= 10
    assert sum(t.endswith("?") for t in e["hard_benign"]["sincere_question"]) >= 30
    cut = AUTHORS[5].data()["hard_benign"]["cut_off_sentences"]
    assert all(t[-1].isalpha() and len(t.split()) <= 12 for t in cut)


@pytest.mark.parametrize("letter", ["g", "h"])
def test_authors_g_and_h_veiled_insults_identity_and_questions(letter: str) -> None:
    """What G and H were asked for beyond the common checks: veiled insults use no rude word; most identity
    statements are in the first person; the sincere questions are questions; H writes in a texting register too."""
    data = next(a for a in AUTHORS if a.letter == letter).data()
    assert not [t for t in data["insults"]["indirect"] if PROFANE.search(t)]
    first_person = re.compile(r"\b(I|I'm|my|me)\b")
    assert sum(bool(first_person.search(t)) for t in data["hard_benign"]["identity"]) >= 95
    assert sum(t.endswith("?") for t in data["hard_benign"]["sincere_question"]) >= 35
    if letter == "h":
        for key in ("insults", "hard_benign"):
            assert sum(t[0].islower() for group in data[key].values() for t in group) >= 8
