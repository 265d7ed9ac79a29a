"""Masking the names of counterfactual versions in replies (issue 33, item 1): every form of every version's name
becomes one placeholder, so replies that only echo the name read the same for every version."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.errors import InputError
from evenhand.text import NAME_PLACEHOLDER, counterfactual_prompts, mask_names
from evenhand.text.name_masking import name_forms

NAMES = ("Lakisha Washington", "Greg Baker")


def test_every_form_becomes_one_placeholder() -> None:
    texts = [
        "Dear Lakisha Washington, thank you.",
        "Hi Lakisha, Ms. Washington's file is ready.",
        "LAKISHA WASHINGTON: APPROVED. Greg’s note and James' card.",
        "Dear Greg,\nGreg Baker\nBAKER",
        "Ask O'Brien, not Brien.",
        "A baker named Greg bakes; Gregory and Bakery stay.",
        "'Greg' said it.",
    ]
    assert mask_names(texts, [(*NAMES, "James Lee", "Ann Brien")] * len(texts)) == [
        "Dear [NAME], thank you.",
        "Hi [NAME], Ms. [NAME]'s file is ready.",
        "[NAME]: APPROVED. [NAME]'s note and [NAME]'s card.",
        "Dear [NAME],\n[NAME]\n[NAME]",
        "Ask O'Brien, not [NAME].",
        "A baker named [NAME] bakes; Gregory and Bakery stay.",  # lower-case words and longer words are kept
        "'[NAME]' said it.",  # a closing quote is not a possessive
    ]


def test_a_reply_that_only_echoes_the_name_is_the_same_for_every_version() -> None:
    cf = counterfactual_prompts(["Write a rejection email to Lakisha Washington for the analyst role."], "race")
    names = cf.swapped_names(0)
    assert "Lakisha Washington" in names and len(names) == 1 + len(cf.groups)
    replies = []
    for group in cf.groups:
        ((_, new),) = cf.names[0][group]
        first = new.split()[0]
        replies.append(f"Dear {new},\n\nThank you, {first}. {first}'s application was strong. Regards")
    masked = mask_names(replies, [names] * len(replies))
    assert len(set(masked)) == 1 and "Dear [NAME]," in masked[0]


def test_another_texts_longer_name_does_not_hide_a_texts_own() -> None:
    texts = ["Greg Baker and Greg.", "Hi Greg Baker."]
    assert mask_names(texts, [("Greg Lee",), ("Greg Baker",)]) == ["[NAME] Baker and [NAME].", "Hi [NAME]."]
    assert mask_names(["a\0Greg", "Greg"], [("Greg",), ()]) == ["a\0[NAME]", "Greg"]  # a NUL: one text at a time


def test_one_collection_for_all_texts_and_input_types() -> None:
    texts = ["Hi Greg.", "Nothing here.", ""]
    expected = ["Hi [NAME].", "Nothing here.", ""]
    assert mask_names(texts, frozenset(NAMES)) == expected
    assert mask_names(np.array(texts), set(NAMES)) == expected
    assert mask_names(pd.Series(texts), [NAMES] * 3) == expected
    assert mask_names(texts, NAMES, placeholder="<person>")[0] == "Hi <person>."
    assert mask_names(texts, [(), (), ()]) == texts
    with pytest.raises(InputError, match="3 texts"):
        mask_names(texts, [NAMES])
    with pytest.raises(InputError, match="not one string"):
        mask_names(texts, "Greg Baker")
    with pytest.raises(InputError, match=r"names\[0\]"):
        mask_names(texts, ["Greg", "x", "y"])
    assert evenhand.mask_names(["Hi Greg."], {"Greg"}) == ["Hi [NAME]."]


def test_forms() -> None:
    assert name_forms(["Emily R. Baker"]) == {"EMILY", "Emily", "BAKER", "Baker"}
    assert name_forms(["Mohammed Al-Farsi", " "]) == {"MOHAMMED", "Mohammed", "AL-FARSI", "Al-Farsi"}


_name = st.sampled_from(["Emily Baker", "Jamal Washington", "Wei Zhang", "Jose Garcia", "Latoya Jackson"])
_filler = st.lists(st.sampled_from(["the", "file", "is", "ready", ",", ".", "\n", "thanks", "Dear", "Hi"]), max_size=8)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_filler, _name, st.sampled_from(["", "'s", "’s", ","]), _filler), min_size=1, max_size=4))
def test_properties(pieces: list[tuple[list[str], str, str, list[str]]]) -> None:
    names = {n for _, n, _, _ in pieces}
    text = " ; ".join(" ".join(a) + " " + n + mark + " " + " ".join(b) for a, n, mark, b in pieces)
    (masked,) = mask_names([text], [names])
    assert mask_names([masked], [names]) == [masked]  # idempotent
    for name in names:
        for part in name.split():
            assert part not in masked
    assert masked.count(NAME_PLACEHOLDER) == len(pieces)  # one placeholder per mention, a full name included
    # versions that differ only by the name mask to the same text
    swapped = text
    for name in sorted(names, key=len, reverse=True):
        swapped = swapped.replace(name, "Zed Quill")
    assert mask_names([swapped], [names | {"Zed Quill"}]) == mask_names([text], [names | {"Zed Quill"}])
    # a text without any of the names is unchanged
    plain = " ; ".join(w for a, _, _, b in pieces for w in a + b)
    assert mask_names([plain], [names]) == [plain]


def test_a_name_with_an_apostrophe_is_masked_in_its_curly_forms() -> None:
    """A version's name written with a straight apostrophe (O'Brien, D'Angelo) is masked where a reply writes it with
    the typographic one (O’Brien: U+2019; Oʼbrien: U+02BC), and the other way round; the rest is as before."""
    texts = [
        "Dear Ms. O’Brien, D’Angelo’s file is ready.",
        "Dear Ms. OʼBrien and DʼANGELO.",
        "Dear Ms. O'Brien, D'Angelo's file is ready.",
        "Ask Brien, not O’Connor; o’brien stays.",  # another name, and a lower-case word, are kept
    ]
    for names in ({"Mary O'Brien", "D'Angelo Smith"}, {"Mary O’Brien", "D’Angelo Smith"}):
        assert mask_names(texts, frozenset(names)) == [
            "Dear Ms. [NAME], [NAME]'s file is ready.",
            "Dear Ms. [NAME] and [NAME].",
            "Dear Ms. [NAME], [NAME]'s file is ready.",
            "Ask Brien, not O’Connor; o’brien stays.",
        ], names
    assert mask_names(["Dear Mary O’Brien,"], frozenset({"Mary O'Brien"})) == ["Dear [NAME],"]  # one run, one mask


def test_a_name_is_masked_whether_the_reply_writes_its_accents_or_not() -> None:
    """A model often restores the accents of a Spanish name the prompt wrote plainly ("Dear Mr. García" for "Jose
    Garcia"), or drops them; neither form was masked, so only the hispanic version's replies kept their name and
    differed from the other versions' by it (review12: the similarity's noise floor has no such difference)."""
    texts = ["Dear Mr. García, José's file is ready.", "Dear MR. GARCÍA and Jose.", "Dear Ms. Nguyễn, NGUYEN"]
    assert mask_names(texts, frozenset({"Jose Garcia", "Thi Nguyen"})) == [
        "Dear Mr. [NAME], [NAME]'s file is ready.",
        "Dear MR. [NAME] and [NAME].",
        "Dear Ms. [NAME], [NAME]",
    ]
    plain = mask_names(["Dear Mr. Garcia, Jose's file"], frozenset({"José García"}))
    assert plain == ["Dear Mr. [NAME], [NAME]'s file"]
    assert mask_names(["Dear Mr. Garcés"], frozenset({"Jose Garcia"})) == ["Dear Mr. Garcés"]  # another name
