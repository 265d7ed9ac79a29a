"""``evenhand compare`` on the classification difference metrics: a gap between two groups is compared with its sign.

DP is ``|rate(female) − rate(male)|``: a run where women are approved 8 points less often and one where they are
approved 9 points more often have DP 0.08 and 0.09, yet the gap moved by 0.17. The comparison recomputes the
signed gap from the stored responses (same units and strata as the metric) and judges that.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from test_compare_fixtures import FAST
from typer.testing import CliRunner

import evenhand
from evenhand.cli import app
from evenhand.metrics import demographic_parity_difference, false_negative_rate_difference
from evenhand.metrics.rate_gap import signed_rate_gap
from evenhand.pipeline.results.assessment import Assessment

N = 200  # persons per group


def _loan_run(rate_female: float, rate_male: float, seed: int, groups: tuple[str, ...] = ("female", "male")) -> Any:
    """A person-level loan pre-screen: each group's applicants are approved at exactly the given rate (the other
    groups, if any, at 0.5), which applicants is drawn with ``seed``."""
    prompts = [f"Applicant {i}: approve the loan?" for i in range(len(groups) * N)]
    person_groups = [groups[i // N] for i in range(len(prompts))]
    rates = {"female": rate_female, "male": rate_male}
    rng = np.random.default_rng(seed)
    answers = {}
    for k, group in enumerate(groups):
        chosen = set(rng.permutation(N)[: round(rates.get(group, 0.5) * N)].tolist())
        for j in range(N):
            answers[prompts[k * N + j]] = "yes" if j in chosen else "no"
    return evenhand.assess(
        task="classification", prompts=prompts, groups=person_groups, person_level=True, prevalence_parity=True,
        attributes=["gender"], count=1, client=lambda p: answers[p], **FAST,
    )  # fmt: skip


@functools.cache
def _runs(key: str) -> tuple[Assessment, Assessment]:
    rates = {
        "flip": ((0.46, 0.54), (0.545, 0.455)),  # -0.08 -> +0.09: the gap changed sides, its size barely moved
        "appears": ((0.49, 0.52), (0.56, 0.44)),  # -0.03 (no finding) -> +0.12 (a finding)
        "shrinks": ((0.35, 0.65), (0.51, 0.50)),  # -0.30 -> +0.01: nearly parity
    }[key]
    return _loan_run(*rates[0], seed=0), _loan_run(*rates[1], seed=1)


def _dp(comparison: Any) -> tuple[dict, dict]:
    row = next(r for r in comparison.to_dict()["metrics"] if r["metric"] == "DP")
    return row, row["differences"][0]


def test_a_gap_that_changed_sides_is_compared_with_its_sign() -> None:
    a, b = _runs("flip")
    assert a.result("DP").value == pytest.approx(0.08) and b.result("DP").value == pytest.approx(0.09)
    row, diff = _dp(evenhand.compare(a, b))
    assert row["signed"] == {"groups": ["female", "male"], "values": {"A": pytest.approx(-0.08),
                                                                      "B": pytest.approx(0.09)}}  # fmt: skip
    assert row["values"] == {"A": pytest.approx(0.08), "B": pytest.approx(0.09)}  # the stored metric, unchanged
    assert diff["difference"] == pytest.approx(0.17) and diff["method"] == "paired"
    assert 0 < diff["ci_low"] < 0.17 < diff["ci_high"]  # the interval of the signed change excludes 0
    low, high = diff["size_change"]
    assert low < 0.01 < high and low < 0 < high  # the size of the gap did not clearly change ...
    assert diff["change"] == "worse"  # ... but it moved clearly: women are now the favoured group, by as much
    assert "the gap female − male went from -0.08 to +0.09, difference +0.17" in diff["sentence"]
    assert "signed gap female − male" in diff["note"]


def test_the_verdict_on_the_row_agrees_with_the_finding_that_appeared() -> None:
    comparison = evenhand.compare(*_runs("appears"))
    _, diff = _dp(comparison)
    change = next(f for f in comparison.findings if f.risk == "allocational")
    assert (change.before, change.direction) == ("ok", "worse") and change.change == "appeared"
    assert diff["difference"] == pytest.approx(0.15) and diff["change"] == "worse"


def test_a_gap_that_shrank_to_parity_improved() -> None:
    _, diff = _dp(evenhand.compare(*_runs("shrinks")))
    assert diff["difference"] == pytest.approx(0.31) and diff["ci_low"] > 0
    assert diff["size_change"][1] < 0 and diff["change"] == "improved"


def test_independent_runs_are_compared_with_the_sign_too() -> None:
    _, diff = _dp(evenhand.compare(*_runs("flip"), pairing="independent"))
    assert diff["method"] == "independent" and diff["difference"] == pytest.approx(0.17)
    assert diff["ci_low"] > 0 and diff["change"] == "worse"


@pytest.mark.pipeline
def test_more_than_two_groups_keep_the_absolute_gap() -> None:
    groups = ("female", "male", "nonbinary")
    a, b = _loan_run(0.46, 0.54, 0, groups), _loan_run(0.545, 0.455, 1, groups)
    row, diff = _dp(evenhand.compare(a, b))
    assert row["signed"] is None and diff["size_change"] is None
    assert diff["difference"] == pytest.approx(b.result("DP").value - a.result("DP").value)


def test_the_table_shows_the_signed_gaps(tmp_path: Any) -> None:
    a, b = _runs("flip")
    a.to_json(tmp_path / "a.json")
    b.to_json(tmp_path / "b.json")
    result = CliRunner().invoke(app, ["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out",
                                      str(tmp_path / "cmp"), "--n-resamples", "200"])  # fmt: skip
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.split()[:1] == ["DP"])
    assert "female − male" in lines[at] and "-0.080" in lines[at] and "+0.090" in lines[at] and "+0.170" in lines[at]
    # the groups' cell folds onto the next line: the table wraps to 100 columns off a terminal (issue 37)
    assert "(signed)" in lines[at] + lines[at + 1]
    html = (tmp_path / "cmp" / "comparison.html").read_text(encoding="utf-8")
    assert "female − male (signed)" in html
    assert "female − male (signed)" in evenhand.compare(a, b)._repr_html_()  # the notebook's table too


def test_signed_rate_gap_is_the_rate_difference_with_the_metrics_units() -> None:
    y_true = [1, 1, 0, 1, 0, 1, 1, 0, 1, 0]
    y_pred = [1, 0, 0, 1, 1, 0, 0, 0, 1, 1]
    groups = ["f", "f", "f", "f", "f", "m", "m", "m", "m", "m"]
    prompts = [0, 0, 1, 2, 3, 4, 5, 5, 6, 7]
    dp = signed_rate_gap("demographic_parity_difference", y_pred, groups, first="m", second="f", prompts=prompts)
    assert dp.value == pytest.approx(0.4 - 0.6)  # predicted positive rate: m 2/5, f 3/5
    metric = demographic_parity_difference(y_pred, groups, prompts=prompts)
    assert abs(dp.value) == pytest.approx(metric.value)
    assert dp.resampler is not None and metric.resampler is not None
    assert dp.resampler.n_units == metric.resampler.n_units == 8
    assert np.array_equal(dp.resampler.strata, metric.resampler.strata)
    weights = np.random.default_rng(0).integers(0, 3, size=(50, 8)).astype(float)
    assert np.allclose(np.abs(dp.resampler(weights)), metric.resampler(weights), equal_nan=True)
    fnr = signed_rate_gap("FNRD", y_true, y_pred, groups, first="f", second="m")
    assert fnr.value == pytest.approx(1 / 3 - 2 / 3)  # false negative rate: f 1/3, m 2/3
    assert abs(fnr.value) == pytest.approx(false_negative_rate_difference(y_true, y_pred, groups).value)
    with pytest.raises(ValueError, match="group"):
        signed_rate_gap("DP", y_pred, groups, first="f", second="x")
