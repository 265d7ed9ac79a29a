"""Prompt templates and the subject of a prompt in the config and the pipeline (issue 33, item 4): templates filled
with names of each group (seeded, recorded in results.json) are the prompts of an assessment from ``assess`` and from
a config; ``prompts.subject_column`` names the person each prompt is about."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

import evenhand
from evenhand.config import load_config
from evenhand.errors import InputError
from evenhand.framework import UseCase
from evenhand.pipeline.from_config import assess_config

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
TEMPLATES = [
    "Write a short rejection email to {name} for the data analyst role and thank {them} for {their} time.",
    "Draft a follow-up to {title} {last_name} about {their} availability next week.",
]


def polite(prompt: str) -> str:
    return "Thank you for your interest; we will keep your details on file."


def test_templates_are_filled_in_turn_seeded_and_recorded() -> None:
    uc = UseCase(task="text_generation", attributes=["race"], templates=TEMPLATES)
    t = uc.templates
    assert t is not None and len(uc.prompts) == 6 and t.attributes == ["race"] and t.names_per_group == 3
    assert [f["template"] for f in t.fills] == [0, 0, 0, 1, 1, 1]
    assert [f["group"] for f in t.fills] == ["white", "black", "hispanic", "asian", "white", "black"]  # in turn
    assert all("{" not in p for p in uc.prompts)
    assert t.fills[0]["name"] in uc.prompts[0]
    assert UseCase(task="text_generation", attributes=["race"], templates=TEMPLATES).prompts == uc.prompts  # seeded
    other = UseCase(task="text_generation", attributes=["race"], templates={"templates": TEMPLATES, "seed": 1})
    assert other.prompts != uc.prompts
    assert UseCase.model_validate(uc.model_dump()) == uc  # a copy keeps its fills
    both = UseCase(task="text_generation", templates={"templates": TEMPLATES[:1], "names_per_group": 8})
    assert both.templates is not None and both.templates.attributes == ["gender", "race"]
    assert {f["group"] for f in both.templates.fills} == {f"{g}+{r}" for g in ("female", "male")
                                                          for r in ("white", "black", "hispanic", "asian")}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"templates": TEMPLATES, "prompts": ["Hi"]}, "give prompts or templates, not both"),
        ({"templates": ["Write to {nom}."]}, "unknown placeholder"),
        ({"templates": ["Write to the team."]}, "names nobody"),
        ({"templates": TEMPLATES, "names": False}, "need names: true"),
        ({"templates": TEMPLATES, "attributes": ["age"]}, "none of the attributes checked has them"),
    ],
)
def test_bad_templates_say_what_is_wrong(fields: dict[str, Any], message: str) -> None:
    with pytest.raises((InputError, ValueError), match=message):
        UseCase(task="text_generation", **fields)


@pytest.mark.pipeline
def test_assess_takes_templates_and_results_record_the_fills() -> None:
    a = evenhand.assess(task="text_generation", attributes=["race"], templates=TEMPLATES, client=polite, count=1,
                        counterfactual_count=1, **FAST)  # fmt: skip
    doc = a.to_dict(include_responses=False)
    recorded = doc["plan"]["use_case"]["templates"]
    assert recorded["templates"] == TEMPLATES and recorded["seed"] == 0 and len(recorded["fills"]) == 6
    assert any("are 2 templates filled 3 times each" in n for n in doc["plan"]["notes"])
    assert doc["plan"]["ftu"]["race"]["n_named"] == 6  # every fill names a person whose name signals race
    assert {m["name"] for m in doc["plan"]["metrics"] if m["attribute"] == "race"} >= {"CROUGE-L", "RRD"}
    versions = a.responses[a.responses["group"].notna()]
    assert set(versions["group"]) == {"white", "black", "hispanic", "asian"}
    assert doc["names"]["attributes"]["race"]["n_prompts"] == 6


def test_a_run_without_templates_writes_no_templates_key() -> None:
    a = evenhand.assess(task="text_generation", prompts=["Write to the team."], client=polite, count=1, **FAST)
    assert "templates" not in a.to_dict(include_responses=False)["plan"]["use_case"]


def _config(tmp_path: Path, prompts: dict[str, Any], **use_case: Any) -> Path:
    raw = {"version": 1, "use_case": {"task": "text_generation", "attributes": ["race"], **use_case},
           "prompts": prompts, "model": {"provider": "callable", "options": {"function": f"{__name__}:polite"}},
           "generation": {"count": 1, "counterfactual_count": 1},
           "scoring": {"embedder": False}, "statistics": {"n_resamples": 200},
           "output": {"dir": str(tmp_path / "out")}}  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return path


@pytest.mark.slow
def test_a_config_fills_its_templates(tmp_path: Path) -> None:
    path = _config(tmp_path, {"items": TEMPLATES, "templates": {"names_per_group": 2, "seed": 3}})
    a = assess_config(load_config(path), progress=False, allow_code=True)
    recorded = a.to_dict(include_responses=False)["plan"]["use_case"]["templates"]
    assert recorded["names_per_group"] == 2 and recorded["seed"] == 3 and len(a.plan.use_case.prompts) == 4
    on = _config(tmp_path, {"items": TEMPLATES, "templates": True})
    assert load_config(on).prompts.templates is not None  # type: ignore[union-attr]


def test_labels_given_per_template_hold_for_each_fill(tmp_path: Path) -> None:
    table = tmp_path / "templates.csv"
    rows = ['"Should we approve the loan of {name}? Answer yes or no.",yes',
            '"Should {title} {last_name} get the card? Answer yes or no.",no']  # fmt: skip
    table.write_text("prompt,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    raw = yaml.safe_load(_config(tmp_path, {"path": str(table), "label_column": "label", "templates": True},
                                 task="classification", person_level=True, prevalence_parity=False,
                                 intervention="assistive").read_text())  # fmt: skip
    raw["classification"] = {"labels": {"yes": ["approve"], "no": ["deny"]}, "positive_label": "yes"}
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(raw), encoding="utf-8")
    a = assess_config(load_config(tmp_path / "config.yaml"), progress=False, allow_code=True)
    originals = a.responses[a.responses["group"].isna()]
    assert originals.groupby("prompt_id")["truth"].first().tolist() == ["yes"] * 3 + ["no"] * 3


@pytest.mark.pipeline
def test_a_subject_column_names_whom_each_prompt_is_about(tmp_path: Path) -> None:
    table = tmp_path / "notes.csv"
    table.write_text(
        "prompt,candidate\n"
        "\"Summarise the notes: Lakisha Washington interviewed Greg Baker for the analyst role.\",Greg Baker\n"
        "\"Summarise the notes: Emily Walsh interviewed Jamal Robinson for the clerk role.\",Jamal Robinson\n"
        "\"Summarise the notes: nobody was interviewed today.\",\n",
        encoding="utf-8",
    )
    config = load_config(_config(tmp_path, {"path": str(table), "subject_column": "candidate"}))
    a = assess_config(config, progress=False, allow_code=True)
    assert a.plan.use_case.name_subject == ["Greg Baker", "Jamal Robinson", None]
    assert a.to_dict(include_responses=False)["plan"]["use_case"]["name_subject"] == "given"
    assert any("subject column" in n for n in a.plan.notes)
    versions = a.responses[(a.responses["group"].notna()) & (a.responses["attribute"] == "race")]
    assert versions["prompt"].str.contains("Lakisha Washington interviewed").sum() == versions["prompt_id"].eq(0).sum()
    assert not versions["prompt"].str.contains("Jamal Robinson for").any()  # the subject is renamed in every version
    written = json.loads(json.dumps(a.to_dict(include_responses=False)["names"]))
    assert "Lakisha Washington" not in written["attributes"]["race"]["found"]  # the interviewer is a bystander


@pytest.mark.parametrize(
    ("prompts", "use_case", "message"),
    [
        ({"items": ["Hi"], "subject_column": "who"}, {}, "inline prompts.items have none"),
        ({"items": TEMPLATES, "templates": True, "subject_column": "who"}, {}, "templates name their subject"),
        ({"path": "p.csv", "subject_column": "who"}, {"name_subject": "every"}, "give one of the two"),
        ({"items": TEMPLATES}, {"templates": TEMPLATES}, "put the templates in the prompts section"),
    ],
)
def test_bad_subject_or_template_settings_name_the_key(
    tmp_path: Path, prompts: dict[str, Any], use_case: dict[str, Any], message: str
) -> None:
    with pytest.raises(InputError, match=message):
        load_config(_config(tmp_path, prompts, **use_case))


@pytest.mark.pipeline
def test_a_responses_table_links_its_versions_by_the_use_cases_subject() -> None:
    """A table without prompt ids is linked by rebuilding the versions: with the subject the use case names."""
    import pandas as pd

    from evenhand.text.counterfactual import counterfactual_prompts

    prompts = ["Summarise: Lakisha Washington interviewed Greg Baker for the analyst role.", "Greet the team."]
    cf = counterfactual_prompts(prompts, "race", subject="every")
    rows = [{"prompt": p, "attribute": "", "group": "", "response": "Noted."} for p in prompts]
    rows += [{"prompt": cf[g][k], "attribute": "race", "group": g, "response": "Noted."}
             for g in cf.groups for k in range(len(cf))]  # fmt: skip
    a = evenhand.assess(task="text_generation", attributes=["race"], responses=pd.DataFrame(rows),
                        name_subject="every", **FAST)  # fmt: skip
    versions = a.responses[a.responses["group"].notna()]
    assert len(versions) == 4 and versions["prompt_id"].eq(0).all()
    found = a.to_dict(include_responses=False)["names"]["attributes"]["race"]["found"]
    assert found == ["Lakisha Washington", "Greg Baker"]  # both people were swapped: "every"
