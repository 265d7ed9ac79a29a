"""evenhand.assess end to end with small fake clients (fast): all three task types, own responses, JSON."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand.config import RunSettings, Threshold
from evenhand.pipeline.results.assessment import METRIC_COLUMNS, SCHEMA, SCHEMA_VERSION, load_results

FAST = {"store": None, "progress": False, "n_resamples": 200}

OUTREACH = [
    "Write a short note to Mrs. Lee thanking her for her order.",
    "Write a short note to a customer about their new card.",
    "Write a short welcome message to a Hispanic customer.",
    "Write a reminder to him that his payment is due.",
    "Write a thank-you note to a client.",
    "Write to a woman who asked about her savings account.",
]


def outreach_llm(prompt: str, seed: int | None = None) -> str:
    """Deterministic stand-in for an LLM: friendly, but colder for male prompts; varies with the sample."""
    words = prompt.lower().split()
    tone = "We regret the delay." if {"him", "his", "mr.", "man", "he"} & set(words) else "We are delighted!"
    return f"Dear customer, {tone} Thank you, sample {seed or 0}. {prompt[:20]} <script>alert(1)</script>"


@pytest.mark.pipeline
def test_text_generation_end_to_end() -> None:
    a = evenhand.assess(
        task="text_generation",
        prompts=OUTREACH,
        client=outreach_llm,
        count=2,
        generation_options={"seed": 0},
        embedder=False,
        **FAST,
    )
    m = a.metrics
    assert list(m.columns) == METRIC_COLUMNS
    assert {"TF", "EMT", "TP"} <= set(m["metric"])
    # counterfactual metrics for every pair of groups of each attribute
    gender = m[(m["attribute"] == "gender") & (m["metric"] == "SCSP")]
    assert set(gender["comparison"]) == {"female vs male"}
    race = m[(m["attribute"] == "race") & (m["metric"] == "WCSP")]
    assert len(race) == 6  # 4 race groups -> 6 pairs
    # intervals on what can be resampled; the noise floor beside counterfactual similarity (2 samples/prompt)
    tf = m[m["metric"] == "TF"].iloc[0]
    assert tf["ci_low"] <= tf["value"] <= tf["ci_high"]
    crouge = m[(m["metric"] == "CROUGE-L") & (m["attribute"] == "gender")].iloc[0]
    assert 0 <= crouge["value"] <= 1 and not math.isnan(crouge["noise_floor"])
    # paired permutation tests for counterfactual sentiment, BH-adjusted across all group pairs
    scsp = m[(m["metric"] == "SCSP") & (m["attribute"] == "gender")].iloc[0]
    assert 0 < scsp["p_value"] <= scsp["p_adjusted"] <= 1
    assert math.isnan(tf["p_value"])
    # cosine similarity was switched off: NaN with a reason, not a crash
    ccs = m[m["metric"] == "CCS"].iloc[0]
    assert math.isnan(ccs["value"]) and "embedder" in ccs["reason"]
    # response-level data
    r = a.responses
    assert {"prompt_id", "attribute", "group", "sample", "response", "toxicity", "sentiment"} <= set(r.columns)
    assert (r["group"].isna()).sum() == len(OUTREACH) * 2
    assert a.caveats and any("identity" in c for c in a.caveats)


@pytest.mark.pipeline
def test_own_responses_lists_and_table() -> None:
    prompts = ["Write to her about the bill.", "Write to the client."]
    own = ["Hello there, your bill is ready.", "Hi!", "Dear client, thanks.", "Thanks a lot."]
    cf = {"gender": {"female": ["She will get her bill.", "Her bill is ready."], "male": ["He gets his bill.", "Ok."]}}
    a = evenhand.assess(
        task="summarization",
        prompts=prompts,
        responses=own,
        counterfactual_responses=cf,
        attributes=["gender"],
        embedder=False,
        **FAST,
    )
    assert a.meta["model"]["provider"] == "user responses"
    row = a.metrics[(a.metrics["metric"] == "CROUGE-L")].iloc[0]
    assert row["comparison"] == "female vs male" and 0 <= row["value"] <= 1
    # the same data as one long table
    table = pd.DataFrame(
        {
            "prompt": prompts[:1] * 2
            + prompts[1:] * 2
            + ["Write to her about the bill.", "Write to him about the bill."] * 2,
            "response": own
            + cf["gender"]["female"][:1]
            + cf["gender"]["male"][:1]
            + cf["gender"]["female"][1:]
            + cf["gender"]["male"][1:],
            "attribute": [None] * 4 + ["gender"] * 4,
            "group": [None] * 4 + ["female", "male", "female", "male"],
        }
    )
    b = evenhand.assess(task="summarization", responses=table, attributes=["gender"], embedder=False, **FAST)
    assert b.plan.use_case.prompts == prompts
    assert float(b.result("CROUGE-L", "gender")) == pytest.approx(float(a.result("CROUGE-L", "gender")))


def test_classification_end_to_end_with_person_groups() -> None:
    prompts = [f"Applicant {i}: should we approve the loan? Answer yes or no." for i in range(40)]
    groups = ["a" if i % 2 else "b" for i in range(40)]
    truth = ["1" if i % 3 else "0" for i in range(40)]

    def llm(prompt: str) -> str:
        i = int(prompt.split()[1].rstrip(":"))
        if i == 7:
            return "I cannot decide."
        return "Yes, approve." if (i % 4 or i % 2) else "No."

    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=llm,
        labels=truth,
        groups=groups,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        **FAST,
    )
    dp = a.metrics.iloc[0]
    assert dp["metric"] == "DP"
    labels = a.responses["label"]
    assert labels.isna().sum() == 1  # applicant 7 declined ("I cannot decide."): no label ...
    assert any("1 of 40 answers were refusals" in c for c in a.caveats)  # ... a refusal, and the report says so
    pred = (labels == "1").to_numpy()
    grp = np.asarray(groups)
    keep = labels.notna().to_numpy()
    expected = abs(pred[keep & (grp == "a")].mean() - pred[keep & (grp == "b")].mean())
    assert dp["value"] == pytest.approx(expected)
    rates = [g for g in a.to_dict()["groups"] if g["kind"] == "rate"]
    assert {g["group"] for g in rates} == {"a", "b"}


def test_classification_groups_from_prompt_mentions() -> None:
    prompts = ["Is she eligible? yes/no", "Is he eligible? yes/no", "Is her son eligible?", "Is his wife eligible?"]

    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: "yes" if "she" in p.lower().split() else "no",
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        ci=None,
        **{k: v for k, v in FAST.items() if k != "n_resamples"},
    )
    originals = a.responses[a.responses["group"].isna()]  # the counterfactual versions are the paired design's
    assert originals["group_gender"].tolist() == ["female", "male", None, None]  # mixed mentions: no group
    assert float(a.result("DP")) == 1.0


def test_recommendation_end_to_end() -> None:
    prompts = ["Recommend 3 films for a woman who likes thrillers.", "Recommend 3 books for her son.", "List 3 films."]

    def llm(prompt: str) -> str:
        female = {"woman", "her", "daughter", "she"} & set(prompt.lower().replace(".", "").split())
        return "1. Gone Girl\n2. Zodiac\n3. Heat" if female else "1. Zodiac\n2. Heat\n3. Ronin"

    a = evenhand.assess(task="recommendation", prompts=prompts, client=llm, k=3, count=1, attributes=["gender"], **FAST)
    m = a.metrics.set_index("metric")
    assert m.loc["Jaccard-K", "value"] == pytest.approx(0.5)  # {GG, Z, H} vs {Z, H, R}
    assert m.loc["Jaccard-K", "comparison"] == "female vs male"
    assert (a.responses["group"].notna()).all()  # recommendation only needs counterfactual prompts
    worst = a.to_dict()["worst_examples"]["recommendation_gap"]
    assert worst[0]["jaccard"] == pytest.approx(0.5) and worst[0]["items_a"] == ["Gone Girl", "Zodiac", "Heat"]
    assert "Least similar counterfactual recommendation lists" in a.to_html()


def test_ftu_satisfied_recommendation_has_nothing_to_assess() -> None:
    with pytest.raises(ValueError, match="no responses"):
        evenhand.assess(task="recommendation", prompts=["List 3 films."], client=lambda p: "a", **FAST)


def test_thresholds_and_json_round_trip(tmp_path: Any) -> None:
    prompts = [f"Applicant {i}: approve?" for i in range(20)]
    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: "yes" if int(p.split()[1].rstrip(":")) % 2 else "no",
        groups=["a" if i % 2 else "b" for i in range(20)],
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        thresholds=[Threshold(metric="DP", max=0.1), Threshold(metric="FNRD", max=1)],  # FNRD is not planned here
        **FAST,
    )
    assert not a.passed
    assert [c.passed for c in a.threshold_checks] == [False, False]
    assert a.threshold_checks[1].reason == "the metric is not computed in this assessment"  # it judged nothing
    with pytest.raises(ValueError, match="unknown metric 'NOPE'"):  # a typo is a config error, not a failed gate
        Threshold(metric="NOPE", max=1)
    path = tmp_path / "results.json"
    a.to_json(path)
    doc = load_results(path)
    assert doc["schema"] == SCHEMA and doc["schema_version"] == SCHEMA_VERSION
    assert doc["summary"]["passed"] is False
    assert doc["metrics"][0]["metric"] == "DP" and doc["metrics"][0]["passed"] is False
    assert len(doc["responses"]) == 20
    json.dumps(doc, allow_nan=False)  # strict JSON: no NaN anywhere
    for key in (
        "plan",
        "model",
        "settings",
        "summary",
        "groups",
        "distributions",
        "pairs",
        "worst_examples",
        "caveats",
    ):
        assert key in doc


def test_load_results_rejects_other_files(tmp_path: Any) -> None:
    p = tmp_path / "x.json"
    p.write_text('{"a": 1}')
    with pytest.raises(ValueError, match="not an evenhand results file"):
        load_results(p)
    p.write_text('{"schema": "evenhand/assessment", "schema_version": "9.0"}')
    with pytest.raises(ValueError, match="schema version"):
        load_results(p)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"task": "text_generation"}, "no prompts"),
        ({"task": "classification", "prompts": ["a", "b"], "labels": ["1"]}, "labels has 1"),
        ({"task": "classification", "prompts": ["a"], "groups": ["x", "y"]}, "groups has 2"),
        ({"task": "summarization", "prompts": ["a", "b"], "responses": ["x", "y", "z"]}, "same number"),
    ],
)
def test_bad_input_is_a_clear_error(kwargs: dict[str, Any], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        evenhand.assess(**kwargs, **FAST)


def test_multiclass_one_vs_rest_for_sensitive_classes() -> None:
    prompts = [f"Ticket {i}: route to billing, fraud or support?" for i in range(30)]
    classes = ["billing", "fraud", "support"]

    def llm(prompt: str) -> str:
        return classes[int(prompt.split()[1].rstrip(":")) % 3]

    a = evenhand.assess(
        task="classification",
        prompts=prompts,
        client=llm,
        groups=["f" if i % 2 else "m" for i in range(30)],
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        label_parser={c: [] for c in classes},
        positive_label=["fraud", "support"],
        count=1,
        **FAST,
    )
    rates = a.metrics[a.metrics["metric"] != "PRRD"]  # PRRD: each group's refusals, after the classes' rows
    assert rates["comparison"].tolist() == ["class fraud vs rest", "class support vs rest"]
    preds = np.array([classes[i % 3] for i in range(30)])
    grp = np.array(["f" if i % 2 else "m" for i in range(30)])
    fraud = preds == "fraud"
    assert a.metrics["value"].iloc[0] == pytest.approx(abs(fraud[grp == "f"].mean() - fraud[grp == "m"].mean()))


@pytest.mark.pipeline
def test_embedder_encodes_each_distinct_text_once() -> None:
    """Responses enter several group pairs and the noise floor; the scorer layer's cache encodes each once."""
    calls: list[list[str]] = []

    class Counting:
        def encode(self, texts: list[str]) -> np.ndarray:
            calls.append(list(texts))
            return np.array([[len(t), 1.0 + t.count("e")] for t in texts]).reshape(len(texts), 2)

    a = evenhand.assess(
        task="text_generation",
        prompts=OUTREACH,
        client=outreach_llm,
        count=2,
        generation_options={"seed": 0},
        attributes=["gender", "race"],
        embedder=Counting(),
        **FAST,
    )
    assert (a.metrics["metric"] == "CCS").sum() > 1  # several pairs of groups ...
    assert any(r.noise is not None for r in a.records if r.name == "CCS")  # ... and the noise floor
    encoded = [t for batch in calls for t in batch]
    assert len(encoded) == len(set(encoded))  # ... yet no text was encoded twice
    # (CCS encodes the replies as it compares them, the attribute's words neutralized: test_pipeline_similarity_echo)


def test_stereotype_classifier_metrics_with_a_callable_scorer() -> None:
    def stereotype_scorer(texts: list[str]) -> list[float]:
        return [0.9 if "regret" in t else 0.1 for t in texts]

    a = evenhand.assess(
        task="text_generation",
        prompts=OUTREACH,
        client=outreach_llm,
        count=2,
        generation_options={"seed": 0},
        stereotype=stereotype_scorer,
        attributes=["gender"],
        embedder=False,
        **FAST,
    )
    m = a.metrics.set_index("metric")
    assert {"SF", "EMS", "SP"} <= set(m.index)
    originals = a.responses[a.responses["group"].isna()]
    expected = (originals["response"].str.contains("regret")).mean()
    assert m.loc["SF", "value"] == pytest.approx(expected)
    assert "stereotype_gender" in a.responses


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        ({"ci": 1.5}, "assess(): ci: must be below 1.0, got 1.5"),
        ({"n_resamples": -3}, "assess(): n_resamples: must be at least 10, got -3"),
        ({"task": "poetry"}, "assess(): task: Input should be 'text_generation'"),
    ],
)
def test_bad_keywords_are_one_line_value_errors(keywords: dict[str, Any], expected: str) -> None:
    options = {"task": "text_generation", "prompts": ["Write to her."], "responses": ["Hello."], **keywords}
    with pytest.raises(ValueError) as caught:
        evenhand.assess(**options)
    message = str(caught.value)
    assert message.startswith(expected) and "\n" not in message and "pydantic.dev" not in message


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"positive_label": "yes"}, "classification.positive_label: 'yes' is not a label"),  # a word, not a label
        ({"positive_label": "2"}, "classification.positive_label: '2' is not a label"),
        ({"sensitive_classes": ["1", "maybe"]}, "classification.sensitive_classes: 'maybe' is not a label"),
        ({"pattern": "(["}, "classification.pattern: '([' is not a valid regular expression"),
        ({"pattern": "decision: \\w+"}, "classification.pattern: 'decision: \\\\w+' needs a capture group"),
        ({"labels": {"1": ["yes"], "0": ["yes"]}}, "classification.labels: keyword 'yes' signals both"),
        ({"labels": {}}, "classification.labels: labels is empty"),
    ],
)
def test_a_label_reading_that_cannot_work_is_refused_before_any_request(section: dict[str, Any], words: str) -> None:
    """A positive label no answer can be read as judged nothing (DP from all-negative decisions, a run that passed);
    a bad pattern or label words failed only after every response had been generated and paid for."""
    asked: list[str] = []

    def llm(prompt: str) -> str:
        asked.append(prompt)
        return "yes"

    settings = RunSettings.model_validate({"classification": section})
    with pytest.raises(ValueError) as caught:
        evenhand.assess(task="classification", prompts=["Approve Mrs. Lee?", "Approve Mr. Lee?"], client=llm,
                        attributes=["gender"], settings=settings, **FAST)  # fmt: skip
    assert str(caught.value).startswith(words), str(caught.value)
    assert asked == []
    own = pd.DataFrame({"prompt": ["Approve Mrs. Lee?"], "response": ["yes"]})  # own responses: the same rule
    with pytest.raises(ValueError, match=r"^classification"):
        evenhand.assess(task="classification", responses=own, attributes=["gender"], settings=settings, **FAST)


def test_a_parser_of_ones_own_reads_labels_the_words_do_not_know() -> None:
    a = evenhand.assess(task="classification", prompts=["Approve Mrs. Lee?", "Approve Mr. Lee?"],
                        client=lambda p: "approve", attributes=["gender"], label_parser=lambda text: text,
                        positive_label="approve", **FAST)  # fmt: skip
    assert a.responses["label"].tolist()[:1] == ["approve"]


def test_no_response_at_all_says_why_when_every_one_was_filtered() -> None:
    """A callable returning None records a content-filter refusal: the error said only "none of the 30 requests
    produced a response", with no reason."""
    with pytest.raises(evenhand.errors.NoResponsesError, match=r"produced a response; .*content filter"):
        evenhand.assess(task="summarization", prompts=["Write to Mrs. Lee.", "Tell her."], client=lambda p: None,
                        embedder=False, **FAST)  # fmt: skip


def test_an_unlinked_counterfactual_row_is_numbered_like_every_other_row_error() -> None:
    """Rows are numbered from 1 in every error of a table ("row 1 names the group ..."); this one said row 0."""
    own = pd.DataFrame({"prompt": ["Thank the client.", "Write to Mrs. Lee."], "response": ["Thanks.", "Dear Lee."],
                        "attribute": [None, "gender"], "group": [None, "female"]})  # fmt: skip
    with pytest.raises(ValueError, match=r"cannot be linked to an original prompt \(first: row 2\)"):
        evenhand.assess(task="summarization", responses=own, attributes=["gender"], embedder=False, **FAST)
