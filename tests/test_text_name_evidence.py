"""Full-name evidence for race (issue 33, item 2): the Bayesian rule over first-name and surname tables, computed by
hand; per-group recall on the labelled audit and perception names; the shipped figures the plan quotes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.errors import InputError
from evenhand.text import check_ftu
from evenhand.text._names_data import NameEvidence, build_index, measured_recall, name_index

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_names import RACE_LABELLED, measure_race_recall

RULE = NameEvidence(
    categories=("a", "b", "other"),
    cut=0.7,
    population=(0.5, 0.4, 0.1),
    first_population=(0.25, 0.5, 0.25),
    first={"ann": (800, 100, 100), "zed": (0, 1000, 0)},
    last={"lee": (500, 400, 100)},
)


def test_the_posterior_by_hand() -> None:
    # both parts: P(c | last) * P(c | first) / first_population(c), normalised (shares + 0.5 per mille)
    shares, parts = RULE.posterior("ann", "lee") or ([], ())
    a = 0.5005 * 0.8005 / 0.25
    b = 0.4005 * 0.1005 / 0.5
    o = 0.1005 * 0.1005 / 0.25
    assert parts == ("first", "last")
    assert shares == pytest.approx([a / (a + b + o), b / (a + b + o), o / (a + b + o)])
    # the first name alone: the surname table's population takes the surname's place
    shares, parts = RULE.posterior("ann", "nobody") or ([], ())
    a, b, o = 0.5 * 0.8005 / 0.25, 0.4 * 0.1005 / 0.5, 0.1 * 0.1005 / 0.25
    assert parts == ("first",) and shares == pytest.approx([a / (a + b + o), b / (a + b + o), o / (a + b + o)])
    # the surname alone: its own shares
    shares, parts = RULE.posterior(None, "lee") or ([], ())
    assert parts == ("last",) and shares == pytest.approx([0.5005 / 1.0015, 0.4005 / 1.0015, 0.1005 / 1.0015])
    assert RULE.posterior("nobody", None) is None
    # a zero share does not veto: "zed" (all b) with "lee" is b, not undefined
    placed = RULE.place("zed", "lee", ("a", "b"))
    assert placed is not None and placed.group == "b" and placed.share > 0.99
    # the largest group of those asked for ("other" only lowers them)
    placed = RULE.place("ann", "lee", ("a", "b"))
    assert placed is not None and placed.group == "a" and placed.parts == ("first", "last")


@settings(max_examples=60, deadline=None)
@given(
    st.tuples(*[st.integers(0, 1000)] * 3),
    st.tuples(*[st.integers(0, 1000)] * 3),
)
def test_posterior_properties(first: tuple[int, int, int], last: tuple[int, int, int]) -> None:
    rule = NameEvidence(("a", "b", "c"), 0.7, (0.6, 0.3, 0.1), (0.5, 0.3, 0.2), {"f": first}, {"l": last})
    for found in (rule.posterior("f", "l"), rule.posterior("f", None), rule.posterior(None, "l")):
        assert found is not None
        shares, _ = found
        assert sum(shares) == pytest.approx(1.0) and all(0 < s < 1 for s in shares)
    both, _ = rule.posterior("f", "l") or ([], ())
    alone, _ = rule.posterior(None, "l") or ([], ())
    # a first name that is more typical of a category than the voters are moves the posterior towards it
    ratios = [(v + 0.5) / 1000 / p for v, p in zip(first, rule.first_population, strict=True)]
    top = max(range(3), key=lambda c: ratios[c])
    assert both[top] >= alone[top] - 1e-12


def test_the_shipped_rule_and_its_validation() -> None:
    rule = name_index().evidence["race"]
    assert rule.categories == ("white", "black", "hispanic", "asian", "other") and rule.cut == 0.7
    assert len(rule.first) > 10_000 and len(rule.last) > 20_000
    people = json.loads((Path(__file__).resolve().parents[1] / "evenhand/data/names/people.json").read_text())
    base = {"attribute": "x", "cut": 0.8, "first_names": {"a": [["Ann", 0.9]]}}
    with pytest.raises(InputError, match=r"'evidence\.cut'"):
        build_index([base | {"evidence": {"rule": "bifsg", "categories": ["a", "b"], "cut": 0.2}}], people)
    with pytest.raises(InputError, match="rule"):
        build_index([base | {"evidence": {"rule": "other"}}], people)
    good = {
        "rule": "bifsg",
        "categories": ["a", "b"],
        "cut": 0.7,
        "population": [0.5, 0.5],
        "first_population": [0.5, 0.5],
    }
    with pytest.raises(InputError, match=r"evidence.first_names.Ann"):
        build_index([base | {"evidence": good | {"first_names": {"Ann": [1]}}}], people)
    with pytest.raises(InputError, match=r"evidence\.population"):
        build_index([base | {"evidence": good | {"population": [0.5]}}], people)


def test_issue_examples_are_read_as_black() -> None:
    prompts = [
        f"Write a short rejection email to {n} for the data analyst role."
        for n in (
            "DeShawn Jackson",
            "Tyrone Robinson",
            "Keisha Williams",
            "Jamal Jones",
            "Tremayne Banks",
            "Rasheed Booker",
        )
    ]
    result = check_ftu(prompts, "race")
    assert [[n.group for n in found] for found in result.names] == [["black"]] * 6


RECALL = measure_race_recall()


def test_recall_per_group_is_high_and_even() -> None:
    recall = {g: row["recall"] for g, row in RECALL["groups"].items()}
    assert set(recall) == {"white", "black", "hispanic", "asian"}
    assert min(recall.values()) >= 0.85
    assert max(recall.values()) - min(recall.values()) <= 0.10
    assert all(row["wrong"] == 0 for row in RECALL["groups"].values())  # never read as another group
    assert RECALL["lookalikes_flagged"] == 0
    assert sum(row["n"] for row in RECALL["groups"].values()) >= 200


def test_the_shipped_recall_is_the_measured_one() -> None:
    shipped = measured_recall()["race"].groups
    assert shipped == {g: (row["read"], row["n"]) for g, row in RECALL["groups"].items()}
    labelled = json.loads(RACE_LABELLED.read_text(encoding="utf-8"))
    assert {i["source"] for i in labelled["items"]} == {"crabtree2023", "bertrand_mullainathan2004", "issue33"}
