"""The training-only sentences of the offline toxicity model (``evenhand_training/data/toxicity_training_extra.json``):
the version-4 blocks by an independent author (``insults_v5``, ``hard_benign_v5``) hold the documented kinds,
domains and counts, and share no 5-word run with the evaluation sets, the older rows or each other (that they
train with their labels and never validate: tests/test_toxicity_sets.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from importlib import resources
from typing import Any

from evenhand.scorers import toxicity_sets as ts
from evenhand_training.toxicity import EXTRA_FILE, LLM_REPLIES_FILE

#: kind or domain -> sentences held; asked for at least: indirect 120, contempt 80, group 50, direct 30, threat 20;
#: 40 per domain, 40 identity mentions, 20 reported insults.
INSULT_KINDS = {"indirect": 126, "contempt": 86, "group": 58, "direct": 32, "threat": 22}
BENIGN_GROUPS = {**dict.fromkeys(ts.INSULT_DOMAINS, 42), "identity": 42, "reported_insult": 22}
RUN = 5


def training_extra() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXTRA_FILE.read_text(encoding="utf-8"))
    return data


def v5_sentences(extra: dict[str, Any]) -> list[str]:
    return [t for key in ("insults_v5", "hard_benign_v5") for group in extra[key].values() for t in group]


def _runs(text: str) -> set[tuple[str, ...]]:
    words = re.sub(r"[^\w\s]", " ", text.lower().replace("'", "").replace("\u2019", "")).split()
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _all_runs(texts: Iterable[str]) -> set[tuple[str, ...]]:
    return {run for text in texts for run in _runs(text)}


def test_version_4_blocks_hold_the_documented_kinds_domains_and_counts() -> None:
    extra = training_extra()
    assert extra["version"] == 4 and "insults_v5" in extra["comment"] and "hard_benign_v5" in extra["comment"]
    assert {k: len(v) for k, v in extra["insults_v5"].items()} == INSULT_KINDS
    assert {k: len(v) for k, v in extra["hard_benign_v5"].items()} == BENIGN_GROUPS
    ours = v5_sentences(extra)
    assert len(ours) == len(set(ours)) == 640
    assert all(6 <= len(t.split()) <= 25 for t in ours)


def test_version_4_sentences_share_no_five_word_run_with_evaluation_or_older_rows_or_each_other() -> None:
    """The near-copy rule the author applied, kept: no 5-word run (lower-cased, punctuation stripped) in common with
    any row of the toxicity sets (every split), the reply frames, the scorer audit's statements, the SmolLM2
    replies or the file's older lists; nor between two new sentences."""
    extra = training_extra()
    other = ts.benign_sentences()["text"].tolist() + ts.insults()["text"].tolist()
    frames = ts.reply_frames()
    other += frames["openings"] + frames["closings"]
    audit = (resources.files("evenhand") / "data" / "audit" / "identity_statements.json").read_text(encoding="utf-8")
    other += list(_strings(json.loads(audit)))
    other += list(_strings(json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))))
    other += [t for key, value in extra.items() if key not in ("version", "comment", "insults_v5", "hard_benign_v5")
              for t in _strings(value)]  # fmt: skip
    taken = _all_runs(other)
    seen: set[tuple[str, ...]] = set()
    for text in v5_sentences(extra):
        runs = _runs(text)
        assert not runs & taken, text
        assert not runs & seen, text
        seen |= runs
