"""Prompts that name nobody give the same output with names read as without (issue 28): check_ftu and
counterfactual_prompts on 5,000 name-free texts per built-in attribute, names on vs ``names=False``.

The texts are the lexicon-recall sentences (tests/data/lexicon_recall.json), the look-alike prompts of the name
detection set (tests/data/name_detection.json, those that name nobody) and prompts assembled from each lexicon's
terms, filler words and capitalised look-alikes ("Washington approved", "by May", "the Ford dealership").
"""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

from evenhand.text import BUILTIN_ATTRIBUTES, check_ftu, counterfactual_prompts, load_lexicon
from evenhand.text.names import find_people

pytestmark = pytest.mark.slow  # heavy computation, about half a second or more each

DATA = Path(__file__).resolve().parent / "data"
N_TEXTS = 5000
_FILLER = "the customer asked about an account and we will review the statement today please call back soon".split()
_CAPITALISED = [
    "Washington approved the rule",
    "by May",
    "Grace periods apply",
    "the Brown bag lunch",
    "Jordan and Georgia",
    "the Ford dealership",
    "Will you send it",
    "Virginia Beach",
    "Baker Street",
    "Morgan Stanley",
    "THE ACCOUNT",
    "Summary",
    "Monday",
    "Dear customer",
    "Hello team",
]


def _sentences() -> list[str]:
    recall = json.loads((DATA / "lexicon_recall.json").read_text(encoding="utf-8"))["attributes"]
    texts = [t for lists in recall.values() for _, t in lists.get("mentions", [])]
    texts += [t for lists in recall.values() for t in lists.get("lookalikes", [])]
    labelled = json.loads((DATA / "name_detection.json").read_text(encoding="utf-8"))["items"]
    return texts + [i["text"] for i in labelled if not i["persons"]]


def name_free_texts(attribute: str, n: int = N_TEXTS) -> list[str]:
    """``n`` texts that name nobody, many with the attribute's words."""
    rng = random.Random(f"names-unchanged-{attribute}")
    terms = sorted(load_lexicon(attribute).words)
    base = _sentences()
    out: list[str] = []
    while len(out) < n:
        words = [rng.choice(_FILLER) for _ in range(rng.randrange(3, 12))]
        words.insert(rng.randrange(len(words) + 1), rng.choice(terms))
        if rng.random() < 0.5:
            words.insert(rng.randrange(len(words) + 1), rng.choice(_CAPITALISED))
        text = rng.choice(base) if rng.random() < 0.3 else " ".join(words).capitalize() + rng.choice(".?!")
        if not find_people(text):
            out.append(text)
    return out


@pytest.mark.parametrize("attribute", BUILTIN_ATTRIBUTES)
def test_name_free_texts_give_the_same_output(attribute: str) -> None:
    texts = name_free_texts(attribute)
    on, off = check_ftu(texts, attribute=attribute), check_ftu(texts, attribute=attribute, names=False)
    assert on.names_checked and not off.names_checked
    assert on.matches == off.matches
    assert on.summary() == off.summary() and repr(on) == repr(off)
    assert on.flagged.tolist() == off.flagged.tolist() and on.group_counts() == off.group_counts()
    assert on.to_frame().equals(off.to_frame())
    lexicon = load_lexicon(attribute)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cf_on = counterfactual_prompts(texts, attribute=attribute, groups=lexicon.all_groups)
        cf_off = counterfactual_prompts(texts, attribute=attribute, groups=lexicon.all_groups, names=False)
    assert cf_on.source_index.tolist() == cf_off.source_index.tolist()
    assert cf_on.original == cf_off.original and cf_on.attribute_words == cf_off.attribute_words
    assert dict(cf_on.prompts) == dict(cf_off.prompts)
    assert all(row == {} for row in cf_on.names)
    if len(lexicon.groups) == 2:
        swap_on = counterfactual_prompts(texts, attribute=attribute, mode="swap")
        swap_off = counterfactual_prompts(texts, attribute=attribute, mode="swap", names=False)
        assert dict(swap_on.prompts) == dict(swap_off.prompts)
