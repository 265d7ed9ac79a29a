"""Permutation tests of classification rates inside ``evenhand.assess`` (issue 7, wired in by issue 8)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scipy.stats import fisher_exact

import evenhand

FAST: dict[str, Any] = {"n_resamples": 50, "store": None, "progress": False}


def _assess(groups: list[str], answers: list[str], truth: list[str] | None = None, **kwargs: Any) -> Any:
    prompts = [f"Applicant {i}: approve the loan?" for i in range(len(groups))]
    by_prompt = dict(zip(prompts, answers, strict=True))
    return evenhand.assess(
        task="classification",
        prompts=prompts,
        client=lambda p: by_prompt[p],
        groups=groups,
        labels=truth,
        person_level=True,
        prevalence_parity=True,
        attributes=["gender"],
        count=1,
        **{**FAST, **kwargs},
    )


def test_dp_test_matches_fishers_exact_test() -> None:
    # group a: 9 of 12 approved; group b: 3 of 12 approved
    groups = ["a"] * 12 + ["b"] * 12
    answers = ["yes"] * 9 + ["no"] * 3 + ["yes"] * 3 + ["no"] * 9
    a = _assess(groups, answers)
    row = a.metrics.set_index("metric").loc["DP"]
    expected = fisher_exact([[9, 3], [3, 9]]).pvalue  # the same hypergeometric null, two-sided
    assert row["value"] == pytest.approx(0.5)
    assert row["p_value"] == pytest.approx(expected)
    assert row["p_adjusted"] == pytest.approx(expected)  # a single test: nothing to adjust
    tests = a.tests
    assert len(tests) == 1
    t = tests.iloc[0]
    assert (t["group_a"], t["group_b"]) == ("a", "b")
    assert t["rate_a"] == pytest.approx(0.75) and t["rate_b"] == pytest.approx(0.25)
    assert t["difference"] == pytest.approx(0.5) and (t["n_a"], t["n_b"]) == (12, 12)


def test_every_pair_and_metric_is_tested_and_bh_adjusted_together() -> None:
    rng = np.random.default_rng(3)
    groups = [g for g in ("x", "y", "z") for _ in range(30)]
    p_yes = {"x": 0.8, "y": 0.5, "z": 0.2}
    answers = ["yes" if rng.random() < p_yes[g] else "no" for g in groups]
    truth = ["1" if rng.random() < 0.5 else "0" for _ in groups]
    a = _assess(groups, answers, truth)
    tests = a.tests
    metrics = set(a.metrics["metric"]) - {"PRRD"}  # PRRD (refusal rates): no answer refused, nothing to test
    assert set(tests["metric"]) == metrics  # every planned rate metric ...
    for _, part in tests.groupby("metric"):  # ... for every pair of groups
        assert sorted(zip(part["group_a"], part["group_b"], strict=True)) == [("x", "y"), ("x", "z"), ("y", "z")]
    # issue 27: an omnibus test per metric (Benjamini-Hochberg across metrics), then its pairs (Holm)
    from evenhand.stats import omnibus_then_pairs

    expected = omnibus_then_pairs(tests["p_value"].to_numpy(), tests["key"].tolist())
    np.testing.assert_allclose(tests["p_adjusted"].to_numpy(), expected)
    assert (tests["p_adjusted"] >= tests["p_value"] - 1e-12).all()
    # the metric row carries the test of the pair that sets its value (largest rate difference)
    dp = a.metrics.set_index("metric").loc["DP"]
    dp_tests = tests[tests["metric"] == "DP"]
    top = dp_tests.loc[dp_tests["difference"].abs().idxmax()]
    assert abs(top["difference"]) == pytest.approx(dp["value"])
    assert dp["p_value"] == pytest.approx(top["p_value"]) and dp["p_adjusted"] == pytest.approx(top["p_adjusted"])
    assert dp["p_value"] < 0.001  # 0.8 vs 0.2 on 30 rows each is no accident


def test_tests_reach_json_and_html() -> None:
    groups = ["a"] * 10 + ["b"] * 10
    answers = ["yes"] * 8 + ["no"] * 2 + ["yes"] * 4 + ["no"] * 6
    a = _assess(groups, answers)
    doc = a.to_dict(include_responses=False)
    assert doc["schema_version"].startswith("2.")  # minor versions only add keys
    assert doc["tests"][0]["metric"] == "DP" and doc["tests"][0]["p_value"] == pytest.approx(a.tests["p_value"][0])
    assert doc["metrics"][0]["p_value"] is not None
    html = a.to_html()
    assert "Permutation tests" in html and "exact (hypergeometric)" in html


def test_undefined_rate_gives_nan_test_with_reason_not_a_crash() -> None:
    # group b has no actual positives: its false negative rate is undefined
    groups = ["a"] * 6 + ["b"] * 6
    answers = ["yes", "no"] * 6
    truth = ["1"] * 6 + ["0"] * 6
    a = _assess(groups, answers, truth)
    fnr = a.tests[a.tests["metric"] == "FNRD"]
    assert fnr.empty or (fnr["p_value"].isna().all() and fnr["reason"].str.contains("undefined").all())
    dp = a.tests[a.tests["metric"] == "DP"]
    assert dp["p_value"].notna().all()


def test_single_group_and_ci_none_have_no_tests() -> None:
    a = _assess(["a"] * 6, ["yes", "no"] * 3)
    assert a.tests.empty and np.isnan(a.metrics["p_value"]).all()
    b = _assess(["a", "b"] * 3, ["yes", "no"] * 3, ci=None)
    assert b.tests.empty
