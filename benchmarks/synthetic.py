"""Deterministic synthetic own-response tables at paper scale, for the end-to-end and memory benchmarks.

    .venv/bin/python benchmarks/synthetic.py out.parquet [--scale 1] [--seed 0]

``scale=1`` is the paper-scale assessment of issue 18: 1,000 prompts x 25 responses, of which 300 prompts mention
gender and have a female and a male version answered 25 times each (7,500 counterfactual pairs, 40,000 responses
in all). ``scale=s`` multiplies the prompt counts by ``s`` (``scale=25`` is 1,000,000 responses).

What makes it realistic enough for timing and memory: responses of 45-110 words of ordinary prose (median ~75);
answers to one prompt share most of their sentences (an LLM repeats itself at temperature), but every response
differs in its last sentence, so de-duplication in the scoring engine does not make scoring artificially cheap;
about half the counterfactual pairs are the same answer with the gender words swapped, the rest a re-generation;
gender and stereotype words appear often enough for co-occurrence, and ~3% of responses carry a rude word so that
toxicity is not all zero. The same seed gives the same table (NumPy's PCG64 and ``random.Random``).
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
import pandas as pd

PROMPTS_PER_SCALE, COUNTERFACTUAL_PER_SCALE, RESPONSES_PER_PROMPT = 1_000, 300, 25

PROSE = (
    "thank you for your order we value your business and look forward to helping you again the team reviewed the "
    "account history and found that the last payment was received on time please let us know if anything changes "
    "our records show a new address a product a service a plan the manager the client the customer the doctor the "
    "engineer the nurse the teacher the secretary was helpful kind careful smart strong caring emotional logical "
    "it is important to follow up next week also because however then finally we will send a summary today"
).split()
GENDER_FEMALE = ["she", "her", "woman", "Mrs.", "mother", "sister", "herself"]
GENDER_MALE = ["he", "his", "man", "Mr.", "father", "brother", "himself"]
SWAP = dict(zip(GENDER_FEMALE, GENDER_MALE, strict=True)) | dict(zip(GENDER_MALE, GENDER_FEMALE, strict=True))
RUDE = ["damn", "stupid", "idiot", "crap", "shut up", "hell"]
NAMES = ["Lee", "Garcia", "Smith", "Okafor", "Chen", "Novak", "Rossi", "Khan", "Silva", "Müller"]
TASKS = ["Write a thank-you note to", "Summarize the account history of", "Draft a follow-up email for"]


def _sentence(rng: random.Random, n_words: int, gendered: list[str] | None) -> str:
    words = [rng.choice(PROSE) for _ in range(n_words)]
    if gendered is not None and rng.random() < 0.8:
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randrange(len(words) + 1), rng.choice(gendered))
    words[0] = words[0].capitalize()
    return " ".join(words) + rng.choice([".", ".", ".", "!"])


def _answer_variants(rng: random.Random, gendered: list[str] | None, n_variants: int = 6) -> list[str]:
    """A prompt's few answer bodies (3-8 sentences drawn from a shared pool of its own sentences)."""
    pool = [_sentence(rng, rng.randint(8, 14), gendered) for _ in range(10)]
    return [" ".join(rng.sample(pool, rng.randint(3, 7))) for _ in range(n_variants)]


def _tails(rng: np.random.Generator, n: int) -> list[str]:
    """One distinct closing sentence per response (6-12 words), vectorised: the bulk of the random draws."""
    vocab = np.asarray(PROSE, dtype=object)
    lengths = rng.integers(6, 13, size=n)
    words = vocab[rng.integers(0, len(vocab), size=int(lengths.sum()))]
    ends = np.cumsum(lengths)
    out = [" ".join(words[e - k : e]).capitalize() + "." for e, k in zip(ends.tolist(), lengths.tolist(), strict=True)]
    rude = np.flatnonzero(rng.random(n) < 0.03)
    for i, word in zip(rude.tolist(), rng.integers(0, len(RUDE), size=len(rude)).tolist(), strict=True):
        out[i] = f"What a {RUDE[word]} situation. " + out[i]
    return out


def _swap_gender(text: str) -> str:
    return " ".join(SWAP.get(w, w) for w in text.split(" "))


def paper_scale_table(scale: float = 1.0, *, seed: int = 0, count: int = RESPONSES_PER_PROMPT) -> pd.DataFrame:
    """One row per response: ``prompt_id, attribute, group, sample, prompt, response`` (originals have no group)."""
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    n_prompts = round(PROMPTS_PER_SCALE * scale)
    n_cf = round(COUNTERFACTUAL_PER_SCALE * scale)
    cf_ids = set(range(0, n_prompts, max(1, n_prompts // max(n_cf, 1)))[:n_cf]) if n_cf else set()
    prompt_ids: list[int] = []
    groups: list[str | None] = []
    samples: list[int] = []
    prompts: list[str] = []
    bodies: list[str] = []
    for pid in range(n_prompts):
        task, name = rng.choice(TASKS), rng.choice(NAMES)
        if pid in cf_ids:
            versions = {None: f"{task} Mrs. {name} about her order #{pid}.", "female": "", "male": ""}
            versions["female"] = versions[None]
            versions["male"] = f"{task} Mr. {name} about his order #{pid}."
        else:
            versions = {None: f"{task} the client {name} about the order #{pid}."}
        female_variants = _answer_variants(rng, GENDER_FEMALE if pid in cf_ids else None)
        for group, prompt in versions.items():
            if group == "male":  # half the answers are the female answers with the words swapped
                variants = [
                    _swap_gender(v) if rng.random() < 0.5 else _answer_variants(rng, GENDER_MALE, 1)[0]
                    for v in female_variants
                ]
            else:
                variants = female_variants
            for sample in range(count):
                prompt_ids.append(pid)
                groups.append(group)
                samples.append(sample)
                prompts.append(prompt)
                bodies.append(variants[sample % len(variants)])
    tails = _tails(nprng, len(bodies))
    frame = pd.DataFrame(
        {
            "prompt_id": prompt_ids,
            "attribute": ["gender" if g is not None else None for g in groups],
            "group": groups,
            "sample": samples,
            "prompt": prompts,
            "response": [f"{b} {t}" for b, t in zip(bodies, tails, strict=True)],
        }
    )
    return frame


def write_table(path: Path, scale: float = 1.0, seed: int = 0) -> int:
    frame = paper_scale_table(scale, seed=seed)
    if path.suffix == ".parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False)
    return len(frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n = write_table(args.out, args.scale, args.seed)
    print(f"{n} responses -> {args.out}")


if __name__ == "__main__":
    main()
