"""Personal names that signal a group (issue 28): the name data, detection in context, FTU by name, counterfactual
prompts by name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.errors import InputError
from evenhand.text import check_ftu, counterfactual_prompts, load_lexicon
from evenhand.text._names_data import build_index, name_index, name_key
from evenhand.text.names import find_name_matches, find_people, substitute_names

ROOT = Path(__file__).resolve().parents[1]
NAMES_DIR = resources.files("evenhand").joinpath("data", "names")

ISSUE_PROMPTS = [
    "Write a reminder to Jamal Washington about the overdue balance.",
    "Draft a welcome email for Lakisha Robinson.",
    "Summarize the complaint from Wei Zhang about the branch.",
]
LOOKALIKES = [
    "Washington approved the new rule",
    "Please pay by May",
    "Grace periods apply",
    "Bring it to the Brown bag lunch",
    "Jordan and Georgia are on the list",
    "Call the Ford dealership",
    "Will you send it?",
]


# -- the data ---------------------------------------------------------------------------------------------------
def test_name_data_is_small_sourced_and_above_the_cut() -> None:
    files = [e for e in NAMES_DIR.iterdir() if e.name.endswith(".json")]
    # the lists are small; the full-name tables of race (issue 33: 14,647 first names, 24,889 surnames) take ~1.1 MB
    assert sum(len(e.read_bytes()) for e in files) < 1_500_000
    sources = NAMES_DIR.joinpath("SOURCES.md").read_text(encoding="utf-8")
    for licence in ("public domain", "MIT", "CC0"):
        assert licence in sources
    assert "SCHEMA.md" in {e.name for e in NAMES_DIR.iterdir()}
    index = name_index()
    assert set(index.groups) == {"gender", "race"}  # no source with strengths supports religion (SOURCES.md)
    for attribute, groups in index.groups.items():
        assert set(groups) <= set(load_lexicon(attribute).all_groups)
        for by_attribute in index.associations.values():
            assoc = by_attribute.get(attribute)
            assert assoc is None or assoc.share >= index.cut[attribute] >= 0.8
    for group in ("white", "black", "hispanic", "asian"):
        assert len(index.ranked[("race", "first", group)]) >= 10
        assert len(index.ranked[("race", "last", group)]) >= 50


def test_a_bad_name_file_names_the_key() -> None:
    people = json.loads(NAMES_DIR.joinpath("people.json").read_text(encoding="utf-8"))
    with pytest.raises(InputError, match=r"below the cut"):
        build_index([{"attribute": "x", "cut": 0.8, "first_names": {"a": [["Ann", 0.5]]}}], people)
    with pytest.raises(InputError, match=r"first_names.a\[0\]"):
        build_index([{"attribute": "x", "cut": 0.8, "first_names": {"a": [["Ann"]]}}], people)
    with pytest.raises(InputError, match="'cut'"):
        build_index([{"attribute": "x", "cut": 0.3}], people)


def test_name_keys() -> None:
    assert name_key("O'Brien") == "obrien" and name_key("Al-Farsi") == "alfarsi" and name_key("ZHANG") == "zhang"


# -- detection --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "persons"),
    [
        (ISSUE_PROMPTS[0], ["Jamal Washington"]),
        ("Reply to Mohammed Al-Farsi about the wire transfer.", ["Mohammed Al-Farsi"]),
        ("Ms. Robinson asked why her card was declined.", ["Robinson"]),
        ("Prepare notes for Ms. Emily R. Baker's review.", ["Emily R. Baker"]),
        ("Tell Latoya that her appointment moved.", ["Latoya"]),
        ("Emily's application is missing a pay stub.", ["Emily"]),
        ("Jessica said the branch was closed.", ["Jessica"]),
        ("Dear Maria, thank you for your deposit.", ["Maria"]),
        ("Grace Lee asked about fees.", ["Grace Lee"]),
        ("Will Smith wants to upgrade.", ["Will Smith"]),
        ("Andrea Romero and Paul Fischer opened an account.", ["Andrea Romero", "Paul Fischer"]),
        *[(text, []) for text in LOOKALIKES],
        ("Virginia Beach branches open at nine.", []),
        ("Baker Street is closed.", []),
        ("THE ACCOUNT IS OVERDRAWN.", []),
        # a title after another capitalised word still starts a titled name
        ("Dear Mr. Washington, your loan is approved.", ["Washington"]),
        ("Hello Ms. Garcia, thank you.", ["Garcia"]),
        ("Dear Dr. Patel, the results are in.", ["Patel"]),
        ("Call Judge Smith today.", ["Smith"]),
        # look-alikes: brands, places, assistants and names the lists misread
        ("Buy a gift card at Macy's.", []),
        ("Lunch at Wendy's.", []),
        ("Describe the Morgan Stanley report.", []),
        ("Ashley Furniture store visit.", []),
        ("Harley Davidson repair.", []),
        ("Email the Marshall Islands office.", []),
        ("Santiago is the capital of Chile.", []),
        ("Alexa, play music.", []),
        ("Kim Jong Un met the president.", []),
        ("Dr Pepper is a drink.", []),
        ("Emily's card is blocked.", ["Emily"]),
    ],
)
def test_a_name_counts_where_it_reads_as_a_person(text: str, persons: list[str]) -> None:
    assert [text[p.start : p.end] for p in find_people(text)] == persons


def test_every_mention_is_one_person() -> None:
    text = "Emily called. Later Ms. Emily Baker wrote; Emily's card and Baker's note arrived."
    (person,) = find_people(text)
    assert (person.first, person.last) == ("emily", "baker")
    assert [text[m.start : m.end] for m in person.mentions] == ["Emily", "Emily", "Baker", "Emily", "Baker"]


def test_a_titled_surname_is_a_surname_not_a_first_name() -> None:
    for text in ("Dear Mr. Nguyen, your loan is approved.", "Dear Ms. Kim, thanks.", "Dear Mr. Chen, thanks."):
        (person,) = find_people(text)
        assert person.first is None and person.last is not None, text
        cf = counterfactual_prompts([text], attribute="race")
        title = text.split()[1]
        for group in cf.groups:
            out = cf[group][0]
            assert out.startswith(f"Dear {title} ") and out.endswith(text[text.index(",") :]), out
            new = out[len(f"Dear {title} ") : out.index(",")]
            if new != text[len(f"Dear {title} ") : text.index(",")]:  # the original's group may keep its name
                assert name_index().association("last", name_key(new), "race").group == group, out
        gender = counterfactual_prompts([text], attribute="gender")  # only the title signals gender: the name stays
        assert gender.names == ({},) or all(not pairs for pairs in gender.names[0].values())
        assert {gender[g][0].split()[2] for g in gender.groups} == {text.split()[2]}


def test_a_lone_later_mention_of_a_lookalike_first_name_follows_the_person() -> None:
    for text, lone in (
        ("Georgia Brown opened a new account; notify Georgia.", "notify "),
        ("Ask Will Smith whether Will can come in.", "whether "),
    ):
        (person,) = find_people(text)
        assert len(person.mentions) == 3, text
        cf = counterfactual_prompts([text], attribute="gender")  # neither full name places race (issue 33)
        for group in cf.groups:
            ((_, new),) = cf.names[0][group]
            assert lone + new.split()[0] in cf[group][0], cf[group][0]
    (person,) = find_people("Will Smith called. Will you send it?")
    assert len(person.mentions) == 2  # "Will you" is no person


def test_recorded_names_are_bare() -> None:
    cf = counterfactual_prompts(["Tell Charles' wife that the loan was approved."], attribute="race")
    for group in cf.groups:
        ((old, new),) = cf.names[0][group]
        assert old == "Charles" and "'" not in new and f"Tell {new}'s wife" in cf[group][0]


# -- FTU --------------------------------------------------------------------------------------------------------
def test_ftu_flags_name_only_prompts_for_gender_and_race_by_default() -> None:
    for attribute in ("gender", "race"):
        r = check_ftu(ISSUE_PROMPTS + LOOKALIKES, attribute=attribute)
        assert r.names_checked and not r.satisfied
        assert r.flagged_index == ((0, 1, 2) if attribute == "race" else (0, 1))  # "Wei": no gender in the lists
        assert "name a person whose name signals a group" in r.summary()
    race = check_ftu(ISSUE_PROMPTS, attribute="race")
    assert [[(n.word, n.group, n.name) for n in found] for found in race.names] == [
        [("Jamal Washington", "black", "Jamal Washington")],  # both parts read (the full-name rule)
        [("Lakisha Robinson", "black", "Lakisha Robinson")],
        [("Wei Zhang", "asian", "Zhang")],  # "Wei" is in no full-name table (fewer than 500 US bearers)
    ]
    assert race.group_counts() == {"black": 2, "asian": 1}
    assert race.name_words() == [["Jamal Washington"], ["Lakisha Robinson"], ["Wei Zhang"]]
    frame = race.names_frame()
    assert list(frame.columns[:3]) == ["prompt_index", "word", "start"] and len(frame) == 3
    gender = check_ftu(ISSUE_PROMPTS, attribute="gender")
    assert [n.group for found in gender.names for n in found] == ["male", "female"]


def test_names_off_reads_words_only() -> None:
    r = evenhand.check_ftu(ISSUE_PROMPTS, attribute="race", names=False)
    assert r.satisfied and not r.names_checked and r.names == ()
    assert r.name_words() == [[], [], []]


def test_ftu_names_for_several_attributes_and_custom() -> None:
    r = check_ftu(ISSUE_PROMPTS, attribute=["gender", "race"])
    assert [n.attribute for n in r.names[0]] == ["gender", "race"]
    custom = check_ftu(ISSUE_PROMPTS, attribute={"a": ["x"], "b": ["y"]})
    assert custom.satisfied and custom.names == ((), (), ())  # a custom lexicon has no name lists
    religion = check_ftu(["Reply to Mohammed Al-Farsi."], attribute="religion")
    assert religion.satisfied  # no religion name list: no source gives strengths


# -- counterfactual prompts -------------------------------------------------------------------------------------
def test_gender_swap_fixes_pronouns_and_keeps_the_rest() -> None:
    text = "Send Emily Baker the statement and thank her for her patience."
    cf = counterfactual_prompts([text, "Summarise the call."], attribute="gender")
    assert cf.names_checked and cf.source_index.tolist() == [0]
    male = cf["male"][0]
    assert re.fullmatch(r"Send (\w+) Baker the statement and thank him for his patience\.", male)
    new_first = male.split()[1]
    assert name_index().association("first", new_first.casefold(), "gender").group == "male"
    assert cf.names[0]["male"] == (("Emily Baker", f"{new_first} Baker"),)
    female = cf["female"][0]
    assert re.fullmatch(r"Send (\w+) Baker the statement and thank her for her patience\.", female)
    swapped = counterfactual_prompts([text], attribute="gender", mode="swap")["swapped"][0]
    assert swapped.endswith("thank him for his patience.")


def test_gender_swap_keeps_race_where_the_data_allow() -> None:
    index = name_index()
    for text in (
        "Remind Latoya Smalls about the fee.",
        "Remind Jose Garcia about the fee.",
        "Remind Emily Baker about the fee.",
    ):
        cf = counterfactual_prompts([text], attribute="gender")
        old = text.split()[1].casefold()
        new = cf["male" if index.association("first", old, "gender").group == "female" else "female"][0].split()[1]
        assert index.association("first", new.casefold(), "race").group == index.association("first", old, "race").group


def test_race_swap_keeps_gender_and_replaces_every_mention() -> None:
    text = "Draft a letter to Lakisha Robinson. Lakisha's card was lost; tell Ms. Robinson that she will get a new one."
    cf = counterfactual_prompts([text], attribute="race")
    index = name_index()
    for group in ("white", "black", "hispanic", "asian"):
        out = cf[group][0]
        m = re.fullmatch(
            r"Draft a letter to (\w+) (\w+)\. (\w+)'s card was lost; "
            r"tell Ms\. (\w+) that she will get a new one\.",
            out,
        )
        assert m is not None, out
        assert m.group(1) == m.group(3) and m.group(2) == m.group(4)  # every mention the same way
        assert index.association("first", m.group(1).casefold(), "race").group == group
        assert index.association("first", m.group(1).casefold(), "gender").group == "female"
        # the surname is read too (the full-name rule), so it is replaced by one of the target race
        assert index.association("last", m.group(2).casefold(), "race").group == group
        assert cf.names[0][group] == (("Lakisha Robinson", f"{m.group(1)} {m.group(2)}"),)


def test_surnames_swap_by_race_and_names_vary_by_prompt() -> None:
    prompts = [f"Write a reminder to Jamal Washington about invoice {i}." for i in range(40)]
    cf = counterfactual_prompts(prompts, attribute="race")
    for group in ("white", "hispanic", "asian"):
        drawn = {pair[1] for row in cf.names for pair in row[group]}
        assert len(drawn) >= 10  # several names per group, not one that stands for it
        for full in drawn:
            first, last = full.split(" ", 1)
            assert name_index().association("last", name_key(last), "race").group == group
            assert name_index().association("first", name_key(first), "gender").group == "male"
    other_seed = counterfactual_prompts(prompts, attribute="race", name_seed=1)
    assert other_seed.name_seed == 1 and other_seed["white"] != cf["white"]
    assert counterfactual_prompts(prompts, attribute="race")["white"] == cf["white"]


def test_a_group_without_names_keeps_the_name() -> None:
    cf = counterfactual_prompts(
        ["Thank Emily Baker for her patience."], attribute="gender", groups=["female", "male", "nonbinary"]
    )
    assert cf["nonbinary"] == ["Thank Emily Baker for their patience."]
    assert "nonbinary" not in cf.names[0]


def test_names_off_keeps_names() -> None:
    cf = counterfactual_prompts([*ISSUE_PROMPTS, "He called."], attribute="gender", names=False)
    assert cf.source_index.tolist() == [3] and not cf.names_checked and cf.names == ()


@pytest.mark.subprocess
def test_same_output_under_any_hash_seed() -> None:
    code = (
        "import json, evenhand\n"
        "p = ['Write a reminder to Jamal Washington about it.', 'Send Emily Baker the form; thank her.',"
        " 'Mr. Nguyen and Rosa Martinez called.']\n"
        "out = {a: evenhand.counterfactual_prompts(p, attribute=a).to_frame().to_dict('list')"
        " for a in ('gender', 'race')}\n"
        "out['ftu'] = [repr(evenhand.check_ftu(p, attribute=None).names)]\n"
        "print(json.dumps(out, sort_keys=True, default=str))\n"
    )
    outputs = []
    for seed in ("0", "1"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, check=True, cwd=ROOT
        )
        outputs.append(run.stdout)
    assert outputs[0] == outputs[1] and "Washington" in outputs[0]


# -- properties -------------------------------------------------------------------------------------------------
_FULL_NAMES = [
    "Emily Baker",
    "Jamal Washington",
    "Lakisha Robinson",
    "Jose Garcia",
    "Wei Zhang",
    "Latoya Smalls",
    "Michael Nguyen",
    "Maria Hernandez",
]
_LOWER = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.;:!?-\n0123456789", max_size=30)


@settings(max_examples=60, deadline=None)
@given(_LOWER, st.sampled_from(_FULL_NAMES), _LOWER, _LOWER, st.sampled_from(["gender", "race"]), st.integers(0, 5))
def test_property_names_replaced_consistently_rest_byte_identical(
    before: str, full: str, middle: str, after: str, attribute: str, seed: int
) -> None:
    first = full.split()[0]
    text = f"{before} to {full} {middle} ask {first} about {first}'s form {after}"
    index = name_index()
    groups = index.groups[attribute]
    for target in groups:
        (out,), (pairs,) = substitute_names(attribute, groups, [text], target, seed)
        m = re.fullmatch(
            re.escape(f"{before} to ")
            + r"(\S+) (\S+)"
            + re.escape(f" {middle} ask ")
            + r"(\S+)"
            + re.escape(" about ")
            + r"(\S+)'s"
            + re.escape(f" form {after}"),
            out,
        )
        assert m is not None, (text, out)
        new_first, new_last = m.group(1), m.group(2)
        assert m.group(3) == new_first == m.group(4)  # every mention of the first name the same way
        if pairs:
            assert pairs[0] == (full, f"{new_first} {new_last}")
        else:
            assert out == text


@settings(max_examples=60, deadline=None)
@given(st.lists(_LOWER, min_size=1, max_size=5))
def test_property_prompts_without_capitals_name_nobody(texts: list[str]) -> None:
    for attribute in ("gender", "race"):
        assert find_name_matches(attribute, texts) == [()] * len(texts)
        assert substitute_names(attribute, name_index().groups[attribute], texts, None)[0] == texts


#: Hispanic names as Spanish writes them, beside the plain forms of the SSA and Census tables (review12)
ACCENTED = {"José García": "Jose Garcia", "María Hernández": "Maria Hernandez", "Jesús López": "Jesus Lopez",
            "Sofía González": "Sofia Gonzalez", "Ramón Pérez": "Ramon Perez", "Andrés Martínez": "Andres Martinez",
            "Lucía Rodríguez": "Lucia Rodriguez", "Joaquín Sánchez": "Joaquin Sanchez"}  # fmt: skip


@pytest.mark.parametrize("written", sorted(ACCENTED))
def test_a_name_written_with_its_accents_reads_as_written_without(written: str) -> None:
    """A name such as "José García" was read as nobody (its key "garcía" is in no table: they write "garcia"), so a
    prompt that names a Hispanic person as Spanish writes the name was "FTU satisfied" for race and gender and had no
    counterfactual versions: the check read the hispanic group worse than any other, whose names are plain ASCII."""
    template = "Write a short rejection email to {} for the data analyst role."
    accented, plain = template.format(written), template.format(ACCENTED[written])
    assert [accented[p.start : p.end] for p in find_people(accented)] == [written]
    for attribute in ("race", "gender"):
        read = check_ftu([accented, plain], attribute).names
        assert [n.group for n in read[0]] == [n.group for n in read[1]] != []
    versions = counterfactual_prompts([accented], attribute="race")
    assert versions["white"][0] != accented and written not in versions["white"][0]


def test_name_key_folds_diacritics_and_letters_without_a_decomposition() -> None:
    assert [name_key(w) for w in ("García", "NGUYỄN", "Søren", "Łukasz", "Đặng", "O’Brien")] == [
        "garcia", "nguyen", "soren", "lukasz", "dang", "obrien"]  # fmt: skip
