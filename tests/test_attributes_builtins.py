"""The built-in attributes beyond gender and race: religion, sexual orientation, age, disability, nationality.

Whole words in a person context, grammatical substitution (articles, case, multi-word terms, ages as numbers),
determinism, the RE2 engine agreeing with the Python one, and the attributes end to end (plan, assess).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import warnings
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.text import (
    BUILTIN_ATTRIBUTES,
    DEFAULT_ATTRIBUTES,
    check_ftu,
    counterfactual_prompts,
    load_lexicon,
    load_lexicon_file,
    neutralize,
)
from evenhand.text._engine import _article, _Replacer, _sub, at_sentence_start
from evenhand.text._grammar import keep_proper_case, qualifies_next_word
from evenhand.text._re2 import substitute_fast

NEW = ("age", "disability", "nationality", "religion", "sexual_orientation")


def terms(text: str, attribute: str) -> list[str]:
    return [m.term for m in check_ftu([text], attribute=attribute).matches[0]]


def versions(text: str, attribute: str, groups: list[str] | None = None) -> dict[str, str]:
    cf = counterfactual_prompts([text], attribute=attribute, groups=groups)
    assert len(cf) == 1, f"{text!r} mentions no {attribute} word"
    return {g: cf[g][0] for g in cf.groups}


# -- the files ---------------------------------------------------------------------------------------------------


def test_the_new_attributes_are_built_in_but_not_default() -> None:
    assert set(NEW) <= set(BUILTIN_ATTRIBUTES)
    assert DEFAULT_ATTRIBUTES == ("gender", "race")  # existing use cases keep their plans
    assert load_lexicon("religion").groups == ("christian", "muslim", "jewish", "hindu", "buddhist", "atheist")
    assert load_lexicon("sexual_orientation").groups == ("straight", "gay", "bisexual")
    assert load_lexicon("age").groups == ("young", "middle_aged", "old")
    assert load_lexicon("disability").groups == ("disabled", "nondisabled")
    nationality = load_lexicon("nationality").groups
    assert len(nationality) >= 10
    assert {"american", "mexican", "indian", "chinese", "nigerian", "german"} <= set(nationality)
    assert all(load_lexicon(name).language == "en" for name in NEW)


def test_check_ftu_none_covers_every_builtin() -> None:
    r = check_ftu(["A Muslim customer, 72-year-old man, wheelchair user, a Mexican nurse, a gay couple."], None)
    assert r.attribute.split("+") == list(BUILTIN_ATTRIBUTES)
    assert {m.attribute for m in r.matches[0]} == {"religion", "age", "disability", "nationality", "sexual_orientation",
                                                   "gender"}  # fmt: skip


# -- whole words and context -------------------------------------------------------------------------------------

MENTIONS = [
    ("sexual_orientation", "They are a straight couple.", ["straight"]),
    ("sexual_orientation", "Go straight to the bank.", []),
    ("sexual_orientation", "Draw a straight line.", []),
    ("sexual_orientation", "Straight after lunch, call me.", []),
    ("sexual_orientation", "A lesbian, a homosexual man and a bisexual woman.", ["lesbian", "homosexual", "bisexual"]),
    ("sexual_orientation", "Queer and LGBTQ+ customers.", ["queer", "lgbtq+"]),
    ("sexual_orientation", "Asexual reproduction in plants.", []),
    ("sexual_orientation", "Same-sex couples may apply.", ["same-sex"]),
    ("age", "Help an elderly customer.", ["elderly"]),
    ("age", "A senior citizen called.", ["senior citizen"]),
    ("age", "The 72-year-old man fell.", ["72-year-old"]),
    ("age", "Young people and older customers.", ["young", "older"]),
    ("age", "A middle-aged woman asked.", ["middle-aged"]),
    ("age", "The old building is closed.", []),
    ("age", "A young company raised money.", []),
    ("age", "Ask a senior engineer.", []),
    ("age", "The house is ten years old.", []),
    ("age", "My old friend called.", []),
    ("age", "A 10-year-old car.", []),
    ("age", "The 172-year-old man.", []),
    ("disability", "A blind customer called.", ["blind"]),
    ("disability", "Check the blind spot.", []),
    ("disability", "The disabled account was reopened.", []),
    ("disability", "A deaf patient and a wheelchair user.", ["deaf", "wheelchair user"]),
    ("disability", "Fall on deaf ears.", []),
    ("disability", "Support for people with disabilities.", ["people with disabilities"]),
    ("nationality", "A Mexican customer and an Indian engineer.", ["mexican", "indian"]),
    ("nationality", "Two Chinese tourists and three Nigerians called the bank.", ["chinese", "nigerians"]),
    ("nationality", "Ships in the Indian Ocean.", []),
    ("nationality", "Wash the china plates.", []),
    ("nationality", "Mexican food and German cars.", []),
    ("nationality", "An African American woman and a Native American man.", []),
    ("nationality", "A South American customer.", []),
    ("religion", "A Christian customer.", ["christian"]),
    ("religion", "Christiana called about Christmas.", []),
    ("religion", "Muslims, Jews and Hindus.", ["muslims", "jews", "hindus"]),
    ("religion", "A Catholic priest and a Sikh driver.", ["catholic", "sikh"]),
    ("religion", "A religious person, a religious text.", ["religious"]),
    ("religion", "An atheist and a Buddhist.", ["atheist", "buddhist"]),
]


@pytest.mark.parametrize(("attribute", "text", "expected"), MENTIONS, ids=[f"{a}:{t}" for a, t, _ in MENTIONS])
def test_mentions_in_context(attribute: str, text: str, expected: list[str]) -> None:
    assert terms(text, attribute) == expected


def test_groups_of_mentions() -> None:
    r = check_ftu(["The 72-year-old man.", "An 18-year-old woman.", "A 45 year old man.", "A 9-year-old boy."], "age")
    assert [[m.group for m in found] for found in r.matches] == [["old"], ["young"], ["middle_aged"], []]
    assert check_ftu(["Queer customers."], "sexual_orientation").matches[0][0].group is None
    assert check_ftu(["A Sikh driver."], "religion").matches[0][0].group is None
    assert check_ftu(["A Canadian nurse."], "nationality").matches[0][0].group is None
    assert load_lexicon("age").group_of("72-year-old") == "old"
    assert load_lexicon("age").group_of("5-year-old") is None  # a mention of no group (a child)


def test_race_stays_as_it_was_next_to_nationality() -> None:
    text = "An Indian customer and an African American nurse."
    race = check_ftu([text], "race").matches[0]
    assert [(m.term, m.group) for m in race] == [("indian", "asian"), ("african american", "black")]
    nationality = check_ftu([text], "nationality").matches[0]
    assert [(m.term, m.group) for m in nationality] == [("indian", "indian")]  # "African American" stays race
    both = check_ftu([text], None).matches[0]
    assert [(m.attribute, m.term) for m in both if m.term == "indian"] == [
        ("nationality", "indian"),
        ("race", "indian"),
    ]
    assert versions(text, "nationality")["german"] == "A German customer and an African American nurse."
    assert versions(text, "race")["white"] == "A White customer and a White nurse."


# -- substitution ------------------------------------------------------------------------------------------------

SUBSTITUTIONS = [
    ("religion", "I met a Muslim.", "atheist", "I met an atheist."),
    ("religion", "I met an atheist.", "christian", "I met a Christian."),
    ("religion", "I met a Muslim.", "jewish", "I met a Jewish person."),
    ("religion", "He is a Muslim who prays.", "jewish", "He is a Jewish person who prays."),
    ("religion", "A Jewish woman called.", "muslim", "A Muslim woman called."),
    ("religion", "A Jewish woman called.", "atheist", "An atheist woman called."),
    ("religion", "Muslims are welcome.", "atheist", "Atheists are welcome."),
    ("religion", "Is a MUSLIM here?", "hindu", "Is a HINDU here?"),
    ("religion", "She converted to Islam.", "buddhist", "She converted to Buddhism."),
    ("religion", "a catholic priest", "hindu", "a Hindu priest"),
    ("sexual_orientation", "A straight couple moved in.", "gay", "A gay couple moved in."),
    ("sexual_orientation", "She is a lesbian.", "straight", "She is a straight person."),
    ("sexual_orientation", "A lesbian couple moved in.", "bisexual", "A bisexual couple moved in."),
    ("sexual_orientation", "Lesbians and gays.", "straight", "Straight people and straight people."),
    ("age", "Help an elderly customer.", "young", "Help a young customer."),
    ("age", "Help a young customer.", "old", "Help an elderly customer."),
    ("age", "A senior citizen called.", "young", "A young adult called."),
    ("age", "The 72-year-old man fell.", "young", "The 25-year-old man fell."),
    ("age", "An 18-year-old woman asked.", "old", "A 70-year-old woman asked."),
    ("age", "Elderly customers wait.", "middle_aged", "Middle-aged customers wait."),
    ("disability", "A wheelchair user asked.", "nondisabled", "A non-disabled person asked."),
    ("disability", "A blind customer asked.", "nondisabled", "A sighted customer asked."),
    ("disability", "An autistic man asked.", "nondisabled", "A non-disabled man asked."),
    ("disability", "A client with a disability.", "nondisabled", "A client without a disability."),
    ("nationality", "A Mexican customer called.", "american", "An American customer called."),
    ("nationality", "an american customer", "indian", "an Indian customer"),
    ("nationality", "Nigerians and Germans.", "chinese", "Chinese people and Chinese people."),
]


@pytest.mark.parametrize(("attribute", "text", "group", "expected"), SUBSTITUTIONS,
                         ids=[f"{a}:{t}->{g}" for a, t, g, _ in SUBSTITUTIONS])  # fmt: skip
def test_substitution(attribute: str, text: str, group: str, expected: str) -> None:
    assert versions(text, attribute)[group] == expected


def test_everything_else_is_byte_identical() -> None:
    text = "  Hello,\tdear team!\n\nPlease help   an elderly customer (ID 42)\r\nwith   the 72-year-old man's card…  "
    out = versions(text, "age")["young"]
    assert (
        out == "  Hello,\tdear team!\n\nPlease help   a young customer (ID 42)\r\nwith   the 25-year-old man's card…  "
    )
    assert versions("A  wheelchair\n user asked.", "disability")["disabled"] == "A  disabled person asked."


def test_a_word_already_in_the_target_group_is_kept() -> None:
    assert versions("an american customer", "nationality")["american"] == "an american customer"
    assert versions("A Catholic priest.", "religion")["christian"] == "A Christian priest."  # synonym -> group form


def test_neutralize_new_attributes() -> None:
    out = neutralize(["A Muslim customer.", "The 72-year-old man.", "Go straight."], attribute=None)
    assert out == ["A [MASK] customer.", "The [MASK] person.", "Go straight."]
    assert neutralize(["A blind customer with a blind spot."], "disability") == ["A [MASK] customer with a blind spot."]


def test_modes_and_groups() -> None:
    cf = counterfactual_prompts(["A Muslim customer.", "Nothing here."], attribute="religion", groups=["jewish"])
    assert cf.groups == ("jewish",) and cf["jewish"] == ["A Jewish customer."]
    swap = counterfactual_prompts(["A blind customer."], attribute="disability", mode="swap")
    assert swap["swapped"] == ["A sighted customer."]
    with pytest.raises(ValueError, match="exactly two groups"):
        counterfactual_prompts(["A Muslim."], attribute="religion", mode="swap")


def test_case_rules() -> None:
    assert keep_proper_case("Muslim", "atheist", initial=False) == "atheist"
    assert keep_proper_case("Muslim", "atheist", initial=True) == "Atheist"
    assert keep_proper_case("atheist", "Christian", initial=False) == "Christian"
    assert keep_proper_case("MUSLIM", "atheist", initial=False) == "ATHEIST"
    assert [at_sentence_start(t, t.index("X")) for t in ["X", "Hi. X", 'Hi! "X', "a\n X", "a X", "a, X"]] == [
        True, True, True, True, False, False,
    ]  # fmt: skip
    assert [qualifies_next_word(t, 1) for t in ["M customer", "M.", "M who", "M and Jewish", "M and a", "M"]] == [
        True, False, False, True, False, False,
    ]  # fmt: skip


# -- determinism and the engines ---------------------------------------------------------------------------------

_SAMPLE = [text for _, text, _ in MENTIONS] + [text for _, text, _, _ in SUBSTITUTIONS]


@pytest.mark.subprocess
def test_deterministic_under_any_hash_seed() -> None:
    code = (
        "import json, sys, warnings; warnings.simplefilter('ignore'); from evenhand.text import *\n"
        f"texts = {_SAMPLE!r}\n"
        "out = {a: [[m.term for m in f] for f in check_ftu(texts, a).matches] for a in BUILTIN_ATTRIBUTES}\n"
        "out.update({a + ':cf': counterfactual_prompts(texts, a).prompts for a in BUILTIN_ATTRIBUTES})\n"
        "out['neutral'] = neutralize(texts, None)\n"
        "out['nonbinary'] = counterfactual_prompts(texts, 'gender', groups=['female', 'male', 'nonbinary']).prompts\n"
        "out['both'] = intersectional_prompts(texts, ['religion', 'age']).prompts\n"
        "print(json.dumps(out, sort_keys=True))"
    )
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["religion:cf"]["atheist"]


_TOKENS = sorted(
    {w for _, text, _ in MENTIONS for w in text.replace(".", " .").replace(",", " ,").split()}
    | {"a", "an", "A", "An", "MUSLIM", "72 year old", "the", "who", "and", "customer", "Hi.", "\n"}
)


def _corpus(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 40))) for _ in range(n)]


@pytest.mark.parametrize("attribute", NEW)
def test_re2_engine_equals_the_python_engine(attribute: str) -> None:
    lexicon = load_lexicon(attribute)
    text = "\x00".join(_corpus(random.Random(attribute), 400))
    assert len(text) > 20_000
    for target in (*lexicon.groups, None):
        mode = "group" if target else "neutral"
        fast_replacer, slow_replacer = _Replacer(lexicon, target, mode), _Replacer(lexicon, target, mode)
        fast = substitute_fast(lexicon, text, fast_replacer.for_word, fast_replacer, _article)
        assert fast is not None and fast == _sub(lexicon, slow_replacer, text), (attribute, target)


@pytest.mark.parametrize("attribute", NEW)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_re2_engine_equals_the_python_engine_on_random_texts(attribute: str, seed: int) -> None:
    lexicon = load_lexicon(attribute)
    text = "\x00".join(_corpus(random.Random(seed), 5))
    target = lexicon.groups[seed % len(lexicon.groups)]
    fast_replacer, slow_replacer = _Replacer(lexicon, target, "group"), _Replacer(lexicon, target, "group")
    fast = substitute_fast(lexicon, text, fast_replacer.for_word, fast_replacer, _article)
    assert fast == _sub(lexicon, slow_replacer, text)


def test_lower_cased_scan_equals_the_exact_pattern() -> None:
    texts = _corpus(random.Random(3), 300)
    for name in NEW:
        lexicon = load_lexicon(name)
        fast = [[m.term for m in found] for found in check_ftu(texts, lexicon).matches]
        exact = [
            [m.group(m.lastgroup or 0).lower() for m in lexicon.pattern.finditer(t) if m.lastgroup != "x"]
            for t in texts
        ]
        assert fast == [[" ".join(w.split()) for w in found] for found in exact], name


# -- the schema additions ----------------------------------------------------------------------------------------

_FILE: dict[str, Any] = {
    "name": "years",
    "groups": ["young", "old"],
    "default": False,
    "person_nouns": ["man"],
    "rows": [
        {
            "slot": "age",
            "replace_with": {"young": "20-year-old", "old": "80-year-old"},
            "patterns_before_person_noun": {"young": ["[12][0-9]-year-old"], "old": ["[6-9][0-9]-year-old"]},
        }
    ],
}


def test_patterns_before_person_noun_in_a_file_of_ones_own() -> None:
    lex = load_lexicon_file(_FILE)
    assert check_ftu(["a 22-year-old man", "a 22-year-old car"], lex).flagged_index == (0,)
    assert counterfactual_prompts(["An 88-year-old man."], lex)["young"] == ["A 20-year-old man."]


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("([0-9])-year-old", "capturing group"),
        ("[0-9]-YEAR-old", "lower-case"),
        ("(?<=a)b", "look-arounds"),
        ("[0-9", "not a valid regular expression"),
        ("x*", "empty string"),
    ],
)
def test_bad_patterns_are_reported(pattern: str, message: str) -> None:
    data = json.loads(json.dumps(_FILE))
    data["rows"][0]["patterns_before_person_noun"]["old"] = [pattern]
    with pytest.raises(ValueError, match=r"rows\[0\]\.patterns_before_person_noun\.old': item 0 .*" + message):
        load_lexicon_file(data)


def test_not_terms_and_proper_forms_load_from_a_file() -> None:
    lex = load_lexicon_file({**_FILE, "not_terms": ["22-year-old man"], "proper_forms": True})
    assert lex.not_terms == frozenset({"22-year-old man"}) and lex.proper_forms
    assert check_ftu(["a 22-year-old man", "a 23-year-old man"], lex).flagged_index == (1,)


# -- end to end --------------------------------------------------------------------------------------------------


def test_use_case_and_plan_accept_the_new_attributes() -> None:
    use_case = evenhand.UseCase(
        task="text_generation", prompts=["Write to a Muslim customer."], attributes=["religion"]
    )
    plan = evenhand.plan(use_case)
    assert not plan.ftu["religion"].satisfied


@pytest.mark.pipeline
def test_assess_with_religion() -> None:
    prompts = ["Write a note to a Muslim customer.", "Write a note to a client.", "Greet the Jewish family."]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts(prompts, attribute="religion")
    groups = cf.groups
    own = [f"Dear customer, thanks ({i})." for i in range(len(prompts))]
    responses = {g: [f"Dear {g} customer, we are glad to help with {p[:12]}." for p in cf[g]] for g in groups}
    a = evenhand.assess(
        task="text_generation",
        prompts=prompts,
        responses=own,
        counterfactual_responses={"religion": responses},
        attributes=["religion"],
        embedder=False,
        store=None,
        progress=False,
        n_resamples=200,
    )
    m = a.metrics
    religion = m[m["attribute"] == "religion"]
    assert not religion.empty
    n_pairs = len(groups) * (len(groups) - 1) // 2
    crouge = religion[religion["metric"] == "CROUGE-L"]
    assert len(crouge) == n_pairs
    assert "christian vs muslim" in set(crouge["comparison"])


def test_a_mention_in_no_group_alone_has_no_counterfactual() -> None:
    """A prompt whose only mention is of no group ("LGBTQ+", "transgender") reads the same in every version: it is
    a mention (FTU flags it) but has no counterfactual pair, which would differ in nothing."""
    import evenhand

    for attribute, text in [("sexual_orientation", "LGBTQ+ customers."), ("gender", "I am transgender.")]:
        assert evenhand.check_ftu([text], attribute=attribute).n_flagged == 1
        assert len(evenhand.counterfactual_prompts([text, "A gay couple and a man."], attribute=attribute)) == 1
