"""Identity-masked scoring (issue 19): what is masked, the wrapper with a callable and with the default scorer, and
masking closes the gap of a planted identity bias."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import evenhand.scorers.masking as masking
from evenhand.scorers import ScoreCache, get_toxicity_scorer
from evenhand.scorers.audit import audit_scorer
from evenhand.scorers.masking import DEFAULT_TOKEN, IdentityMaskedScorer, mask_identity


def planted_gay(texts: list[str]) -> list[float]:
    insults = ("disgusting", "stupid", "lazy", "violent")
    return [0.9 if "gay" in t.lower() or any(w in t for w in insults) else 0.1 for t in texts]


def test_docstring_examples() -> None:
    result = doctest.testmod(masking)
    assert result.attempted > 0 and result.failed == 0


def test_words_of_every_builtin_lexicon_are_masked() -> None:
    texts = ["Gay people deserve respect.", "I am a Muslim.", "The deaf student won.", "She is an Asian woman."]
    assert mask_identity(texts, token="X") == [
        "X people deserve respect.",
        "I am a X.",
        "The X student won.",
        "They is an X person.",  # neutral forms, without verb agreement: the scorer reads it, nobody else
    ]


def test_context_rules_and_unknown_words_are_kept() -> None:
    """Masking follows the lexicons: a context word counts only before a person noun; a word in no lexicon stays."""
    texts = ["My neighbor is black.", "black coffee", "I am nonbinary.", "I am queer.", "I am tired."]
    assert mask_identity(texts) == [
        "My neighbor is black.",
        "black coffee",
        "I am someone.",
        "I am someone.",
        "I am tired.",
    ]


def test_gender_identities_outside_the_default_groups_are_masked() -> None:
    """Issue 25: "transgender" and "nonbinary" were in no lexicon, so masking left them for the scorer to see."""
    texts = ["I am transgender.", "A trans woman asked.", "Nonbinary people deserve respect.", "Cis men asked.",
             "The trans-Atlantic flight left.", "Use the non-binary file format."]  # fmt: skip
    assert mask_identity(texts) == [
        "I am someone.",
        "A person asked.",
        "someone people deserve respect.",
        "People asked.",
        "The trans-Atlantic flight left.",
        "Use the non-binary file format.",
    ]


def test_attributes_limit_what_is_masked() -> None:
    assert mask_identity(["A gay Muslim spoke."], ["religion"], token="X") == ["A gay X spoke."]


def test_bad_token() -> None:
    for token in ("", "  ", "a\nb"):
        with pytest.raises(ValueError, match="token must be"):
            IdentityMaskedScorer(planted_gay, token=token)


def test_wrapper_with_a_callable_scores_masked_texts() -> None:
    seen: list[str] = []

    def spy(texts: list[str]) -> list[float]:
        seen.extend(texts)
        return planted_gay(texts)

    scorer = IdentityMaskedScorer(spy)
    scores = scorer(["My gay neighbor is kind.", "My gay neighbor is kind.", "You are stupid."])
    np.testing.assert_allclose(scores, [0.1, 0.1, 0.9])
    assert seen == [f"My {DEFAULT_TOKEN} neighbor is kind.", "You are stupid."]  # de-duplicated, masked
    assert scorer.cache_key is None  # a plain callable has no identity to cache on


def test_masking_closes_the_gap_of_a_planted_scorer() -> None:
    before = audit_scorer(planted_gay, ["sexual_orientation"])
    after = audit_scorer(IdentityMaskedScorer(planted_gay), ["sexual_orientation"])
    assert before.findings and after.findings == []
    gap_before = before.benign_gap("sexual_orientation", "gay", "straight")
    gap_after = after.benign_gap("sexual_orientation", "gay", "straight")
    assert gap_before is not None and gap_before > 0.2
    assert gap_after == pytest.approx(0.0)
    assert all(t.fpr == 0.0 for t in after.terms)
    assert after.auc == 1.0  # insults still found: they do not rest on the identity word


def test_default_scorer_masked_closes_most_of_its_gap(tmp_path: object) -> None:
    plain = get_toxicity_scorer()
    masked = IdentityMaskedScorer(get_toxicity_scorer())
    before = audit_scorer(plain, ["sexual_orientation", "religion"])
    after = audit_scorer(masked, ["sexual_orientation", "religion"])
    for attribute, high, low in (("sexual_orientation", "gay", "straight"), ("religion", "muslim", "christian")):
        gap_before = before.benign_gap(attribute, high, low)
        gap_after = after.benign_gap(attribute, high, low)
        assert gap_before is not None and gap_after is not None
        assert abs(gap_after) < gap_before / 3, (attribute, gap_before, gap_after)
    gay_after = after.group("sexual_orientation", "gay")
    assert gay_after is not None and gay_after.fpr == 0.0
    assert after.auc >= before.auc - 0.01  # insults are still told from benign statements


def test_cache_key_names_the_inner_model_and_the_token(tmp_path: object) -> None:
    inner = get_toxicity_scorer()
    masked = IdentityMaskedScorer(inner, token="someone")
    assert masked.cache_key == f"masked[builtin|someone]/{inner.cache_key}"
    assert IdentityMaskedScorer(inner, token="X").cache_key != masked.cache_key
    cache = ScoreCache(":memory:")
    cached = IdentityMaskedScorer(get_toxicity_scorer(), cache=cache)
    first = cached(["I am a gay man.", "Have a nice day."])
    second = IdentityMaskedScorer(get_toxicity_scorer(), cache=cache)
    np.testing.assert_allclose(second(["I am a gay man.", "Have a nice day."]), first)
    assert second.n_computed == 0


def test_economic_status_words_are_not_masked_by_default() -> None:
    """economic_status.json says masked_by_default: false (the scorer does not over-score its words), so the default
    mask set, and therefore assess's toxicity scores, are what they were before the attribute was added."""
    from evenhand.text.lexicon import builtin_attributes, masked_attributes

    assert "economic_status" in builtin_attributes() and "economic_status" not in masked_attributes()
    assert mask_identity(["The poor people and a wealthy customer."]) == ["The poor people and a wealthy customer."]
    assert mask_identity(["A wealthy customer."], ["economic_status"]) == ["A someone customer."]
