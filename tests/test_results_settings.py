"""What a run knows travels typed (issue 35): the Assessment carries the run's ``RunSettings``, what its families
described of what they used, the scorer audit, the names used and its own sections as fields, not in ``meta`` to be
read back by key; results.json's ``settings`` block is written from them once, when the document is made; the verdict
and the finding examples read one ``RunFacts`` made from them."""

from __future__ import annotations

import dataclasses

import pytest
from test_parity_planted import FAST, stand_in

import evenhand
from evenhand._json import json_safe
from evenhand.config import RunSettings
from evenhand.pipeline.results.document import settings_block
from evenhand.pipeline.verdict.kinds.base import RunFacts


@pytest.fixture(scope="module")
def refused() -> evenhand.Assessment:
    return evenhand.assess(**stand_in(30, refused="female"), **FAST)


def test_the_settings_the_audit_and_the_names_are_fields_not_meta(refused: evenhand.Assessment) -> None:
    a = refused
    assert isinstance(a.settings, RunSettings) and a.settings.statistics.n_resamples == 200
    assert not {"settings", "scorer_audit", "names", "sections"} & set(a.meta)  # meta: the run's provenance only
    doc = a.to_dict(include_responses=False)
    assert doc["settings"] == json_safe(settings_block(a.settings, a.described))
    assert doc["settings"]["n_resamples"] == 200  # a typed setting
    assert doc["settings"]["refusal_detector"] == a.described["refusal_detector"]  # what the family described
    assert doc["scorer_audit"] == json_safe(a.scorer_audit) and doc["names"] == json_safe(a.names)


def test_the_settings_block_by_hand() -> None:
    settings = RunSettings.model_validate(
        {"generation": {"count": 3}, "scoring": {"toxicity_threshold": 0.4}, "statistics": {"ci": 0.9, "seed": 7}}
    )
    block = settings_block(settings, {"k": 4, "toxicity_scorer": "a scorer"})
    assert block == {
        "count": 3, "counterfactual_count": 3, "toxicity_threshold": 0.4, "stereotype_threshold": 0.5,
        "sentiment_threshold": 0.5, "ci": 0.9, "n_resamples": 1000, "seed": 7, "ci_method": "percentile", "k": 4,
        "positive_label": None, "toxicity_scorer": "a scorer",
    }  # fmt: skip
    assert list(block)[-3:] == ["k", "positive_label", "toxicity_scorer"]  # a described key keeps the block's order


def test_the_verdict_reads_the_typed_settings(refused: evenhand.Assessment) -> None:
    assert not any("statistics were off" in n for n in refused.verdict.notes)
    statistics = refused.settings.statistics.model_copy(update={"ci": None})
    off = dataclasses.replace(refused, settings=refused.settings.model_copy(update={"statistics": statistics}))
    assert any("statistics were off" in n for n in off.verdict.notes)
    assert off.to_dict(include_responses=False)["settings"]["ci"] is None


def test_run_facts_from_the_typed_settings_and_the_families_descriptions() -> None:
    settings = RunSettings.model_validate({"scoring": {"refusal_threshold": 0.7}})
    described = {"positive_label": ["approve"], "label_words": {"approve": "yes"}, "sentiment_scorer": "vader"}
    facts = RunFacts.of_run(settings, described, attribute_specs={"gender": "gender"}, names_masked=True)
    assert facts == RunFacts(sentiment_scale="vader", attribute_specs={"gender": "gender"}, refusal_threshold=0.7,
                             positive_label="approve", label_words={"approve": "yes"}, names_masked=True)  # fmt: skip
    several = RunFacts.of_run(settings, {"positive_label": ["a", "b"]})  # multiclass: no one positive decision
    assert several.positive_label is None and several.refusal_threshold == 0.7


def test_a_copy_with_other_records_carries_the_same_run(refused: evenhand.Assessment) -> None:
    """What the red team's combined assessment is: the benign one with more records, the same settings and audit."""
    combined = dataclasses.replace(refused, records=list(refused.records), threshold_checks=[])
    assert combined.settings is refused.settings and combined.scorer_audit is refused.scorer_audit
    assert combined.to_dict(include_responses=False)["settings"] == refused.to_dict(include_responses=False)["settings"]
