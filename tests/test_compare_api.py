"""evenhand.compare: differences with intervals (paired, independent, normal approximation), findings that
appeared or went away, the verdict on the difference, and the notebook display."""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from pathlib import Path
from statistics import NormalDist

import pytest
from test_compare_fixtures import FAST, biased_run, fair_run, make_run, toxic

import evenhand
from evenhand.comparison import RunComparison
from evenhand.pipeline.results.assessment import Assessment


def _row(comparison: RunComparison, metric: str) -> dict:
    return next(r for r in comparison.to_dict()["metrics"] if r["metric"] == metric)


def _diff(comparison: RunComparison, metric: str) -> dict:
    return _row(comparison, metric)["differences"][0]


@pytest.mark.pipeline
def test_planted_bias_is_worse_and_its_finding_appeared() -> None:
    result = evenhand.compare(fair_run(), biased_run())
    scsp = _diff(result, "SCSP")
    assert scsp["method"] == "paired" and scsp["ci_low"] > 0  # the interval excludes 0: more disparity in B
    assert scsp["change"] == "worse"
    assert scsp["sentence"].startswith("B is worse than A on gender SCSP (female vs male): difference +0.122 [")
    crouge = _diff(result, "CROUGE-L")
    assert crouge["ci_high"] < 0 and crouge["change"] == "worse"  # similarity dropped: worse (higher is fairer)
    finding = next(f for f in result.findings if f.risk == "counterfactual")
    assert (finding.before, finding.after, finding.change, finding.direction) == ("ok", "concern", "appeared", "worse")
    assert result.status == "worse" and result.worse_findings == [finding]
    sentences = result.sentences()
    assert sentences[0].startswith("B vs A: worse")
    assert "finding appeared in B: counterfactual (SCSP), gender, female vs male (ok -> concern)" in sentences


@pytest.mark.pipeline
def test_reversed_runs_improve_and_the_finding_went_away() -> None:
    result = evenhand.compare(biased_run(), fair_run(), labels=["before", "after"])
    assert _diff(result, "SCSP")["change"] == "improved"
    assert "after is better than before on gender SCSP" in _diff(result, "SCSP")["sentence"]
    finding = next(f for f in result.findings if f.risk == "counterfactual")
    assert (finding.change, finding.direction) == ("went away", "improved")
    assert result.status == "improved" and not result.worse_findings


@pytest.mark.pipeline
def test_identical_runs_differ_by_exactly_zero() -> None:
    run = fair_run()
    result = evenhand.compare(run, run.to_dict())  # an Assessment and its own results document
    for row in result.to_dict()["metrics"]:
        diff = row["differences"][0]
        if row["values"]["A"] is None:
            assert diff["change"] == "not comparable"
            continue
        assert (diff["difference"], diff["ci_low"], diff["ci_high"]) == (0.0, 0.0, 0.0), row["metric"]
        assert diff["method"] == "paired" and diff["change"] == "no clear change"
    assert {f.change for f in result.findings} == {"unchanged"}
    assert result.status == "no clear change"


@pytest.mark.pipeline
def test_paired_interval_is_narrower_than_independent_on_shared_prompts() -> None:
    paired = evenhand.compare(fair_run(), biased_run())
    independent = evenhand.compare(fair_run(), biased_run(), pairing="independent")
    for metric in ("EMT", "WCSP"):
        p, i = _diff(paired, metric), _diff(independent, metric)
        assert i["method"] == "independent" and "as asked" in i["note"] and p["method"] == "paired"
        assert p["difference"] == pytest.approx(i["difference"])  # same shared prompts: same estimate
    # EMT varies prompt to prompt in both runs, together: pairing cancels the shared part. (WCSP is 0 in every
    # resample of the fair run, so there is no shared part to cancel: its two intervals differ by resampling only.)
    p, i = _diff(paired, "EMT"), _diff(independent, "EMT")
    assert p["ci_high"] - p["ci_low"] < 0.9 * (i["ci_high"] - i["ci_low"])
    assert _diff(paired, "EMT")["ci_high"] - _diff(paired, "EMT")["ci_low"] < 0.6 * (
        _diff(independent, "EMT")["ci_high"] - _diff(independent, "EMT")["ci_low"]
    )


def test_runs_without_responses_fall_back_to_a_normal_approximation() -> None:
    no_responses = fair_run().to_dict(include_responses=False)
    result = evenhand.compare(no_responses, biased_run())
    scsp = _diff(result, "SCSP")
    assert scsp["method"] == "normal approximation"
    assert "run A has no responses" in scsp["note"] and "stored intervals" in scsp["note"]
    assert result.runs[0].describe()["n_responses"] is None


def test_normal_approximation_is_computed_by_hand() -> None:
    a = fair_run().to_dict(include_responses=False)
    b = copy.deepcopy(a)
    row_a = next(r for r in a["metrics"] if r["metric"] == "SCSP")
    row_b = next(r for r in b["metrics"] if r["metric"] == "SCSP")
    row_a.update(value=0.1, ci_low=0.0, ci_high=0.2, ci_level=0.95)
    row_b.update(value=0.3, ci_low=0.2, ci_high=0.4, ci_level=0.95)
    diff = _diff(evenhand.compare(a, b), "SCSP")
    z = NormalDist().inv_cdf(0.975)
    se = math.sqrt(2 * (0.2 / (2 * z)) ** 2)  # both intervals are 0.2 wide at 95%
    assert diff["difference"] == pytest.approx(0.2)
    assert (diff["ci_low"], diff["ci_high"]) == pytest.approx((0.2 - z * se, 0.2 + z * se))
    # the row's own p is read off its interval; its word rests on the p adjusted across the comparison's rows
    assert diff["p_value"] == pytest.approx(2 * NormalDist().cdf(-0.2 / se))
    assert diff["change"] == ("worse" if diff["p_adjusted"] < 0.05 else "no clear change")  # lower SCSP is fairer


@pytest.mark.parametrize(("stored_n", "change"), [("12 pairs, 6 prompts", "no clear change"),
                                                 ("48 pairs, 24 prompts", "worse")])  # fmt: skip
def test_a_normal_approximation_on_few_prompts_is_no_clear_change(stored_n: str, change: str) -> None:
    """The fewer-than-10-prompts rule holds for differences from stored intervals too (their units are read from
    the rows' ``n``), not only for recomputed ones."""
    a = fair_run().to_dict(include_responses=False)
    b = copy.deepcopy(a)
    for doc, (value, low, high) in ((a, (0.1, 0.0, 0.2)), (b, (0.5, 0.4, 0.6))):
        row = next(r for r in doc["metrics"] if r["metric"] == "SCSP")
        row.update(value=value, ci_low=low, ci_high=high, ci_level=0.95, n=stored_n)
    diff = _diff(evenhand.compare(a, b), "SCSP")
    assert diff["method"] == "normal approximation" and diff["n_units"] == int(stored_n.split(", ")[1].split()[0])
    assert diff["change"] == change


def test_paired_toxicity_difference_is_computed_by_hand() -> None:
    prompts = ["Write a poem about the sea.", "Describe a sunny day.", "List three fruits.", "Explain rain."]
    options = {"task": "text_generation", "prompts": prompts, "attributes": ["gender"], "toxicity": toxic, **FAST}
    a = evenhand.assess(responses=["ok"] * 8, **options)
    b = evenhand.assess(responses=["ok", "BAD", "ok", "ok", "BAD", "ok", "ok", "ok"], **options)
    result = evenhand.compare(a, b)
    # TF: 0/8 -> 2/8; EMT: mean per-prompt max 0.1 -> (0.9 + 0.1 + 0.9 + 0.1) / 4; TP: 0 -> 2 of 4 prompts
    for metric, expected in (("TF", 0.25), ("EMT", 0.4), ("TP", 0.5)):
        diff = _diff(result, metric)
        assert diff["difference"] == pytest.approx(expected) and diff["method"] == "paired", metric
        assert diff["n_units"] == 4 and diff["ci_low"] <= expected <= diff["ci_high"]


@pytest.mark.pipeline
def test_prompt_versions_are_compared_as_independent_runs() -> None:
    reworded = [p + " Keep it short." for p in biased_run().plan.use_case.prompts]
    other = make_run(biased=True, prompts=reworded, n_prompts=12)
    diff = _diff(evenhand.compare(fair_run(), other), "SCSP")
    assert diff["method"] == "independent" and "share too few prompts" in diff["note"]


@pytest.mark.pipeline
def test_partly_shared_prompts_are_paired_on_the_shared_ones() -> None:
    fewer = make_run(biased=True, n_prompts=12)
    diff = _diff(evenhand.compare(fair_run(), fewer), "SCSP")
    assert diff["method"] == "paired" and diff["n_units"] == 12
    assert "12 prompts of 24 (only the shared ones)" in diff["note"]


@pytest.mark.pipeline
def test_rows_in_one_run_only_are_listed() -> None:
    a = fair_run().to_dict()
    b = copy.deepcopy(a)
    b["metrics"] = [r for r in b["metrics"] if r["metric"] != "WCSP"]
    row = _row(evenhand.compare(a, b), "WCSP")
    assert row["values"]["B"] is None and row["values"]["A"] == 0.0
    assert row["differences"][0]["change"] == "not comparable"
    assert row["differences"][0]["note"] == "only in run A"


@pytest.mark.pipeline
def test_metrics_that_cannot_be_recomputed_say_why() -> None:
    a, b = fair_run().to_dict(), biased_run().to_dict()
    for doc in (a, b):  # pretend the embedder had run: CCS has values but results keep no vectors
        row = next(r for r in doc["metrics"] if r["metric"] == "CCS")
        row.update(value=0.9, ci_low=0.85, ci_high=0.95, ci_level=0.95)
    diff = _diff(evenhand.compare(a, b), "CCS")
    assert diff["method"] == "normal approximation" and "embedder's vectors" in diff["note"]


@pytest.mark.pipeline
def test_three_runs_compare_each_with_the_baseline() -> None:
    result = evenhand.compare(fair_run(), biased_run(), fair_run(), labels=["v1", "v2", "v3"])
    scsp = _row(result, "SCSP")
    assert set(scsp["values"]) == {"v1", "v2", "v3"}
    assert [(d["run"], d["change"]) for d in scsp["differences"]] == [("v2", "worse"), ("v3", "no clear change")]
    assert result.status_of("v2") == "worse" and result.status_of("v3") == "no clear change"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda a: evenhand.compare(a, a, labels=["x"]), "labels: 1 label(s) for 2 runs"),
        (lambda a: evenhand.compare(a, a, labels=["x", "x"]), "each run needs its own non-empty label"),
        (lambda a: evenhand.compare(a, {"schema": "nope"}), "run B: not an evenhand results document"),
        (lambda a: evenhand.compare(a, a, ci=1.5), "ci must lie strictly between 0 and 1"),
        (lambda a: evenhand.compare(a, a, pairing="magic"), "pairing must be one of auto, independent"),
    ],
)
def test_bad_input_is_one_clear_error(call: Callable[[Assessment], object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(fair_run())


@pytest.mark.pipeline
def test_repr_and_notebook_display() -> None:
    result = evenhand.compare(fair_run(), biased_run(), labels=["<b>old</b>", "new"])
    assert repr(result) == "RunComparison(<b>old</b> vs new: worse, 15 metric rows)"  # paper 10, TSD MTD RRD RLD NRD
    html = result._repr_html_()
    assert "Verdict on the difference" in html and html.index("Verdict on the difference") < html.index("Metrics")
    assert "&lt;b&gt;old&lt;/b&gt;" in html and "<b>old</b>" not in html
    assert "new is worse than &lt;b&gt;old&lt;/b&gt; on gender SCSP" in html
    assert "<script" not in html


@pytest.mark.pipeline
def test_compare_is_a_top_level_function() -> None:
    import evenhand.comparison as package

    assert evenhand.compare is package.compare and evenhand.RunComparison is RunComparison
    assert isinstance(evenhand.compare(fair_run(), fair_run()), RunComparison)


@pytest.mark.pipeline
def test_schema_1_rows_without_keys_and_groups_are_still_paired() -> None:
    a, b = fair_run().to_dict(), biased_run().to_dict()
    for doc in (a, b):  # schema 1.x rows name the metric and the two groups only
        doc["schema_version"] = "1.3"
        for row in doc["metrics"]:
            del row["key"], row["groups"]
    scsp = _diff(evenhand.compare(a, b), "SCSP")
    assert scsp["method"] == "paired" and scsp["change"] == "worse"


@pytest.mark.pipeline
def test_secrets_in_a_model_description_never_reach_the_outputs() -> None:
    doc = biased_run().to_dict()
    doc["model"] = {"provider": "openai", "api_key": "sk-very-secret-123", "base_url": "http://u:pw@host/v1"}
    result = evenhand.compare(fair_run(), doc)
    for text in (result.to_json(), result.to_html(), result._repr_html_()):
        assert "sk-very-secret-123" not in text and "u:pw@" not in text


def _classifier(flip_b: bool) -> Callable[[str], str]:
    """Person i (group a when i is odd) is approved when i % 3 != 0; with ``flip_b`` most of group b is refused."""

    def answer(prompt: str) -> str:
        i = int(prompt.split()[1].rstrip(":"))
        refused = i % 3 == 0 or (flip_b and i % 2 == 0 and i % 5 != 0)
        return "no" if refused else "yes"

    return answer


def test_classification_runs_are_paired_within_groups(tmp_path: Path) -> None:
    prompts = [f"Applicant {i}: approve?" for i in range(40)]
    options = {
        "task": "classification", "prompts": prompts, "groups": ["a" if i % 2 else "b" for i in range(40)],
        "labels": [1 if i % 4 < 2 else 0 for i in range(40)], "person_level": True, "prevalence_parity": True,
        "attributes": ["gender"], "count": 1, **FAST,
    }  # fmt: skip
    fair, unfair = (evenhand.assess(client=_classifier(flip), **options) for flip in (False, True))
    unfair.to_json(tmp_path / "results.json", include_responses=False)
    unfair.export_responses(tmp_path / "responses.csv")  # labels read back from CSV still match
    result = evenhand.compare(fair, tmp_path / "results.json")
    dp = _diff(result, "DP")
    assert dp["method"] == "paired" and dp["n_units"] == 40
    assert dp["difference"] > 0.4 and dp["change"] == "worse", dp


def test_recommendation_runs_are_paired() -> None:
    films = ["Heat", "Zodiac", "Gone Girl", "Alien", "Up", "Jaws"]
    prompts = [f"Recommend 3 films for my wife, who likes {g}." for g in ("drama", "crime", "sci-fi", "comedy")]

    def llm(shift: int) -> Callable[..., str]:
        return lambda p, seed=None: ", ".join(films[(len(p) + shift + (seed or 0)) % 3 :][:3])

    options = {"task": "recommendation", "prompts": prompts, "k": 3, "count": 2, "attributes": ["gender"], **FAST}
    runs = [evenhand.assess(client=llm(s), generation_options={"seed": 0}, **options) for s in (0, 1)]
    result = evenhand.compare(*runs)
    for metric in ("Jaccard-K", "SERP-K", "PRAG-K"):
        diff = _diff(result, metric)
        expected = runs[1].result(metric).value - runs[0].result(metric).value
        assert diff["method"] == "paired" and diff["difference"] == pytest.approx(expected), metric


@pytest.mark.pipeline
def test_responses_that_do_not_give_the_stored_values_are_not_paired() -> None:
    edited, broken = biased_run().to_dict(), biased_run().to_dict()
    for response in edited["responses"]:
        if response["group"] == "female":
            response["sentiment"] = 0.5  # hand-edited scores: SCSP from them is not the stored SCSP
    for response in broken["responses"]:
        response["toxicity"] = "high"  # not a number at all
    scsp = _diff(evenhand.compare(fair_run(), edited), "SCSP")
    assert scsp["method"] == "normal approximation" and "run B's responses give" in scsp["note"]
    tf = _diff(evenhand.compare(fair_run(), broken), "TF")
    assert tf["method"] == "normal approximation" and "not recomputable from the stored responses" in tf["note"]


@pytest.mark.pipeline
def test_stereotype_classifier_metrics_are_paired() -> None:
    from test_compare_fixtures import run_kwargs

    def stereotype(texts: list[str]) -> list[float]:  # a toy classifier: blaming replies are "stereotyped"
        return [0.8 if "fault" in t or "careless" in t else 0.1 for t in texts]

    runs = [evenhand.assess(**run_kwargs(biased=flag), stereotype=stereotype) for flag in (False, True)]
    result = evenhand.compare(*runs)
    for metric in ("SF", "EMS", "SP"):
        diff = _diff(result, metric)
        expected = runs[1].result(metric, "gender").value - runs[0].result(metric, "gender").value
        assert diff["method"] == "paired" and diff["difference"] == pytest.approx(expected), metric


@pytest.mark.parametrize("pairing", ["auto", "independent"])
@pytest.mark.pipeline
def test_a_handful_of_prompts_decides_nothing(pairing: str) -> None:
    """One or a few prompts give a (near) zero-width bootstrap interval: as in the verdict, fewer than 10 prompts
    cannot make a difference worse or better, however far apart the values are."""
    few_fair, few_biased = make_run(biased=False, n_prompts=4), make_run(biased=True, n_prompts=4)
    scsp = _diff(evenhand.compare(few_fair, few_biased, pairing=pairing), "SCSP")
    assert scsp["difference"] > 0 and scsp["n_units"] == 4
    assert scsp["change"] == "no clear change"
