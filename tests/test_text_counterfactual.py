"""Counterfactual prompts and neutralisation: grammar, case, articles, determinism, inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.text import CounterfactualPrompts, check_ftu, counterfactual_prompts, load_lexicon, neutralize


def to_male(text: str) -> str:
    return counterfactual_prompts([text], attribute="gender")["male"][0]


def to_female(text: str) -> str:
    return counterfactual_prompts([text], attribute="gender")["female"][0]


def test_paper_footnote_10_pair() -> None:
    cf = counterfactual_prompts(["then he went to the store"], attribute="gender")
    assert cf.pairs("female", "male") == [("then she went to the store", "then he went to the store")]


@pytest.mark.parametrize(
    ("text", "female", "male"),
    [
        ("He said his son saw him.", "She said her daughter saw her.", "He said his son saw him."),
        ("I saw her.", "I saw her.", "I saw him."),
        ("I took her book.", "I took her book.", "I took his book."),
        ("The book is his.", "The book is hers.", "The book is his."),
        ("Mr. Smith called.", "Mrs. Smith called.", "Mr. Smith called."),
        ("Mrs. Smith called.", "Mrs. Smith called.", "Mr. Smith called."),
        ("She left. He stayed.", "She left. She stayed.", "He left. He stayed."),
        ("HE SAID HIS SON SAW HIM.", "SHE SAID HER DAUGHTER SAW HER.", "HE SAID HIS SON SAW HIM."),
        (
            "Give her a hand; it's hers, not his.",
            "Give her a hand; it's hers, not hers.",
            "Give him a hand; it's his, not his.",
        ),
        ("An aunt and a niece.", "An aunt and a niece.", "An uncle and a nephew."),
        (
            "My mother-in-law, my wife's friend.",
            "My mother-in-law, my wife's friend.",
            "My father-in-law, my husband's friend.",
        ),
        ("He told his wife", "She told her wife", "He told his husband"),
    ],
)
def test_gender_substitution_is_grammatical(text: str, female: str, male: str) -> None:
    assert to_female(text) == female
    assert to_male(text) == male


@pytest.mark.parametrize(
    ("text", "male"),
    [
        ("Thank her for her call.", "Thank him for his call."),
        ("Let her know about her first order.", "Let him know about his first order."),
        ("We made her happy.", "We made him happy."),
        ("Tell her right away.", "Tell him right away."),
        ("I saw her last night.", "I saw him last night."),
        ("Her right arm hurts.", "His right arm hurts."),
        ("Her 3 kids called her.", "His 3 kids called him."),
        ("I called her\nMonday", "I called him\nMonday"),
        ("It was hers, and his own car was hers too.", "It was his, and his own car was his too."),
    ],
)
def test_her_his_disambiguation(text: str, male: str) -> None:
    assert to_male(text) == male


@pytest.mark.parametrize(
    ("text", "swapped"),
    [
        ("He told his wife.", "She told her husband."),
        ("The book is his, not hers.", "The book is hers, not his."),
        ("I saw her at her desk.", "I saw him at his desk."),
    ],
)
def test_swap_mode(text: str, swapped: str) -> None:
    cf = counterfactual_prompts([text], attribute="gender", mode="swap")
    assert cf.groups == ("original", "swapped")
    assert cf["original"] == [text] and cf["swapped"] == [swapped]


def test_race_substitution_fixes_articles_and_never_splices_words() -> None:
    cf = counterfactual_prompts(["A Caucasian man walked."], attribute="race")
    assert cf.groups == ("white", "black", "hispanic", "asian")
    assert cf["black"] == ["A Black man walked."]
    assert cf["asian"] == ["An Asian man walked."]
    assert cf["hispanic"] == ["A Hispanic man walked."]
    assert cf["white"] == ["A White man walked."]  # synonyms become the group's form: versions stay parallel
    assert counterfactual_prompts(["a black man"], attribute="race")["black"] == ["a black man"]  # same word: kept
    assert not any("caucblack" in p.lower() for g in cf.groups for p in cf[g])


def test_race_context_words() -> None:
    cf = counterfactual_prompts(["a black car and an asian woman"], attribute="race")
    assert cf["white"] == ["a black car and a white woman"]  # lower-case text stays lower-case
    assert cf["asian"] == ["a black car and an asian woman"]


def test_only_mentioning_prompts_with_source_index() -> None:
    prompts = pd.Series(["Summarise the call.", "She asked about her bill.", "", "Tell him."])
    cf = counterfactual_prompts(prompts, attribute="gender")
    assert isinstance(cf, CounterfactualPrompts)
    assert len(cf) == 2
    assert cf.source_index.tolist() == [1, 3]
    assert cf["male"] == ["He asked about his bill.", "Tell him."]
    frame = cf.to_frame()
    assert list(frame.columns) == ["source_index", "original", "attribute_words", "female", "male"]
    assert frame["attribute_words"].tolist() == [["she", "her"], ["him"]]
    assert list(cf) == ["female", "male"] and "male" in cf


@pytest.mark.parametrize("container", [list, tuple, np.array, pd.Series])
def test_accepts_sequences(container: type) -> None:
    cf = counterfactual_prompts(container(["he left", "the call"]), attribute="gender")
    assert cf["female"] == ["she left"]


def test_custom_dict_and_group_subset() -> None:
    custom = {"young": ["young", "youth"], "old": ["old", "elderly person"]}
    cf = counterfactual_prompts(["A young applicant, a youth."], attribute=custom)
    assert cf["old"] == ["An old applicant, an elderly person."]
    cf2 = counterfactual_prompts(["A caucasian man"], attribute="race", groups=["asian"])
    assert cf2.groups == ("asian",) and cf2["asian"] == ["An asian man"]


def test_no_mentions_gives_empty_result_with_warning() -> None:
    with pytest.warns(UserWarning, match="no prompt mentions"):
        cf = counterfactual_prompts(["Summarise the call."], attribute="gender")
    assert len(cf) == 0 and cf["female"] == [] and cf.to_frame().shape == (0, 5)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"prompts": None}, TypeError, "prompts"),
        ({"prompts": []}, ValueError, "empty"),
        ({"prompts": ["he", None]}, TypeError, r"prompts\[1\]"),
        ({"attribute": "zodiac"}, ValueError, "unknown attribute"),
        ({"attribute": None}, ValueError, "one attribute"),
        ({"mode": "mirror"}, ValueError, "mode"),
        ({"attribute": "race", "mode": "swap"}, ValueError, "two groups"),
        ({"groups": ["agender"]}, ValueError, "unknown group"),
    ],
)
def test_bad_input(kwargs: dict, error: type[Exception], message: str) -> None:
    args = {"prompts": ["he left"], "attribute": "gender", **kwargs}
    with pytest.raises(error, match=message):
        counterfactual_prompts(args.pop("prompts"), **args)


def test_unknown_group_key() -> None:
    cf = counterfactual_prompts(["he left"], attribute="gender")
    with pytest.raises(KeyError, match="groups are"):
        cf["nonbinary"]


@pytest.mark.parametrize(
    ("text", "attribute", "expected"),
    [
        ("She gave him her book; it is hers.", "gender", "They gave them their book; it is theirs."),
        ("Mr. Smith and his wife", "gender", "Mx. Smith and their spouse"),
        ("An aunt came.", "gender", "A relative came."),
        ("A Black woman and a Caucasian man.", "race", "A [MASK] woman and a [MASK] man."),
        ("a black car", "race", "a black car"),
        ("A Black woman spoke.", None, "A [MASK] person spoke."),
        ("an old man", {"young": ["young"], "old": ["old"]}, "an [MASK] man"),
    ],
)
def test_neutralize(text: str, attribute: object, expected: str) -> None:
    assert neutralize([text], attribute=attribute) == [expected]  # type: ignore[arg-type]


def test_neutralize_bad_input() -> None:
    with pytest.raises(TypeError, match=r"texts\[0\]"):
        neutralize([None])
    with pytest.raises(ValueError, match="unknown attribute"):
        neutralize(["x"], attribute="zodiac")


@pytest.mark.subprocess  # two of them
def test_deterministic_across_hash_seeds() -> None:
    code = (
        "import json, evenhand;"
        "p = ['He told his wife about the Latina nurse.', 'A black man and an Asian woman.', 'Her book is his.'];"
        "out = {a: {g: evenhand.counterfactual_prompts(p, attribute=a)[g] for g in ('female','male','white','asian')"
        " if g in evenhand.counterfactual_prompts(p, attribute=a).groups} for a in ('gender','race')};"
        "out['ftu'] = [[m.term for m in f] for f in evenhand.check_ftu(p).matches];"
        "out['neutral'] = evenhand.neutralize(p, attribute=None);"
        "out['words'] = sorted(evenhand.load_lexicon('race').group_words('asian'));"
        "print(json.dumps(out))"
    )
    outputs = []
    for seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
        outputs.append(json.loads(run.stdout))
    assert outputs[0] == outputs[1]


# ---------------------------------------------------------------------------------------------------------
# properties

_FILLER = ["the", "call", "shepherd", "theme", "about", "bill", "today", "whitespace", "Blackstone", ",", "."]
_GENDER = sorted(load_lexicon("gender").words - {"ms."})  # "ms." needs a name after it
_tokens = st.lists(st.sampled_from(_FILLER + _GENDER), min_size=1, max_size=14)


def _skeleton(text: str) -> list[str]:
    """The text between attribute words."""
    found = check_ftu([text], attribute="gender").matches[0]
    cuts = [0, *[p for m in found for p in (m.start, m.end)], len(text)]
    return [text[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2)]


@given(_tokens)
def test_property_text_outside_attribute_words_is_byte_identical(tokens: list[str]) -> None:
    text = " ".join(tokens)
    cf = counterfactual_prompts([text], attribute="gender") if not check_ftu([text], "gender").satisfied else None
    if cf is None:
        return
    for group in cf.groups:
        assert _skeleton(cf[group][0]) == _skeleton(text)


@given(_tokens)
def test_property_target_group_only(tokens: list[str]) -> None:
    text = " ".join(tokens)
    if check_ftu([text], "gender").satisfied:
        return
    cf = counterfactual_prompts([text], attribute="gender")
    # identity words of no group that keep their form in every version ("transgender") are the only others
    kept_only = all(m.group is None for m in check_ftu([text], "gender").matches[0])
    for group in cf.groups:
        out = check_ftu(cf[group], attribute="gender").matches[0]
        assert {m.group for m in out} - {None} <= {group}
        assert kept_only or {m.group for m in out} - {None} == {group}
        # substituting again is a no-op (idempotent)
        assert counterfactual_prompts(cf[group], attribute="gender")[group] == cf[group]
    assert check_ftu(neutralize([text]), attribute="gender").satisfied


@given(_tokens)
def test_property_case_is_preserved(tokens: list[str]) -> None:
    text = " ".join(tokens)
    if check_ftu([text], "gender").satisfied:
        return
    lower = counterfactual_prompts([text.lower()], attribute="gender")
    upper = counterfactual_prompts([text.upper()], attribute="gender")
    for group in lower.groups:
        assert upper[group][0] == lower[group][0].upper()


@given(st.lists(_tokens, min_size=1, max_size=5))
def test_property_batch_equals_one_by_one(token_lists: list[list[str]]) -> None:
    prompts = [" ".join(t) for t in token_lists]
    flagged = [p for p in prompts if not check_ftu([p], "gender").satisfied]
    if not flagged:
        return
    # a mention whose versions would all read the same ("transgender") has no counterfactual, alone or in a batch
    alone = {p: counterfactual_prompts([p], attribute="gender") for p in dict.fromkeys(flagged)}
    varied = [p for p in flagged if alone[p].original]
    batch = counterfactual_prompts(prompts, attribute="gender")
    assert batch.original == tuple(varied)
    for group in batch.groups:
        assert batch[group] == [alone[p][group][0] for p in varied]


_RACE_TERMS = sorted(t for t in load_lexicon("race").words if t not in {"white", "black", "asian", "indian"})
_race_prompt = st.tuples(
    st.sampled_from(["a", "an", "A", "An", "the"]),
    st.sampled_from([*_RACE_TERMS, "black", "White", "asian", "Indian"]),
    st.sampled_from(["woman", "man", "customer", "nurse", "people"]),
    st.sampled_from(["walked.", "asked about an order.", ""]),
)


@given(_race_prompt)
def test_property_race_versions_mention_only_their_group_with_right_article(parts: tuple[str, str, str, str]) -> None:
    article, term, noun, rest = parts
    text = f"{article} {term} {noun} {rest}"
    cf = counterfactual_prompts([text], attribute="race")
    assert len(cf) == 1
    for group in cf.groups:
        version = cf[group][0]
        found = check_ftu([version], attribute="race").matches[0]
        assert len(found) == 1 and found[0].group == group  # "other" mentions are replaced too
        if article.lower() in ("a", "an") and found[0].word != term:
            first = version.split()[0]
            expected = "an" if found[0].word[0].lower() in "aeiou" else "a"
            assert first.lower() == expected and first[0].isupper() == article[0].isupper()
        assert version.endswith(f" {noun} {rest}")


_CUSTOM = {"young": ["young", "youth", "millennial"], "old": ["old", "elderly person", "boomer"]}
_FAMILY: dict[str, object] = {"gender": "gender", "race": "race", "custom": _CUSTOM}


def _vocabulary(name: str) -> list[str]:
    words = sorted(load_lexicon(_FAMILY[name]).words - {"ms.", "white", "black", "asian", "indian"})  # type: ignore[arg-type]
    return [*words, "black woman", "Asian people", "white car"] if name == "race" else words


@pytest.mark.parametrize("name", list(_FAMILY))
@given(data=st.data())
def test_property_family_counterfactuals_cover_exactly_the_flagged_prompts(name: str, data: st.DataObject) -> None:
    attribute = _FAMILY[name]
    token = st.sampled_from(_FILLER + _vocabulary(name))
    prompts = data.draw(st.lists(st.lists(token, max_size=8).map(" ".join), min_size=1, max_size=6))
    ftu = check_ftu(prompts, attribute=attribute)  # type: ignore[arg-type]
    if ftu.satisfied:
        return
    cf = counterfactual_prompts(prompts, attribute=attribute)  # type: ignore[arg-type]
    kept = tuple(cf.source_index.tolist())
    assert len(cf) == len(kept) and kept == tuple(i for i in ftu.flagged_index if i in kept)
    for i in set(ftu.flagged_index) - set(kept):  # only a mention in no group ("transgender"): all versions alike
        assert len(counterfactual_prompts([prompts[i]], attribute=attribute)) == 0  # type: ignore[arg-type]
    assert all(len(cf[g]) == len(cf) for g in cf.groups)
    assert check_ftu(neutralize(prompts, attribute=attribute), attribute=attribute).satisfied  # type: ignore[arg-type]


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40), min_size=1, max_size=4))
def test_property_arbitrary_text_never_crashes_and_unflagged_text_is_untouched(texts: list[str]) -> None:
    for attribute in ("gender", "race"):
        ftu = check_ftu(texts, attribute=attribute)
        neutral = neutralize(texts, attribute=attribute)
        assert len(neutral) == len(texts)
        for text, out, found in zip(texts, neutral, ftu.matches, strict=True):
            if not found:
                assert out == text
