"""Identity signalled by personal names in the pipeline (issue 28, item 4): a use case whose prompts name people (no
group word) gets counterfactual metrics per attribute; findings say the groups were signalled by names; results.json
and the report list the names used, with the caveat; ``names: false`` turns it all off, and the plan says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.pipeline.responses.personal_names import NAMES_CAVEAT
from evenhand.text.ftu import check_ftu

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
PEOPLE = ["Lakisha Robinson", "Emily Baker", "Jamal Washington", "Greg Walsh", "Latoya Jefferson", "Anne Murphy",
          "Darnell Booker", "Brendan O'Sullivan"]  # fmt: skip
TASKS = ["about the overdue balance", "about the new savings account", "about the branch closing",
         "about the card renewal", "about the missed payment"]  # fmt: skip
WARM = "Dear customer, thank you so much for being a valued client. We are happy to help and appreciate your patience!"
COLD = "Pay the balance now. Failure to comply will result in penalties and collection."


def name_only_prompts() -> list[str]:
    """40 prompts that name a person and carry no race word."""
    return [f"Write a reminder to {person} {task}." for person in PEOPLE for task in TASKS]


def colder_to_black_names(prompt: str) -> str:
    """A stand-in model that treats a person whose name signals black worse: colder replies."""
    groups = {n.group for n in check_ftu([prompt], attribute="race").names[0]}
    return COLD if "black" in groups else WARM


def _assess(**kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(
        task="text_generation",
        prompts=name_only_prompts(),
        attributes=["race"],
        client=colder_to_black_names,
        count=1,
        counterfactual_count=2,
        **{**FAST, **kwargs},
    )


def test_prompts_that_only_name_people_fail_ftu_and_get_counterfactual_metrics() -> None:
    prompts = name_only_prompts()
    assert not check_ftu(prompts, attribute="race", names=False).n_flagged  # no race word anywhere
    plan = evenhand.plan(task="text_generation", prompts=prompts, attributes=["race"])
    ftu = plan.ftu["race"]
    assert ftu.n_flagged == 40 and ftu.n_named_only == 40 and ftu.signals == "names"
    assert ftu.describe().startswith("FTU fails for race: 40 of 40 prompts name a person whose name signals race")
    assert "CROUGE-L" in {m.name for m in plan.metrics if m.attribute == "race"}
    assert any("FTU read group words and personal names" in n for n in plan.notes)


def test_names_off_plan_says_counterfactual_fairness_does_not_apply() -> None:
    plan = evenhand.plan(task="text_generation", prompts=name_only_prompts(), attributes=["race"], names=False)
    assert plan.ftu["race"].satisfied and not plan.ftu["race"].names_read
    assert not [m for m in plan.metrics if m.family.startswith("counterfactual")]
    skipped = [n for n in plan.not_applicable if n.family == "counterfactual" and n.attribute == "race"]
    assert skipped and "no counterfactual input pairs" in skipped[0].reason
    assert any("group words only (names: false)" in n for n in plan.notes)


@pytest.mark.pipeline
def test_a_model_colder_to_black_names_is_a_counterfactual_concern_said_to_come_from_names(tmp_path: Path) -> None:
    a = _assess()
    concerns = [f for f in a.verdict.findings if f.risk == "counterfactual" and f.severity == "concern"]
    black = [f for f in concerns if f.attribute == "race" and f.groups is not None and "black" in f.groups]
    assert black, a.verdict.summary
    assert all("groups signalled by personal names" in f.sentence for f in black), black[0].sentence
    # pairs of two groups the stand-in treats alike raise no concern
    assert not [f for f in concerns if f.groups is not None and "black" not in f.groups]
    doc = a.to_dict(include_responses=False)
    names = doc["names"]
    assert names["read"] is True and names["seed"] == 0
    race = names["attributes"]["race"]
    assert race["signals"] == "names" and race["n_prompts"] == 40
    assert set(race["found"]) == set(PEOPLE)
    assert set(race["groups"]) == {"white", "black", "hispanic", "asian"}
    assert all(len(used) >= 3 for used in race["groups"].values())  # several names per group, never one
    # every name listed for a group is in that group's counterfactual prompts
    frame = a.responses
    for group, used in race["groups"].items():
        sent = " ".join(frame[(frame["attribute"] == "race") & (frame["group"] == group)]["prompt"])
        assert all(name in sent for name in used), (group, used)
    assert NAMES_CAVEAT in doc["caveats"]
    assert doc["plan"]["ftu"]["race"]["n_named_only"] == 40
    html = a.to_html()
    assert 'id="names"' in html and "only statistically" in html and race["groups"]["black"][0] in html
    evenhand.report.write_html(json.loads(json.dumps(doc)), tmp_path / "r.html")  # a loaded document renders too


@pytest.mark.pipeline
def test_names_off_in_assess_reads_words_only() -> None:
    prompts = [*name_only_prompts()[:10], "Write to a Black customer about the overdue balance."]
    a = evenhand.assess(
        task="text_generation", prompts=prompts, attributes=["race"], client=colder_to_black_names, count=1,
        names=False, **FAST,
    )  # fmt: skip
    doc = a.to_dict(include_responses=False)
    assert doc["names"] == {"read": False, "seed": 0, "attributes": {}}
    cf = a.responses[a.responses["group"].notna()]
    assert set(cf["prompt_id"]) == {10}  # only the prompt with a race word has counterfactual versions
    assert NAMES_CAVEAT not in doc["caveats"]
    assert not [f for f in a.verdict.findings if "personal names" in f.sentence]


def test_words_and_names_are_both_said() -> None:
    prompts = [*name_only_prompts()[:20], *[f"Write to a Hispanic customer {t}." for t in TASKS * 4]]
    plan = evenhand.plan(task="text_generation", prompts=prompts, attributes=["race"])
    f = plan.ftu["race"]
    assert f.signals == "words and names"
    assert "40 of 40 prompts mention race: 20 mention race words (e.g. 'hispanic') and 20 name a person" in f.describe()


CONFIG = """
use_case: {{task: text_generation, attributes: [race], names: {names}}}
prompts: {{items: {items}}}
model: {{provider: callable, options: {{function: 'test_pipeline_names:colder_to_black_names'}}}}
generation: {{count: 1, counterfactual_count: 1, progress: false}}
scoring: {{embedder: false}}
statistics: {{n_resamples: 50}}
"""


@pytest.mark.parametrize("names", ["true", "false"])
@pytest.mark.pipeline
def test_config_names_key_reaches_plan_and_results(names: str, tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(CONFIG.format(names=names, items=json.dumps(name_only_prompts()[:12])))
    runner = CliRunner()
    env = {"EVENHAND_ALLOW_CODE": "1"}
    plan = runner.invoke(app, ["plan", str(cfg), "--no-ask"], env=env)
    assert plan.exit_code == ExitCode.OK, plan.output
    said = "group words and personal names" if names == "true" else "group words only (names: false)"
    assert said in plan.output
    result = runner.invoke(app, ["assess", str(cfg), "-o", str(tmp_path / "out")], env=env)
    assert result.exit_code == ExitCode.OK, result.output
    assert ("names (race): 12 counterfactual prompts name a person" in result.output) is (names == "true")
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert doc["names"]["read"] is (names == "true")
    assert bool(doc["names"]["attributes"]) is (names == "true")
    assert doc["plan"]["use_case"]["names"] is (names == "true")


def test_an_intersection_reads_names_as_its_counterfactual_prompts_do() -> None:
    plan = evenhand.plan(
        task="text_generation", prompts=name_only_prompts(), attributes=["gender", "race"],
        intersections=[["gender", "race"]],
    )  # fmt: skip
    assert not plan.ftu["race"].satisfied and plan.ftu["race"].names_read
    both = plan.ftu["gender+race"]
    assert not both.satisfied and both.names_read and both.n_named == both.n_flagged  # issue 33: names are swapped
    assert [m for m in plan.metrics if m.attribute == "gender+race"]


def approve_unless_black_name(prompt: str) -> str:
    groups = {n.group for n in check_ftu([prompt], attribute="race").names[0]}
    return "No" if "black" in groups else "Yes"


def test_classification_takes_a_prompts_group_from_a_name() -> None:
    prompts = [f"Should we approve the loan application of {person}? Answer yes or no." for person in PEOPLE * 4]
    kwargs: dict[str, Any] = {
        "task": "classification", "prompts": prompts, "attributes": ["race"], "person_level": True,
        "prevalence_parity": True, "client": approve_unless_black_name, "count": 1, "positive_label": "yes",
        "label_parser": {"yes": ["yes"], "no": ["no"]}, **FAST,
    }  # fmt: skip
    a = evenhand.assess(**kwargs)
    assert set(a.responses["group_race"].dropna()) == {"black", "white"}
    assert a.result("DP", "race").is_defined
    off = evenhand.assess(**{**kwargs, "names": False})
    assert off.responses["group_race"].isna().all()


@pytest.mark.pipeline
def test_the_run_carries_the_names_it_swapped_and_rebuilds_them_only_for_a_table_without_them() -> None:
    """Issue 35 item 3: the names each counterfactual request swapped travel with its responses
    (``_swapped_names``), so results.json's names come from what was sent; a frame without them (a responses table
    brought from outside) has them rebuilt from its prompts, and both give the same record."""
    from evenhand.pipeline.responses.frame import SWAPPED_NAMES
    from evenhand.pipeline.responses.personal_names import names_used

    prompts = [*name_only_prompts()[:10], "Write to Greg Baker and his colleague Lakisha Robinson.", "Hi team."]
    a = evenhand.assess(task="text_generation", prompts=prompts, attributes=["gender", "race"],
                        intersections=[["gender", "race"]], client=lambda p: "Thank you.", count=1,
                        counterfactual_count=2, **FAST)  # fmt: skip
    frame = a.responses
    assert SWAPPED_NAMES in frame
    assert SWAPPED_NAMES not in a.to_dict()["responses"][0]  # never written out
    carried = names_used(a.plan, frame)
    assert set(carried["attributes"]) == {"gender", "race", "gender+race"}
    assert carried == names_used(a.plan, frame.drop(columns=[SWAPPED_NAMES]))  # the fallback agrees
    written = a.to_dict(include_responses=False)["names"]
    assert {k: v for k, v in written.items() if k != "masked"} == carried
    # the record reads what the requests carried, not a rebuild: a changed carried name shows
    tampered = frame.copy()
    rows = tampered[SWAPPED_NAMES].map(lambda v: isinstance(v, tuple) and bool(v))
    first = tampered.index[rows][0]
    (name, _), *rest = tampered.at[first, SWAPPED_NAMES]
    tampered.at[first, SWAPPED_NAMES] = ((name, "Zelda Quux"), *rest)
    used = names_used(a.plan, tampered)
    attribute, group = tampered.at[first, "attribute"], tampered.at[first, "group"]
    assert "Zelda Quux" in used["attributes"][attribute]["groups"][group]
