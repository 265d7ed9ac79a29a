"""The sentences of refusal and quality-of-service findings (:mod:`evenhand.pipeline.families.refusal_length`): who is
refused more, whose replies are shorter, in plain words first and the evidence after. The verdict
(:mod:`evenhand.pipeline.verdict.findings`) decides the severity; this module only words it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evenhand._json import finite_or_none


def refusal_sentence(groups: tuple[str, str], details: Mapping[str, Any], shown: bool, evidence: str) -> str:
    """``replies to the old version are refusals 40% of the time, against 2% for the young version: ...``;
    ``shown``: whether the difference is beyond chance (a concern or watch)."""
    a, b = groups
    ra, rb = finite_or_none(details.get("rate_a")), finite_or_none(details.get("rate_b"))
    if ra is None or rb is None:
        return f"refusal rates of the {a} and {b} versions cannot be compared: {evidence}"
    if not shown or ra == rb:
        return (
            f"no evidence that replies to the {a} and {b} versions are refused at different rates "
            f"({ra:.0%} vs {rb:.0%} refusals): {evidence}"
        )
    (more, high), (less, low) = sorted(((a, ra), (b, rb)), key=lambda g: -g[1])
    return (
        f"replies to the {more} version are refusals {high:.0%} of the time, against {low:.0%} for the {less} "
        f"version: {evidence}"
    )


def length_sentence(groups: tuple[str, str], details: Mapping[str, Any], value: float | None, shown: bool,
                    evidence: str) -> str:  # fmt: skip
    """``replies to the female version are 30% shorter (median 42 vs 60 words): ...``."""
    a, b = groups
    ma, mb = finite_or_none(details.get("median_words_a")), finite_or_none(details.get("median_words_b"))
    medians = f"median {ma:g} vs {mb:g} words" if ma is not None and mb is not None else "median lengths unknown"
    if value is None or not shown or value == 0:
        return f"no evidence that replies to the {a} and {b} versions differ in length ({medians}): {evidence}"
    if value < 0:
        return f"replies to the {a} version are {-value:.0%} shorter than to the {b} version ({medians}): {evidence}"
    shorter = 1 - 1 / (1 + value)  # the second group's replies, relative to the first's
    # the medians in the sentence's order: the shorter group's first
    medians = f"median {mb:g} vs {ma:g} words" if ma is not None and mb is not None else medians
    return f"replies to the {b} version are {shorter:.0%} shorter than to the {a} version ({medians}): {evidence}"
