"""The metric row is declared once (evenhand/pipeline/results/schema.py: METRIC_ROW): the metrics table, results.json
and the results check read the same columns, and the verdict's evidence the same numbers (issue 35)."""

from __future__ import annotations

import math

import pandas as pd

import evenhand
from evenhand.pipeline.results.schema import _CHECKED, METRIC_COLUMNS, METRIC_ROW, TEST_COLUMNS
from evenhand.pipeline.verdict.evidence import base_evidence


def test_every_row_has_exactly_the_declared_columns_and_the_evidence_its_numbers() -> None:
    table = pd.DataFrame({"prompt": [f"Applicant {i}: approve? yes or no" for i in range(8)],
                          "response": ["yes", "no"] * 4, "person": ["f"] * 4 + ["m"] * 4})  # fmt: skip
    a = evenhand.assess(task="classification", responses=table, groups=table["person"].tolist(),
                        attributes=["gender"], person_level=True, prevalence_parity=True, n_resamples=20,
                        progress=False)  # fmt: skip
    for index, rec in enumerate(a.records):
        assert list(a._row(index, rec)) != [] and set(a._row(index, rec)) == set(METRIC_COLUMNS)
        e, numbers = base_evidence(rec), rec.numbers()
        for name in ("value", "ci_low", "ci_high", "noise_floor", "gap", "p_value", "p_adjusted"):
            expected = numbers[name]
            assert getattr(e, name) == (None if math.isnan(expected) else expected), name
    assert list(a.metrics.columns) == METRIC_COLUMNS and list(a.tests.columns) == TEST_COLUMNS
    assert [n for n, _ in METRIC_ROW if n in _CHECKED] == list(_CHECKED)  # the check reads columns in table order
