"""What the CLI prints after an assessment: one NaN line per metric and attribute, not one per pair of groups."""

from __future__ import annotations

from typing import Any

import pytest

from evenhand import cli


class _Doc:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    def to_dict(self, include_responses: bool = False) -> dict[str, Any]:
        return {"metrics": self.rows}


def _row(metric: str, attribute: str | None, comparison: str, reason: str | None, value: float | None = None) -> Any:
    return {"metric": metric, "attribute": attribute, "comparison": comparison, "value": value, "reason": reason}


def test_undefined_metrics_are_summarised_per_metric(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _Doc(
        [
            _row("COBS", "race", "white vs black", "no response contains a word of group(s) ['white', 'black']"),
            _row("COBS", "race", "white vs asian", "no response contains a word of group(s) ['white', 'asian']"),
            _row("CCS", "gender", "female vs male", "no embedder"),
            _row("CCS", "race", "white vs black", "no embedder"),
            _row("TF", None, "all", None, value=0.0),
        ]
    )
    cli._print_undefined(doc)
    out = " ".join(capsys.readouterr().out.split())
    assert out.count("NaN:") == 2
    assert "COBS (race, 2 pairs of groups): no response contains a word of group(s) ['white', 'black'] (for" in out
    assert "CCS (gender, female vs male), CCS (race, white vs black): no embedder" in out
    assert "TF" not in out
