"""The metric registry is the one declaration of every metric: the planner, the families, the statistics, the report
and the CLI read it, and what it says agrees with what the metric functions do."""

from __future__ import annotations

import inspect
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand import metrics
from evenhand.config import ScoringConfig
from evenhand.framework import UseCase, plan
from evenhand.pipeline.families import FAMILY_TYPES
from evenhand.registry import FAMILIES, METRICS, family_keys, metric

PACKAGE = Path(evenhand.__file__).parent
FAST = {"store": None, "progress": False, "n_resamples": 50}


def _plannable_keys() -> set[str]:
    """Every metric the planner can choose, over the answers that switch branches of Figure 1."""
    prompts = ["Write to Mrs. Lee about her order.", "Write to the Asian customer."]
    keys: set[str] = set()
    answers = itertools.product(
        ("text_generation", "classification", "recommendation"), (True, False), (None, True, False), (True, False)
    )
    for task, invariance, parity, classifier in answers:
        for intervention in (None, "assistive", "punitive"):
            uc = UseCase(
                task=task,
                prompts=prompts,
                counterfactual_invariance=invariance,
                prevalence_parity=parity,
                intervention=intervention,
                person_level=True,
                stereotype_classifier=classifier,
            )
            keys |= {m.key for m in plan(uc).metrics}
    return keys


def test_every_plannable_metric_is_declared_produced_by_one_family_and_titled() -> None:
    keys = _plannable_keys()
    assert keys == set(METRICS)  # the planner can reach every metric of the registry, and nothing else
    for key in keys:
        spec = METRICS[key]
        producers = [t for t in FAMILY_TYPES if spec.family in t.metric_families]
        assert len(producers) == 1, key
        assert (
            spec.title
            and spec.full_name
            and spec.family in FAMILIES
            and spec.section.startswith(FAMILIES[spec.family].section.split(".")[0])
        )


def test_every_registry_family_has_exactly_one_pipeline_family() -> None:
    for family in FAMILIES:
        assert family_keys(family)
        assert sum(family in t.metric_families for t in FAMILY_TYPES) == 1, family


def test_each_metric_function_takes_the_settings_the_registry_names() -> None:
    scoring_fields = set(ScoringConfig.model_fields)
    for key, spec in METRICS.items():
        parameters = inspect.signature(getattr(metrics, key)).parameters
        for param, setting in spec.settings.items():
            assert param in parameters and setting in scoring_fields, key
        # a threshold parameter the registry does not name would silently keep its default
        assert ("threshold" in parameters) == ("threshold" in spec.settings), key


def test_lookup_by_key_short_or_full_name() -> None:
    assert metric("CROUGE-L") is metric("counterfactual_rouge_l") is metric("counterfactual rouge-l")
    with pytest.raises(KeyError, match="unknown metric 'NOPE'"):
        metric("NOPE")


def _records_of_every_family() -> list[Any]:
    prompts = ["Write to Mrs. Lee about her order.", "Write to Mr. Lee about his order.", "Write a note."]
    text = evenhand.assess(
        task="text_generation",
        prompts=prompts,
        attributes=["gender"],
        client=lambda p, **_: f"Thanks for the order, {p[9:16]}!",
        count=2,
        stereotype=lambda texts: [0.3] * len(texts),
        embedder=False,
        **FAST,
    )
    answers = ["yes", "no", "yes", "no", "yes", "yes"]
    cls = evenhand.assess(
        task="classification",
        prompts=[f"Approve the loan of applicant {i}?" for i in range(6)],
        responses=answers,
        labels=["1", "0", "0", "1", "1", "0"],
        groups=["a", "a", "a", "b", "b", "b"],
        person_level=True,
        prevalence_parity=None,
        attributes=["gender"],
        **FAST,
    )
    rec = evenhand.assess(
        task="recommendation",
        prompts=["Recommend 3 films for a woman.", "Recommend 3 songs for a woman."],
        attributes=["gender"],
        client=lambda p, **_: "1. Alien\n2. Heat\n3. Up" if "woman" in p else "1. Alien\n2. Up\n3. Heat",
        count=1,
        k=3,
        **FAST,
    )
    return [r for a in (text, cls, rec) for r in a.records]


def test_results_agree_with_the_declared_range_and_direction() -> None:
    records = _records_of_every_family()
    assert {r.key for r in records} == set(METRICS)
    for r in records:
        spec = METRICS[r.key]
        assert r.result.name == spec.name, r.key
        if r.result.is_defined:
            assert tuple(r.result.value_range) == spec.value_range, r.key
            assert r.result.higher_is_fairer == spec.higher_is_fairer, r.key
            low, high = spec.value_range
            assert low <= r.result.value <= high, r.key
        assert (r.groups is not None) == spec.pairwise, r.key


_METRIC_WORDS = "|".join(re.escape(k) for k in METRICS) + "|" + "|".join(re.escape(m.name) for m in METRICS.values())
_TASKS = "text_generation|summarization|classification|recommendation"


def test_the_run_loop_branches_on_no_task_and_no_metric() -> None:
    for name in ("run.py", "families/__init__.py", "families/base.py", "sources.py"):
        code = (PACKAGE / "pipeline" / name).read_text(encoding="utf-8")
        found = re.findall(rf"[\"']({_METRIC_WORDS}|{_TASKS})[\"']", code)
        assert not found, f"pipeline/{name} names {found}"
