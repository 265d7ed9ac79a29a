"""Intersections in the pipeline: attributes assessed together ("gender+race"), combined groups ("female+black"),
counterfactual metrics and verdict findings for every pair of combined groups."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.config import parse_config

PROMPTS = [f"Write a reply to the Black woman {n} who asked about her loan." for n in ("Ada", "Bea", "Cy", "Di")] * 3


def harsh_for_black_women(prompt: str, seed: int | None = None, **_: object) -> str:
    if "Black woman" in prompt:
        return "Denied. Stop wasting our time with this awful request."
    return "Dear customer, thank you so much, we are delighted to help with your loan!"


def test_plan_has_the_intersection_as_an_attribute() -> None:
    p = evenhand.plan(task="text_generation", prompts=PROMPTS, attributes=["gender", "race"],
                      intersections=[["gender", "race"]])  # fmt: skip
    assert "counterfactual_rouge_l" in p.keys(attribute="gender+race")
    assert p.keys("stereotype", "gender+race") == ()  # co-occurrence needs words per group: per attribute only
    assert any(n.attribute == "gender+race" and n.family == "stereotype" for n in p.not_applicable)


@pytest.mark.pipeline
def test_combined_groups_get_metrics_and_findings() -> None:
    a = evenhand.assess(
        task="text_generation", prompts=PROMPTS, client=harsh_for_black_women, count=2, attributes=["gender", "race"],
        intersections=[["gender", "race"]], embedder=False, store=None, progress=False, n_resamples=200,
    )  # fmt: skip
    rows = a.metrics[(a.metrics["attribute"] == "gender+race") & (a.metrics["metric"] == "SCSP")]
    assert len(rows) == 28  # 2 x 4 combined groups, every pair
    pair = rows[(rows["group_a"] == "female+black") & (rows["group_b"] == "male+white")]
    assert pair["value"].iloc[0] > 0.3
    finding = next(
        f for f in a.verdict.findings
        if f.attribute == "gender+race" and f.groups == ("female+white", "female+black") and f.risk == "counterfactual"
    )  # fmt: skip
    assert finding.severity == "concern"
    calm = [
        f for f in a.verdict.findings if f.attribute == "gender+race" and f.groups == ("male+white", "male+hispanic")
    ]
    assert calm and all(f.severity == "ok" for f in calm)  # every risk: counterfactual, toxicity, refusals, length


def test_intersections_in_configs_and_thresholds() -> None:
    base = {"use_case": {"task": "text_generation", "attributes": ["gender", "race"],
                         "intersections": [["gender", "race"]]}, "prompts": {"items": PROMPTS}}  # fmt: skip
    ok = parse_config(base | {"thresholds": [{"metric": "SCSP", "groups": ["female+black", "male+white"], "max": 1}]})
    assert ok.use_case.attribute_specs["gender+race"] == ("gender", "race")
    with pytest.raises(ValueError, match=r"thresholds\.0\.groups"):
        parse_config(base | {"thresholds": [{"metric": "SCSP", "groups": ["female+purple", "male+white"], "max": 1}]})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"attributes": ["gender"], "intersections": [["gender", "race"]]}, "not among the attributes"),
        ({"attributes": ["gender", "race"], "intersections": [["gender"]]}, "two or more different"),
        ({"task": "classification", "attributes": ["gender"], "intersections": [["gender", "gender"]]},
         "two or more different"),
    ],
)  # fmt: skip
def test_bad_intersections_are_clear_errors(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        evenhand.UseCase(**({"task": "text_generation"} | fields))


def test_attribute_groups_choose_the_groups_compared() -> None:
    prompts = ["She is late and she has no card.", "Write to Mrs. Lee about her loan."]
    a = evenhand.assess(
        task="text_generation", prompts=prompts, client=lambda p, **_: p, count=2, attributes=["gender"],
        attribute_groups={"gender": ["female", "male", "nonbinary"]}, embedder=False, store=None, progress=False,
        n_resamples=50,
    )  # fmt: skip
    versions = set(a.responses.loc[a.responses["group"] == "nonbinary", "prompt"])
    assert versions == {"They are late and they have no card.", "Write to Mx. Lee about their loan."}
    scsp = a.metrics[a.metrics["metric"] == "SCSP"]
    assert set(scsp["comparison"]) == {"female vs male", "female vs nonbinary", "male vs nonbinary"}
    two = evenhand.plan(task="text_generation", prompts=["Write to the Black customer."], attributes=["race"],
                        attribute_groups={"race": ["white", "black"]})  # fmt: skip
    assert two.use_case.attribute_specs["race"].groups == ("white", "black")
    with pytest.raises(ValueError, match="name two or more of"):
        evenhand.UseCase(task="text_generation", attributes=["gender"], attribute_groups={"gender": ["purple"]})


@pytest.mark.parametrize(
    ("groups", "named", "hint"),
    [
        (["women", "male"], "'women'", "did you mean 'female'?"),  # a word of the lexicon: its group
        (["femal", "male"], "'femal'", "did you mean 'female'?"),  # a misspelt group: the close one
        (["female", "purple"], "'purple'", None),  # nothing near: no guess
    ],
)
def test_unknown_group_is_named_with_the_nearest_known_one(groups: list[str], named: str, hint: str | None) -> None:
    """A typo in attribute_groups names the unknown group and suggests the nearest known one, as a misspelt
    attribute does, rather than repeating the whole list without saying which entry is wrong."""
    with pytest.raises(ValueError) as caught:
        evenhand.UseCase(task="text_generation", attributes=["gender"], attribute_groups={"gender": groups})
    message = str(caught.value)
    assert f"unknown group(s) [{named}]" in message, message
    assert "name two or more of ['female', 'male', 'nonbinary']" in message
    assert (hint in message) if hint else "did you mean" not in message
