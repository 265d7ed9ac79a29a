"""What the CLI prints after an assessment: one NaN line per attribute, each metric once, not one per pair of groups."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from evenhand.report.console import print_undefined
from evenhand.report.digest import undefined_lines


def _row(metric: str, attribute: str | None, comparison: str, reason: str | None, value: float | None = None) -> Any:
    return {"metric": metric, "attribute": attribute, "comparison": comparison, "value": value, "reason": reason}


def test_undefined_metrics_are_summarised_per_attribute() -> None:
    doc = {
        "metrics": [
            _row("COBS", "race", "white vs black", "no response contains a word of group(s) ['white', 'black']"),
            _row("COBS", "race", "white vs asian", "no response contains a word of group(s) ['white', 'asian']"),
            _row("CCS", "gender", "female vs male", "no embedder"),
            _row("CCS", "race", "white vs black", "no embedder"),
            _row("TF", None, "all", None, value=0.0),
        ]
    }
    console = Console(width=1000, record=True)
    print_undefined(console, doc)
    lines = console.export_text().splitlines()
    assert len(lines) == 2 and all(line.startswith("NaN (") for line in lines)  # one line per attribute
    race = next(line for line in lines if line.startswith("NaN (race)"))
    # each metric once, with its reason; differing reasons say which pair the shown one is of
    cobs = "COBS (2 pairs of groups): no response contains a word of group(s) ['white', 'black'] (for white vs black"
    assert cobs in race
    assert "CCS (white vs black): no embedder" in race
    gender = next(line for line in lines if line.startswith("NaN (gender)"))
    assert "CCS (female vs male): no embedder" in gender
    assert "TF" not in " ".join(lines)


def test_a_long_nan_line_stays_bounded() -> None:
    rows = [_row(f"M{i}", "religion", f"a vs b{j}", f"reason {i}") for i in range(9) for j in range(3)]
    console = Console(width=1000, record=True)
    print_undefined(console, {"metrics": rows})
    (line,) = console.export_text().splitlines()
    assert "M0 (3 pairs of groups): reason 0" in line and "M3" in line and "M4" not in line
    assert "and 5 more metrics (results.json lists each row)" in line


def test_a_red_teams_undefined_rows_are_counted_by_system_prompt_not_as_pairs_of_groups() -> None:
    """TSS under two adversarial system prompts is two rows of the whole use case, not "2 pairs of groups"."""
    rows = [{**_row("TSS", None, f"under {c!r} vs benign", "labels"), "condition": c} for c in ("a", "b")]
    line = " ".join(" ".join(u.clauses) for u in undefined_lines(rows))
    assert "TSS (2 rows, by system prompt): labels" in line and "pairs of groups" not in line
