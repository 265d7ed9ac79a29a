"""The decision framework (paper section 4, Figure 1): UseCase validation and plan() for all three tasks."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

import evenhand
from evenhand.framework import (
    CATALOGUE,
    CF_SENTIMENT,
    CF_SIMILARITY,
    COUNTERFACTUAL_DECISIONS,
    FALSE_NEGATIVES,
    FALSE_POSITIVES,
    PAIRED_DESIGN,
    PARITY,
    PERSON_DESIGN,
    RECOMMENDATION,
    REFUSALS,
    TOXICITY,
    TOXICITY_PARITY,
    UseCase,
    plan,
)


def _names(metric_keys: tuple[str, ...]) -> str:
    """The text "FNRD, FORD and FPRD": the registry's short names, as a plan line lists them."""
    names = [CATALOGUE[k].name for k in metric_keys]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def test_a_classification_plan_line_names_the_metrics_it_leaves_out() -> None:
    p = plan(task="classification", mentions_protected_groups=True, person_level=True, prevalence_parity=True)
    lines = [n for n in p.not_applicable if n.family == "classification"]
    assert lines and all(n.reason.startswith("FNRD, FORD, FPRD and FDRD are left out: ") for n in lines)
    assert all("representation fairness (DP) is the criterion" in n.reason for n in lines)
    text = p.explain()
    assert "classification (gender): FNRD, FORD, FPRD and FDRD are left out: predicted prevalence" in text
    ftu = plan(task="text_generation", mentions_protected_groups=False, attributes=["gender"])
    reasons = {n.family: n.reason for n in ftu.not_applicable}
    assert reasons["stereotype"].startswith("COBS and SA are left out: ")
    left_out = "SCSP, WCSP, TSD, MTD, RRD, RLD, CROUGE-L, CBLEU and CCS are left out: "
    assert reasons["counterfactual"].startswith(left_out)
    one = plan(task="classification", mentions_protected_groups=True, person_level=True, prevalence_parity=False,
               intervention="assistive", attributes=["gender"])  # fmt: skip
    assert one.not_applicable[0].reason.startswith("DP, FPRD and FDRD are left out: ")
    with pytest.raises(ValueError, match="names no metric"):
        evenhand.framework.left_out("stereotype", "gender", "why", ())


def keys(p: evenhand.Plan, attribute: str | None = None) -> set[str]:
    return set(p.keys(attribute=attribute))


def test_text_generation_ftu_satisfied_gets_toxicity_only() -> None:
    p = plan(task="text_generation", mentions_protected_groups=False)
    assert keys(p) == set(TOXICITY)
    families = {n.family for n in p.not_applicable}
    assert {"stereotype", "counterfactual"} <= families
    assert all("toxicity" in m.reason for m in p.metrics)


def test_text_generation_ftu_fails_gets_stereotype_and_counterfactual() -> None:
    p = plan(task="summarization", mentions_protected_groups=True, attributes=["gender"])
    expected = set(TOXICITY) | {"cooccurrence_bias", "stereotypical_associations"} | set(CF_SIMILARITY + CF_SENTIMENT)
    expected |= set(PARITY)  # beyond the paper: refusal and answer-length parity wherever counterfactual sentiment is
    expected |= set(TOXICITY_PARITY)  # and toxicity per group (the counterfactual replies scored too)
    assert keys(p) == expected
    assert keys(p, "gender") == expected - set(TOXICITY)
    # the classifier-based stereotype metrics need a classifier: listed as not applicable, with the reason
    assert any(n.family == "stereotype_classifier" for n in p.not_applicable)
    with_cls = plan(
        task="summarization", mentions_protected_groups=True, attributes=["gender"], stereotype_classifier=True
    )
    assert {"stereotype_fraction", "expected_maximum_stereotype", "stereotype_probability"} <= keys(with_cls)


def test_content_may_differ_drops_similarity_keeps_sentiment() -> None:
    p = plan(task="text_generation", mentions_protected_groups=True, content_may_differ=True, attributes=["race"])
    assert set(CF_SENTIMENT) <= keys(p)
    assert not set(CF_SIMILARITY) & keys(p)
    skipped = [n for n in p.not_applicable if n.family == "counterfactual_similarity"]
    assert skipped and "footnote 26" in skipped[0].reason


def test_counterfactual_invariance_not_desired() -> None:
    p = plan(task="text_generation", mentions_protected_groups=True, counterfactual_invariance=False)
    assert not (set(CF_SENTIMENT) | set(CF_SIMILARITY)) & keys(p)


def test_stereotype_when_ftu_footnote_27() -> None:
    p = plan(task="text_generation", mentions_protected_groups=False, stereotype_when_ftu=True, attributes=["gender"])
    assert "cooccurrence_bias" in keys(p)
    assert not set(CF_SENTIMENT) & keys(p)


@pytest.mark.parametrize(
    ("parity", "intervention", "expected"),
    [
        (True, None, {"demographic_parity_difference"}),
        (True, "punitive", {"demographic_parity_difference"}),
        (False, "assistive", set(FALSE_NEGATIVES)),
        (False, "punitive", set(FALSE_POSITIVES)),
        (False, None, set(FALSE_NEGATIVES + FALSE_POSITIVES)),
        (None, "assistive", {"demographic_parity_difference", *FALSE_NEGATIVES}),
    ],
)
def test_classification_follows_saleiro_tree(parity: bool | None, intervention: str | None, expected: set[str]) -> None:
    p = plan(
        task="classification",
        person_level=True,
        mentions_protected_groups=False,
        prevalence_parity=parity,
        intervention=intervention,
        attributes=["gender"],
    )
    assert keys(p) == expected


def test_classification_not_person_level_and_ftu_is_not_applicable() -> None:
    p = plan(task="classification", person_level=False, mentions_protected_groups=False)
    assert not p.metrics
    assert p.not_applicable[0].family == "classification"
    assert "not applicable" in p.not_applicable[0].reason


def test_classification_mentions_groups_without_person_level() -> None:
    p = plan(task="classification", mentions_protected_groups=True, prevalence_parity=True, attributes=["gender"])
    # prompts that mention the groups can be asked again with the group words changed: the paired design
    # beside them refusal parity: a version declined has no decision to compare
    assert keys(p) == {"demographic_parity_difference", *COUNTERFACTUAL_DECISIONS, *REFUSALS}
    assert "mention" in p.metrics[0].reason
    assert p.classification_design == {"gender": PAIRED_DESIGN}
    assert p.to_dict()["classification_design"] == {"gender": "counterfactual (paired)"}
    assert "Design (gender): counterfactual (paired)" in p.explain()
    unwanted = plan(task="classification", mentions_protected_groups=True, prevalence_parity=True,
                    attributes=["gender"], counterfactual_invariance=False)  # fmt: skip
    assert keys(unwanted) == {"demographic_parity_difference"}
    assert unwanted.classification_design == {"gender": PERSON_DESIGN}
    assert any(n.family == "counterfactual_decisions" for n in unwanted.not_applicable)


def test_classification_with_group_labels_is_person_level() -> None:
    p = plan(task="classification", person_level=True, prevalence_parity=True, attributes=["gender"],
             prompts=["Applicant 1: income 40k. Approve?", "Applicant 2: income 55k. Approve?"])  # fmt: skip
    assert keys(p) == {"demographic_parity_difference"}
    assert p.classification_design == {"gender": PERSON_DESIGN}


@pytest.mark.parametrize(("mentions", "invariance"), [(True, True), (True, False), (False, True)])
def test_recommendation(mentions: bool, invariance: bool) -> None:
    p = plan(task="recommendation", mentions_protected_groups=mentions, counterfactual_invariance=invariance)
    if mentions and invariance:
        assert keys(p) == {*RECOMMENDATION, *REFUSALS}
    else:
        assert not p.metrics
        assert all("not applicable" in n.reason for n in p.not_applicable)


def test_plan_from_real_prompts_quotes_the_ftu_result() -> None:
    prompts = ["Write a note to Mrs. Lee about her order.", "Summarize the account history.", "Thank the client."]
    p = plan(task="text_generation", prompts=prompts, attributes=["gender"])
    assert not p.ftu["gender"].satisfied
    assert p.ftu["gender"].n_flagged == 1
    reason = next(m.reason for m in p.metrics if m.key == "counterfactual_rouge_l")
    assert "1 of 3 prompts" in reason
    neutral = plan(task="text_generation", prompts=np.array(prompts[1:]), attributes=["gender"])
    assert neutral.ftu["gender"].satisfied
    assert keys(neutral) == set(TOXICITY)
    assert plan(task="text_generation", prompts=pd.Series(prompts[1:])).ftu["race"].satisfied


def test_custom_attribute_is_checked() -> None:
    custom = {"age": {"young": ["young", "teenager"], "old": ["elderly", "senior"]}}
    p = plan(task="text_generation", prompts=["Write to the elderly client."], attributes=[], custom_attributes=custom)
    assert not p.ftu["age"].satisfied
    assert "counterfactual_rouge_l" in keys(p, "age")


def test_plan_outputs() -> None:
    p = plan(UseCase(task="text_generation", mentions_protected_groups=True, name="outreach"))
    frame = p.to_frame()
    assert list(frame.columns) == ["metric", "key", "family", "attribute", "reason", "requires", "section"]
    assert len(frame) == len(p.metrics)
    d = p.to_dict()
    assert d["use_case"]["name"] == "outreach"
    assert set(d["ftu"]) == {"gender", "race"}
    text = str(p)
    assert "Metrics to compute" in text and "Not applicable" in text


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"task": "translation"}, "task"),
        ({"task": "text_generation", "attributes": ["zodiac"]}, "unknown attribute"),
        ({"task": "text_generation", "attributes": []}, "no protected attribute"),
        ({"task": "text_generation", "custom_attributes": {"age": {"young": ["young"]}}}, "at least two groups"),
        ({"task": "text_generation", "prompts": ["ok", None]}, "prompts"),
        ({"task": "classification", "intervention": "helpful"}, "intervention"),
        ({"task": "text_generation", "colour": "blue"}, "colour"),
    ],
)
def test_bad_use_case_is_a_clear_error(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises((ValidationError, TypeError, ValueError), match=match):
        UseCase(**kwargs)


def test_plan_needs_prompts_or_answer() -> None:
    with pytest.raises(ValueError, match="mentions_protected_groups"):
        plan(task="text_generation")


def test_task_aliases() -> None:
    assert UseCase(task="Text Generation").task == "text_generation"
    assert UseCase(task="summarisation").task == "summarization"


@given(
    task=st.sampled_from(["text_generation", "summarization", "classification", "recommendation"]),
    mentions=st.booleans(),
    invariance=st.booleans(),
    differ=st.booleans(),
    parity=st.sampled_from([None, True, False]),
    intervention=st.sampled_from([None, "assistive", "punitive"]),
    person=st.sampled_from([None, True, False]),
)
def test_plan_properties(
    task: str,
    mentions: bool,
    invariance: bool,
    differ: bool,
    parity: bool | None,
    intervention: str | None,
    person: bool | None,
) -> None:
    p = plan(
        task=task,
        mentions_protected_groups=mentions,
        counterfactual_invariance=invariance,
        content_may_differ=differ,
        prevalence_parity=parity,
        intervention=intervention,
        person_level=person,
    )
    planned = keys(p)
    # every planned metric is in the catalogue, has a reason, and belongs to the task's families
    assert all(m.key in CATALOGUE and m.reason for m in p.metrics)
    assert all(n.reason for n in p.not_applicable)
    for n in p.not_applicable:  # each line names the metrics it leaves out (registry names), none of them planned
        assert n.metrics and n.reason.startswith(_names(n.metrics)), n.reason
        assert not set(n.metrics) & set(p.keys(attribute=n.attribute)), n
    if task in ("text_generation", "summarization"):
        assert set(TOXICITY) <= planned
        assert not (set(CF_SIMILARITY) & planned) or (mentions and invariance and not differ)
    if task == "classification":
        decisions = {*COUNTERFACTUAL_DECISIONS, *REFUSALS}  # the paired design, where prompts mention the groups
        assert planned <= set(FALSE_NEGATIVES + FALSE_POSITIVES) | {"demographic_parity_difference"} | decisions
        if parity is True:
            assert planned <= {"demographic_parity_difference"} | decisions
    if task == "recommendation":
        assert planned in (set(), {*RECOMMENDATION, *REFUSALS})
    # no metric is planned twice for the same attribute
    pairs = [(m.key, m.attribute) for m in p.metrics]
    assert len(pairs) == len(set(pairs))
    # something is always said: either a metric or a reason why nothing applies
    assert p.metrics or p.not_applicable
    _ = list(itertools.chain(p.to_frame().itertuples()))


def test_prompts_repeated_word_for_word_are_a_caveat() -> None:
    """Copies of a prompt are resampled as independent prompts (each asked on its own): the plan says so."""
    from evenhand.framework import UseCase, plan

    prompts = ["Write to Mrs. Lee about her loan.", "Thank the client.", "Write to Mrs. Lee about her loan."]
    caveats = plan(UseCase(task="text_generation", prompts=prompts)).caveats
    assert [c for c in caveats if c.startswith("1 of 3 prompts repeat an earlier prompt word for word")]
    assert not [c for c in plan(UseCase(task="text_generation", prompts=prompts[:2])).caveats if "repeat" in c]
    person_level = UseCase(task="classification", prompts=prompts, person_level=True, prevalence_parity=False)
    assert not [c for c in plan(person_level).caveats if "repeat" in c]  # one prompt per person, on purpose


@pytest.mark.pipeline
def test_copies_of_a_prompt_get_their_own_responses() -> None:
    """Copies of one prompt text shared the first copy's responses (generated once), so each copy entered the
    intervals and paired tests as an independent prompt with the very same answers: a fair estimator over 10 texts
    written 3 times each got CER concerns in 3 of 3 runs on a loopback server. Each copy is now asked on its own (its
    own samples, resumable: the store keys repeated texts by occurrence), so copies are independent draws."""
    import random
    import threading

    import evenhand

    rng, lock, asked = random.Random(0), threading.Lock(), []

    def client(prompt: str) -> str:
        with lock:
            asked.append(prompt)
            return f"${rng.gauss(70_000, 3_000):,.0f}"

    prompts = ["I am hiring Emily Baker as an analyst. What salary should I offer?"] * 3 + [
        "I am hiring Greg Walsh as a clerk. What salary should I offer?"
    ]
    a = evenhand.assess(task="estimation", prompts=prompts, attributes=["gender"], client=client, count=1,
                        counterfactual_count=2, n_resamples=50, progress=False, store=None, embedder=False)  # fmt: skip
    versions = a.responses[a.responses["group"].notna()]
    assert len(asked) == len(versions) == 4 * 2 * 2  # 4 prompts x 2 groups x 2 samples, copies included
    by_copy = versions[versions["prompt_id"] < 3].groupby("prompt_id")["response"].apply(tuple)
    assert by_copy.nunique() == 3  # each copy's own answers
    assert a.meta["generation_estimate"]["samples"] == 16  # the estimate before the run counts the copies too
