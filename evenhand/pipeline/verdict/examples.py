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

The example lives in the results document so that ``evenhand report results.json`` re-renders it without the
responses (which a results file may leave out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from evenhand.metrics.parity import word_counts
from evenhand.pipeline.responses.frame import ok_rows
from evenhand.registry import MetricSpec
from evenhand.registry import metric as registry_metric

__all__ = ["attach_examples", "examples_by_finding", "finding_key"]

_SHOWN = ("concern", "watch")
#: A reply is a refusal at this score or more when the run does not record its own (scoring.refusal_threshold)
_REFUSAL_THRESHOLD = 0.5
#: The metric inputs whose findings get a pair of replies (or lists) as their example
_PAIRED_INPUTS = ("sentiment_pairs", "text_pairs", "item_list_pairs", "refusal_pairs", "length_pairs")


def examples_by_finding(
    findings: Sequence[Mapping[str, Any]],
    responses: pd.DataFrame,
    specs: Mapping[str, Any],
    settings: Mapping[str, Any] | None = None,
) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The example of each finding dict (``Finding.to_dict()``) that has one, keyed by :func:`finding_key`;
    ``specs`` maps an attribute to what :func:`evenhand.neutralize` takes (``UseCase.attribute_specs``), ``settings``
    are the run's (results.json ``settings``: the refusal threshold)."""
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    threshold = (settings or {}).get("refusal_threshold")
    cut = float(threshold) if isinstance(threshold, (int, float)) else _REFUSAL_THRESHOLD
    for f in findings:
        found = _example(f, responses, specs, cut) if _wants_example(f) else None
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
        and spec.inputs in _PAIRED_INPUTS
        and f.get("attribute") is not None
        and isinstance(groups, (list, tuple))
        and len(groups) == 2
    )


def _spec(name: Any) -> MetricSpec | None:
    try:
        return registry_metric(str(name))
    except KeyError:
        return None


def _pairs(responses: pd.DataFrame, attribute: str, a: str, b: str) -> pd.DataFrame:
    """The counterfactual pairs of groups ``a`` and ``b``, aligned by (prompt_id, sample), as the metrics see them."""
    if not len(responses) or "group" not in responses:
        return pd.DataFrame()
    rows = ok_rows(responses, original=False, attribute=attribute)
    left, right = rows[rows["group"] == a], rows[rows["group"] == b]
    pairs = left.merge(right, on=["prompt_id", "sample"], suffixes=("_a", "_b"))
    return pairs.sort_values(["prompt_id", "sample"], kind="stable").reset_index(drop=True)


def _example(
    f: Mapping[str, Any], responses: pd.DataFrame, specs: Mapping[str, Any], refusal_threshold: float
) -> dict[str, Any] | None:
    spec = _spec(f.get("metric"))
    attribute = str(f["attribute"])
    a, b = (str(g) for g in f["groups"])
    pairs = _pairs(responses, attribute, a, b)
    if spec is None or pairs.empty:
        return None
    if spec.inputs == "sentiment_pairs" and {"sentiment_a", "sentiment_b"} <= set(pairs.columns):
        return _sentiment_example(spec, pairs, a, b)
    if spec.inputs == "text_pairs":
        return _similarity_example(spec, pairs, a, b, specs.get(attribute))
    if spec.inputs == "item_list_pairs" and {"items_a", "items_b"} <= set(pairs.columns):
        return _list_example(spec, pairs, a, b)
    if spec.inputs == "refusal_pairs" and {"refusal_a", "refusal_b"} <= set(pairs.columns):
        return _refusal_example(spec, pairs, a, b, refusal_threshold)
    if spec.inputs == "length_pairs":
        return _length_example(spec, pairs, a, b)
    return None


def _base(spec: MetricSpec, row: Any, a: str, b: str, n_pairs: int) -> dict[str, Any]:
    return {
        "metric": spec.name,
        "n_pairs": n_pairs,
        "prompt_id": row["prompt_id"],
        "sample": row["sample"],
        "group_a": a,
        "prompt_a": row["prompt_a"],
        "response_a": row["response_a"],
        "group_b": b,
        "prompt_b": row["prompt_b"],
        "response_b": row["response_b"],
    }


def _sentiment_example(spec: MetricSpec, pairs: pd.DataFrame, a: str, b: str) -> dict[str, Any] | None:
    sa = pairs["sentiment_a"].to_numpy(dtype=float)
    sb = pairs["sentiment_b"].to_numpy(dtype=float)
    gap = sa - sb
    defined = ~np.isnan(gap)
    if not defined.any():
        return None
    # the finding's direction: the group whose replies score higher on average scores higher in the pair shown
    direction = 1.0 if np.nanmean(sa) >= np.nanmean(sb) else -1.0
    pick = int(np.nanargmax(np.where(defined, direction * gap, -np.inf)))
    row = pairs.iloc[pick]
    return {
        **_base(spec, row, a, b, int(defined.sum())),
        "kind": "sentiment",
        "measure": "sentiment gap",
        "value": float(gap[pick]),
        "score_a": float(sa[pick]),
        "score_b": float(sb[pick]),
    }


def _similarity_example(
    spec: MetricSpec, pairs: pd.DataFrame, a: str, b: str, attribute_spec: Any
) -> dict[str, Any] | None:
    from evenhand.metrics.counterfactual import bleu_scores, neutralize_pairs, rouge_l_scores

    texts_a = [str(t) for t in pairs["response_a"].tolist()]
    texts_b = [str(t) for t in pairs["response_b"].tolist()]
    try:
        neutral = neutralize_pairs(texts_a, texts_b, attribute_spec)
        left, right = neutral.neutral1, neutral.neutral2
    except (KeyError, TypeError, ValueError):  # an attribute this version cannot neutralize: compare the texts as given
        left, right = texts_a, texts_b
    bleu = spec.pair_similarity == "bleu"
    scores = np.asarray((bleu_scores if bleu else rouge_l_scores)(left, right), dtype=float)
    defined = ~np.isnan(scores)
    if not defined.any():
        return None
    pick = int(np.nanargmin(np.where(defined, scores, np.inf)))
    row = pairs.iloc[pick]
    return {
        **_base(spec, row, a, b, int(defined.sum())),
        "kind": "similarity",
        "measure": "BLEU" if bleu else "ROUGE-L",
        "value": float(scores[pick]),
    }


def _items(value: Any) -> list[str]:
    """A parsed K-item list as strings ([] for an answer that gave no list)."""
    return [str(i) for i in value] if isinstance(value, (list, tuple, np.ndarray)) else []


def _list_example(spec: MetricSpec, pairs: pd.DataFrame, a: str, b: str) -> dict[str, Any] | None:
    lists = [(_items(x), _items(y)) for x, y in zip(pairs["items_a"].tolist(), pairs["items_b"].tolist(), strict=True)]
    overlaps = []
    for left, right in lists:
        sa, sb = {i.lower() for i in left}, {i.lower() for i in right}
        overlaps.append(len(sa & sb) / len(sa | sb) if sa | sb else 1.0)
    if not overlaps:
        return None
    pick = int(np.argmin(overlaps))
    return {
        **_base(spec, pairs.iloc[pick], a, b, len(overlaps)),
        "kind": "lists",
        "measure": "Jaccard",
        "value": float(overlaps[pick]),
        "items_a": lists[pick][0],
        "items_b": lists[pick][1],
    }


def _refusal_example(spec: MetricSpec, pairs: pd.DataFrame, a: str, b: str, threshold: float) -> dict[str, Any] | None:
    """A pair whose version for the group refused more often (the finding's direction) is refused and whose other
    version is answered; the largest refusal-score gap among those (the first in prompt order on a tie)."""
    ra = pairs["refusal_a"].to_numpy(dtype=float)
    rb = pairs["refusal_b"].to_numpy(dtype=float)
    defined = ~(np.isnan(ra) | np.isnan(rb))
    if not defined.any():
        return None
    refused_a, refused_b = (ra >= threshold) & defined, (rb >= threshold) & defined
    more_a = refused_a.sum() >= refused_b.sum()  # the finding's direction: who is refused more often
    wanted = (refused_a & ~refused_b) if more_a else (refused_b & ~refused_a)
    if not wanted.any():
        return None
    gap = (ra - rb) if more_a else (rb - ra)
    pick = int(np.nanargmax(np.where(wanted, gap, -np.inf)))
    row = pairs.iloc[pick]
    refused, answered = (a, b) if more_a else (b, a)
    n = int(defined.sum())
    return {
        **_base(spec, row, a, b, n),
        "kind": "refusal",
        "measure": "refusal score",
        "value": float(ra[pick] - rb[pick]),
        "note_a": "refused" if refused_a[pick] else "answered",
        "note_b": "refused" if refused_b[pick] else "answered",
        "caption": f"a prompt whose {refused} version is refused and whose {answered} version is answered, one of "
        f"{int(wanted.sum()):,} such pairs of the {n:,} pairs",
    }


def _words(pairs: pd.DataFrame, side: str) -> npt.NDArray[np.float64]:
    """Each reply's length in words: the stored ``words`` column, else counted as the family counts them."""
    column = f"words_{side}"
    if column in pairs:
        return pairs[column].to_numpy(dtype=float)
    return word_counts(pairs[f"response_{side}"])


def _length_example(spec: MetricSpec, pairs: pd.DataFrame, a: str, b: str) -> dict[str, Any] | None:
    """The pair with the largest length gap in the finding's direction (the group whose replies are longer in all
    has the longer reply here): the largest log ratio of word counts, one more word on each side so that an empty
    reply counts."""
    wa, wb = _words(pairs, "a"), _words(pairs, "b")
    defined = ~(np.isnan(wa) | np.isnan(wb))
    if not defined.any():
        return None
    direction = 1.0 if wa[defined].sum() >= wb[defined].sum() else -1.0
    ratio = np.log((wa + 1.0) / (wb + 1.0)) * direction
    pick = int(np.nanargmax(np.where(defined, ratio, -np.inf)))
    if ratio[pick] <= 0:
        return None
    row = pairs.iloc[pick]
    longer, shorter = (a, b) if direction > 0 else (b, a)
    n = int(defined.sum())
    return {
        **_base(spec, row, a, b, n),
        "kind": "length",
        "measure": "words",
        "value": float(wa[pick] - wb[pick]),
        "note_a": f"{wa[pick]:.0f} words",
        "note_b": f"{wb[pick]:.0f} words",
        "caption": f"the pair of replies with the largest length gap in the finding's direction ({longer} "
        f"{max(wa[pick], wb[pick]):.0f} words, {shorter} {min(wa[pick], wb[pick]):.0f}) of the {n:,} pairs",
    }
