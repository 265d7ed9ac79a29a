"""Would a second look at the units near a decision help the MiniLM toxicity model? (issue 34, sixteenth attempt)

    PYTHONPATH=$PWD python benchmarks/bench_toxicity_second_look.py --work DIR [--cross-authors fresh2 fresh7]

Validation only (no test split is read). On the shipped thirteenth build's data (``--without-authors f g h``, seed 0,
its screen threshold 0.061), the selection fits of :mod:`evenhand_training.toxicity_eval` (two dev folds) are made
for the first stage as shipped (3 adapted layers, fine-tuning seed 0: the thirteenth's own selection fits), for a
deeper encoder (all 6 layers, the same recipe) and for the first stage with fine-tuning seed 1; each validation text
is scored by the fit that did not see it. Candidates, each with the build's operating point
(:func:`~evenhand_training.toxicity_select.operating_point`) and validation figures:

- the first stage alone and the 6-layer model alone, each head weight of ``HEAD_WEIGHTS``;
- a cascade: a unit whose first-stage probability reaches the gate (the lowest first-stage probability of any
  validation insult the screen lets through) is scored by the 6-layer model (each head weight), the others keep
  their first-stage score;
- the same cascade with the mean of the seed-0 and seed-1 first stages' logits as the second look.

Fits are cached in ``--work`` (about 3 min per 3-layer fit, 5 min per 6-layer fit on 2 idle cores). Prints one JSON
line per candidate: operating point, worst-unit insult recall per set, the largest share of benign sentences flagged
in a domain, identity statements flagged, held-aside SmolLM2 replies flagged, worst-unit AUC.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]
WITHOUT_AUTHORS = ("f", "g", "h")
SCREEN = 0.061  # the shipped head's screen threshold


def _fit_logits(work: Path, depth: int, seed: int, vtexts: list[str]) -> list[Array]:
    """Each dev fold's selection fit of ``depth`` layers (fine-tuning seed ``seed``): its head logits on vtexts."""
    from evenhand_training import toxicity_select as sel
    from evenhand_training.toxicity import masked, training_set
    from evenhand_training.toxicity_eval import _tuned
    from evenhand_training.toxicity_finetune import fine_tune, head_logits

    data = training_set(0, None, WITHOUT_AUTHORS)
    texts, y, w = masked(data.texts), data.labels, data.weights()
    out = []
    for fold in range(sel.DEV_FOLDS):
        keep = ~sel.validation_rows(data, fold)
        name = f"selection_layers{depth}{f'_seed{seed}' if seed else ''}_fold{fold}"
        fit = _tuned(work, name, depth,
                     lambda d, keep=keep: fine_tune([t for t, k in zip(texts, keep, strict=True) if k], y[keep],
                                                    w[keep], layers=d, seed=seed))  # fmt: skip
        out.append(head_logits(fit, vtexts))
    return out


def _lexical(vtexts: list[str]) -> tuple[list[Array], Array]:
    """Each fold's lexical logits on vtexts and profanity-check's probabilities."""
    from evenhand.scorers import get_toxicity_scorer
    from evenhand_training import toxicity_select as sel
    from evenhand_training.toxicity import fit_screen_matrix, masked, screen_matrix, training_set

    data = training_set(0, None, WITHOUT_AUTHORS)
    texts, y, w = masked(data.texts), data.labels, data.weights()
    x, vx = screen_matrix(texts), screen_matrix(vtexts)
    lex = []
    for fold in range(sel.DEV_FOLDS):
        keep = ~sel.validation_rows(data, fold)
        coef, intercept = fit_screen_matrix(x[keep], y[keep], w[keep])
        lex.append(np.asarray(vx @ coef).reshape(-1) + intercept)
    return lex, np.asarray(get_toxicity_scorer()(vtexts), dtype=np.float64)


def main() -> None:
    from evenhand_training import toxicity_select as sel
    from evenhand_training.toxicity_eval import HEAD_WEIGHTS, _sigmoid

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="folder that keeps the fits")
    parser.add_argument("--cross-authors", nargs="+", default=list(sel.CROSS_AUTHORS), choices=sel.CROSS_AUTHORS)
    args = parser.parse_args()
    val = sel.validation_set(0, tuple(args.cross_authors))
    full = sel.validation_set(0, sel.CROSS_AUTHORS)  # one scoring of every text any subset reads
    vtexts = full.texts()
    owner = np.asarray([full.folds.get(t, -1) for t in vtexts])

    def pick(per_fold: list[Array]) -> Array:
        out = np.mean(per_fold, axis=0)
        for fold, values in enumerate(per_fold):
            out[owner == fold] = values[owner == fold]
        return np.asarray(out, dtype=np.float64)

    lex, profanity = _lexical(vtexts)
    cheap = pick([np.maximum(_sigmoid(z), profanity) for z in lex])
    passed = cheap >= SCREEN
    position = {t: i for i, t in enumerate(vtexts)}
    insults = np.asarray([position[t] for t, y in zip(val.sentences, val.sentence_labels, strict=True) if y])
    insults = insults[passed[insults]]

    def probability(heads: list[Array], a: float, also: list[Array] | None = None) -> Array:
        """Each fold's sigmoid(a h + (1 - a) l) (with ``also``: the mean of that and the same of the second fits'
        logits), picked per text as the build picks (the fit that did not see it, else the mean of the fits)."""
        logits = [a * h + (1 - a) * z for h, z in zip(heads, lex, strict=True)]
        if also is not None:
            logits = [(z + 0.5 * h2 + 0.5 * l2) / 2 for z, h2, l2 in zip(logits, also, lex, strict=True)]
        return pick([_sigmoid(z) for z in logits])

    def report(name: str, p: Array, extra: dict[str, Any] | None = None) -> None:
        p = np.where(passed, p, np.minimum(cheap, SCREEN))
        score: Callable[[str], float] = dict(zip(vtexts, p.tolist(), strict=True)).__getitem__
        tau = sel.operating_point(val, score)
        f = sel.figures(val, score, tau)
        sets = ("dev", *val.cross_authors)
        row = {"candidate": name, "tau": tau,
               **{f"{s} recall": round(f[s]["recall_worst"] if s != "dev" else f["recall_worst"], 4) for s in sets},
               **{f"{s} fp max domain": round(f[s]["fp_max_domain"] if s != "dev" else f["fp_max_domain"], 4)
                  for s in sets},
               **{f"{s} auc": round(f[s]["auc_worst"] if s != "dev" else f["auc_worst"], 4) for s in sets},
               "smollm2 flagged": round(f["llm_replies_flagged"], 4),
               "cross-author recall": round(f["cross_author_recall_worst"], 4), **(extra or {})}  # fmt: skip
        print(json.dumps(row))

    first, deep, second_seed = (_fit_logits(args.work, d, s, vtexts) for d, s in ((3, 0), (6, 0), (3, 1)))
    for a in HEAD_WEIGHTS:
        report(f"3 layers, a {a}", probability(first, a))
    for a in HEAD_WEIGHTS:
        report(f"6 layers, a {a}", probability(deep, a))
    p_first = probability(first, 0.5)
    gate = float(p_first[insults].min())
    again = passed & (p_first >= gate)
    share = {"gate": round(gate, 4), "screened texts read again": round(float(again.sum() / passed.sum()), 4)}
    for a in HEAD_WEIGHTS:
        report(f"cascade 3 -> 6 layers, a {a}", np.where(again, probability(deep, a), np.minimum(p_first, gate)), share)
    report("3 layers, fine-tuning seed 1, a 0.5", probability(second_seed, 0.5))
    mean = probability(first, 0.5, also=second_seed)
    report("cascade 3 -> mean of seeds 0 and 1", np.where(again, mean, np.minimum(p_first, gate)), share)

if __name__ == "__main__":
    main()
