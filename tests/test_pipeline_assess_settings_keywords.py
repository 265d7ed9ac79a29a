"""``evenhand.assess(settings=..., **keywords)``: a setting is given once. Where the settings object gives a field a
value other than its default, a keyword for that field must equal it (else one clear error naming both); where it
leaves the field at its default, the keyword sets it; a keyword at its own default is the same as leaving it out.
left9b: a conflicting keyword overrode the settings object silently, and a keyword for another task passed only
when it happened to equal the settings' value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand.cli.translate import load_config
from evenhand.config import RunSettings
from evenhand.errors import InputError
from evenhand.pipeline.run import settings_from_keywords

SET = RunSettings.model_validate({"recommendation": {"k": 3}, "statistics": {"n_resamples": 200}})

CONFLICTS = [
    ({"k": 4}, "k=4", "settings.recommendation.k = 3"),
    ({"n_resamples": 50}, "n_resamples=50", "settings.statistics.n_resamples = 200"),
    ({"normalize": False, "k": 7}, "k=7", "settings.recommendation.k = 3"),
]


@pytest.mark.parametrize(("keywords", "keyword", "setting"), CONFLICTS)
def test_a_keyword_that_conflicts_with_the_settings_object_is_one_clear_error(
    keywords: dict[str, Any], keyword: str, setting: str
) -> None:
    with pytest.raises(InputError) as caught:
        settings_from_keywords(SET, task="recommendation", **keywords)
    message = str(caught.value)
    assert message.startswith(keyword) and setting in message and "\n" not in message, message


def test_a_keyword_equal_to_the_settings_or_for_a_field_it_leaves_at_its_default_is_accepted() -> None:
    same = settings_from_keywords(SET, task="recommendation", k=3, n_resamples=200)
    assert same == SET
    filled = settings_from_keywords(SET, task="recommendation", normalize=False, seed=7, toxicity_threshold=0.3)
    assert (filled.recommendation.k, filled.recommendation.normalize, filled.statistics.seed) == (3, False, 7)
    assert filled.scoring.toxicity_threshold == 0.3


def test_a_keyword_for_another_task_is_an_error_whatever_the_settings_say() -> None:
    """The task check no longer depends on the settings object: k=3 with settings whose k is 3 was accepted for a
    classification use case (k=4 was an error)."""
    for k in (3, 4):
        with pytest.raises(InputError, match=r"^k"):
            settings_from_keywords(SET, task="classification", k=k)


def test_assess_names_both_before_anything_runs() -> None:
    asked: list[str] = []

    def llm(prompt: str) -> str:
        asked.append(prompt)
        return "yes"

    settings = RunSettings.model_validate({"statistics": {"n_resamples": 200}, "generation": {"count": 2}})
    with pytest.raises(InputError, match=r"^count=3 conflicts with settings\.generation\.count = 2"):
        evenhand.assess(task="classification", prompts=["Approve Mrs. Lee?"], client=llm, attributes=["gender"],
                        settings=settings, count=3, progress=False)  # fmt: skip
    assert asked == []


def test_the_demo_config_s_explicit_defaults_leave_keywords_free() -> None:
    """demo.yaml writes some defaults out (statistics: ci 0.95, n_resamples 1000, seed 0; scoring: toxicity,
    sentiment, embedder null): they are defaults, so a keyword sets them; its own choices (count 1,
    counterfactual_count 2) are given, so a keyword must agree with them."""
    demo = load_config(Path(evenhand.__file__).parent / "data" / "demo" / "demo.yaml").run_settings()
    task = "text_generation"
    free = settings_from_keywords(demo, task=task, n_resamples=200, seed=3, ci=0.9, toxicity=lambda texts: [0.0])
    assert (free.statistics.n_resamples, free.statistics.seed, free.statistics.ci) == (200, 3, 0.9)
    assert settings_from_keywords(demo, task=task, count=1, counterfactual_count=2) == demo
    for keywords, setting in (({"count": 3}, "generation.count = 1"), ({"counterfactual_count": 5},
                                                                          "generation.counterfactual_count = 2")):
        with pytest.raises(InputError, match=setting):
            settings_from_keywords(demo, task=task, **keywords)
