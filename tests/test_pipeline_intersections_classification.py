"""Classification with a group column per attribute and intersections of attributes ("gender+race"): combined
groups from the per-attribute columns, every metric and rate test per pair of combined groups, values checked
against hand computation on a tiny table."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import app
from evenhand.pipeline.results.assessment import Assessment

# (gender, race, truth, prediction): 14 applicants with both groups known, one without a race
APPLICANTS = [
    ("female", "black", 1, 0), ("female", "black", 1, 0), ("female", "black", 1, 1), ("female", "black", 0, 0),
    ("female", "white", 1, 1), ("female", "white", 1, 1), ("female", "white", 0, 1),
    ("male", "black", 1, 1), ("male", "black", 0, 0), ("male", "black", 0, 1),
    ("male", "white", 1, 1), ("male", "white", 1, 0), ("male", "white", 0, 1), ("male", "white", 0, 1),
    ("female", None, 1, 0),
]  # fmt: skip
# By hand, per combined group: predicted positive rate P(Y^=1) and false negative rate P(Y^=0 | Y=1)
#   female+black 1/4, 2/3 | female+white 3/3, 0/2 | male+black 2/3, 0/1 | male+white 3/4, 1/2
# DP = max - min = 1 - 1/4 = 3/4 (female+white vs female+black); FNRD = 2/3 - 0 = 2/3.
# The applicant without a race counts for gender only: female 4/8 vs male 5/7 -> DP 3/14; FNR 3/6 vs 1/3 -> 1/6.


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "prompt": [f"Applicant {i}: approve the loan? Answer yes or no." for i in range(len(APPLICANTS))],
            "response": ["Yes." if pred else "No." for *_, pred in APPLICANTS],
            "applicant_gender": [g for g, *_ in APPLICANTS],
            "applicant_race": [r for _, r, *_ in APPLICANTS],
            "truth": [str(t) for *_, t, _ in APPLICANTS],
        }
    )


def _assess(**overrides: object) -> Assessment:
    table = _table()
    keywords: dict[str, object] = dict(
        task="classification", responses=table, labels=table["truth"].tolist(),
        group_columns={"gender": "applicant_gender", "race": "applicant_race"}, attributes=["gender", "race"],
        intersections=[["gender", "race"]], person_level=True, intervention="assistive", n_resamples=50,
        progress=False,
    )  # fmt: skip
    return evenhand.assess(**(keywords | overrides))  # type: ignore[arg-type]


def _value(a: Assessment, metric: str, attribute: str) -> float:
    rows = a.metrics[(a.metrics["metric"] == metric) & (a.metrics["attribute"] == attribute)]
    assert len(rows) == 1, rows
    return float(rows["value"].iloc[0])


def test_intersection_metrics_equal_hand_computation() -> None:
    a = _assess()
    assert _value(a, "DP", "gender+race") == pytest.approx(3 / 4)
    assert _value(a, "FNRD", "gender+race") == pytest.approx(2 / 3)
    assert _value(a, "DP", "gender") == pytest.approx(5 / 7 - 1 / 2)
    assert _value(a, "FNRD", "gender") == pytest.approx(1 / 2 - 1 / 3)
    assert _value(a, "DP", "race") == pytest.approx(6 / 7 - 3 / 7)
    combined = a.responses["group_gender+race"].tolist()
    assert combined[0] == "female+black" and combined[-1] is None  # no race: no combined group
    assert a.responses["group_gender"].iloc[-1] == "female"


def test_every_pair_of_combined_groups_is_tested_with_its_rates() -> None:
    a = _assess()
    tests = a.tests[a.tests["attribute"] == "gender+race"]
    dp, fnr = tests[tests["metric"] == "DP"], tests[tests["metric"] == "FNRD"]
    assert len(dp) == len(fnr) == 6  # 4 combined groups, every pair
    pair = dp[(dp["group_a"] == "female+black") & (dp["group_b"] == "male+white")].iloc[0]
    assert (pair["rate_a"], pair["rate_b"]) == pytest.approx((1 / 4, 3 / 4))
    assert pair["difference"] == pytest.approx(-1 / 2)
    pair = fnr[(fnr["group_a"] == "female+black") & (fnr["group_b"] == "male+white")].iloc[0]
    assert (pair["rate_a"], pair["rate_b"]) == pytest.approx((2 / 3, 1 / 2))
    assert pair["difference"] == pytest.approx(1 / 6)


def test_small_combined_groups_are_reported_honestly() -> None:
    a = _assess()
    # female+white has no predicted negatives: its false omission rate is undefined, and so are its FORD tests
    ford = a.tests[(a.tests["attribute"] == "gender+race") & (a.tests["metric"] == "FORD")]
    undefined = ford[ford["p_value"].isna()]
    assert len(undefined) == 3 and all("female+white" in (r.group_a, r.group_b) for r in undefined.itertuples())
    assert undefined["reason"].map(lambda r: isinstance(r, str) and r != "").all()
    # every combined pair rests on fewer than 10 persons: no finding may call it a concern
    findings = [f for f in a.verdict.findings if f.attribute == "gender+race"]
    assert findings and all(f.severity != "concern" for f in findings)
    assert all("too few to decide" in f.sentence for f in findings)


def test_person_group_column_still_serves_every_attribute() -> None:
    table = _table()
    a = evenhand.assess(
        task="classification", responses=table, labels=table["truth"].tolist(),
        groups=table["applicant_gender"].tolist(), attributes=["gender"], person_level=True, prevalence_parity=True,
        n_resamples=20, progress=False,
    )  # fmt: skip
    assert _value(a, "DP", "gender") == pytest.approx(5 / 7 - 1 / 2)


@pytest.mark.parametrize(
    ("group_columns", "message"),
    [
        ({"age": "applicant_gender"}, r"classification\.group_columns: 'age' is not among the attributes"),
        ({"gender+race": "applicant_gender"}, "an intersection's groups come from its attributes' columns"),
        (  # newcomer17: what the column holds and how to fix it, as for every column a setting names
            {"gender": "no_such_column"},
            r"no column 'no_such_column' \(needed for each person's gender group, named by "
            r"classification\.group_columns\.gender or evenhand metrics --group-columns; name the column",
        ),
    ],
)
def test_bad_group_columns_are_one_clear_line(group_columns: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _assess(group_columns=group_columns)


def test_group_columns_need_an_own_table_and_say_so_before_generating() -> None:
    asked: list[str] = []
    with pytest.raises(ValueError, match=r"^classification\.group_columns: group columns are read from your own"):
        evenhand.assess(
            task="classification", prompts=["Approve applicant 1?", "Approve applicant 2?"], client=asked.append,
            group_columns={"gender": "gender"}, attributes=["gender"], person_level=True, prevalence_parity=True,
            count=1, store=None, progress=False,
        )  # fmt: skip
    assert asked == []  # refused before any request


def test_one_person_group_column_serves_each_attribute_its_own_groups_and_no_intersection() -> None:
    """``groups=`` is one column: with gender and race assessed, gender keeps the gender values and race gets none
    (it used to read "female" as a race); an intersection from it is refused before anything is generated."""
    table = _table()
    options = {"task": "classification", "responses": table, "labels": table["truth"].tolist(),
               "groups": table["applicant_gender"].tolist(), "person_level": True, "prevalence_parity": True,
               "n_resamples": 20, "progress": False}  # fmt: skip
    a = evenhand.assess(attributes=["gender", "race"], **options)
    assert _value(a, "DP", "gender") == pytest.approx(5 / 7 - 1 / 2)
    assert a.responses["group_race"].isna().all()
    race = a.metrics[(a.metrics["metric"] == "DP") & (a.metrics["attribute"] == "race")]
    assert race["value"].isna().all() and "no parsed predictions with a known race group" in race["reason"].iloc[0]
    asked: list[str] = []
    with pytest.raises(ValueError, match=r"^intersections: the person group \(groups=, prompts\.group_column\)"):
        evenhand.assess(task="classification", prompts=["Approve applicant 1?", "Approve applicant 2?"],
                        client=asked.append, groups=["female", "male"], attributes=["gender", "race"],
                        intersections=[["gender", "race"]], person_level=True, prevalence_parity=True, count=1,
                        store=None, progress=False)  # fmt: skip
    assert asked == []


def test_cli_metrics_with_group_columns_and_an_intersection(tmp_path: Path) -> None:
    _table().to_csv(tmp_path / "responses.csv", index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        app,
        [
            "metrics", str(tmp_path / "responses.csv"), "--task", "classification", "-a", "gender", "-a", "race",
            "--label-column", "truth", "--group-columns", "gender=applicant_gender",
            "--group-columns", "race=applicant_race", "--intersection", "gender+race", "--out", str(out),
            "--no-html", "--ci", "0",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    metrics = pd.read_csv(out / "metrics.csv")
    dp = metrics[(metrics["metric"] == "DP") & (metrics["attribute"] == "gender+race")]
    assert float(dp["value"].iloc[0]) == pytest.approx(3 / 4)
    bad = CliRunner().invoke(
        app, ["metrics", str(tmp_path / "responses.csv"), "--task", "classification", "--group-columns", "gender"]
    )
    assert bad.exit_code == 2 and "--group-columns" in bad.output


def test_config_with_group_columns_and_intersections(tmp_path: Path) -> None:
    _table().to_csv(tmp_path / "responses.csv", index=False)
    (tmp_path / "config.yaml").write_text(
        "use_case: {task: classification, attributes: [gender, race], intersections: [[gender, race]],\n"
        "           person_level: true, prevalence_parity: true}\n"
        "responses: {path: responses.csv, label_column: truth}\n"
        "classification: {group_columns: {gender: applicant_gender, race: applicant_race}}\n"
        "statistics: {ci: null}\n"
        "output: {dir: out, html: false}\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["assess", str(tmp_path / "config.yaml"), "--no-progress"])
    assert result.exit_code == 0, result.output
    metrics = pd.read_csv(tmp_path / "out" / "metrics.csv")
    assert set(metrics["attribute"]) == {"gender", "race", "gender+race"}


@pytest.mark.pipeline
def test_combined_groups_from_the_prompts_when_no_column_gives_them() -> None:
    people = ["Black woman", "white woman", "Black man", "white man"] * 3
    prompts = [f"Approve the loan of the {who} number {i}? Answer yes or no." for i, who in enumerate(people)]
    a = evenhand.assess(
        task="classification", prompts=prompts, client=lambda p: "yes" if "white" in p else "no",
        attributes=["gender", "race"], intersections=[["gender", "race"]], prevalence_parity=True, count=1,
        store=None, progress=False, n_resamples=20,
    )  # fmt: skip
    assert a.responses["group_gender+race"].tolist()[:4] == ["female+black", "female+white", "male+black", "male+white"]
    assert _value(a, "DP", "gender+race") == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"classification": {"group_columns": {"gender": "g"}}}, "classification.group_columns: group columns are"),
        (
            {"prompts": {"items": ["Approve 1?", "Approve 2?"], "group_column": "g"},
             "use_case": {"task": "classification", "attributes": ["gender", "race"],
                          "intersections": [["gender", "race"]]}},
            "use_case.intersections: the person group column 'g' holds one group per person",
        ),
    ],
)  # fmt: skip
def test_configs_with_impossible_person_groups_are_refused_up_front(extra: dict, message: str) -> None:
    from evenhand.config import ConfigError, parse_config

    data = {"use_case": {"task": "classification", "attributes": ["gender"]}, "prompts": {"items": ["Approve 1?"]}}
    with pytest.raises(ConfigError, match=message.replace(".", r"\.").replace("(", r"\(")):
        parse_config({**data, **extra}, source="c.yaml")


def test_a_shared_person_group_column_matches_group_names_regardless_of_case() -> None:
    table = _table()
    options = {"task": "classification", "responses": table, "labels": table["truth"].tolist(), "person_level": True,
               "prevalence_parity": True, "n_resamples": 20, "progress": False}  # fmt: skip
    capitalised = [g.capitalize() for g in table["applicant_gender"]]
    alone = _value(evenhand.assess(attributes=["gender"], groups=capitalised, **options), "DP", "gender")
    shared = _value(evenhand.assess(attributes=["gender", "race"], groups=capitalised, **options), "DP", "gender")
    assert alone == shared == pytest.approx(5 / 7 - 1 / 2)  # adding an attribute does not empty gender's groups
    with pytest.raises(ValueError, match=r"^person_group: none of its values \(x\) is a group of gender or race"):
        evenhand.assess(attributes=["gender", "race"], groups=["x"] * len(table), **options)


@pytest.mark.parametrize("task", ["estimation", "text_generation"])
def test_group_columns_flag_with_another_task_names_the_flag(tmp_path: Path, task: str) -> None:
    """The flag writes the classification section; with another task the error named that section, which the user
    never wrote: it names the flag and the task, from the flags alone and with a config file."""
    _table().to_csv(tmp_path / "responses.csv", index=False)
    flags = ["--group-columns", "gender=applicant_gender", "--no-html", "--out", str(tmp_path / "out")]
    bad = CliRunner().invoke(app, ["metrics", str(tmp_path / "responses.csv"), "--task", task, *flags])
    assert bad.exit_code == 2, bad.output
    line = bad.output.strip().splitlines()[-1]
    assert "--group-columns" in line and f"task is {task}" in line and "Traceback" not in bad.output, bad.output
    config = f"use_case: {{task: {task}, attributes: [gender]}}\nresponses: {{path: responses.csv}}\n"
    (tmp_path / "config.yaml").write_text(config, encoding="utf-8")
    bad = CliRunner().invoke(
        app, ["metrics", str(tmp_path / "responses.csv"), "--config", str(tmp_path / "config.yaml"), *flags]
    )
    assert bad.exit_code == 2 and "--group-columns" in bad.output and "config.yaml" not in bad.output, bad.output
