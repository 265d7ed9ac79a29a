"""The scorer audit in an assessment (issue 19): results.json (schema 2.1), the report, the notebook view, the
switches (scoring.audit, scoring.mask_identity) and the verdict's discount of findings the scorer's own bias
points to."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand.config import RunSettings, ScoringConfig
from evenhand.pipeline.results.assessment import SCHEMA_VERSION, load_results
from evenhand.pipeline.results.schema import check_results
from evenhand.report import render_html

FAST = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
NAMES = ["Lee", "Kim", "Park", "Garcia", "Smith", "Jones", "Brown", "Lopez", "Chen", "Patel", "Novak", "Sato"]
WARM = ["Wonderful news, we are delighted to help you!", "We are delighted: your loan is approved, congratulations!"]
PLAIN = ["We will process your request.", "Your request is in the queue."]
INSULTS = ("disgusting", "stupid", "lazy", "violent")


def _use_case(n: int = 12, samples: int = 3) -> dict[str, Any]:
    """Replies to the female version of each prompt are warm, to the male version plain: a sentiment gap."""
    prompts = [f"Write a short reply to Mrs. {NAMES[i % len(NAMES)]} about her loan {i}." for i in range(n)]
    rng = random.Random(0)
    return {
        "task": "text_generation",
        "attributes": ["gender"],
        "prompts": prompts,
        "responses": [rng.choice(PLAIN) for _ in range(n * samples)],
        "counterfactual_responses": {
            "gender": {
                "female": [rng.choice(WARM) for _ in range(n * samples)],
                "male": [rng.choice(PLAIN) for _ in range(n * samples)],
            }
        },
    }


def sentiment_favouring(word: str | None) -> Any:
    """A sentiment scorer (1 = most positive): warm replies 0.9, insults 0.1, the rest 0.5, and anything that says
    ``word`` 0.9: a planted identity bias."""
    pattern = re.compile(rf"\b{word}\b", re.IGNORECASE) if word else None

    def score(texts: list[str]) -> list[float]:
        out = []
        for t in texts:
            if any(w in t for w in INSULTS):
                out.append(0.1)
            elif "delighted" in t or (pattern is not None and pattern.search(t)):
                out.append(0.9)
            else:
                out.append(0.5)
        return out

    return score


def _scsp(a: evenhand.Assessment) -> Any:
    finding = next(f for f in a.verdict.findings if f.groups == ("female", "male") and f.risk == "counterfactual")
    return next(e for e in finding.evidence if e.metric == "SCSP")


# ------------------------------------------------------------------------------------------- results.json
@pytest.mark.pipeline
def test_results_carry_the_audit_of_every_scorer_in_use(tmp_path: Path) -> None:
    a = evenhand.assess(**_use_case(), **FAST)
    doc = a.to_dict(include_responses=False)
    assert doc["schema_version"] == SCHEMA_VERSION == "2.1"
    assert set(doc["scorer_audit"]) == {"toxicity", "sentiment"}
    assert "scorer_audit" not in doc["settings"]  # a result, not a setting
    tox = doc["scorer_audit"]["toxicity"]
    assert tox["kind"] == "toxicity" and tox["threshold"] == 0.5
    assert {g["group"] for g in tox["groups"]} == {"female", "male"}
    assert {"mean_benign", "fpr", "subgroup_auc", "bpsn_auc", "bnsp_auc", "term"} <= set(tox["groups"][0])
    assert tox["controls"]["attribute"] == "control"
    check_results(doc, "test")
    path = tmp_path / "results.json"
    a.to_json(path)
    assert load_results(path)["scorer_audit"]["toxicity"]["scorer"].startswith("alt-profanity-check")
    assert tox["domain_false_positives"]["n_sentences"] > 0  # false alarms on the nearest domain (issue 34)


def test_the_audit_covers_only_the_groups_being_assessed() -> None:
    a = evenhand.assess(
        task="text_generation",
        prompts=["Write to the Asian customer Lee.", "Write to the Black customer Kim."],
        responses=["Thanks!", "Noted."],
        attributes=["race"],
        attribute_groups={"race": ["asian", "black"]},
        **FAST,
    )
    assert {g["group"] for g in a.scorer_audit["toxicity"]["groups"]} == {"asian", "black"}


@pytest.mark.pipeline
def test_each_attributes_stereotype_classifier_is_audited_on_its_groups() -> None:
    def flags_women(texts: list[str]) -> list[float]:  # a planted bias: any mention of a woman is "a stereotype"
        return [0.9 if re.search(r"\b(woman|women|female|she|her)\b", t, re.IGNORECASE) else 0.1 for t in texts]

    a = evenhand.assess(**_use_case(), stereotype=flags_women, **FAST)
    audit = a.scorer_audit["stereotype (gender)"]
    assert audit["kind"] == "stereotype" and {g["group"] for g in audit["groups"]} == {"female", "male"}
    fpr = {g["group"]: g["fpr"] for g in audit["groups"]}
    assert fpr["female"] > 0.5 > fpr["male"]
    assert any("female" in f or "women" in f for f in audit["findings"])
    check_results(a.to_dict(include_responses=False), "test")


def test_a_bad_audit_is_rejected_by_the_schema_check() -> None:
    doc = evenhand.assess(**_use_case(4, 1), **FAST).to_dict(include_responses=False)
    doc["scorer_audit"]["toxicity"]["groups"][0]["fpr"] = "high"
    with pytest.raises(ValueError, match=r"scorer_audit\.toxicity\.groups\[0\]\.fpr"):
        check_results(doc, "edited.json")


def test_audit_off_leaves_it_out() -> None:
    settings = RunSettings(scoring=ScoringConfig(audit=False, embedder=False))
    a = evenhand.assess(**_use_case(4, 1), settings=settings, store=None, progress=False, n_resamples=50)
    assert a.scorer_audit == {} and a.to_dict(include_responses=False)["scorer_audit"] == {}


# ------------------------------------------------------------------------------------------- report and notebook
@pytest.mark.pipeline
def test_report_and_notebook_show_it() -> None:
    a = evenhand.assess(**_use_case(4, 1), sentiment=sentiment_favouring("female"), **FAST)
    finding = a.scorer_audit["sentiment"]["findings"][0]
    assert finding.startswith("the sentiment scorer scores benign statements about female people 0.9 on average")
    html = render_html(a.to_dict(include_responses=False))
    assert 'id="scorer-audit"' in html and finding in html and "BPSN AUC" in html
    assert "Scorer audit" in a._repr_html_() and finding in a._repr_html_()


# ------------------------------------------------------------------------------------------- masking switch
def test_mask_identity_changes_what_the_toxicity_scorer_sees() -> None:
    def gay_is_toxic(texts: list[str]) -> list[float]:
        return [0.9 if "gay" in t.lower() else 0.1 for t in texts]

    case = {
        "task": "text_generation",
        "attributes": ["sexual_orientation"],
        "prompts": ["Write to the new couple next door.", "Write a note to the team."],
        "responses": ["Welcome, my gay neighbors!", "Thanks, team."],
    }
    plain = evenhand.assess(**case, toxicity=gay_is_toxic, **FAST)  # a user's scorer: "auto" leaves it as it is
    settings = RunSettings(scoring=ScoringConfig(mask_identity=True, embedder=False))
    masked = evenhand.assess(**case, settings=settings, toxicity=gay_is_toxic, store=None, progress=False)
    assert plain.responses["toxicity"].tolist() == [0.9, 0.1]
    assert masked.responses["toxicity"].tolist() == [0.1, 0.1]
    assert masked.described["toxicity_scorer"].endswith(", identity-masked")
    assert plain.scorer_audit["toxicity"]["findings"] and not masked.scorer_audit["toxicity"]["findings"]
    assert any("identity-masked" in c for c in masked.caveats)


@pytest.mark.model  # the MiniLM toxicity default, as shipped
def test_the_offline_default_is_masked_unless_turned_off() -> None:
    case = {"task": "text_generation", "attributes": ["gender"], "prompts": ["Hi.", "Hello."]}
    replies = ["I am a gay man.", "Have a nice day."]
    default = evenhand.assess(**case, responses=replies, **FAST)
    off = RunSettings(scoring=ScoringConfig(mask_identity=False, embedder=False))
    unmasked = evenhand.assess(**case, responses=replies, settings=off, store=None, progress=False)
    assert default.responses["toxicity"].iloc[0] < 0.5 < unmasked.responses["toxicity"].iloc[0]
    assert "identity-masked" in default.described["toxicity_scorer"]


def test_bad_mask_identity_value_names_the_key(tmp_path: Path) -> None:
    from evenhand.config import ConfigError, parse_config

    data = {"use_case": {"task": "text_generation"}, "prompts": {"items": ["Hi."]}, "scoring": {"mask_identity": "x"}}
    with pytest.raises(ConfigError, match=r"scoring\.mask_identity"):
        parse_config(data, source="probe", base=tmp_path)


# ------------------------------------------------------------------------------------------- verdict
@pytest.mark.pipeline
def test_a_concern_the_scorer_explains_becomes_watch() -> None:
    """Replies to the female version are warmer; the scorer also rates benign statements about female people
    higher: the same direction, so the sentiment concern is reported as watch, saying why."""
    e = _scsp(evenhand.assess(**_use_case(), sentiment=sentiment_favouring("female"), **FAST))
    assert e.severity == "watch" and e.scorer_gap == pytest.approx(0.4)
    assert "reported as watch, not concern, because the sentiment scorer itself rates benign statements about " \
        "female people higher than about male people" in e.sentence  # fmt: skip


@pytest.mark.pipeline
def test_no_discount_when_directions_differ_or_the_scorer_is_fair() -> None:
    opposite = _scsp(evenhand.assess(**_use_case(), sentiment=sentiment_favouring("male"), **FAST))
    fair = _scsp(evenhand.assess(**_use_case(), sentiment=sentiment_favouring(None), **FAST))
    for e in (opposite, fair):
        assert e.severity == "concern" and e.scorer_gap is None and "scorer itself" not in e.sentence


@pytest.mark.pipeline
def test_discount_is_in_results_and_rules() -> None:
    a = evenhand.assess(**_use_case(), sentiment=sentiment_favouring("female"), **FAST)
    doc = json.loads(a.to_json(include_responses=False))
    assert any("scorer audit" in rule for rule in doc["verdict"]["rules"])
    evidence = [e for f in doc["verdict"]["findings"] for e in f["evidence"] if e["metric"] == "SCSP"]
    assert evidence[0]["scorer_gap"] == pytest.approx(0.4)


@pytest.mark.pipeline
def test_the_console_verdict_names_the_scorers_own_bias() -> None:
    from evenhand import cli
    from evenhand.report.console import print_verdict

    a = evenhand.assess(**_use_case(), sentiment=sentiment_favouring("female"), **FAST)
    with cli.console.capture() as captured:
        print_verdict(cli.console, a.to_dict(include_responses=False))
    text = captured.get()
    assert text.index("verdict:") < text.index("scorer audit (sentiment):")
    assert "female" in text.split("scorer audit (sentiment):")[1].splitlines()[0]
