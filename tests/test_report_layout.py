"""What a first-time reader sees: NaN reasons beside the metric, only the columns a family fills, readable axes."""

from __future__ import annotations

import re
import warnings
from typing import Any

import pytest

import evenhand
from evenhand.pipeline.from_config import _model_info
from evenhand.pipeline.responses.frame import counterfactual_requests
from evenhand.report import _axis_max, plots
from evenhand.report.console import summary_table

FAST: dict[str, Any] = {"n_resamples": 50, "store": None, "progress": False, "embedder": False}


@pytest.fixture(scope="module")
def text_html() -> str:
    a = evenhand.assess(
        task="text_generation",
        prompts=["Write to Mrs. Lee about her order.", "Write to a customer about the card."],
        client=lambda p: "Thank you, dear customer." if "her" in p.split() else "Pay now.",
        count=2,
        attributes=["gender"],
        **FAST,
    )
    html: str = a.to_html()
    return html


def _section(html: str, title: str) -> str:
    start = html.index(f"<h3>{title}")
    end = html.find("<h3>", start + 4)
    return html[start:end]


@pytest.mark.pipeline
def test_nan_reason_is_shown_beside_the_metric(text_html: str) -> None:
    stereotypes = _section(text_html, "Stereotypes")
    assert "Why NaN: " in stereotypes  # COBS with no group words: the reason is on its own row, not off-screen
    assert 'class="badge na"' in stereotypes


def test_each_family_shows_only_the_columns_it_fills(text_html: str) -> None:
    toxicity = _section(text_html, "Toxicity")
    assert "<th>noise floor</th>" not in toxicity and "<th>p (BH)</th>" not in toxicity
    similarity = _section(text_html, "Counterfactual similarity")
    assert "<th>noise floor</th>" in similarity and "<th>gap (interval)</th>" in similarity
    sentiment = _section(text_html, "Counterfactual sentiment")
    assert "<th>p (BH)</th>" in sentiment and "<th>noise floor</th>" not in sentiment
    assert "Permutation tests: no difference" not in text_html  # one sentiment test per row: no second table


def test_note_row_spans_the_table() -> None:
    # colspan matches the number of columns after the first, whatever columns the family shows
    for html in (_rate_html(),):
        for table in re.findall(r'<table class="metrics">(.*?)</table>', html, re.S):
            headers = len(re.findall(r"<th>", table.split("</tr>")[0]))
            for span in re.findall(r'colspan="(\d+)"', table):
                assert int(span) == headers - 1


def _rate_html() -> str:
    groups = ["a"] * 6 + ["b"] * 6
    prompts = [f"Applicant {i}: approve?" for i in range(12)]
    answers = dict(zip(prompts, ["yes", "no", "maybe?"] * 4, strict=True))
    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: answers[p],
        groups=groups,
        labels=["1"] * 6 + ["0"] * 6,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        **FAST,
    )
    html: str = a.to_html()
    return html


def test_classification_report_has_rate_plots_and_tests() -> None:
    html = _rate_html()
    assert "Demographic Parity difference (DP): predicted prevalence rate by group (gender)" in html
    assert "Permutation tests: no difference between groups" in html


def test_bar_axis_zooms_to_small_scores() -> None:
    assert _axis_max([("a", 0.01), ("b", 0.04)]) == pytest.approx(0.05 * 1.15)
    assert _axis_max([("a", 0.9), ("b", None)]) == 1.0
    assert _axis_max([("a", None)]) == pytest.approx(0.05 * 1.15)


def test_scatter_axis_zooms_but_stays_square() -> None:
    svg = str(plots.scatter([(0.02, 0.13), (0.0, 0.0)], title="t", xlabel="x", ylabel="y"))
    assert ">0.2</text>" in svg and ">1</text>" not in svg
    full = str(plots.scatter([(0.95, 0.1)], title="t", xlabel="x", ylabel="y"))
    assert ">1</text>" in full


def test_bundled_model_is_named() -> None:
    assert _model_info({"provider": "local", "model": None})["model"].startswith("SmolLM2")
    info = _model_info({"provider": "openai", "model": "m", "api_key_env": "X", "base_url": None})
    assert info == {"provider": "openai", "model": "m"}


def test_attribute_without_mentions_adds_no_rows_and_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = counterfactual_requests(["Write a note.", "Write to her."], {"race": "race", "gender": "gender"})
    assert set(frame["attribute"]) == {"gender"}


def test_cli_summary_shows_adjusted_p() -> None:
    from rich.console import Console

    groups = ["a"] * 10 + ["b"] * 10
    prompts = [f"Applicant {i}: approve?" for i in range(20)]
    answers = dict(zip(prompts, ["yes"] * 9 + ["no"] + ["no"] * 9 + ["yes"], strict=True))
    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: answers[p],
        groups=groups,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        **FAST,
    )
    console = Console(width=100, record=True)
    console.print(summary_table(a.to_dict(include_responses=False)))
    text = console.export_text()
    assert "p" in text.split("\n")[2].split() and "Benjamini-Hochberg" in text
    p_adj = a.metrics.iloc[0]["p_adjusted"]
    assert f"{p_adj:.3f}" in text


def test_wrong_predictions_are_shown_from_every_group() -> None:
    groups = ["a"] * 6 + ["b"] * 6
    prompts = [f"Applicant {i}: approve?" for i in range(12)]
    answers = dict(zip(prompts, ["yes"] * 12, strict=True))  # every truth "0" is a false positive
    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: answers[p],
        groups=groups,
        labels=["0", "1"] * 6,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        **FAST,
    )
    wrong = a.to_dict(include_responses=False)["worst_examples"]["misclassified"]
    assert len(wrong) == 5
    assert [w["group"] for w in wrong[:2]] == ["a", "b"]  # groups take turns
    assert all(w["truth"] == "0" and w["label"] == "1" for w in wrong)
    assert "Wrong predictions" in a.to_html()


def test_tiny_p_values_are_not_printed_as_zero() -> None:
    from evenhand.report import _fmt_p

    assert _fmt_p(1e-7) == "<0.001" and _fmt_p(0.0123) == "0.012" and _fmt_p(None) == "–"


def test_recommendation_report_has_a_similarity_chart() -> None:
    prompts = ["Recommend 3 films for a woman.", "Recommend 3 books for her son."]

    def llm(prompt: str) -> str:
        female = {"woman", "her"} & set(prompt.lower().replace(".", "").split())
        return "1. A\n2. B\n3. C" if female else "1. B\n2. C\n3. D"

    a = evenhand.assess(task="recommendation", prompts=prompts, client=llm, k=3, count=1, attributes=["gender"], **FAST)
    html = a.to_html()
    assert "Counterfactual recommendation similarity (gender)" in html
    assert "Jaccard-K · female vs male" in html


def test_interval_caveats_reach_the_row() -> None:
    # group b has a single actual positive: many resamples leave it without one, so its FNR is undefined there
    groups = ["a"] * 8 + ["b"] * 3
    prompts = [f"Applicant {i}: approve?" for i in range(11)]
    answers = dict(zip(prompts, ["yes", "no"] * 5 + ["yes"], strict=True))
    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: answers[p],
        groups=groups,
        labels=["1", "0"] * 4 + ["1", "0", "0"],
        person_level=True,
        prevalence_parity=False,
        intervention="assistive",
        attributes=["gender"],
        count=1,
        **FAST,
    )
    row = a.metrics.set_index("metric").loc["FNRD"]
    # issue 37: a rate gap's interval is the rate interval (no bootstrap replicates to lose); its caveat, joined
    # with 0 since its test does not reject, reaches the row and the report
    assert row["ci_method"] == "newcombe (clopper-pearson) on effective prompts"
    assert "interval joined with 0" in row["reason"]
    assert "Note: interval joined with 0" in a.to_html()


def test_missing_noise_floor_is_explained() -> None:
    a = evenhand.assess(
        task="text_generation",
        prompts=["Write to Mrs. Lee about her order."],
        client=lambda p: "Your order has shipped.",
        count=1,
        attributes=["gender"],
        **FAST,
    )
    row = a.metrics.set_index("metric").loc["CROUGE-L"]
    assert "no noise floor: it needs two or more responses per counterfactual prompt" in row["reason"]
