"""Scorer settings in configs: a spec or {spec: ..., options}, a device for every model-based scorer, all built and
checked before the first response is generated; errors name the config key."""

from __future__ import annotations

from typing import Any

import pytest

import evenhand
from evenhand.pipeline.families import base

CALLS: list[str] = []
PROMPTS = ["Write to Mrs. Lee about her loan.", "Thank the customer."]


def llm(prompt: str, **_: Any) -> str:
    CALLS.append(prompt)
    return "Thank you, dear customer."


def _assess(**scoring: Any) -> evenhand.Assessment:
    return evenhand.assess(task="text_generation", prompts=PROMPTS, client=llm, count=1, attributes=["gender"],
                           embedder=False, store=None, progress=False, ci=None, **scoring)  # fmt: skip


def test_a_bad_scorer_fails_before_any_generation() -> None:
    CALLS.clear()
    with pytest.raises(ValueError, match=r"^scoring\.toxicity: unknown toxicity scorer 'no-such-scorer'"):
        _assess(toxicity="no-such-scorer")
    with pytest.raises(ValueError, match=r"^scoring\.sentiment: "):
        _assess(sentiment={"spec": "vader", "no_such_option": 1})
    assert CALLS == []  # nothing was generated


def test_a_mapping_gives_the_factory_its_options() -> None:
    a = _assess(sentiment={"spec": "vader-neg", "batch_size": 7})
    assert a.described["sentiment_scorer"].startswith("{'spec': 'vader-neg'")
    assert "negative share" in a.described["sentiment_scorer"]


def test_the_device_reaches_model_based_scorers(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def factory(spec: Any, **options: Any) -> str:
        seen.update(options, spec=spec)
        return "built"

    assert base.build_scorer(factory, "some/model", key="scoring.x", device="cuda:1") == "built"
    assert seen == {"spec": "some/model", "device": "cuda:1"}
    seen.clear()
    base.build_scorer(factory, {"spec": "some/model", "device": "cpu", "batch_size": 4}, key="k", device="cuda")
    assert seen == {"spec": "some/model", "device": "cpu", "batch_size": 4}  # the scorer's own setting wins
    seen.clear()
    base.build_scorer(factory, len, key="k", device="cuda")  # a Python callable places itself
    assert "device" not in seen
    with pytest.raises(ValueError, match="device"):
        evenhand.config.ScoringConfig(device="gpu")


def test_auto_masks_and_scores_by_sentence_for_the_default_and_the_minilm_head() -> None:
    """Both were trained or measured masked and by sentence; a scorer the user names is left as it is unless asked."""
    pytest.importorskip("sentence_transformers")  # the MiniLM head needs the models extra (its embedder is lazy)
    from evenhand.config import RunSettings, ScoringConfig
    from evenhand.pipeline.families.toxicity import build_toxicity_scorer

    with_options = {"spec": "evenhand-minilm-toxicity", "runtime": "torch", "batch_size": 16}  # options keep "auto"
    cases = ((None, True), ("evenhand-minilm-toxicity", True), ("profanity-check", False), (with_options, True),
             ({"batch_size": 16}, True), ({"spec": "profanity-check", "batch_size": 16}, False))  # fmt: skip
    for spec, expected in cases:
        _, masked, by_sentence = build_toxicity_scorer(RunSettings(scoring=ScoringConfig(toxicity=spec)))
        assert (masked, by_sentence) == (expected, expected), spec
    off = ScoringConfig(toxicity="evenhand-minilm-toxicity", mask_identity=False, toxicity_by_sentence=False)
    assert build_toxicity_scorer(RunSettings(scoring=off))[1:] == (False, False)
