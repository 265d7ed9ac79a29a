"""left18 (names18's leftover): a stated range after a noun that is itself an age group ("pensioners between 65 and
80", "retirees over 65") was left unread while the noun was swapped, so the young version read "young adults between
65 and 80". The range is now read after the file's group terms too and swapped with the noun in every version."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text import counterfactual_prompts

SWAPPED = [
    ("We offer a discount to pensioners between 65 and 80 who apply online.", "between 65 and 80"),
    ("Our club is for retirees over 65.", "over 65"),
    ("Write an offer for young adults between 18 and 24.", "between 18 and 24"),
]


@pytest.mark.parametrize(("prompt", "stated"), SWAPPED)
def test_a_range_after_a_group_noun_is_swapped_with_it(prompt: str, stated: str) -> None:
    assert stated in [m.word for m in evenhand.check_ftu([prompt], "age").matches[0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "age")
    young, middle, old = (cf[g][0] for g in ("young", "middle_aged", "old"))
    assert "young adults between 18 and 29" in young, young
    assert "middle-aged adults between 40 and 54" in middle, middle
    assert "over 65" in old and "between 65 and 80" not in young + middle, (young, middle)


@pytest.mark.parametrize(
    "prompt",
    [
        "Write an offer for teenagers between 13 and 17.",  # a child's range, kept as written: no version may swap
        "The seniors between 65 and 80 asked about the plan.",  # no clause ends after the range: it is not read
    ],
)
def test_a_range_the_versions_cannot_swap_with_the_noun_leaves_the_prompt_without_versions(prompt: str) -> None:
    with pytest.warns(UserWarning, match="state an age right after a word of age"):
        cf = counterfactual_prompts([prompt, "Write an offer for seniors."], "age")
    assert cf.source_index.tolist() == [1]  # said, and the other prompt keeps its versions
