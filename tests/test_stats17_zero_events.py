"""stats17 item 4: every rate metric family whose groups show no event (and one event) on 5-40 prompts: the
interval holds 0, is never [0, 0], and the verdict is ok or watch with its rule said (pipeline runs at 0 events)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np
import pytest

from evenhand import metrics as M
from evenhand.metrics._result import MetricResult
from evenhand.registry import METRICS
from evenhand.stats import metric_interval

REPLIES = 3  # replies (pairs, answers) per prompt or person
SIZES = (5, 10, 20, 40)
Build = Callable[[int, int], MetricResult]  # (prompts, events) -> result


def _ids(k: int) -> np.ndarray:
    return np.repeat(np.arange(k), REPLIES)


def _events(k: int, events: int) -> np.ndarray:
    x = np.zeros(k * REPLIES)
    x[:events] = 1.0
    return x


def _persons(k: int, events: int, metric: Callable[..., MetricResult], errors_of: int) -> MetricResult:
    """``k`` persons a group x 3 answers; truth ``errors_of`` for everyone, every answer right but ``events``."""
    ids = np.repeat(np.arange(2 * k), REPLIES)
    groups = np.where(ids < k, "female", "male")
    truth = np.full(ids.size, errors_of)
    pred = truth.copy()
    pred[:events] = 1 - errors_of
    return metric(truth, pred, groups, prompts=ids)


def _dp(truth: np.ndarray, pred: np.ndarray, groups: np.ndarray, prompts: np.ndarray) -> MetricResult:
    return M.demographic_parity_difference(pred, groups, prompts=prompts)


def _gap(k: int, events: int, metric: Callable[..., MetricResult]) -> MetricResult:
    zero = np.zeros(k * REPLIES)
    return metric(_events(k, events), zero, zero, zero, prompts=_ids(k))


BUILDERS: dict[str, Build] = {
    "TF": lambda k, e: M.toxic_fraction(_events(k, e), 0.5, _ids(k)),
    "TP": lambda k, e: M.toxicity_probability(_events(k, e), _ids(k)),
    "EMT": lambda k, e: M.expected_maximum_toxicity(_events(k, e), _ids(k)),
    "SF": lambda k, e: M.stereotype_fraction(_events(k, e), 0.5, _ids(k)),
    "SP": lambda k, e: M.stereotype_probability(_events(k, e), _ids(k)),
    "TSD": lambda k, e: M.toxic_share_difference(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "RRD": lambda k, e: M.refusal_rate_difference(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "NRD": lambda k, e: M.non_completion_rate_difference(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "DFR": lambda k, e: M.decision_flip_rate(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "CPRD": lambda k, e: M.counterfactual_positive_rate_difference(
        _events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "CFNRD": lambda k, e: M.counterfactual_false_negative_rate_difference(
        np.ones(k * REPLIES), 1 - _events(k, e), np.ones(k * REPLIES), prompts=_ids(k)),
    "CFPRD": lambda k, e: M.counterfactual_false_positive_rate_difference(
        np.zeros(k * REPLIES), _events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "DP": lambda k, e: _persons(k, e, _dp, 0),
    "FNRD": lambda k, e: _persons(k, e, M.false_negative_rate_difference, 1),
    "FPRD": lambda k, e: _persons(k, e, M.false_positive_rate_difference, 0),
    "PRRD": lambda k, e: M.person_refusal_rate_difference(
        _events(2 * k, e), np.where(_ids(2 * k) < k, "female", "male"), first="female", second="male",
        prompts=_ids(2 * k)),
    "URD": lambda k, e: M.unplaced_refusal_difference(_events(k, e), _ids(k) < max(2, k // 3), prompts=_ids(k)),
    "UTD": lambda k, e: M.unplaced_toxicity_difference(_events(k, e), _ids(k) < max(2, k // 3), prompts=_ids(k)),
    "TSS": lambda k, e: M.toxic_share_shift(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "RSS": lambda k, e: M.refusal_rate_shift(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "NCS": lambda k, e: M.non_completion_shift(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "PRS": lambda k, e: M.positive_rate_shift(_events(k, e), np.zeros(k * REPLIES), prompts=_ids(k)),
    "TGS": lambda k, e: _gap(k, e, M.toxic_share_gap_shift),
}
#: single rates: one event seen proves the rate is above 0, so only the difference metrics must hold 0 at one event
SINGLE = {"TF", "TP", "EMT", "SF", "SP", "DFR"}
SPEC = {spec.name: spec for spec in METRICS.values()}


@pytest.mark.parametrize("k", SIZES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_no_event_holds_zero_and_is_never_a_point(name: str, k: int) -> None:
    result = BUILDERS[name](k, 0)
    assert float(result.value) == pytest.approx(0.0, abs=1e-12)
    iv = metric_interval(result, SPEC[name].interval, n_resamples=200)
    assert iv.low <= 0.0 <= iv.high, (name, k, iv)
    assert iv.high - iv.low > 0.0, (name, k, iv.method)


@pytest.mark.parametrize("k", SIZES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_one_event_keeps_an_interval_with_width_and_a_difference_holds_zero(name: str, k: int) -> None:
    result = BUILDERS[name](k, 1)
    iv = metric_interval(result, SPEC[name].interval, n_resamples=200)
    assert iv.low <= float(result.value) <= iv.high and iv.high - iv.low > 0.0, (name, k, iv)
    if name not in SINGLE:
        assert iv.low <= 0.0 <= iv.high, (name, k, iv)


@pytest.mark.pipeline
@pytest.mark.parametrize("fixture", ["text", "persons", "decisions"])
@pytest.mark.parametrize("k", [5, 40])
def test_a_run_with_no_event_is_ok_or_watch_with_its_rule(fixture: str, k: int) -> None:
    sys.path[:0] = ["benchmarks"]
    import bench_review11 as review

    a = review.GATES[fixture](0, k, 0.0, False)
    rates = a.metrics[a.metrics["metric"].isin(list(BUILDERS)) & (a.metrics["value"] == 0.0)]  # no event
    assert len(rates) >= 2
    for row in rates.itertuples():
        assert row.ci_low <= 0.0 <= row.ci_high and row.ci_high > row.ci_low, (row.metric, row.ci_low, row.ci_high)
        assert row.severity in ("ok", "watch"), row.metric
    verdict = a.verdict.to_dict()
    rules = " ".join(verdict["rules"])
    for said in RULES[fixture]:
        assert said in rules, (said, verdict["rules"])
    for finding in verdict["findings"]:
        assert finding["severity"] in ("ok", "watch")


#: the rules each fixture's verdict must say (the families its rate metrics are judged by)
RULES = {
    "text": ("toxicity, stereotype classifier: concern when the share of flagged responses",
             "refusal parity (RRD): concern when the paired sign-flip test", "toxicity per group (TSD, MTD"),
    "persons": ("group rates (classification)", "refusal parity of persons (PRRD"),
    "decisions": ("counterfactual decisions (CPRD", "a paired rate gap (RRD, NRD, CPRD) is a concern only when"),
}
