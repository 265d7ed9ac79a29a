"""int8 (ONNX Runtime dynamic quantization) vs fp32 (PyTorch) for Hugging Face classifier scorers (issue 18.4).

Run: ``.venv/bin/python benchmarks/bench_int8.py [--texts 256] [--repeats 3]``. Needs the ``int8`` extra.

Models, all built locally (no hub):

* ``bert-base``: a randomly initialised ``BertForSequenceClassification`` of BERT-base size (12 layers, hidden 768)
  with the bert-base-uncased vocabulary of the bundled all-MiniLM-L6-v2: random weights cost what trained ones do.
* ``minilm``: all-MiniLM-L6-v2 with a 2-label head fine-tuned on a synthetic toxic / benign set (the recipe of
  ``tests/test_scorers_int8.py``), so its agreement with fp32 is a trained model's.

Throughput is scored through evenhand's scorers (no score cache, batch 32, engine length-sorted batches), best of
``--repeats``; the one-off export + quantization time is reported apart. Agreement: :class:`Agreement` of int8 vs
fp32 scores on the same texts.
"""

from __future__ import annotations

import argparse
import itertools
import os
import platform
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OPENERS = ["Thank you for reaching out", "I understand your concern", "Sorry for the delay", "Great question"]
MIDDLES = [
    "your order was shipped on Monday and should arrive within three to five working days",
    "the nurse said she would review the account history with the client before the meeting",
    "this is the stupidest complaint I have read and you are wasting everyone's time",
    "the engineer explained that the fault was caused by a loose cable in the main unit",
    "we cannot approve the loan at this time, but you may apply again in six months",
    "people like you never read the instructions, which is why nothing ever works for you",
]
CLOSERS = ["Let me know if you need anything else.", "Best regards.", "Have a nice day!", "Shut up and read it."]


def workload(n: int, seed: int = 0) -> list[str]:
    """``n`` reply-like texts of 15-60 words (distinct: the engine would de-duplicate repeats)."""
    rng = np.random.default_rng(seed)
    combos = list(itertools.product(OPENERS, MIDDLES, CLOSERS))
    texts = []
    for i in range(n):
        opener, middle, closer = combos[int(rng.integers(len(combos)))]
        extra = " ".join(MIDDLES[int(j)] for j in rng.integers(len(MIDDLES), size=int(rng.integers(0, 2))))
        texts.append(f"{opener} (ref {i}): {middle}. {extra} {closer}".replace("  ", " "))
    return texts


def build_bert_base(folder: Path) -> Path:
    import torch
    import transformers

    from evenhand.scorers.embedding import default_embedder_path

    tokenizer = transformers.AutoTokenizer.from_pretrained(default_embedder_path())
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size,
        num_labels=2,
        id2label={0: "benign", 1: "toxic"},
        label2id={"benign": 0, "toxic": 1},
    )
    torch.manual_seed(0)
    transformers.BertForSequenceClassification(config).eval().save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def build_finetuned_minilm(folder: Path) -> Path:
    """The test suite's recipe: frozen encoder, pooler + classifier trained on its [CLS] states."""
    sys.path.insert(0, str(ROOT / "tests"))
    import test_scorers_int8 as recipe

    class _Factory:
        def mktemp(self, name: str) -> Path:
            return folder

    return Path(recipe.finetuned.__wrapped__(_Factory()))


def throughput(scorer: Any, texts: list[str], repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        scorer(texts)
        best = min(best, time.perf_counter() - started)
    return len(texts) / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", default="bert-base,minilm")
    args = parser.parse_args()

    import onnxruntime
    import torch

    from evenhand.scorers import get_toxicity_scorer
    from evenhand.scorers._onnx import Agreement

    work = Path(tempfile.mkdtemp(prefix="bench-int8-"))
    os.environ["EVENHAND_CACHE_DIR"] = str(work / "cache")  # a fresh export, never the user's cache
    texts = workload(args.texts)
    words = np.mean([len(t.split()) for t in texts])
    print(
        f"# int8 vs fp32, {platform.machine()}, {os.cpu_count()} cores, torch {torch.__version__} "
        f"({torch.get_num_threads()} threads), onnxruntime {onnxruntime.__version__}, {len(texts)} texts of "
        f"{words:.0f} words on average, best of {args.repeats}\n"
    )
    print("| model | fp32 texts/s | int8 texts/s | speed-up | export + quantize (once) | agreement on these texts |")
    print("|---|---:|---:|---:|---:|---|")
    builders = {"bert-base": build_bert_base, "minilm": build_finetuned_minilm}
    for name in args.models.split(","):
        folder = builders[name](work / name)
        fp32 = get_toxicity_scorer(folder, toxic_label="toxic", device="cpu", batch_size=32)
        started = time.perf_counter()
        int8 = get_toxicity_scorer(folder, toxic_label="toxic", device="cpu", batch_size=32, quantize="int8")
        export_s = time.perf_counter() - started
        fp32_rate, int8_rate = throughput(fp32, texts, args.repeats), throughput(int8, texts, args.repeats)
        agreement = Agreement.of(fp32(texts), int8(texts))
        print(
            f"| {name} | {fp32_rate:.1f} | {int8_rate:.1f} | {int8_rate / fp32_rate:.2f}x | {export_s:.1f} s "
            f"| {agreement.describe()} |"
        )
        if name == "minilm":
            sys.path.insert(0, str(ROOT / "tests"))
            from test_scorers_int8 import EVAL_TEXTS

            held_out = Agreement.of(fp32(EVAL_TEXTS), int8(EVAL_TEXTS))
            print(f"\nminilm, the tests' held-out texts: {held_out.describe()}")
            print(f"minilm, probe note: {int8.quantization_note}")
    shutil.rmtree(work, ignore_errors=True)  # models and int8 files: hundreds of MB


if __name__ == "__main__":
    main()
