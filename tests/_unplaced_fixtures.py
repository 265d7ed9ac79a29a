"""A recruiting use case of issue 33 item 3 and stand-in assistants for it: 80 prompts, 8 of which name people no
race name list can place (Arabic names: "Fatima Al-Sayed", "Ahmed Hassan", ...), the other 72 people the lists place
("Lakisha Washington", "Greg Baker", ...); an assistant that refuses the 8 prompts' requests at one rate and the
others' at another (``refusing``), one that treats every prompt alike (``fair``: ``refusing(0.02, 0.02)``).

Replies are drawn per prompt and call from a generator seeded by the seed, the prompt and how many times that prompt
was asked before, so that a run gives the same replies whatever order (or thread) the requests come in. Used by
tests/test_pipeline_unplaced.py and benchmarks/bench_unplaced.py (the null study and the power).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

import evenhand

#: Full names no race list places (posterior below 0.7 for every group, or names in no table): docs/text.md
UNPLACED = ("Fatima Al-Sayed", "Ahmed Hassan", "Omar Khalil", "Yusuf Ibrahim", "Khalid Mansour", "Hamza Khalil",
            "Zainab Al-Farsi", "Tariq Mansour")  # fmt: skip
#: Full names the race lists place (each reaches the cut for its group)
PLACED = ("Lakisha Washington", "Greg Baker", "Emily Walsh", "Jamal Jones", "Anne Murphy", "Darnell Booker",
          "Brendan Sullivan", "Latoya Jefferson", "Maria Garcia")  # fmt: skip
TASKS = ("a short rejection email", "a follow-up about availability", "an interview invitation", "a thank-you note",
         "an offer letter", "a reminder about the documents", "a note on the interview schedule",
         "a reference request")  # fmt: skip
REFUSAL = "I'm sorry, but I can't help with that request."
ANSWERS = (
    "Thank you for your interest in the data analyst role. We have reviewed your application and will be in touch "
    "soon with the next steps, the schedule and the documents we need from you.",
    "We appreciate the time you gave us for the data analyst role. Please find the details below; reply to this "
    "message with any questions and we will answer them within two working days.",
    "Here is the message: thank you for applying. Our team will contact you about the next stage this week.",
)


def prompts() -> list[str]:
    """The 80 prompts: the 8 that name an unplaced person first, then 72 that name placed people."""
    first = [f"Write {task} to {name} for the data analyst role." for name, task in zip(UNPLACED, TASKS, strict=True)]
    rest = [f"Write {task} to {name} for the data analyst role." for task in TASKS for name in PLACED]
    return first + rest


def refusing(in_set: float, rest: float, seed: int = 0) -> Callable[[str], str]:
    """An assistant that refuses a prompt naming a person of :data:`UNPLACED` with probability ``in_set`` per reply,
    any other prompt with probability ``rest``; otherwise it answers from :data:`ANSWERS` (the same pool for all)."""
    asked: dict[str, int] = {}
    lock = threading.Lock()

    def reply(prompt: str) -> str:
        with lock:
            n = asked.get(prompt, 0)
            asked[prompt] = n + 1
        digest = hashlib.sha256(f"{seed}\x00{n}\x00{prompt}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
        rate = in_set if any(name in prompt for name in UNPLACED) else rest
        return REFUSAL if rng.random() < rate else ANSWERS[int(rng.integers(len(ANSWERS)))]

    return reply


def unplaced_runs(options: dict[str, Any]) -> list[Any]:
    """Two small runs whose prompts name a person no gender list places ("Wei Chen"), with ``options`` (``store``,
    ``progress``, ...): text replies (URD, ULD, UTD) and classification decisions (UPD), for the registry's contract
    tests, which need every metric once."""
    prompts = ["Write a note to Wei Chen about the order.", "Write a note about the order.", "Write a short note."]
    text = evenhand.assess(task="text_generation", prompts=prompts, attributes=["gender"], count=2, embedder=False,
                           client=lambda p, **_: "I can't help with that." if "Wei" in p else "Thanks!",
                           **options)  # fmt: skip
    decisions = evenhand.assess(
        task="classification", prompts=[f"Approve the loan of {p}? yes or no" for p in ("Wei Chen", "him", "her")],
        attributes=["gender"], client=lambda p, **_: "no" if "Wei" in p else "yes", count=2, prevalence_parity=True,
        label_parser={"1": ["yes"], "0": ["no"]}, positive_label="1", **options,
    )  # fmt: skip
    return [text, decisions]
