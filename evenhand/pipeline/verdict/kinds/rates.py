"""Group rates (classification: DP, FNRD, FORD, FPRD, FDRD): a distance between groups' rates, judged per pair of
groups by the exact test of their two rates (adjusted p); without statistics, the largest difference is reported."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pandas as pd

from evenhand._json import float_or_none
from evenhand.metrics._result import MetricResult
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.evidence.signed_differences import signed_caveat
from evenhand.pipeline.families.calls import call_metric
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.pipeline.responses.parsers import label_text
from evenhand.pipeline.verdict.evidence import Evidence, by_p, note_few_units
from evenhand.pipeline.verdict.kinds.base import EvidenceKind, RunFacts, StoredRun
from evenhand.pipeline.verdict.kinds.sentiment import BY_P_VALUE
from evenhand.pipeline.verdict.kinds.stored import by_key, response_keys
from evenhand.pipeline.verdict.kinds.wording import adjusted_p, interval
from evenhand.registry import METRICS, MetricSpec


def _signed_value(rec: MetricRecord, a: str, b: str, value: float) -> str:
    """``a minus b +0.2 [+0.05, +0.35]``: a pair's rate difference with the interval of the record's signed gap when
    it is this pair's (two groups), else ``+0.2``."""
    signed = rec.signed
    if signed is None or signed.interval is None or (signed.first, signed.second) != (a, b):
        return f"{value:+.3g}"
    bounds = f"[{signed.interval.low:+.3g}, {signed.interval.high:+.3g}]"
    return f"{signed.direction} {value:+.3g} {bounds}{signed_caveat(signed)}"


def prediction_inputs(run: StoredRun, row: Mapping[str, Any], table: pd.DataFrame) -> tuple[list[pd.Series], Any]:
    """A classification row's data (``[truth,] label, group`` columns of ``table``) and its positive label: the
    class of the row, else the run's positive label."""
    spec = METRICS[str(row["key"])]
    columns = ["truth", "label", "group"] if spec.needs_truth else ["label", "group"]
    cls = row.get("class")
    positive = label_text(cls if cls is not None else run.settings.get("positive_label"))
    return [table[c] for c in columns], positive


class Rates(EvidenceKind):
    name = "rates"
    rules = (BY_P_VALUE,)
    distance = True

    def evidence(self, rec: MetricRecord, facts: RunFacts) -> Iterator[tuple[tuple[str, str] | None, Evidence]]:
        """With statistics, one piece of evidence per pair of groups (the record's table of pair tests)."""
        if rec.pair_tests is not None:
            yield from self._pairs(rec)
        else:
            yield from super().evidence(rec, facts)

    def judge(self, rec: MetricRecord, e: Evidence, facts: RunFacts) -> None:
        spec = rec.spec
        e.claim = (
            f"the largest difference in {spec.rate or 'rate'} between {rec.attribute} groups' {spec.unit}, with no "
            f"test run: {spec.name} {interval(e)}"
        )

    def _pairs(self, rec: MetricRecord) -> Iterator[tuple[tuple[str, str], Evidence]]:
        assert rec.pair_tests is not None
        spec = rec.spec
        rate = spec.rate or "rate"
        if rec.comparison.cls is not None:  # a class one-vs-rest, or one of three or more outcomes: name it
            rate = f"{rate} of {rec.comparison.cls!r}"
        for row in rec.pair_tests.to_dict(orient="records"):
            a, b = str(row["group_a"]), str(row["group_b"])
            # the independent units of the two groups (persons or prompts), else their row counts
            units = [float_or_none(row.get(c)) for c in ("units_a", "units_b")]
            if None in units:
                units = [float_or_none(row.get(c)) for c in ("n_a", "n_b")]
            known = [int(u) for u in units if u is not None]
            e = Evidence(
                metric=spec.name,
                full_name=spec.full_name,
                value=float_or_none(row.get("difference")),
                p_value=float_or_none(row.get("p_value")),
                p_adjusted=float_or_none(row.get("p_adjusted")),
                units=sum(known) if len(known) == 2 else None,
            )
            ra, rb = float_or_none(row.get("rate_a")), float_or_none(row.get("rate_b"))
            scope = f"{a} and {b} {spec.unit}"
            if e.value is None or ra is None or rb is None:
                e.claim = f"the {rate} of {scope} cannot be compared ({spec.name}): {row.get('reason') or 'undefined'}"
                yield (a, b), e
                continue
            e.severity = by_p(e)
            said = {"concern": f"the {rate} differs between {scope}", "watch": f"the {rate} may differ between {scope}",
                    "ok": f"no clear difference in {rate} between {scope}"}[e.severity]  # fmt: skip
            e.claim = (
                f"{said}: {spec.name} {_signed_value(rec, a, b, e.value)} ({ra:.3g} for {a}, {rb:.3g} for {b}), "
                f"{adjusted_p(e.p_adjusted)}"
            )
            note_few_units(e)
            yield (a, b), e

    def stored_items(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec) -> pd.DataFrame | str:
        """Parsed labels (and ground truth) of the answers whose person or prompt has a known group."""
        assert run.responses is not None
        attribute = str(row.get("attribute"))
        rows = ok_rows(run.responses, original=True)
        needed = ["label", f"group_{attribute}"] + (["truth"] if spec.needs_truth else [])
        missing = [c for c in needed if c not in rows]
        if missing:
            return f"run {run.label}'s responses have no {', '.join(missing)} column"
        table = pd.DataFrame({"prompt_id": rows["prompt_id"]})
        for column, name in zip(needed, ("label", "group", "truth"), strict=False):
            table[name] = [label_text(v) for v in rows[column]]  # CSV cells: "" is missing, 1 and "1" the same label
        table["_key"] = response_keys(rows)
        return by_key(table.dropna())

    def recompute(self, run: StoredRun, row: Mapping[str, Any], spec: MetricSpec, table: pd.DataFrame) -> MetricResult:
        args, positive = prediction_inputs(run, row, table)
        return call_metric(spec.key, *args, pos_label=positive, prompts=table["prompt_id"].to_numpy())


KIND = Rates()
