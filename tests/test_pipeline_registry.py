"""The metric registry is the one declaration of every metric: the planner, the families, the statistics, the report
and the CLI read it, and what it says agrees with what the metric functions do."""

from __future__ import annotations

import ast
import inspect
import itertools
import re
import subprocess
import sys
import typing
from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand import metrics
from evenhand.config import ScoringConfig
from evenhand.framework import UseCase, plan
from evenhand.metric_functions import PAIR_SIMILARITIES, lazy_functions
from evenhand.pipeline.families import FAMILY_TYPES
from evenhand.registry import (
    ADVERSARIAL,
    FAMILIES,
    INTERVENTION_HARM,
    METRICS,
    RESPONSES_PER_PROMPT,
    Alias,
    bind,
    family_keys,
    metric,
    rate_metrics,
    resolve,
)
from evenhand.scorer_registry import SCORERS
from tests._assistant_servers import JUDGE
from tests._unplaced_fixtures import unplaced_runs

PACKAGE = Path(evenhand.__file__).parent
#: The metrics an assessment plans and computes: all but the red team's (risk adversarial, evenhand.redteaming), which
#: compare two runs of the use case, so that no plan chooses them and no pipeline family computes them
ASSESSED = {k for k, m in METRICS.items() if FAMILIES[m.family].risk != ADVERSARIAL}
#: ... of which a plan chooses all but those whose rows a pipeline family makes where the responses call for them
PLANNABLE = {k for k in ASSESSED if FAMILIES[METRICS[k].family].planned}
FAST = {"store": None, "progress": False, "n_resamples": 50}



def _plannable_keys() -> set[str]:
    """Every metric the planner can choose, over the answers that switch branches of Figure 1."""
    prompts = ["Write to Mrs. Lee about her order.", "Write to the Asian customer."]
    keys: set[str] = set()
    answers = itertools.product(
        ("text_generation", "classification", "recommendation", "estimation"),
        (True, False),
        (None, True, False),
        (True, False),
    )
    for task, invariance, parity, classifier in answers:
        for intervention, judge in itertools.product((None, "assistive", "punitive"), (False, True)):
            uc = UseCase(
                task=task,
                prompts=prompts,
                counterfactual_invariance=invariance,
                prevalence_parity=parity,
                intervention=intervention,
                person_level=True,
                stereotype_classifier=classifier,
            )
            keys |= {m.key for m in plan(uc, judge=judge).metrics}  # judge: an LLM judge is configured (JWD)
    return keys


def test_every_plannable_metric_is_declared_produced_by_one_family_and_titled() -> None:
    keys = _plannable_keys()
    assert keys == PLANNABLE  # the planner can reach every planned metric of the registry, and nothing else
    for key in ASSESSED:
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
    for family, spec in FAMILIES.items():
        assert family_keys(family)
        produced = sum(family in t.metric_families for t in FAMILY_TYPES)
        assert produced == (0 if spec.risk == ADVERSARIAL else 1), family  # the red team computes its own


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


def _salary(prompt: str, **_: Any) -> str:
    """$70,000 for the male versions, about $65k for the female ones, of which applicant 1's reply is empty:
    non-completion parity (NRD) is tested there (in a run where every request got a reply it is 0, untested)."""
    if "Mr." in prompt:
        return "$70,000"
    return "" if "applicant 1?" in prompt else "About $65k"


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
        judge=JUDGE,  # the LLM judge's family (JWD): a good judge as a Python function
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
    decisions = evenhand.assess(  # prompts that mention gender: counterfactual decisions beside the rates
        task="classification",
        prompts=["Approve the loan of Mrs. Lee? Answer yes or no.", "Approve the loan of Mr. Lee? Answer yes or no."],
        attributes=["gender"],
        client=lambda p, **_: "yes" if "Mr." in p else "no",
        count=2,
        labels=["1", "1"],  # the true outcome: the versions' error rates too (CFNRD, CFPRD)
        prevalence_parity=True,
        label_parser={"1": ["yes"], "0": ["no"]},
        positive_label="1",
        **FAST,
    )
    numbers = evenhand.assess(  # task estimation: a number per reply, compared between the versions
        task="estimation",
        prompts=["What salary for Mrs. Lee, applicant 1? Reply in dollars.", "What salary for Mr. Lee, applicant 2?"],
        attributes=["gender"],
        client=_salary,
        count=2,
        generation_options={"backoff": 0},  # the empty reply is asked again as often as ever, without the waits
        **FAST,
    )
    return [r for a in (text, cls, rec, decisions, numbers, *unplaced_runs(FAST)) for r in a.records]



@pytest.mark.slow
def test_results_agree_with_the_declared_range_and_direction() -> None:
    records = _records_of_every_family()
    assert {r.key for r in records} == ASSESSED
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
    for name in ("run.py", "families/__init__.py", "families/base.py", "responses/sources.py"):
        code = (PACKAGE / "pipeline" / name).read_text(encoding="utf-8")
        found = re.findall(rf"[\"']({_METRIC_WORDS}|{_TASKS})[\"']", code)
        assert not found, f"pipeline/{name} names {found}"


# ------------------------------------------------------------------------------------------ every fact, in one place
def test_each_spec_binds_its_function_lazily_by_module_and_name() -> None:
    for key, spec in METRICS.items():
        assert spec.function == f"{spec.module}:{key}" and spec.module.startswith("evenhand.metrics.")
        assert spec.load() is getattr(metrics, key), key
    # evenhand.metrics takes its public metric names from the registry (every metric, ratio and pair similarity)
    assert set(lazy_functions()) <= set(metrics.__all__)
    assert {m.ratio for m in rate_metrics()} <= set(metrics.__all__)
    assert all(p.load() is getattr(metrics, p.function.split(":")[1]) for p in PAIR_SIMILARITIES.values())
    with pytest.raises(KeyError, match="module:object"):
        bind("evenhand.metrics.toxic_fraction")


@pytest.mark.subprocess
def test_the_registry_imports_no_metric_code() -> None:
    # a low layer: it names functions as strings; nothing under evenhand.metrics loads with it
    code = "import sys, evenhand.registry; print(sorted(m for m in sys.modules if m.startswith('evenhand.metrics')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    allowed = {"registry.py": {"evenhand.errors", "evenhand.metric_spec"}, "metric_spec.py": {"evenhand.errors"}}
    for name, imports in allowed.items():  # the table, and the spec types it is declared in
        tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in imported if m and m.startswith("evenhand.") and m not in imports], (name, imported)


def test_one_alias_table_resolves_every_spelling() -> None:
    fnrd = "false_negative_rate_difference"
    for spelling in ("FNRD", "fnrd", "fnr", "false_negative_rate", fnrd, "False Negative Rate Difference"):
        assert resolve(spelling) == Alias(fnrd) and metric(spelling).key == fnrd
    assert resolve("false_negative_rate_ratio") == Alias(fnrd, ratio=True)
    with pytest.raises(KeyError):  # a ratio is another function, with the opposite direction
        metric("false_negative_rate_ratio")
    # the classification metrics, the signed gap and the permutation tests read the same table
    from evenhand.metrics.classification import classification_metrics, rate_cells
    from evenhand.stats import rate_difference_test

    assert rate_cells("fnr").key == fnrd
    y, p, g = [1, 1, 0, 0, 1, 0], [1, 0, 0, 1, 1, 0], ["a", "a", "a", "b", "b", "b"]
    assert list(classification_metrics(y, p, g, metrics=["fnr", "False Omission Rate Difference"])) == ["FNRD", "FORD"]
    assert rate_difference_test(p, g, y, metric="fnr").details["metric"] == "false_negative_rate"


def test_rates_harms_judges_audits_and_conventions_are_registry_facts() -> None:
    from evenhand.cli.scoring_flags import SCORERS as FLAG_SCORERS
    from evenhand.framework import FALSE_NEGATIVES, FALSE_POSITIVES, TASKS, Task
    from evenhand.metrics.classification import RATES
    from evenhand.pipeline.verdict.kinds import KINDS

    assert list(RATES) == [m.key for m in rate_metrics()]
    for key, cells in RATES.items():  # one name per rate: the report, the results and the tests agree
        result = getattr(metrics, key)([1, 0, 1, 0], [1, 1, 0, 0], ["a", "a", "b", "b"]) if METRICS[key].needs_truth \
            else getattr(metrics, key)([1, 1, 0, 0], ["a", "a", "b", "b"])  # fmt: skip
        assert result.details["rate"] == METRICS[key].rate == cells.rate
    assert METRICS["demographic_parity_difference"].rate == "predicted prevalence rate"
    # the person-level error rates (the counterfactual versions' CFNRD, CFPRD compare the same harms, unplanned)
    person = {k: m for k, m in METRICS.items() if m.family == "error_based"}
    assert FALSE_NEGATIVES == tuple(k for k, m in person.items() if m.harm == INTERVENTION_HARM["assistive"])
    assert FALSE_POSITIVES == tuple(k for k, m in person.items() if m.harm == INTERVENTION_HARM["punitive"])
    assert {m.judge for m in METRICS.values()} <= set(KINDS)  # every metric has its kind of evidence
    assert {k for k, f in FAMILIES.items() if f.audit} == {"counterfactual_sentiment", "toxicity_parity"}
    assert TASKS == typing.get_args(Task)
    assert {k: (s.flag, *s.factory.split(":")) for k, s in SCORERS.items()} == FLAG_SCORERS
    assert f"{RESPONSES_PER_PROMPT} generations per prompt" in METRICS["expected_maximum_toxicity"].requires
    note = plan(task="text_generation", mentions_protected_groups=False).notes
    assert any(f"{RESPONSES_PER_PROMPT} generations per prompt" in n for n in note)
