"""``compare`` (left10b): RLD rebuilt from stored pairs under the run's cut rule; a row one run's older results lack
(NRD of a complete run written before NRD was computed in every run) rebuilt from its stored responses, or said to
be missing and why, never a silent "only in run A"; the per-outcome error-rate rows of 3+-outcome runs compared."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from test_compare_non_completion import _complete, _run

import evenhand
from evenhand.pipeline.results.outputs import write_outputs
from evenhand.pipeline.verdict.kinds.refusal_length import LENGTH
from evenhand.registry import METRICS
from tests._stored_runs import StoredFrame as _Stored


def _pairs(n: int, cut: int) -> pd.DataFrame:
    """``n`` prompts, a female and a male version each; the first ``cut`` male replies cut at the token limit."""
    rows = []
    for i in range(n):
        for group, words in (("female", 30), ("male", 60)):
            finish = "length" if group == "male" and i < cut else "stop"
            rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": 0, "status": "ok",
                         "prompt": f"{group} {i}", "response": " ".join(["w"] * words), "words": float(words),
                         "finish_reason": finish})  # fmt: skip
    return pd.DataFrame(rows)


RLD_ROW = {"key": "relative_length_difference", "metric": "RLD", "attribute": "gender", "groups": ["female", "male"]}


def test_compare_applies_the_runs_cut_rule_to_rld() -> None:
    """3 of 40 pairs cut (over 5%): the run left RLD undefined, and so does compare's rebuild, saying why."""
    why = LENGTH.stored_items(_Stored(_pairs(40, 3)), RLD_ROW, METRICS["relative_length_difference"])
    assert isinstance(why, str) and "3 of 40 pairs have a reply cut at the token limit" in why, why


def test_a_few_cut_replies_keep_rld_as_the_run_does() -> None:
    table = LENGTH.stored_items(_Stored(_pairs(40, 2)), RLD_ROW, METRICS["relative_length_difference"])
    assert isinstance(table, pd.DataFrame) and len(table) == 40
    assert float(LENGTH.recompute(_Stored(_pairs(40, 2)), RLD_ROW, METRICS["relative_length_difference"],
                                  table)) == pytest.approx(-0.5)  # fmt: skip


def _without_nrd(folder: Path) -> None:
    """results.json as an evenhand before left9a wrote it for a complete run: no NRD row."""
    path = folder / "results.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["metrics"] = [r for r in doc["metrics"] if r["metric"] != "NRD"]
    path.write_text(json.dumps(doc), encoding="utf-8")


@functools.cache
def _written(tmp: str) -> tuple[Path, Path]:
    base = Path(tmp)
    write_outputs(_complete(), base / "old", html=False, include_responses=False)
    write_outputs(_run(0.4), base / "new", html=False, include_responses=False)
    _without_nrd(base / "old")
    return base / "old" / "results.json", base / "new" / "results.json"


def _nrd(comparison: Any) -> dict[str, Any]:
    row = next(r for r in comparison.to_dict()["metrics"] if r["metric"] == "NRD")
    return dict(row["differences"][0])


def test_an_old_complete_run_without_an_nrd_row_is_rebuilt_from_its_stored_requests(tmp_path: Path) -> None:
    old, new = _written(str(tmp_path))
    diff = _nrd(evenhand.compare(old, new))
    assert diff["method"] == "paired", diff["note"]
    assert "only in" not in diff["note"] and "rebuilt from its stored responses" in diff["note"], diff["note"]
    assert diff["difference"] == pytest.approx(_run(0.4).result("NRD").value)
    assert diff["change"] == "worse"


def test_without_stored_responses_the_missing_row_is_said_not_silent(tmp_path: Path) -> None:
    old, new = _written(str(tmp_path))
    (old.parent / "responses.csv").unlink()
    diff = _nrd(evenhand.compare(old, new))
    assert diff["method"] == "none"
    assert "run A's results have no NRD row" in diff["note"] and "stored responses" in diff["note"], diff["note"]


# (c) compare on the per-outcome error-rate rows of left9b


def _outcomes(planted: bool) -> evenhand.Assessment:
    """left9b's fixture: the same applicants; 12 of the 30 women who should be reviewed denied (planted), or every
    answer right (fair)."""
    from test_pipeline_classification_outcomes import _assess_with_truth, _with_truth

    truth = {"female": (24, 30, 6), "male": (24, 18, 18)}
    return _assess_with_truth(*_with_truth(truth, {"female": 12} if planted else {}))


def test_per_outcome_error_rate_rows_are_compared_paired() -> None:
    fair, moved = _outcomes(False), _outcomes(True)
    comparison = evenhand.compare(fair, moved)
    rows = {(r["metric"], r["class"]): r for r in comparison.to_dict()["metrics"]}
    fnrd = rows[("FNRD", "review")]
    diff = fnrd["differences"][0]
    assert diff["method"] == "paired", diff["note"]
    assert diff["difference"] == pytest.approx(moved.metrics.query("metric == 'FNRD' and `class` == 'review'")
                                               ["value"].iloc[0] - fair.metrics.query(
                                                   "metric == 'FNRD' and `class` == 'review'")["value"].iloc[0])
    assert diff["change"] == "worse"
    assert ("FPRD", "deny") in rows and rows[("FNRD", None)]["differences"][0]["change"] == "no clear change"
