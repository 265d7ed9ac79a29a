"""A metric row one run has and another lacks because the other was written by an older evenhand (left10b).

Some rows are made on a condition no plan states (a family the registry marks ``planned=False``): NRD was made only
where a counterfactual request went unanswered until left9a made it in every run that judges refusals, so a complete
run's results.json written before then has no NRD row where a new run has NRD 0 or more. Comparing the two read
"only in run B", as if run A had not been measured. Such a row is rebuilt from the run's stored responses (what
the run would have written, by the metric's kind of evidence: for NRD every stored request's status and finish
reason) and compared as any other; where it cannot be, the difference says why, and that the run's results have
no row of it. A row of a planned metric missing from one run is a change of plan and stays "only in run A".
"""

from __future__ import annotations

import math
from typing import Any

from evenhand.comparison.recompute import item_table, recompute
from evenhand.comparison.runs import Run
from evenhand.registry import FAMILIES, METRICS


def backfill(run: Run, row: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """``run``'s version of ``row`` (another run's), rebuilt from ``run``'s stored responses, and the words that say
    so; or None and why not ("" when the row's metric is planned: then a missing row is a change of plan)."""
    spec = METRICS.get(str(row.get("key")))
    if spec is None or FAMILIES[spec.family].planned:
        return None, ""
    missing = (f"run {run.label}'s results have no {spec.name} row (written by an evenhand that did not make "
               f"{spec.name} rows in every run)")  # fmt: skip
    try:
        table = item_table(run, row)
        if isinstance(table, str):
            return None, f"{missing}; not rebuilt from its stored responses: {table}"
        result = recompute(run, row, table)
    except (ValueError, TypeError) as exc:  # stored responses the metric refuses
        return None, f"{missing}; not rebuilt from its stored responses: {exc}"
    value = float(result.value)
    rebuilt = {**row, "value": None if math.isnan(value) else value, "ci_low": None, "ci_high": None,
               "p_value": None, "p_adjusted": None}  # fmt: skip
    for key in ("signed_difference", "signed_low", "signed_high", "signed_direction"):
        rebuilt.pop(key, None)
    return rebuilt, f"{missing}; rebuilt from its stored responses: {spec.name} {value:.3g}"
