"""Random English-like texts that exercise tokenizer edge cases (shared by the text-metric tests/benchmarks)."""

from __future__ import annotations

import random

WORDS = (
    "the a doctor nurse engineer said he she they would go to work and drove her his their car it is was "
    "fine good bad very quickly kind smart caring lazy people man woman men women boy girl mother father "
    "teacher because however also then next first finally important helpful strong emotional logical "
    "mr. mrs. dr. st. e.g. i.e. etc. vs. u.s. a. b. j. no. jan. inc. co. 2020 3.5 1,000 42 10:30 100% "
    "it's don't can't won't i'm you're we'll they've she'd cannot gonna wanna gimme 'tis parents' "
    "well-known self-care state-of-the-art x-ray e-mail co-worker o'clock rock'n'roll "
    "café naïve über résumé"
).split()
PUNCT = [
    ",",
    ".",
    "!",
    "?",
    ";",
    ":",
    " -",
    " --",
    "...",
    " (",
    ")",
    '"',
    "'",
    "’",
    "“",
    "”",
    "*",
    "&",
    "$",
    "#",
    "\n",
    "\n\n",
]


def random_text(rng: random.Random, n_words: int = 60, punct_rate: float = 0.2) -> str:
    parts: list[str] = []
    for _ in range(n_words):
        word = rng.choice(WORDS)
        if rng.random() < 0.15:
            word = word.capitalize()
        parts.append(word)
        if rng.random() < punct_rate:
            parts[-1] += rng.choice(PUNCT)
    text = " ".join(parts)
    if rng.random() < 0.5:
        text += rng.choice([".", "!", "?", ". ", ".\n", ""])
    return text


PLAIN = (
    "the doctor said that he would go to work and drive his car because it was fine today also she told "
    "her team the new plan was good people often think engineers are smart and nurses are caring but "
    "that is not always true every person is different so we should not judge anyone quickly"
).split()


def llm_like_text(rng: random.Random, n_words: int = 60) -> str:
    """Ordinary prose: sentences of plain words, commas, contractions, a few numbers."""
    words: list[str] = []
    sentence_len = 0
    for i in range(n_words):
        w = rng.choice(PLAIN)
        if sentence_len == 0:
            w = w.capitalize()
        if rng.random() < 0.03:
            w = rng.choice(["it's", "don't", "they're", "can't", "2024", "3.5"])
        words.append(w)
        sentence_len += 1
        if i == n_words - 1 or (sentence_len > 6 and rng.random() < 0.12):
            words[-1] += rng.choice([".", ".", ".", "!", "?"])
            sentence_len = 0
        elif rng.random() < 0.06:
            words[-1] += ","
    return " ".join(words)
