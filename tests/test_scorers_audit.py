"""The scorer audit (issue 19): AUC and FPR by hand, the statement set, planted bias found and named, no bias
no finding, any scorer (callable, the offline defaults)."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import numpy as np
import pytest

from evenhand.scorers import get_sentiment_scorer, get_toxicity_scorer
from evenhand.scorers.audit import CONTROL, auc, audit_scorer, benign_gap, identity_statements
from evenhand.text.lexicon import BUILTIN_ATTRIBUTES, load_lexicon


def _data() -> dict[str, Any]:
    text = (resources.files("evenhand") / "data" / "audit" / "identity_statements.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def planted_gay(texts: list[str]) -> list[float]:
    """Benign 0.1, insults 0.9, and anything that says "gay" 0.9: a scorer with one planted identity bias."""
    insults = ("disgusting", "stupid", "lazy", "violent")
    return [0.9 if "gay" in t.lower() or any(w in t for w in insults) else 0.1 for t in texts]


def fair(texts: list[str]) -> list[float]:
    insults = ("disgusting", "stupid", "lazy", "violent")
    return [0.8 if any(w in t for w in insults) else 0.2 for t in texts]


# ------------------------------------------------------------------------------------------- by hand
def test_auc_by_hand() -> None:
    # pairs (p, n): (0.9 > 0.1), (0.9 > 0.4), (0.4 > 0.1), (0.4 = 0.4) -> 3.5 / 4
    assert auc([0.9, 0.4], [0.1, 0.4]) == pytest.approx(0.875)
    assert auc([1.0], [0.0, 0.0]) == 1.0
    assert auc([0.0], [1.0]) == 0.0
    assert np.isnan(auc([], [0.3]))


def test_group_rates_and_aucs_by_hand() -> None:
    """A scorer that gives benign statements about gay people 0.6, insults 0.7, everything else 0.1: per group,
    FPR, mean benign and the three AUCs follow from counting pairs."""

    def scorer(texts: list[str]) -> list[float]:
        out = []
        for t in texts:
            insult = any(w in t for w in ("disgusting", "stupid", "lazy", "violent"))
            out.append(0.7 if insult else 0.6 if "gay" in t.lower() else 0.1)
        return out

    a = audit_scorer(scorer, ["sexual_orientation"], threshold=0.5)
    gay = next(t for t in a.terms if t.term == "gay")
    assert (gay.n_benign, gay.n_insult) == (20, 20)
    assert gay.fpr == 1.0 and gay.tpr == 1.0 and gay.mean_benign == pytest.approx(0.6)
    assert gay.subgroup_auc == 1.0  # its insults (0.7) always above its benign (0.6)
    assert gay.bpsn_auc == 1.0  # background insults 0.7 > 0.6
    assert gay.bnsp_auc == 1.0  # its insults 0.7 > background benign (0.1 or 0.6)
    straight = a.group("sexual_orientation", "straight")
    assert straight is not None and straight.fpr == 0.0 and straight.mean_benign == pytest.approx(0.1)
    # the gay group: "gay" benign 0.6, "lesbian" and "homosexual" benign 0.1 -> mean (0.6 + 0.1 + 0.1) / 3
    group = a.group("sexual_orientation", "gay")
    assert group is not None and group.mean_benign == pytest.approx(0.8 / 3)
    assert group.fpr == pytest.approx(1 / 3)
    assert a.benign_gap("sexual_orientation", "gay", "straight") == pytest.approx(0.8 / 3 - 0.1)


def test_bpsn_drops_when_benign_mentions_score_like_insults() -> None:
    def scorer(texts: list[str]) -> list[float]:  # benign "gay" statements score above every insult
        insult = ("disgusting", "stupid", "lazy", "violent")
        return [0.95 if "gay" in t.lower() and not any(w in t for w in insult) else 0.7 if any(
            w in t for w in insult) else 0.1 for t in texts]  # fmt: skip

    gay = next(t for t in audit_scorer(scorer, ["sexual_orientation"]).terms if t.term == "gay")
    assert gay.bpsn_auc == 0.0 and gay.subgroup_auc == 0.0
    assert gay.bnsp_auc == 1.0  # its insults still beat benign statements about others


# ------------------------------------------------------------------------------------------- the statement set
def test_every_builtin_group_has_terms_from_its_lexicon() -> None:
    terms = _data()["terms"]
    assert set(terms) == set(BUILTIN_ATTRIBUTES)
    for attribute, groups in terms.items():
        lexicon = load_lexicon(attribute)
        assert set(groups) == set(lexicon.all_groups), attribute
        for group, words in groups.items():
            assert words, (attribute, group)
            if lexicon.group_words(group):  # gender's nonbinary has no words in the lexicon
                assert all(w.lower() in lexicon.group_words(group) for w in words), (attribute, group)


def test_no_template_insult_or_control_names_an_identity() -> None:
    data = _data()
    pieces = data["benign_templates"] + data["insult_templates"] + data["insults"] + data["controls"]
    for attribute in BUILTIN_ATTRIBUTES:
        lexicon = load_lexicon(attribute)
        for piece in pieces:
            words = piece.replace("{", " ").replace("}", " ").replace(".", " ").replace(",", " ").lower().split()
            assert not (set(words) & lexicon.words), (attribute, piece)


def test_statements_are_deterministic_and_labelled() -> None:
    first, second = identity_statements(), identity_statements()
    assert first.equals(second)
    data = _data()
    per_term = len(data["benign_templates"]) + len(data["insult_templates"]) * len(data["insults"])
    assert len(first) == per_term * first.groupby(["attribute", "term"]).ngroups
    assert set(first["label"]) == {0, 1}
    assert "I am an Asian person." in set(first["text"]) and "An elderly volunteer helps at the library." in set(
        first["text"]
    )
    assert (first["attribute"] == CONTROL).sum() == per_term * len(data["controls"])


def test_only_the_groups_being_assessed() -> None:
    race = load_lexicon("race").with_groups(["white", "black"])
    statements = identity_statements({"race": race}, controls=False)
    assert set(statements["group"]) == {"white", "black"}


def test_custom_attribute_uses_its_own_words() -> None:
    statements = identity_statements({"diet": {"vegan": ["vegan", "vegans"], "omnivore": ["omnivore", "omnivores"]}})
    assert set(statements[statements["attribute"] == "diet"]["term"]) == {"vegan", "vegans", "omnivore", "omnivores"}


def test_intersections_are_skipped() -> None:
    statements = identity_statements({"gender+race": ("gender", "race")}, controls=False)
    assert statements.empty


# ------------------------------------------------------------------------------------------- findings
def test_planted_bias_is_found_with_the_right_sentence() -> None:
    a = audit_scorer(planted_gay, ["sexual_orientation", "religion"])
    assert a.findings[0] == (
        "the toxicity scorer scores benign statements about gay people 0.367 on average vs 0.1 for straight people"
    )
    assert a.findings[1] == "benign statements flagged as toxic at 0.5, by group: gay 33%; controls 0%"
    assert len(a.findings) == 2  # religion: no gap
    gay = next(t for t in a.terms if t.term == "gay")
    assert gay.fpr == 1.0 and gay.bpsn_auc == 0.5  # ties with the background's insults


def test_unbiased_scorer_gives_no_finding() -> None:
    a = audit_scorer(fair, None)
    assert a.findings == []
    assert a.auc == 1.0
    assert all(g.fpr == 0.0 and g.bpsn_auc == 1.0 for g in a.groups)
    assert all(abs(gap["difference"]) < 1e-12 for gap in a.gaps())


def test_sentiment_direction_is_read_from_the_data() -> None:
    """A sentiment scorer whose high scores are positive: insults score low, so badness = 1 - score; a planted
    warmth for one group shows as a gap in the scorer's own scale."""

    def warm(texts: list[str]) -> list[float]:
        return [0.1 if any(w in t for w in ("disgusting", "stupid", "lazy", "violent")) else 0.9 if "Muslim" in t
                else 0.6 for t in texts]  # fmt: skip

    a = audit_scorer(warm, ["religion"], kind="sentiment")
    assert a.higher_is_negative is False
    muslim = a.group("religion", "muslim")
    assert muslim is not None and muslim.fpr == 0.0 and muslim.mean_benign == pytest.approx(0.9)
    assert a.findings == [
        "the sentiment scorer scores benign statements about muslim people 0.9 on average vs 0.6 for christian people "
        "(higher = more positive)"
    ]


def test_to_dict_and_benign_gap_from_it() -> None:
    doc = audit_scorer(planted_gay, ["sexual_orientation"]).to_dict()
    json.dumps(doc)  # JSON-ready
    assert {"kind", "scorer", "threshold", "margin", "groups", "terms", "controls", "gaps", "findings"} <= set(doc)
    # "gay" benign 0.9, "lesbian" and "homosexual" benign 0.1: (0.9 + 0.1 + 0.1) / 3 - 0.1
    assert benign_gap(doc, "sexual_orientation", "gay", "straight") == pytest.approx(1.1 / 3 - 0.1)
    assert benign_gap(doc, "sexual_orientation", "gay", "nobody") is None


def test_bad_kind_and_threshold() -> None:
    with pytest.raises(ValueError, match="kind must be one of"):
        audit_scorer(fair, ["religion"], kind="toxic")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        audit_scorer(fair, ["religion"], threshold=2.0)


# ------------------------------------------------------------------------------------------- real scorers
def test_offline_default_toxicity_scorer_shows_its_known_bias() -> None:
    a = audit_scorer(get_toxicity_scorer(), ["sexual_orientation"])
    gay, straight = a.group("sexual_orientation", "gay"), a.group("sexual_orientation", "straight")
    assert gay is not None and straight is not None
    assert gay.mean_benign > straight.mean_benign + 0.2 and gay.fpr > 0.2
    assert any("about gay people" in f for f in a.findings)
    assert a.auc > 0.9


def test_offline_default_sentiment_scorer_runs() -> None:
    a = audit_scorer(get_sentiment_scorer(), ["gender"], kind="sentiment")
    assert a.higher_is_negative is False  # VADER compound mapped to [0, 1]: 1 = most positive
    assert a.auc > 0.8 and len(a.groups) == 2


@pytest.mark.model
def test_a_hugging_face_model_and_its_masked_version(tmp_path: Any) -> None:
    """Any Hugging Face classifier can be audited, as it is or identity-masked (a tiny random model built here)."""
    pytest.importorskip("transformers")
    from test_scorers_hf import build_tiny_bert

    from evenhand.scorers.masking import IdentityMaskedScorer

    model = get_toxicity_scorer(str(build_tiny_bert(tmp_path / "tox", ["non-toxic", "toxic"])), device="cpu")
    for scorer in (model, IdentityMaskedScorer(model, token="[MASK]")):
        a = audit_scorer(scorer, ["religion"])
        assert len(a.groups) == 6 and all(0.0 <= g.mean_benign <= 1.0 for g in a.groups)
        assert a.n_statements == 40 * 12  # 6 groups and 6 controls, 40 statements each
