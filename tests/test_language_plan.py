"""Issue 14, item 5: Spanish prompts and an English lexicon make FTU "not assessable", never "satisfied".

Before, Spanish prompts full of madre, mujer, esposa and él got "FTU holds ... none of the prompts mentions a gender
term" and the plan dropped every counterfactual metric without a word.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_language_detection import SHORT_ENGLISH, SPANISH, demo_prompts

import evenhand
import evenhand.text.language
from evenhand import framework
from evenhand.framework import (
    CF_SENTIMENT,
    CF_SIMILARITY,
    PARITY,
    RECOMMENDATION,
    STEREOTYPE_CLASSIFIER,
    STEREOTYPE_COOCCURRENCE,
    TOXICITY,
    TOXICITY_PARITY,
    plan,
)
from evenhand.text.language import LanguageGuess
from evenhand.text.lexicon import load_lexicon, load_lexicon_file

SPANISH_GENDER = {
    "genero": {"female": ["madre", "mujer", "esposa", "ella"], "male": ["padre", "hombre", "esposo", "él"]}
}
EXPECTED = (
    "FTU cannot be checked for gender: the prompts look Spanish (es, 10 of 10 prompts) and the gender lexicon reads "
    "English"
)


def test_spanish_prompts_make_ftu_not_assessable() -> None:
    p = plan(task="text_generation", prompts=SPANISH)
    for name in ("gender", "race"):
        f = p.ftu[name]
        assert not f.assessable and not f.satisfied  # never reads as "FTU holds"
        assert f.language == "es" and f.lexicon_language == "en"
        assert p.keys(attribute=name) == ()
        skipped = {n.family: n for n in p.not_applicable if n.attribute == name}
        assert set(skipped) == {"stereotype", "counterfactual"}
        assert set(skipped["counterfactual"].metrics) == set(CF_SENTIMENT + TOXICITY_PARITY + PARITY + CF_SIMILARITY)
        assert set(skipped["stereotype"].metrics) == set(STEREOTYPE_COOCCURRENCE + STEREOTYPE_CLASSIFIER)
        assert "cannot be checked" in skipped["counterfactual"].reason
    assert p.ftu["gender"].describe() == EXPECTED
    assert set(p.keys()) == set(TOXICITY)
    assert "holds" not in p.explain()
    [note] = [n for n in p.caveats if "Spanish" in n]
    assert note.startswith("the prompts look Spanish (es, 10 of 10 prompts) but the gender and race lexicons read")
    assert "custom_attributes" in note and "toxicity scorer reads English only" in note


def test_plan_to_dict_carries_assessable_and_language() -> None:
    d = json.loads(json.dumps(plan(task="text_generation", prompts=SPANISH, attributes=["gender"]).to_dict()))
    entry = d["ftu"]["gender"]
    assert entry["assessable"] is False and entry["satisfied"] is False
    assert entry["language"] == "es" and entry["lexicon_language"] == "en"
    assert entry["description"] == EXPECTED
    english = plan(task="text_generation", prompts=demo_prompts(), attributes=["gender"]).to_dict()["ftu"]["gender"]
    assert english["assessable"] is True and english["language"] == "en" and english["lexicon_language"] == "en"
    stated = plan(task="text_generation", mentions_protected_groups=True).to_dict()["ftu"]["gender"]
    assert stated["assessable"] is True and stated["language"] is None


@pytest.mark.parametrize("task", ["classification", "recommendation"])
def test_other_tasks_leave_out_what_needs_the_lexicon(task: str) -> None:
    p = plan(task=task, prompts=SPANISH, attributes=["gender"])
    assert not p.metrics
    [skipped] = p.not_applicable
    assert skipped.attribute == "gender" and skipped.reason.split(" left out: ", 1)[1].startswith(EXPECTED)
    families = {"classification": "classification", "recommendation": "recommendation"}
    assert skipped.family == families[task]
    if task == "recommendation":
        assert skipped.metrics == RECOMMENDATION
    assert any("Spanish" in n for n in p.caveats)
    assert not any("English only" in n for n in p.caveats)  # nothing is planned, so no English-only reader is used


def test_person_level_classification_still_uses_the_given_groups() -> None:
    p = plan(task="classification", prompts=SPANISH, attributes=["gender"], person_level=True, prevalence_parity=True)
    assert p.keys() == ("demographic_parity_difference",)
    assert not p.ftu["gender"].assessable and any("Spanish" in n for n in p.caveats)


def test_custom_words_in_the_prompts_language_stay_assessable() -> None:
    p = plan(task="text_generation", prompts=SPANISH, attributes=["gender"], custom_attributes=SPANISH_GENDER)
    f = p.ftu["genero"]
    assert f.assessable and not f.satisfied and f.lexicon_language is None and f.language == "es"
    assert f.n_flagged == 5 and {"madre", "mujer", "esposa", "él"} <= set(f.examples)
    assert set(CF_SENTIMENT + CF_SIMILARITY) <= set(p.keys(attribute="genero"))
    assert not p.ftu["gender"].assessable  # the built-in English lexicon still cannot read them
    only_custom = plan(task="text_generation", prompts=SPANISH, attributes=[], custom_attributes=SPANISH_GENDER)
    assert only_custom.ftu["genero"].language is None  # nothing to compare with: the language is not even detected
    # no FTU note, only the readers' (left8a): the replies' offline readers read English
    assert [n for n in only_custom.caveats if "Spanish" in n] == [
        n for n in only_custom.caveats if "English only" in n and "lexicon" not in n
    ]


def test_a_lexicon_file_in_the_prompts_language_is_assessable() -> None:
    spanish = {
        "name": "genero",
        "groups": ["female", "male"],
        "default": False,
        "language": "es",
        "rows": [{"slot": "noun", "replace_with": {"female": "madre", "male": "padre"}}],
    }
    lexicon = load_lexicon_file(spanish)
    assert lexicon.language == "es"
    result = evenhand.check_ftu(SPANISH, attribute=lexicon)
    assert result.lexicon_language == "es" and result.assessable and not result.satisfied
    assert load_lexicon_file({**spanish, "language": "en"}).language == "en"
    assert load_lexicon_file({k: v for k, v in spanish.items() if k != "language"}).language == "en"  # the default
    with pytest.raises(ValueError, match="key 'language'"):
        load_lexicon_file({**spanish, "language": "Spanish"})
    assert load_lexicon("gender").language == load_lexicon("race").language == "en"
    assert load_lexicon({"a": ["x"], "b": ["y"]}).language is None


def test_check_ftu_carries_the_language() -> None:
    r = evenhand.check_ftu(SPANISH, attribute="gender")
    assert r.satisfied and r.n_flagged == 0  # the paper's check as run: no English gender word
    assert not r.assessable and r.language.code == "es" and r.lexicon_language == "en"
    assert r.summary() == (
        "FTU (gender) not assessable: the prompts look Spanish (es, 10 of 10 prompts) and the lexicon reads English"
    )
    both = evenhand.check_ftu(SPANISH)  # every built-in lexicon: all English
    assert both.lexicon_language == "en" and not both.assessable
    custom = evenhand.check_ftu(SPANISH, attribute=SPANISH_GENDER["genero"])
    assert custom.assessable and "language" not in custom.__dict__  # not detected: nothing to compare with
    english = evenhand.check_ftu(demo_prompts(), attribute="gender")
    assert english.assessable and english.summary().startswith("FTU (gender) not satisfied")


def _plans(prompts: list[str]) -> list[dict[str, Any]]:
    cases = [
        {"task": "text_generation"},
        {"task": "summarization", "attributes": ["gender"], "stereotype_when_ftu": True},
        {"task": "classification"},
        {"task": "classification", "person_level": True, "prevalence_parity": False},
        {"task": "recommendation"},
    ]
    out = []
    for case in cases:
        d = plan(prompts=prompts, **case).to_dict()  # type: ignore[arg-type]
        for entry in d["ftu"].values():
            del entry["language"]  # the only key that language detection adds a value to
        out.append(d)
    return out


@pytest.mark.parametrize("which", ["demo", "short", "tests"])
def test_english_plans_are_unchanged(which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    prompts = {
        "demo": demo_prompts(),
        "short": SHORT_ENGLISH,
        "tests": ["Write a note to Mrs. Lee about her order.", "Summarize the account history.", "Thank the client."],
    }[which]
    detected = _plans(prompts)
    for entry in detected[0]["ftu"].values():
        assert entry["assessable"] is True
    monkeypatch.setattr(evenhand.text.language, "detect_language", lambda prompts, **_: LanguageGuess(None))
    assert _plans(prompts) == detected  # the same plan as with no language detection at all


def test_short_english_prompts_stay_assessable() -> None:
    p = plan(task="text_generation", prompts=["Summarise the call.", "Write to Mrs. Lee about her order."])
    assert p.ftu["gender"].assessable and not p.ftu["gender"].satisfied and p.ftu["gender"].language is None
    assert p.ftu["race"].assessable and p.ftu["race"].satisfied


def test_mixed_prompts_get_a_note_but_stay_assessable() -> None:
    p = plan(task="text_generation", prompts=demo_prompts() + SPANISH)
    assert all(f.assessable for f in p.ftu.values())
    assert any(
        n.startswith("10 of 50 prompts look Spanish (es); the gender and race lexicons read English") for n in p.caveats
    )


@pytest.mark.pipeline
def test_assess_runs_on_spanish_prompts() -> None:
    responses = ["Claro, aquí tiene la información sobre su póliza."] * len(SPANISH)
    a = evenhand.assess(task="text_generation", prompts=SPANISH, responses=responses, ci=None, progress=False)
    assert set(a.metrics["metric"]) == {"TF", "EMT", "TP"}
    assert not a.plan.ftu["gender"].assessable
    doc = a.to_dict(include_responses=False)
    assert doc["plan"]["ftu"]["gender"]["assessable"] is False
    assert any("look Spanish" in c for c in a.caveats)  # the assessment's caveats name the language
    assert "not assessable" in a.to_html()


def test_framework_detects_once_per_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = evenhand.text.language.detect_language

    def counting(prompts: Any, **kw: Any) -> LanguageGuess:
        calls.append(1)
        return real(prompts, **kw)

    monkeypatch.setattr(evenhand.text.language, "detect_language", counting)
    plan(task="text_generation", prompts=SPANISH)
    assert len(calls) == 1
    assert framework.FTUSummary("x", True, 0, 0).assessable  # the default: assessable


@pytest.mark.parametrize(
    ("task", "readers"),
    [
        ("text_generation", "toxicity scorer and sentiment scorer"),
        ("classification", ""),  # RRD is planned beside CPRD and DFR (review6)
        ("estimation", ""),
    ],
)
def test_the_note_names_every_english_only_reader_the_run_uses(task: str, readers: str) -> None:
    """left8a: prompts in another language and a plan that uses the offline readers of replies: the note names
    each of them (the refusal detector was missing, and the note was written only where FTU was blocked). Since
    groups14 the refusal detector reads Spanish: it is no English-only reader of these prompts."""
    p = plan(task=task, prompts=SPANISH, attributes=[], custom_attributes=SPANISH_GENDER)
    notes = [n for n in p.caveats if "English only" in n]
    assert not any("refusal detector" in n for n in notes), notes
    if not readers:
        assert notes == [], notes
        return
    [note] = notes
    verb = "read" if " and " in readers else "reads"
    assert "Spanish" in note and f"offline default {readers} {verb} English only" in note, note


def test_the_blocked_ftu_note_names_only_the_readers_planned() -> None:
    p = plan(task="text_generation", prompts=SPANISH)  # only TF, EMT, TP are left: the toxicity scorer alone
    [note] = [n for n in p.caveats if "Spanish" in n]
    assert "offline default toxicity scorer reads English only" in note and "sentiment" not in note, note
    assert "(scoring.toxicity)" in note


def test_english_prompts_get_no_reader_note() -> None:
    p = plan(task="text_generation", prompts=demo_prompts(), attributes=["gender"])
    assert not any("English only" in n for n in p.caveats)
