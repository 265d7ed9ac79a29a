"""The pair of counterfactual replies that shows a finding best (results.json ``verdict.findings[].example``).

A counterfactual finding about two groups is one number over hundreds of pairs of replies; a reader believes (or
doubts) it from one pair, side by side. Only concern and watch findings get an example (an ok has nothing to show),
picked from the run's own responses for the finding's attribute and pair of groups:

* similarity (CROUGE-L, CBLEU, CCS): the pair with the lowest per-pair similarity, ROUGE-L or BLEU after the
  attribute's words are neutralized, as the metric computes it (CCS falls back to ROUGE-L: the embedder is gone
  once the run is over, and a results file must be renderable on its own);
* sentiment (SCSP, WCSP): the pair with the largest sentiment gap in the finding's direction (the group whose
  replies score higher on average scores higher in the pair too);
* recommendation lists: the pair of lists with the least overlap (Jaccard of the items).
* refusal (RRD): a pair where the version of the group refused more often is refused and the other group's is not
  (score at or above the run's ``refusal_threshold``; the largest refusal-score gap among them);
* answer length (RLD): the pair with the largest length gap (log ratio of word counts) in the finding's direction.

Each example carries the words the console and the report show: ``caption`` (why it was picked), and for refusal
and length ``note_a`` / ``note_b`` (what each side's reply is: "refused", "42 words").

Which pair shows a finding is its kind's (:meth:`EvidenceKind.example
<evenhand.pipeline.verdict.kinds.base.EvidenceKind.example>`, with the columns it reads, ``example_columns``); this
module finds the pairs of the finding's two groups and asks the kind.

The example lives in the results document so that ``evenhand report results.json`` re-renders it without the
responses (which a results file may leave out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from evenhand.pipeline.responses.frame import counterfactual_pairs
from evenhand.pipeline.verdict.kinds import kind_of
from evenhand.pipeline.verdict.kinds.base import REFUSAL_THRESHOLD, RunFacts
from evenhand.registry import MetricSpec
from evenhand.registry import metric as registry_metric

__all__ = ["attach_examples", "examples_by_finding", "finding_key"]

_SHOWN = ("concern", "watch")


def examples_by_finding(
    findings: Sequence[Mapping[str, Any]],
    responses: pd.DataFrame,
    specs: Mapping[str, Any],
    settings: Mapping[str, Any] | None = None,
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The example of each finding dict (``Finding.to_dict()``) that has one, keyed by :func:`finding_key`;
    ``specs`` maps an attribute to what :func:`evenhand.neutralize` takes (``UseCase.attribute_specs``), ``settings``
    are the run's (results.json ``settings``: the refusal threshold)."""
    threshold = (settings or {}).get("refusal_threshold")
    cut = float(threshold) if isinstance(threshold, (int, float)) else REFUSAL_THRESHOLD
    facts = RunFacts(attribute_specs=specs, refusal_threshold=cut)
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for f in findings:
        found = _example(f, responses, facts) if _wants_example(f) else None
        if found is not None:
            out[finding_key(f)] = found
    return out


def attach_examples(verdict: dict[str, Any], examples: Mapping[tuple[Any, ...], dict[str, Any]]) -> dict[str, Any]:
    """``verdict`` (``Verdict.to_dict()``) with ``example`` set on each finding that has one (keyed by
    :func:`finding_key`); returns the same dict."""
    for f in verdict.get("findings") or []:
        found = examples.get(finding_key(f))
        if found is not None:
            f["example"] = found
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


def _example(f: Mapping[str, Any], responses: pd.DataFrame, facts: RunFacts) -> dict[str, Any] | None:
    spec = _spec(f.get("metric"))
    attribute = str(f["attribute"])
    a, b = (str(g) for g in f["groups"])
    pairs = counterfactual_pairs(responses, attribute, a, b)
    if spec is None or pairs.empty:
        return None
    kind = kind_of(spec)
    needed = {f"{column}_{side}" for column in kind.example_columns or () for side in ("a", "b")}
    if not needed <= set(pairs.columns):
        return None
    return kind.example(spec, attribute, (a, b), pairs, facts)
