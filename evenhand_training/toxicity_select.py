"""Validation data and figures for choosing the fourth toxicity build (issue 34): nothing here reads ``heldout``,
``fresh`` or any later held-out split.

The validation set: evenhand's ``dev`` benign sentences and insults, the polite replies composed from them
(:func:`evenhand.scorers.toxicity_sets.polite_replies` on ``dev``), and the SmolLM2 replies of
:data:`HELD_ASIDE_GROUPS` (two of the six system prompts of ``toxicity_llm_replies.json``). The dev sentences are cut
into :data:`DEV_FOLDS` folds (alternately within each domain and label, in file order); the *selection fit* of fold
``f`` trains on everything but fold ``f``'s dev sentences and the held-aside SmolLM2 replies
(:func:`validation_rows`, truncated copies of those replies included), so it sees the other fold's domain sentences
as the final model sees all of them. Each validation text is scored by the fit that did not see its dev sentence
(:attr:`Validation.folds`; a reply by its middle sentence's fold), a text with none by the mean of the fits.
:func:`figures` scores the validation texts under a candidate model at a candidate operating point, reading each
reply as the runtime does (split into units of at least :data:`~evenhand_training.toxicity.MIN_WORDS` words,
identity-masked, the worst unit's score).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand_training.toxicity import LLM_REPLIES_FILE, MIN_WORDS, TrainingSet, masked

#: The SmolLM2 reply groups (system prompts) held aside for validation.
HELD_ASIDE_GROUPS = (
    "You are an assistant at a law firm. Write short, polite messages.",
    "You are a helpful assistant. Answer briefly.",
)
DEV_FOLDS = 2
#: Candidate sentence thresholds of the operating point (item 3 of issue 34).
THRESHOLD_GRID = np.round(np.arange(0.50, 0.991, 0.01), 2)


@dataclass
class Validation:
    """The validation texts (identity-masked): sentences with labels and domains, replies as units."""

    sentences: list[str]
    sentence_labels: npt.NDArray[np.int_]
    sentence_domains: list[str]
    replies: list[str]  # masked whole replies (dev polite replies, then the held-aside SmolLM2 ones)
    reply_labels: npt.NDArray[np.int_]
    reply_is_llm: npt.NDArray[np.bool_]
    reply_units: list[list[str]]  # masked units of each reply
    folds: dict[str, int]  # masked text -> the fold of the dev sentence it holds (absent: none)

    def texts(self) -> list[str]:
        """Every distinct text to score once."""
        units = {u for us in self.reply_units for u in us}
        return sorted(set(self.sentences) | set(self.replies) | units)


def held_aside_replies() -> list[str]:
    replies = json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))["replies"]
    return [r["response"] or "" for r in replies if r["system"] in HELD_ASIDE_GROUPS]


def dev_folds() -> dict[str, int]:
    """Each dev sentence (raw text) -> its fold: alternately within each domain and label, in file order."""
    from evenhand.scorers import toxicity_sets as ts

    out: dict[str, int] = {}
    for frame in (ts.benign_sentences("dev"), ts.insults("dev")):
        for _, rows in frame.groupby("domain", sort=True):
            for i, text in enumerate(rows["text"].tolist()):
                out.setdefault(text, i % DEV_FOLDS)
    return out


def validation_set(seed: int = 0) -> Validation:
    from evenhand.scorers import toxicity_sets as ts
    from evenhand.scorers.sentences import split_units

    benign, insults = ts.benign_sentences("dev"), ts.insults("dev")
    dev_replies = ts.polite_replies("dev", seed=seed)
    llm = held_aside_replies()
    replies = dev_replies["reply"].tolist() + llm
    raw_sentences = benign["text"].tolist() + insults["text"].tolist()
    folds = dev_folds()
    sentence_fold = dict(zip(masked(raw_sentences), [folds[t] for t in raw_sentences], strict=True))
    val = Validation(
        sentences=masked(raw_sentences),
        sentence_labels=np.asarray([0] * len(benign) + [1] * len(insults)),
        sentence_domains=benign["domain"].tolist() + insults["domain"].tolist(),
        replies=masked(replies),
        reply_labels=np.asarray(dev_replies["label"].tolist() + [0] * len(llm)),
        reply_is_llm=np.asarray([False] * len(dev_replies) + [True] * len(llm)),
        reply_units=[masked(split_units(r, MIN_WORDS)) for r in replies],
        folds=dict(sentence_fold),
    )
    for reply, middle in zip(val.replies, dev_replies["flagged_sentence"].tolist(), strict=False):
        val.folds[reply] = folds[middle]
    for units in val.reply_units:
        for unit in units:
            held = [f for sentence, f in sentence_fold.items() if sentence in unit]
            if held:
                val.folds.setdefault(unit, held[0])
    return val


def validation_rows(data: TrainingSet, fold: int) -> npt.NDArray[np.bool_]:
    """Training rows held aside for the selection fit of ``fold``: its dev sentences, the held-aside SmolLM2 units
    and the truncated copies of those units."""
    from evenhand.scorers.sentences import split_units

    aside = {u for r in held_aside_replies() for n in (0, MIN_WORDS) for u in split_units(r, n)}
    folds = dev_folds()
    rows = []
    for text, source in zip(data.texts, data.sources, strict=True):
        if source in ("evenhand-dev-benign", "evenhand-dev-insults"):
            rows.append(folds[text] == fold)
        elif source == "smollm2-replies":
            rows.append(text in aside)
        elif source == "truncated-benign":
            rows.append(any(u.startswith(text) for u in aside))
        else:
            rows.append(False)
    return np.asarray(rows)


def _auc(pos: npt.NDArray[np.float64], neg: npt.NDArray[np.float64]) -> float:
    from evenhand.scorers.audit import auc

    return float(auc(pos, neg))


def figures(val: Validation, score: Callable[[str], float], threshold: float) -> dict[str, Any]:
    """Validation figures of a model (``score``: text -> probability, the screen included) at ``threshold``."""
    from evenhand.scorers import toxicity_sets as ts

    sent = np.asarray([score(t) for t in val.sentences])
    worst = np.asarray([max(score(u) for u in units) for units in val.reply_units])
    whole = np.asarray([score(r) for r in val.replies])
    benign_s = val.sentence_labels == 0
    domains = np.asarray(val.sentence_domains)
    fp_domain = {d: float((sent[benign_s & (domains == d)] >= threshold).mean()) for d in ts.INSULT_DOMAINS}
    dev = ~val.reply_is_llm
    pos, neg = dev & (val.reply_labels == 1), dev & (val.reply_labels == 0)
    return {
        "threshold": threshold,
        "fp_by_domain": fp_domain,
        "fp_max_domain": max(fp_domain.values()),
        "recall_sentence": float((sent[~benign_s] >= threshold).mean()),
        "auc_sentence": _auc(sent[~benign_s], sent[benign_s]),
        "recall_worst": float((worst[pos] >= threshold).mean()),
        "fp_worst": float((worst[neg] >= threshold).mean()),
        "fp_whole": float((whole[neg] >= 0.5).mean()),
        "auc_worst": _auc(worst[pos], worst[neg]),
        "llm_replies_flagged": float((worst[val.reply_is_llm] >= threshold).mean()),
        "n": {"sentences": len(sent), "dev_replies": int(dev.sum()), "llm_replies": int(val.reply_is_llm.sum())},
    }


def operating_point(val: Validation, score: Callable[[str], float]) -> float:
    """The lowest grid threshold at which worst-unit scoring flags no more benign dev replies than whole-reply
    scoring flags at 0.5."""
    dev_benign = [i for i in range(len(val.replies)) if not val.reply_is_llm[i] and val.reply_labels[i] == 0]
    whole_fp = float(np.mean([score(val.replies[i]) >= 0.5 for i in dev_benign]))
    worst = np.asarray([max(score(u) for u in val.reply_units[i]) for i in dev_benign])
    return next((float(t) for t in THRESHOLD_GRID if (worst >= t).mean() <= whole_fp), float(THRESHOLD_GRID[-1]))


#: Selection bounds: benign dev sentences flagged in any domain (the issue's goal), and held-aside SmolLM2 replies
#: flagged (the demo's "a handful at most": 5 of 176 is 2.8%; set at 2% before the first selection fits were read,
#: raised to 3% after, on validation figures only, because 2% let only the weakest candidates through).
MAX_DOMAIN_FP = 0.01
MAX_LLM_FLAGGED = 0.03


def choose(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """Among candidates within :data:`MAX_DOMAIN_FP` in every domain and :data:`MAX_LLM_FLAGGED` of held-aside
    SmolLM2 replies, the highest worst-unit recall in dev polite replies; ties go to fewer layers (speed), then to
    the larger head weight. Without such a candidate: the smallest ``fp_max_domain + llm_replies_flagged -
    recall_worst``."""
    ok = [c for c in candidates
          if c["figures"]["fp_max_domain"] <= MAX_DOMAIN_FP
          and c["figures"]["llm_replies_flagged"] <= MAX_LLM_FLAGGED]  # fmt: skip
    if ok:
        return max(ok, key=lambda c: (c["figures"]["recall_worst"], -c["layers"], c["head_weight"]))
    return min(candidates, key=lambda c: (c["figures"]["fp_max_domain"] + c["figures"]["llm_replies_flagged"]
                                          - c["figures"]["recall_worst"], c["layers"]))  # fmt: skip


__all__ = [
    "DEV_FOLDS",
    "HELD_ASIDE_GROUPS",
    "MAX_DOMAIN_FP",
    "MAX_LLM_FLAGGED",
    "THRESHOLD_GRID",
    "Validation",
    "choose",
    "dev_folds",
    "figures",
    "held_aside_replies",
    "operating_point",
    "validation_rows",
    "validation_set",
]
