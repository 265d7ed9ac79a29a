"""evenhand's own labelled toxicity sets: benign sentences of regulated domains and insults inside polite replies.

The sentences are ours (``evenhand/data/toxicity``, construction in its README.md): 550 benign sentences across
banking, IT and security, health, legal, HR and retail, full of the charged words those domains use ("fraud",
"chargeback", "kill the process", "execute", "overdose", "discharge", "assault", "suspect"), plus benign identity
statements made in those settings ("As a gay man, I would like to open a joint account with my husband."); and 309
insults and slurs, direct ("You are too stupid to manage a bank account.") and indirect ("Only a moron would wire
money to a stranger.", "Your kind always causes trouble."). Each row has a ``split``: ``dev`` (a third, stratified
by domain: what the offline toxicity model may be trained on) and ``heldout`` (two thirds: only measured); a
second held-out set, ``fresh`` (150 benign sentences, 100 insults of every kind), written later in one sitting
without looking at any model's errors; and a third, ``fresh2`` (210 benign sentences, 120 insults), written by a
second author who read none of the other rows and ran no scorer on them, for checking a model trained meanwhile;
and a fourth, ``fresh3`` (280 benign sentences, 150 insults), written the same way by a third author, to be scored
once after the next model is fixed; and a fifth, ``fresh4`` (280 benign sentences, 150 insults), by a fourth author
under the same rule; and a sixth, ``fresh5`` (280 benign sentences, 150 insults), by a fifth author under the same
rule; and a seventh, ``fresh6`` (280 benign sentences, 150 insults), by a sixth author under the same rule; and
``fresh7`` (420 benign sentences, 180 insults), by a seventh author under the same rule, denser in charged words: a
second cross-author *validation* split for choosing the model's threshold and candidate, never training data.

:func:`polite_replies` places each insult inside a polite customer-service reply (an opening, a benign sentence of
the same domain and split, the insult, a closing) and composes benign replies the same way without it, so a
reply-level scorer is measured on what a deployment sees: one insult among charged but benign words.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Literal

import numpy as np
import pandas as pd

from evenhand.errors import InputError

#: The domains of the benign set, in the order reports list them ("identity": benign identity statements).
DOMAINS: tuple[str, ...] = ("banking", "it_security", "health", "legal", "hr", "retail", "identity")
#: The domains that have insults (every domain but "identity").
INSULT_DOMAINS: tuple[str, ...] = DOMAINS[:-1]
#: ``dev``: what the offline model may be trained on; ``heldout``: measured only; ``fresh``: a second held-out set,
#: written after the first model's held-out figures were read and before its successor was trained; ``fresh2``: an
#: independent evaluation set by another author, on which no scorer had been run when it shipped; ``fresh3``: one more
#: such set by a third author, for the next model once it is fixed; ``fresh4``: another by a fourth author, unmeasured
#: when it shipped; ``fresh5``: another by a fifth author, also unmeasured when it shipped; ``fresh6``: another by a
#: sixth author, unmeasured when it shipped (README.md). Since the sixth build of the offline model, ``fresh`` is
#: training data and ``fresh2`` its cross-author selection set; the others stay test data. ``fresh7``: a second
#: cross-author VALIDATION split by a seventh author (60 benign sentences per domain, dense in charged words; 30
#: insults per domain), read by selection once it is wired in beside ``fresh2``, never by training
#: (``evenhand_training.toxicity.TRAINING_SPLITS``).
SPLITS: tuple[str, ...] = ("dev", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7")
Split = Literal["dev", "heldout", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7"]


def _data_file(name: str) -> str:
    return (resources.files("evenhand") / "data" / "toxicity" / name).read_text(encoding="utf-8")


@functools.cache
def _table(name: str) -> pd.DataFrame:
    import io

    return pd.read_csv(io.StringIO(_data_file(name)), dtype=str, keep_default_na=False)


def _select(frame: pd.DataFrame, split: str | None, domain: str | None) -> pd.DataFrame:
    if split is not None and split not in SPLITS:
        raise InputError(f"split must be one of {SPLITS} or None, got {split!r}")
    if domain is not None and domain not in DOMAINS:
        raise InputError(f"domain must be one of {DOMAINS} or None, got {domain!r}")
    keep = np.ones(len(frame), dtype=bool)
    if split is not None:
        keep &= (frame["split"] == split).to_numpy()
    if domain is not None:
        keep &= (frame["domain"] == domain).to_numpy()
    return frame[keep].reset_index(drop=True)


def benign_sentences(split: Split | None = None, domain: str | None = None) -> pd.DataFrame:
    """The benign sentences (columns ``id``, ``domain``, ``split``, ``charged_words``, ``text``), optionally of
    one split and one domain, in file order."""
    return _select(_table("benign_sentences.csv"), split, domain)


def insults(split: Split | None = None, domain: str | None = None) -> pd.DataFrame:
    """The insults (columns ``id``, ``domain``, ``split``, ``kind``, ``text``; kinds: direct, indirect, contempt,
    group, slur, threat), optionally of one split and one domain, in file order."""
    return _select(_table("insults.csv"), split, domain)


@functools.lru_cache(maxsize=1)
def reply_frames() -> dict[str, list[str]]:
    """``{"openings": [...], "closings": [...]}``: the polite sentences replies are composed of."""
    data = json.loads(_data_file("reply_frames.json"))
    return {"openings": list(data["openings"]), "closings": list(data["closings"])}


def polite_replies(split: Split = "heldout", *, seed: int = 0) -> pd.DataFrame:
    """Replies of four sentences: an opening, a benign sentence of the domain, the middle sentence, a closing.

    One reply per insult of ``split`` (``label`` 1, the insult in the middle) and one per benign sentence of the
    split's insult domains (``label`` 0, a second benign sentence of the same domain in the middle). Benign
    sentences come from the same split only, so a held-out reply holds no sentence a model was trained on. The
    composition is seeded and deterministic. Columns: ``reply``, ``label``, ``domain``, ``kind`` ("benign" or the
    insult's kind), ``flagged_sentence`` (the middle sentence).
    """
    rng = np.random.default_rng(seed)
    frames = reply_frames()
    openings, closings = frames["openings"], frames["closings"]
    rows: list[tuple[str, int, str, str, str]] = []
    benign = benign_sentences(split)
    for domain in INSULT_DOMAINS:
        pool = benign.loc[benign["domain"] == domain, "text"].tolist()
        if len(pool) < 2:
            continue
        middles = [(t, 1, k) for t, k in insults(split, domain)[["text", "kind"]].itertuples(index=False)]
        middles += [(t, 0, "benign") for t in pool]
        for text, label, kind in middles:
            context = [s for s in pool if s != text]
            filler = context[int(rng.integers(len(context)))]
            opening = openings[int(rng.integers(len(openings)))]
            closing = closings[int(rng.integers(len(closings)))]
            rows.append((f"{opening} {filler} {text} {closing}", label, domain, kind, text))
    return pd.DataFrame(rows, columns=["reply", "label", "domain", "kind", "flagged_sentence"])


__all__ = [
    "DOMAINS",
    "INSULT_DOMAINS",
    "SPLITS",
    "benign_sentences",
    "insults",
    "polite_replies",
    "reply_frames",
]
