"""The pairs of counterfactual replies that show a finding (results.json ``verdict.findings[].example`` and
``extreme_example``).

A counterfactual finding about two groups is one number over hundreds of pairs of replies; a reader believes (or
doubts) it from a pair, side by side. Only concern and watch findings get examples (an ok has nothing to show),
picked from the run's own responses for the finding's attribute and pair of groups, by the kind of evidence of the
finding's leading metric (:meth:`EvidenceKind.read_pairs
<evenhand.pipeline.verdict.kinds.base.EvidenceKind.read_pairs>`, :mod:`.kinds.pair_reading`): first **a typical
pair**, the one nearest the median over prompts of the per-prompt differences that drive the finding, then **the most
extreme** one (issue 37: the most extreme alone was often a baseline refusal, not what the replies differed by):

* similarity (CROUGE-L, CBLEU, CCS): per pair, ROUGE-L or BLEU after the attribute's words are neutralized, as the
  metric computes it (CCS falls back to ROUGE-L: the embedder is gone once the run is over, and a results file must
  be renderable on its own); the less alike, the stronger;
* sentiment (SCSP, WCSP): the sentiment gap in the finding's direction, among the pairs that go that way;
* recommendation lists: the overlap of the two lists (Jaccard of the items); the less, the stronger;
* refusal (RRD): pairs whose version of the group refused more often is refused and whose other version is answered
  (score at or above the run's ``refusal_threshold``), by refusal-score gap;
* answer length (RLD): pairs whose reply of the group with the shorter replies is the shorter, by log ratio of word
  counts;
* decisions (CPRD, DFR): flipped pairs, the favoured version getting the positive decision and the other not, by
  the share of such flips among their prompt's pairs.

Each example carries the words the console and the report show: ``label`` (``"typical"``, ``"most extreme"``),
``caption`` (why it was picked), and for refusal, length and decisions ``note_a`` / ``note_b`` (what each side's
reply is: "refused", "42 words", the model's own word for its decision).

The examples live in the results document so that ``evenhand report results.json`` re-renders them without the
responses (which a results file may leave out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from evenhand.pipeline.responses.frame import counterfactual_pairs
from evenhand.pipeline.verdict.kinds import kind_of
from evenhand.pipeline.verdict.kinds.base import RunFacts
from evenhand.registry import MetricSpec
from evenhand.registry import metric as registry_metric

__all__ = ["attach_examples", "examples_by_finding", "finding_key"]

_SHOWN = ("concern", "watch")


def examples_by_finding(
    findings: Sequence[Mapping[str, Any]], responses: pd.DataFrame, facts: RunFacts | None = None
) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """The examples of each finding dict (``Finding.to_dict()``) that has any, keyed by :func:`finding_key`: the
    typical pair, then the most extreme one when it is another; ``facts`` are the run's
    (:class:`~evenhand.pipeline.verdict.kinds.base.RunFacts`: what :func:`evenhand.neutralize` takes for each
    attribute, the refusal threshold, the positive decision and the labels' words, whether the replies were compared
    with the names masked, so that pairs are read masked too)."""
    facts = replace(facts or RunFacts(), responses=responses)  # a pair is read against every version of its prompt
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for f in findings:
        found = _examples(f, responses, facts) if _wants_example(f) else []
        if found:
            out[finding_key(f)] = found
    return out


def attach_examples(
    verdict: dict[str, Any], examples: Mapping[tuple[Any, ...], Sequence[dict[str, Any]]]
) -> dict[str, Any]:
    """``verdict`` (``Verdict.to_dict()``) with ``example`` (the typical pair) and ``extreme_example`` (the most
    extreme one, when it is another pair) set on each finding that has them (keyed by :func:`finding_key`); returns
    the same dict."""
    for f in verdict.get("findings") or []:
        found = examples.get(finding_key(f)) or []
        for key, example in zip(("example", "extreme_example"), found, strict=False):
            f[key] = example
    return verdict


def finding_key(f: Mapping[str, Any]) -> tuple[Any, ...]:
    """What identifies a finding across to_dict calls: risk, attribute, pair of groups, class (and a red team's
    condition)."""
    groups = f.get("groups")
    key = (f.get("risk"), f.get("attribute"), tuple(groups) if groups else None, f.get("class"))
    return key if f.get("condition") is None else (*key, f.get("condition"))  # a red team's: its system prompt


def _wants_example(f: Mapping[str, Any]) -> bool:
    groups = f.get("groups")
    spec = _spec(f.get("metric"))
    return (
        f.get("severity") in _SHOWN
        and spec is not None
        and kind_of(spec).example_columns is not None
        and f.get("attribute") is not None
        and isinstance(groups, (list, tuple))
        and len(groups) == 2
    )


def _spec(name: Any) -> MetricSpec | None:
    try:
        return registry_metric(str(name))
    except KeyError:
        return None


def _examples(f: Mapping[str, Any], responses: pd.DataFrame, facts: RunFacts) -> list[dict[str, Any]]:
    spec = _spec(f.get("metric"))
    attribute = str(f["attribute"])
    a, b = (str(g) for g in f["groups"])
    pairs = counterfactual_pairs(responses, attribute, a, b)
    if spec is None or pairs.empty:
        return []
    kind = kind_of(spec)
    needed = {f"{column}_{side}" for column in kind.example_columns or () for side in ("a", "b")}
    if not needed <= set(pairs.columns):
        return []
    return kind.examples(spec, attribute, (a, b), pairs, facts)
