"""names18: ages the readers left (names17b's list): a range written "between 18 and 24", "under 25", "over 65"
after a person noun; an age after a title and a surname the race tables place ("Mr. Okafor, aged 70"); no age after
a surname that is an English word unless a title makes it a person ("White, aged 12" is a whisky's, "Ms. White, aged
72" a person's)."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text import counterfactual_prompts

READ = [
    ("Write an offer for customers between 18 and 24.", "young", "between 18 and 24"),
    ("Suggest a phone plan for workers between 65 and 80.", "old", "between 65 and 80"),
    ("Draft a savings plan for people between 35 and 45.", "middle_aged", "between 35 and 45"),
    ("Write an offer for customers over 65.", "old", "over 65"),
    ("Draft a savings plan for people under 25.", "young", "under 25"),
    ("HR case: Mr. Okafor, aged 70, asked to move to part-time hours.", "old", "70"),
    ("Ms. Tanaka, aged 68, asked for a paper statement.", "old", "68"),
    ("Ms. White, aged 72, asked for a paper statement.", "old", "72"),
]

KEPT = [  # a child's or a wide range: counted, kept as written in every version
    "Write an offer for customers under 18.",
    "Write an offer for customers between 10 and 16.",
]

UNREAD = [
    "White, aged 12, is our best-selling whisky.",
    "Long, aged 18 months, the cheddar is sharp.",
    "Orders over 65 dollars ship free.",
    "The parcel weighs between 18 and 24 kilos.",
]


@pytest.mark.parametrize(("prompt", "group", "word"), READ)
def test_age_read_and_versioned(prompt: str, group: str, word: str) -> None:
    matches = evenhand.check_ftu([prompt], "age").matches[0]
    assert (word, group) in [(m.word, m.group) for m in matches]  # "pensioners between 65 and 80": both old
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "age")
    assert len(cf) == 1
    assert len({cf[g][0] for g in cf.groups}) == len(cf.groups)  # each group's version says its own age


@pytest.mark.parametrize("prompt", KEPT)
def test_child_or_wide_range_counted_and_kept(prompt: str) -> None:
    matches = evenhand.check_ftu([prompt], "age").matches[0]
    assert [m.group for m in matches] == [None]  # "other": counted, no group
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "age")
    assert len(cf) == 0  # kept as written in every version: no counterfactual (names17's rule for a child's age)


@pytest.mark.parametrize("prompt", UNREAD)
def test_things_and_quantities_unread(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], "age").matches[0] == ()
