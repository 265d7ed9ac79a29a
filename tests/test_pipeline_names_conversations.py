"""Personal names in conversations (issue 33 with issue 36's conversations): the subject of each conversation (the
use case's ``name_subject``, the config's ``prompts.subject_column``) is the one person renamed in every turn and
retrieved document, results.json's names are those the requests carried, and templates, which are texts, refuse a
conversation in one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml

import evenhand
from evenhand.config import load_config
from evenhand.errors import InputError
from evenhand.framework import UseCase
from evenhand.pipeline.from_config import assess_config
from evenhand.pipeline.responses.frame import SWAPPED_NAMES

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
NOTES = [
    [{"role": "system", "content": "You screen applicants."},
     {"role": "user", "content": "Summarise: Lakisha Washington interviewed Greg Baker for the analyst role."}],
    [{"role": "user", "content": "Emily Walsh interviewed Jamal Robinson for the clerk role."},
     {"role": "assistant", "content": "Noted."},
     {"role": "user", "content": "Summarise the interview of Jamal Robinson."}],
    [{"role": "user", "content": "Write a greeting to the team."}],
]  # fmt: skip


def polite(prompt: Any) -> str:
    return "Thank you for the notes."


@pytest.mark.pipeline
def test_a_conversations_subject_is_renamed_in_every_turn_and_its_names_are_carried() -> None:
    subjects = ["Greg Baker", "Jamal Robinson", None]
    a = evenhand.assess(task="text_generation", attributes=["race"], prompts=NOTES, client=polite, count=1,
                        counterfactual_count=1, name_subject=subjects, **FAST)  # fmt: skip
    versions = a.responses[a.responses["group"].notna()]
    assert SWAPPED_NAMES in versions  # carried from the requests, not rebuilt
    first, second = versions[versions["prompt_id"] == 0], versions[versions["prompt_id"] == 1]
    assert first["prompt"].str.contains("Lakisha Washington interviewed").all()  # the bystander kept as written
    assert not versions["prompt"].str.contains("Greg Baker|Jamal Robinson").any()
    for _, row in second.iterrows():  # one new name, in both turns that name the subject
        ((written, replacement),) = row[SWAPPED_NAMES]
        assert written == "Jamal Robinson" and row["prompt"].count(replacement) == 2
    names = a.to_dict(include_responses=False)["names"]["attributes"]["race"]
    assert names["found"] == ["Greg Baker", "Jamal Robinson"] and names["n_prompts"] == 2


def _write(tmp: Path, rows: list[dict[str, Any]], prompts: dict[str, Any]) -> Path:
    pd.DataFrame(rows).to_json(tmp / "prompts.jsonl", orient="records", lines=True)
    raw = {"version": 1, "use_case": {"task": "text_generation", "attributes": ["race"]},
           "prompts": {"path": str(tmp / "prompts.jsonl"), "column": "messages", **prompts},
           "model": {"provider": "callable", "options": {"function": f"{__name__}:polite"}},
           "generation": {"count": 1, "counterfactual_count": 1}, "scoring": {"embedder": False},
           "statistics": {"n_resamples": 200}, "output": {"dir": str(tmp / "out")}}  # fmt: skip
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_subject_column_names_whom_each_conversation_is_about(tmp_path: Path) -> None:
    rows = [{"messages": NOTES[0][1:], "docs": ["Greg Baker: ten years in retail banking."], "candidate": "Greg Baker"},
            {"messages": NOTES[1], "docs": None, "candidate": "Jamal Robinson"},
            {"messages": NOTES[2], "docs": None, "candidate": None}]  # fmt: skip
    path = _write(tmp_path, rows, {"subject_column": "candidate", "context_column": "docs"})
    a = assess_config(load_config(path), progress=False, allow_code=True)
    assert a.plan.use_case.name_subject == ["Greg Baker", "Jamal Robinson", None]
    versions = a.responses[a.responses["group"].notna()]
    first = versions[versions["prompt_id"] == 0]
    assert len(first) == 4 and first["prompt"].str.contains("Lakisha Washington interviewed").all()
    for _, row in first.iterrows():  # the request and the retrieved document rename the candidate together
        ((_, replacement),) = row[SWAPPED_NAMES]
        assert row["prompt"].count(replacement) == 2
    assert a.to_dict(include_responses=False)["names"]["attributes"]["race"]["found"] == ["Greg Baker",
                                                                                         "Jamal Robinson"]  # fmt: skip


def test_templates_refuse_conversations_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"templates\[0\] is a conversation: templates are texts"):
        UseCase(task="text_generation", templates=[[{"role": "user", "content": "Write to {name}."}]])
    with pytest.raises(InputError, match=r"prompts.items.1 is a conversation; templates are texts"):
        load_config(_inline(tmp_path))
    rows = [{"messages": "Write to {name}.", "docs": "A note."}]
    with pytest.raises(InputError, match=r"prompts.context_column makes conversations of them"):
        load_config(_write(tmp_path, rows, {"templates": True, "context_column": "docs"}))


def _inline(tmp: Path) -> Path:
    raw = yaml.safe_load(_write(tmp, [], {}).read_text(encoding="utf-8"))
    raw["prompts"] = {"items": ["Write to {name}.", [{"role": "user", "content": "Write to {name}."}]],
                      "templates": True}  # fmt: skip
    path = tmp / "inline.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path
