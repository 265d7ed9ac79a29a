"""The families own their figures: which score columns are summarised per group, histogrammed and scattered, how the
report draws them and how the verdict captions a worst example; the assessment and the report only walk those
declarations (issue 26, item 3)."""

from __future__ import annotations

import inspect
import re
from dataclasses import replace
from typing import Any

import pytest
from rich.console import Console

import evenhand
from evenhand.pipeline import families
from evenhand.pipeline.families import FAMILY_TYPES, GROUP_MEANS, HISTOGRAMS, PAIR_SCATTER
from evenhand.pipeline.families.figures import GroupMean, Histogram
from evenhand.pipeline.families.toxicity import Toxicity
from evenhand.pipeline.results import assessment as assessment_module
from evenhand.pipeline.results.assessment import Assessment
from evenhand.report import _figures, _pair_scatters
from evenhand.report.console import print_assessment
from evenhand.report.digest import digest, example_caption

FAST: dict[str, Any] = {"n_resamples": 50, "store": None, "progress": False, "embedder": False}


@pytest.fixture(scope="module")
def text_run() -> Assessment:
    return evenhand.assess(
        task="text_generation",
        prompts=["Write to Mrs. Lee about her order.", "Write to a customer about the card."],
        client=lambda p: "Thank you, dear customer." if "her" in p.split() else "Pay now, you idiot.",
        count=2,
        attributes=["gender"],
        **FAST,
    )


def test_declarations_keep_the_results_documents_order() -> None:
    # results.json's order of these predates the declarations: the declared order keeps it, not the families' order
    assert [m.key for m in GROUP_MEANS] == ["mean_sentiment", "mean_toxicity", "mean_items"]
    assert [h.column for h in HISTOGRAMS] == ["toxicity", "sentiment", "stereotype_"]
    assert PAIR_SCATTER is not None and PAIR_SCATTER.column == "sentiment"


def test_one_family_at_most_scatters_pairs() -> None:
    # results.json ``pairs`` entries name no column: two scatters could not be told apart
    assert sum(f.pair_scatter is not None for f in FAMILY_TYPES) <= 1
    orders = [m.order for m in GROUP_MEANS], [h.order for h in HISTOGRAMS]
    assert all(len(set(o)) == len(o) for o in orders)  # one place each: the order never depends on ties


def test_a_histogram_by_prefix_covers_each_attributes_column_in_frame_order() -> None:
    names = ["prompt", "stereotype_race", "toxicity", "stereotype_gender"]
    assert Histogram("stereotype_", order=0, prefix=True).columns(names) == ["stereotype_race", "stereotype_gender"]
    assert Histogram("toxicity", order=0).columns(names) == ["toxicity"]
    assert Histogram("sentiment", order=0).columns(names) == []


def test_the_figures_code_names_no_score_column() -> None:
    sources = [inspect.getsource(f) for f in (Assessment._groups, Assessment._distributions, Assessment._pairs)]
    sources += [inspect.getsource(_figures), inspect.getsource(_pair_scatters)]
    for source in sources:
        assert not re.search(r"[\"'](sentiment|toxicity|items|stereotype_)", source), source.splitlines()[0]
    assert "toxic" not in inspect.getsource(example_caption)  # a reply's caption is its family's (ExampleSection)


@pytest.mark.pipeline
def test_a_declared_mean_is_summarised_and_drawn_as_declared(
    text_run: Assessment, monkeypatch: pytest.MonkeyPatch
) -> None:
    drawn = GroupMean("toxicity", order=1, chart=("Toxicity per {attribute} group", "A declared caption. {axis_note}"))
    kept = GroupMean("sentiment", order=2)  # summarised, not drawn
    monkeypatch.setattr(assessment_module, "GROUP_MEANS", (drawn, kept))
    monkeypatch.setattr(families, "GROUP_MEANS", (drawn, kept))
    doc = text_run.to_dict(include_responses=False)
    entries = [g for g in doc["groups"] if g["kind"] == "counterfactual"]
    assert entries and all(list(g)[-2:] == ["mean_toxicity", "mean_sentiment"] for g in entries)
    html = text_run.to_html()
    assert "Toxicity per gender group" in html and "A declared caption." in html
    assert "Mean sentiment score by" not in html and "Mean toxicity score by" not in html


@pytest.mark.pipeline
def test_a_declared_histogram_and_no_scatter(text_run: Assessment, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assessment_module, "HISTOGRAMS", (Histogram("sentiment", order=0),))
    monkeypatch.setattr(assessment_module, "PAIR_SCATTER", None)
    monkeypatch.setattr(families, "PAIR_SCATTER", None)
    doc = text_run.to_dict(include_responses=False)
    assert {d["score"] for d in doc["distributions"]} == {"sentiment"} and doc["pairs"] == []
    html = text_run.to_html()
    assert "Distribution of sentiment scores" in html and "Distribution of toxicity scores" not in html
    assert "Counterfactual pairs:" not in html


def test_the_reply_that_illustrates_a_finding_is_captioned_in_its_familys_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    section = replace(Toxicity.example_sections[0], caption="the harshest answer", measure=("harshness", "score"))
    monkeypatch.setattr(Toxicity, "example_sections", (section,))
    finding = {"risk": "toxicity", "attribute": None, "groups": None, "class": None, "severity": "concern",
               "sentence": "toxic", "metric": "M", "evidence": []}  # fmt: skip
    doc = {
        "plan": {"use_case": {"name": "t", "attributes": []}},
        "verdict": {"status": "concern", "summary": "1 concern", "notes": [], "findings": [finding]},
        "worst_examples": {"toxicity": [{"prompt": "p", "response": "r", "score": 0.5, "group": None,
                                         "attribute": None}]},
        "metrics": [],
    }  # fmt: skip
    found = digest(doc)
    assert found is not None
    example = found.attention[0]["example"]
    assert example["kind"] == "reply" and example_caption(example) == "the harshest answer (harshness 0.5)"
    console = Console(width=200, record=True)
    print_assessment(console, doc)
    assert "(the harshest answer (harshness 0.5))" in console.export_text()
