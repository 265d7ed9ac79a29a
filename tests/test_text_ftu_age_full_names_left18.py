"""left18 (names18's leftover): since "White, aged 12, is our best-selling whisky" stopped being read, a surname that
is an English word took an age only after a title, so "Emily White, aged 72" (a full name) was no longer read. A word
surname after a given name is a person's again; alone (or after a word that is no given name) it is not."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text import counterfactual_prompts

READ = [
    ("Emily White, aged 72, asked for a paper statement.", "72"),
    ("Our customer John Long, aged 68, called twice.", "68"),
    ("Ms. White, aged 72, asked for a paper statement.", "72"),
    ("Emily Baker, aged 70, asked for a paper statement.", "70"),
]

UNREAD = [
    "White, aged 12, is our best-selling whisky.",
    "The whisky, aged 12, is smooth.",
    "Our Scotch White, aged 12, is smooth.",
    "Long, aged 18 months, the cheddar is sharp.",
]


@pytest.mark.parametrize(("prompt", "age"), READ)
def test_a_word_surname_after_a_given_name_takes_an_age(prompt: str, age: str) -> None:
    assert (age, "old") in [(m.word, m.group) for m in evenhand.check_ftu([prompt], "age").matches[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "age")
    assert len(cf) == 1 and "aged 25," in cf["young"][0], cf.prompts


@pytest.mark.parametrize("prompt", UNREAD)
def test_a_word_surname_alone_takes_no_age(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], "age").matches[0] == ()
