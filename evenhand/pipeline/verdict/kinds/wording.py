"""How the kinds of evidence write numbers in a finding's sentence: a value with its interval, an adjusted p, the
units a value counts, the two groups' values a parity compares."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand._json import float_or_none
from evenhand.pipeline.evidence.records import MetricRecord
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.registry import MetricSpec


def figure(x: float | None) -> str:
    """A number as a sentence writes it: three significant figures (``0.123``, ``-12.5``), and from 1,000 on every
    digit of its whole part (``-4,167``, not ``-4.17e+03``: a difference in money or words is read, not parsed)."""
    if x is not None and abs(x) >= 1000 and x == x and abs(x) != float("inf"):
        return f"{x:,.0f}"
    return f"{x:.3g}"


def interval(e: Evidence) -> str:
    """``0.12 [0.08, 0.17]`` (the value alone without an interval)."""
    if e.ci_low is None or e.ci_high is None:
        return figure(e.value)
    return f"{figure(e.value)} [{figure(e.ci_low)}, {figure(e.ci_high)}]"


def adjusted_p(p: float | None) -> str:
    """``adjusted p = 0.012``, ``adjusted p < 0.001`` or ``p not available``."""
    return "p not available" if p is None else ("adjusted p < 0.001" if p < 0.001 else f"adjusted p = {p:.3f}")


def over(rec: MetricRecord, spec: MetricSpec) -> str:
    """The text " over 36 pairs": how many of its units (:attr:`MetricSpec.unit`) the value is a share or mean of."""
    n = rec.result.sizes.get(spec.unit)
    return f" over {int(n)} {spec.unit}" if n is not None else ""


def per_prompt(rec: MetricRecord) -> str:
    """The text "25 responses" when every prompt has the same number of responses, else "responses"."""
    sizes = rec.result.sizes
    responses, prompts = sizes.get("responses"), sizes.get("prompts")
    if responses and prompts and int(responses) % int(prompts) == 0:
        return f"{int(responses) // int(prompts)} responses"
    return "responses"


def group_values(details: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The two groups' values a parity compares: mean scores (SCSP, MTD) or shares (WCSP, TSD)."""
    first = details.get("mean_score1", details.get("rate1"))
    return float_or_none(first), float_or_none(details.get("mean_score2", details.get("rate2")))
