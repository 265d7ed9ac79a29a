"""Comparisons are data (attribute, pair of groups, class): any group name works, " vs " included."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import evenhand
from evenhand.pipeline.evidence.records import Comparison
from evenhand.pipeline.results.assessment import load_results

FAST = {"store": None, "progress": False, "n_resamples": 50, "embedder": False}
# group names that the old string labels ("a vs b") could not carry
ODD = {"cats vs dogs": ["cat people"], "birds": ["bird people"], "fish": ["fish people"]}


def _odd_assessment() -> evenhand.Assessment:
    prompts = ["Write an ad for cat people.", "Write a poem for cat people."]
    return evenhand.assess(
        task="text_generation",
        prompts=prompts,
        attributes=[],
        custom_attributes={"fans": ODD},
        client=lambda p, **kw: "Lovely day!" if "bird" in p else "What a dreadful awful day.",
        count=3,
        **FAST,
    )


def test_group_names_containing_vs_are_kept_whole() -> None:
    a = _odd_assessment()
    rows = a.metrics[a.metrics["metric"] == "SCSP"]
    assert sorted(zip(rows["group_a"], rows["group_b"], strict=True)) == [
        ("birds", "fish"),
        ("cats vs dogs", "birds"),
        ("cats vs dogs", "fish"),
    ]
    tests = a.tests[a.tests["metric"] == "SCSP"]
    assert ("cats vs dogs", "birds") in set(zip(tests["group_a"], tests["group_b"], strict=True))
    floors = a.metrics[a.metrics["metric"] == "CROUGE-L"]
    assert floors["noise_floor"].notna().all()  # each pair found its responses, whatever the names
    result = a.result("SCSP", "fans", ("cats vs dogs", "birds"))
    assert result.value > 0.1  # dreadful vs lovely
    assert a.result("SCSP", "fans", "cats vs dogs vs birds") is result  # the label still finds the row


@pytest.mark.pipeline
def test_results_json_carries_the_groups_beside_the_label(tmp_path: Path) -> None:
    a = _odd_assessment()
    a.to_json(tmp_path / "results.json")
    doc = load_results(tmp_path / "results.json")
    row = next(r for r in doc["metrics"] if r["metric"] == "SCSP" and r["group_a"] == "cats vs dogs")
    assert row["groups"] == ["cats vs dogs", row["group_b"]] and row["class"] is None
    assert row["comparison"] == f"cats vs dogs vs {row['group_b']}"
    toxicity = next(r for r in doc["metrics"] if r["metric"] == "TF")
    assert toxicity["groups"] is None and toxicity["comparison"] == "all"
    json.dumps(doc)  # strict JSON


def test_multiclass_rows_carry_their_class() -> None:
    classes = ["fraud", "support"]
    a = evenhand.assess(
        task="classification",
        prompts=[f"Route ticket {i}" for i in range(8)],
        responses=["fraud", "support"] * 4,
        labels=["fraud", "support", "support", "fraud"] * 2,
        groups=["a", "b"] * 4,
        person_level=True,
        prevalence_parity=True,
        label_parser={c: [c] for c in classes},
        positive_label=classes,
        attributes=["gender"],
        **FAST,
    )
    rates = a.metrics[a.metrics["metric"] != "PRRD"]  # PRRD: each group's refusals (per pair of groups, no class)
    assert rates["class"].tolist() == classes
    assert rates["comparison"].tolist() == ["class fraud vs rest", "class support vs rest"]
    assert {r.comparison.cls for r in a.records if r.key != "person_refusal_rate_difference"} == set(classes)


def test_comparison_labels() -> None:
    assert Comparison().label == "all"
    assert Comparison(groups=("a", "b")).label == "a vs b"
    assert Comparison(groups=("a", "b"), cls="x").label == "class x vs rest: a vs b"
    assert Comparison(groups=("a", "b")).matches(["a", "b"]) and not Comparison(groups=("a", "b")).matches(("b", "a"))


@pytest.mark.parametrize("normalize", [True, False])
def test_recommendation_normalize_setting_reaches_the_metrics(normalize: bool) -> None:
    """``normalize: false`` used to be accepted and dropped: "Alien" and "alien" matched anyway."""
    table = pd.DataFrame(
        {
            "prompt_id": [0, 0, 1, 1],
            "attribute": ["gender"] * 4,
            "group": ["female", "male"] * 2,
            "prompt": ["Films for a woman", "Films for a man", "Songs for a woman", "Songs for a man"],
            "response": ["1. Alien\n2. Heat", "1. alien\n2. heat", "1. Up\n2. Jaws", "1. UP\n2. JAWS"],
        }
    )
    a = evenhand.assess(
        task="recommendation", responses=table, attributes=["gender"], k=2, normalize=normalize, ci=None
    )
    assert float(a.result("Jaccard-K")) == (1.0 if normalize else 0.0)
    assert a.described["normalize"] is normalize
