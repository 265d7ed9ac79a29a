"""The documented import path of :class:`Assessment` and the results document's names, kept for one release: they
live in :mod:`evenhand.pipeline.results.assessment` (and :mod:`~evenhand.pipeline.results.document`,
:mod:`~evenhand.pipeline.verdict.thresholds`) since issue 35."""

from __future__ import annotations

from evenhand.pipeline.results.assessment import (
    METRIC_COLUMNS,
    RESPONSE_BLOCK,
    SCHEMA,
    SCHEMA_VERSION,
    TEST_COLUMNS,
    Assessment,
    ThresholdCheck,
    check_thresholds,
    load_results,
)

__all__ = [
    "METRIC_COLUMNS", "RESPONSE_BLOCK", "SCHEMA", "SCHEMA_VERSION", "TEST_COLUMNS", "Assessment", "ThresholdCheck",
    "check_thresholds", "load_results",
]  # fmt: skip
