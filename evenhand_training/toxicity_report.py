"""Held-out figures of one toxicity scorer on evenhand's toxicity sets (issue 34): what the model card and
``benchmarks/bench_toxicity_sets.py`` print.

For a scorer :math:`T` (applied as given; the pipeline's default is identity-masked) and threshold 0.5:

* ``fp_by_domain``: the share of held-out benign sentences of each domain with :math:`T \\ge 0.5`;
* ``recall_sentence``: the share of held-out insults, alone, with :math:`T \\ge 0.5`;
* ``recall_worst`` / ``fp_worst``: the shares of held-out polite replies with / without an insult whose worst
  sentence scores 0.5 or more (:class:`~evenhand.scorers.sentences.WorstSentenceScorer`); ``recall_whole`` /
  ``fp_whole`` the same with the whole reply scored at once;
* ``auc_sentence`` and ``auc_worst``: P(insult scores above benign), sentences and replies (worst sentence);
* ``audit``: the scorer audit (``audit_scorer``): benign false-positive rate, the largest benign gap between two
  groups of one attribute, the worst BPSN AUC.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from evenhand.scorers import toxicity_sets as ts
from evenhand.scorers.audit import auc, audit_scorer
from evenhand.scorers.sentences import WorstSentenceScorer


def _rate(flags: Any) -> float:
    arr = np.asarray(flags, dtype=bool)
    return float(arr.mean()) if arr.size else float("nan")


def scorer_figures(
    scorer: Any, *, threshold: float = 0.5, split: str = "heldout", audit: bool = True
) -> dict[str, Any]:
    """The figures of the module docstring for ``scorer`` on ``split`` (``audit=False``: without the scorer audit,
    which does not depend on the split)."""
    started = time.perf_counter()
    benign = ts.benign_sentences(split)  # type: ignore[arg-type]
    insults = ts.insults(split)  # type: ignore[arg-type]
    replies = ts.polite_replies(split)  # type: ignore[arg-type]
    sb = np.asarray(scorer(benign["text"].tolist()), dtype=float)
    si = np.asarray(scorer(insults["text"].tolist()), dtype=float)
    worst = np.asarray(WorstSentenceScorer(scorer)(replies["reply"].tolist()), dtype=float)
    whole = np.asarray(scorer(replies["reply"].tolist()), dtype=float)
    label = replies["label"].to_numpy() == 1
    fp_by_domain = {d: _rate(sb[benign["domain"].to_numpy() == d] >= threshold) for d in ts.DOMAINS}
    kinds = {k: _rate(si[insults["kind"].to_numpy() == k] >= threshold) for k in sorted(set(insults["kind"]))}
    summary = {
        "fp_by_domain": fp_by_domain,
        "fp_max_domain": max(fp_by_domain.values()),
        "recall_sentence": _rate(si >= threshold),
        "recall_by_kind": kinds,
        "auc_sentence": auc(si, sb),
        "recall_worst": _rate(worst[label] >= threshold),
        "fp_worst": _rate(worst[~label] >= threshold),
        "recall_whole": _rate(whole[label] >= threshold),
        "fp_whole": _rate(whole[~label] >= threshold),
        "auc_worst": auc(worst[label], worst[~label]),
        **(_audit_figures(audit_scorer(scorer, threshold=threshold)) if audit else {}),
        "n": {"benign": len(sb), "insults": len(si), "replies": len(replies)},
        "seconds": round(time.perf_counter() - started, 2),
    }
    missed = insults["text"][si < threshold].tolist()
    false_alarms = benign["text"][sb >= threshold].tolist()
    return {"summary": summary, "missed_insults": missed, "false_alarms": false_alarms}


def _audit_figures(audit: Any) -> dict[str, Any]:
    gaps: dict[str, float] = {}
    for g in audit.gaps():
        gaps[g["attribute"]] = max(gaps.get(g["attribute"], 0.0), abs(g["difference"]))
    bpsn = [u.bpsn_auc for u in audit.groups if u.bpsn_auc is not None]
    by_group = {f"{u.attribute}/{u.group}": u.fpr for u in audit.groups}
    return {"audit_fpr": _audit_fpr(audit), "audit_largest_gap": gaps, "audit_fpr_by_group": by_group,
            "audit_worst_bpsn_auc": min(bpsn) if bpsn else None}  # fmt: skip


def _audit_fpr(audit: Any) -> float:
    benign = sum(u.n_benign for u in audit.groups)
    flagged = sum(u.fpr * u.n_benign for u in audit.groups)
    return float(flagged / benign) if benign else float("nan")


__all__ = ["scorer_figures"]
