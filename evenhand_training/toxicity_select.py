"""Validation data and figures for choosing a toxicity build (issue 34): nothing here reads ``heldout``, ``fresh3`` or
any later split (the test splits), nor ``fresh``, which the sixth build trains on.

The validation set: evenhand's ``dev`` benign sentences and insults, the polite replies composed from them
(:func:`evenhand.scorers.toxicity_sets.polite_replies` on ``dev``), the SmolLM2 replies of :data:`HELD_ASIDE_GROUPS`
(two of the six system prompts of ``toxicity_llm_replies.json``) and, since the sixth build, the cross-author sets
:data:`CROSS_AUTHORS` (``fresh2``: a second author's benign sentences, insults and polite replies, which no training
step reads; since the fourteenth build also ``fresh7``, a later author's larger set dense with each domain's charged
words, so that validation tells candidates apart on false alarms again). The dev sentences are cut into
:data:`DEV_FOLDS` folds (alternately within each domain and label, in file order); the *selection fit* of fold ``f``
trains on everything but fold ``f``'s dev sentences and the held-aside SmolLM2 replies (:func:`validation_rows`,
truncated copies of those replies included), so it sees the other fold's domain sentences as the final model sees
all of them. Each validation text is scored by the fit that did not see its dev sentence (:attr:`Validation.folds`;
a reply by its middle sentence's fold), a text with none (a cross-author or SmolLM2 text) by the mean of the fits.
:func:`figures` scores the validation texts under a candidate model at a candidate operating point, reading each
reply as the runtime does (split into units of at least :data:`~evenhand_training.toxicity.MIN_WORDS` words,
identity-masked, the worst unit's score).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand_training.toxicity import LLM_REPLIES_FILE, MIN_WORDS, TrainingSet, masked

#: The SmolLM2 reply groups (system prompts) held aside for validation.
HELD_ASIDE_GROUPS = (
    "You are an assistant at a law firm. Write short, polite messages.",
    "You are a helpful assistant. Answer briefly.",
)
DEV_FOLDS = 2
#: Candidate sentence thresholds of the operating point (item 3 of issue 34).
THRESHOLD_GRID = np.round(np.arange(0.50, 0.991, 0.01), 2)


#: The splits of other authors read by selection only (``fresh2`` since the sixth build, ``fresh7`` since the
#: fourteenth): sentences and replies, never trained on.
CROSS_AUTHORS: tuple[str, ...] = ("fresh2", "fresh7")
#: The first cross-author split (the sixth to thirteenth builds' only one), kept under its old name for the
#: recorded figures that name it.
CROSS_AUTHOR = CROSS_AUTHORS[0]
#: The reply and sentence sets of the validation set: dev, the cross-author split and (replies) held-aside SmolLM2.
LLM = "llm"


@dataclass
class Validation:
    """The validation texts (identity-masked): sentences with labels, domains and sets, replies as units."""

    sentences: list[str]
    sentence_labels: npt.NDArray[np.int_]
    sentence_domains: list[str]
    sentence_sets: npt.NDArray[np.str_]  # "dev" or one of CROSS_AUTHORS
    sentence_kinds: list[str]  # the insult's kind, "benign" for benign sentences
    replies: list[str]  # masked whole replies (dev polite replies, fresh2 polite replies, held-aside SmolLM2 ones)
    reply_labels: npt.NDArray[np.int_]
    reply_sets: npt.NDArray[np.str_]  # "dev", one of CROSS_AUTHORS or LLM
    reply_kinds: npt.NDArray[np.str_]  # the insult's kind, "benign", or "" (SmolLM2 replies)
    reply_units: list[list[str]]  # masked units of each reply
    folds: dict[str, int]  # masked text -> the fold of the dev sentence it holds (absent: none)
    cross_authors: tuple[str, ...] = CROSS_AUTHORS  # the cross-author sets it holds

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


def validation_set(seed: int = 0, cross_authors: Sequence[str] | None = None) -> Validation:
    """The validation set with the cross-author splits ``cross_authors`` (default :data:`CROSS_AUTHORS`; a subset
    rebuilds an earlier build's selection, e.g. ``("fresh2",)`` the thirteenth's)."""
    from evenhand.scorers import toxicity_sets as ts
    from evenhand.scorers.sentences import split_units

    cross = tuple(CROSS_AUTHORS if cross_authors is None else cross_authors)
    unknown = sorted(set(cross) - set(CROSS_AUTHORS))
    if not cross or unknown:
        raise InputError(f"cross-author validation splits must be some of {CROSS_AUTHORS}, got {list(cross)}")
    sets = ("dev", *cross)
    benign = {name: ts.benign_sentences(name) for name in sets}  # type: ignore[arg-type]
    insults = {name: ts.insults(name) for name in sets}  # type: ignore[arg-type]
    polite = {name: ts.polite_replies(name, seed=seed) for name in sets}  # type: ignore[arg-type]
    llm = held_aside_replies()
    replies = [r for name in sets for r in polite[name]["reply"].tolist()] + llm
    frames = [(name, label, frame) for name in sets for label, frame in ((0, benign[name]), (1, insults[name]))]
    raw_sentences = [t for _, _, frame in frames for t in frame["text"].tolist()]
    folds = dev_folds()
    dev_raw = [t for t in raw_sentences if t in folds]
    sentence_fold = dict(zip(masked(dev_raw), [folds[t] for t in dev_raw], strict=True))
    val = Validation(
        sentences=masked(raw_sentences),
        sentence_labels=np.asarray([label for _, label, frame in frames for _ in range(len(frame))]),
        sentence_domains=[d for _, _, frame in frames for d in frame["domain"].tolist()],
        sentence_sets=np.asarray([name for name, _, frame in frames for _ in range(len(frame))]),
        sentence_kinds=[k for _, label, frame in frames for k in (frame["kind"] if label else ["benign"] * len(frame))],
        replies=masked(replies),
        reply_labels=np.asarray([y for name in sets for y in polite[name]["label"].tolist()] + [0] * len(llm)),
        reply_sets=np.asarray([name for name in sets for _ in range(len(polite[name]))] + [LLM] * len(llm)),
        reply_kinds=np.asarray([k for name in sets for k in polite[name]["kind"].tolist()] + [""] * len(llm)),
        reply_units=[masked(split_units(r, MIN_WORDS)) for r in replies],
        folds=dict(sentence_fold),
        cross_authors=cross,
    )
    for reply, middle in zip(val.replies, polite["dev"]["flagged_sentence"].tolist(), strict=False):
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


def _set_figures(
    val: Validation, sent: npt.NDArray[np.float64], worst: npt.NDArray[np.float64],
    whole: npt.NDArray[np.float64], name: str, threshold: float,
) -> dict[str, Any]:  # fmt: skip
    """The figures of one set (``dev`` or one of :data:`CROSS_AUTHORS`): its sentences alone, its polite replies by
    unit."""
    from evenhand.scorers import toxicity_sets as ts

    mine = val.sentence_sets == name
    benign_s, insult_s = mine & (val.sentence_labels == 0), mine & (val.sentence_labels == 1)
    domains, kinds = np.asarray(val.sentence_domains), np.asarray(val.sentence_kinds)
    fp_domain = {d: float((sent[benign_s & (domains == d)] >= threshold).mean()) for d in ts.INSULT_DOMAINS}
    identity = benign_s & (domains == "identity")
    replies = val.reply_sets == name
    pos, neg = replies & (val.reply_labels == 1), replies & (val.reply_labels == 0)
    return {
        "fp_by_domain": fp_domain,
        "fp_max_domain": max(fp_domain.values()),
        "fp_identity": float((sent[identity] >= threshold).mean()) if identity.any() else float("nan"),
        "recall_sentence": float((sent[insult_s] >= threshold).mean()),
        "recall_sentence_by_kind": {str(k): float((sent[insult_s & (kinds == k)] >= threshold).mean())
                                    for k in sorted(set(kinds[insult_s]))},
        "auc_sentence": _auc(sent[insult_s], sent[benign_s]),
        "recall_worst": float((worst[pos] >= threshold).mean()),
        "recall_worst_by_kind": {str(k): float((worst[pos & (val.reply_kinds == k)] >= threshold).mean())
                                 for k in sorted(set(val.reply_kinds[pos]))},
        "fp_worst": float((worst[neg] >= threshold).mean()),
        "fp_whole": float((whole[neg] >= 0.5).mean()),
        "auc_worst": _auc(worst[pos], worst[neg]),
        "n": {"sentences": int(mine.sum()), "replies": int(replies.sum())},
    }


def figures(val: Validation, score: Callable[[str], float], threshold: float) -> dict[str, Any]:
    """Validation figures of a model (``score``: text -> probability, the screen included) at ``threshold``: the
    ``dev`` set's at the top level (as the earlier builds recorded them), each cross-author set's under its name,
    the cross-author recall (worst unit) averaged over :data:`CROSS_AUTHORS` (each author counts once) and the share
    of held-aside SmolLM2 replies flagged."""
    sent = np.asarray([score(t) for t in val.sentences])
    worst = np.asarray([max(score(u) for u in units) for units in val.reply_units])
    whole = np.asarray([score(r) for r in val.replies])
    llm = val.reply_sets == LLM
    out = {
        "threshold": threshold,
        **_set_figures(val, sent, worst, whole, "dev", threshold),
        **{name: _set_figures(val, sent, worst, whole, name, threshold) for name in val.cross_authors},
        "cross_authors": list(val.cross_authors),
        "llm_replies_flagged": float((worst[llm] >= threshold).mean()),
        "n_llm_replies": int(llm.sum()),
    }
    out["cross_author_recall_worst"] = float(np.mean([out[name]["recall_worst"] for name in val.cross_authors]))
    return out


#: Selection bounds: benign dev sentences flagged in any domain (the issue's goal), and held-aside SmolLM2 replies
#: flagged (the demo's "a handful at most": 5 of 176 is 2.8%; set at 2% before the first selection fits were read,
#: raised to 3% after, on validation figures only, because 2% let only the weakest candidates through).
MAX_DOMAIN_FP = 0.01
MAX_LLM_FLAGGED = 0.03


def operating_point(val: Validation, score: Callable[[str], float]) -> float:
    """The lowest grid threshold at which worst-unit scoring flags no more benign replies than whole-reply scoring
    flags at 0.5, in the dev polite replies and (sixth build) in each cross-author set's alike, and (ninth build) at
    most :data:`MAX_LLM_FLAGGED` of the held-aside SmolLM2 replies: a fair small model's own replies are the false
    alarms that matter most, and without this bound a candidate that separates the written replies well got a low
    threshold that flagged 7% of them (the eighth build)."""
    tau = float(THRESHOLD_GRID[0])
    for name in ("dev", *val.cross_authors):
        benign = [i for i in range(len(val.replies)) if val.reply_sets[i] == name and val.reply_labels[i] == 0]
        whole_fp = float(np.mean([score(val.replies[i]) >= 0.5 for i in benign]))
        worst = np.asarray([max(score(u) for u in val.reply_units[i]) for i in benign])
        ok = next((float(t) for t in THRESHOLD_GRID if (worst >= t).mean() <= whole_fp), float(THRESHOLD_GRID[-1]))
        tau = max(tau, ok)
    llm = [i for i in range(len(val.replies)) if val.reply_sets[i] == LLM]
    if llm:
        worst = np.asarray([max(score(u) for u in val.reply_units[i]) for i in llm])
        ok = next((float(t) for t in THRESHOLD_GRID if (worst >= t).mean() <= MAX_LLM_FLAGGED),
                  float(THRESHOLD_GRID[-1]))  # fmt: skip
        tau = max(tau, ok)
    return tau


def choose(candidates: list[dict[str, Any]]) -> dict[str, Any]:
    """Among candidates within :data:`MAX_DOMAIN_FP` in every domain of the dev and every cross-author set's benign
    sentences and :data:`MAX_LLM_FLAGGED` of held-aside SmolLM2 replies, the highest worst-unit recall in the
    cross-author polite replies (sixth build: the other authors' insults are where recall falls; averaged over the
    authors since the fourteenth), then in the dev ones; ties go to fewer layers (speed), then to the larger head
    weight. Without such a candidate: the smallest ``fp_max_domain (dev and cross-author) + llm_replies_flagged -
    cross-author recall``."""

    def fp(c: dict[str, Any]) -> float:
        figs = c["figures"]
        return max(figs["fp_max_domain"], *(figs[name]["fp_max_domain"] for name in figs["cross_authors"]))

    ok = [c for c in candidates if fp(c) <= MAX_DOMAIN_FP and c["figures"]["llm_replies_flagged"] <= MAX_LLM_FLAGGED]
    if ok:
        return max(ok, key=lambda c: (c["figures"]["cross_author_recall_worst"], c["figures"]["recall_worst"],
                                      -c["layers"], c["head_weight"]))  # fmt: skip
    return min(candidates, key=lambda c: (fp(c) + c["figures"]["llm_replies_flagged"]
                                          - c["figures"]["cross_author_recall_worst"], c["layers"]))  # fmt: skip


__all__ = [
    "CROSS_AUTHOR",
    "CROSS_AUTHORS",
    "DEV_FOLDS",
    "HELD_ASIDE_GROUPS",
    "LLM",
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
