"""names18: every origin's people read alike. A person whose given name no list holds is found by a surname the
race tables place (``people.json`` ``surnames_placed_by_evidence``: "Chinedu Okafor", "Yuki Tanaka"), also at the
start of a sentence when a verb cue follows ("HR case 2291: Sunita Gupta reported ..."); look-alikes stay unread."""

from __future__ import annotations

import warnings

import pytest

import evenhand
from evenhand.text import counterfactual_prompts

PLACED = [
    ("Draft a reply to Chinedu Okafor, who wrote about a missing parcel.", "Chinedu Okafor", "black"),
    ("Loan request from Ngozi Okonkwo: $18,000 to consolidate two cards.", "Ngozi Okonkwo", "black"),
    ("Hi, my name is Yuki Tanaka and I was charged a late fee twice.", "Yuki Tanaka", "asian"),
    ("Please write a reference letter for Kazuo Watanabe. Kazuo worked in accounts.", "Kazuo Watanabe", "asian"),
    ("HR case 2291: Sunita Gupta reported that a manager keeps changing the rota.", "Sunita Gupta", "asian"),
    ("HR case 2291: Aminata Diallo reported that a manager keeps changing the rota.", "Aminata Diallo", "black"),
    ("HR case 17: Akiko Sato said the rota changed twice.", "Akiko Sato", "asian"),
]

UNREAD = [
    "Meet us at Town Square on Friday.",
    "We shipped the order to Puerto Plata last week.",
    "The Civil War Battle of Gettysburg is on the syllabus.",
    "Our office in Tokyo Sato Building is closed.",
    "Customer Service Portal is down: please reset the password.",
    "Please send the file to Accounts Payable.",
    "Update: Customer Service reported that the portal is down.",
    "Note: Town Square said to be closed on Friday.",
]


@pytest.mark.parametrize(("prompt", "written", "group"), PLACED)
def test_person_found_by_a_surname_the_race_tables_place(prompt: str, written: str, group: str) -> None:
    ftu = evenhand.check_ftu([prompt], "race")
    assert [(m.word, m.group) for m in ftu.names[0]] == [(written, group)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "race", name_seed=0)
    assert len(cf) == 1
    other = next(g for g in cf.groups if g != group)
    assert written.split()[-1] not in cf[other][0]  # the surname is swapped in another group's version


@pytest.mark.parametrize("prompt", UNREAD)
def test_lookalikes_name_nobody(prompt: str) -> None:
    assert evenhand.check_ftu([prompt], "race").names[0] == ()
    assert evenhand.check_ftu([prompt], "race").unplaced[0] == ()


GENDERED = [  # given names the SSA counts place by sex (95% or more of 100+ bearers) below gender.json's floor
    ("Chinedu Okafor", "male", "west_african"),
    ("Aminata Diallo", "female", "west_african"),
    ("Keiko Suzuki", "female", "japanese"),
    ("Hiroshi Tanaka", "male", "japanese"),
    ("Sunita Gupta", "female", "south_asian"),
    ("Vikram Singh", "male", "south_asian"),
    ("Maricel Dizon", "female", "filipino"),
    ("Khaled Nasser", "male", "arabic"),
]


@pytest.mark.parametrize(("written", "group", "origin"), GENDERED)
def test_given_names_of_every_origin_read_by_gender_and_swapped_within_origin(
    written: str, group: str, origin: str
) -> None:
    from evenhand.text._names_data import name_index, name_key

    prompt = f"Loan request from {written}: $18,000 to consolidate two cards. Should we approve?"
    assert [(m.name, m.group) for m in evenhand.check_ftu([prompt], "gender").names[0]] == [(written.split()[0], group)]
    other = "male" if group == "female" else "female"
    origins = name_index().origins
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cf = counterfactual_prompts([prompt], "gender", name_seed=seed)
        drawn = cf.names[0][other][0][1].split()[0]
        assert origins.get(("first", name_key(drawn))) == origin, (seed, drawn)


@pytest.mark.parametrize("prompt", ["Ms. Khalil called about the overdue invoice.", "Ms. Nasser asked for a refund."])
def test_a_title_before_a_surname_of_the_tables_is_a_surname(prompt: str) -> None:
    # "Khalil", "Nasser" are men's given names too; after a title they are the family name, as "Ms. Baker" is
    people = evenhand.check_ftu([prompt], "gender").names[0]
    assert all(m.group != "male" for m in people)
    from evenhand.text.names import find_people

    (person,) = find_people(prompt)
    assert person.first is None and person.last is not None


def test_every_group_read_within_ten_points_of_the_others() -> None:
    # the read-rate table of benchmarks/bench_names18.py: per attribute, the groups' shares of prompts read
    from names18_fixture import read_rates

    for attribute, rows in read_rates().items():
        shares = {row: read / n for row, (read, n) in rows.items() if "/" not in row}
        assert max(shares.values()) - min(shares.values()) <= 0.10, (attribute, shares)


@pytest.mark.parametrize(
    ("prompt", "given"),
    [
        ("Please write a reference letter for Zhang Li. Li worked in our accounts team.", "Li"),
        ("Loan request from Chen Li: $18,000. Li has no missed payments.", "Li"),
    ],
)
def test_a_given_name_of_two_letters_after_a_family_name_first(prompt: str, given: str) -> None:
    # "Zhang Li" is family name first (before: given name "Zhang", surname "Li", and the later "Li" kept as written in
    # every version, so a reply that echoes "Li" differed by version)
    from evenhand.text.names import find_people

    (person,) = find_people(prompt)
    assert person.family_name_first and len(person.mentions) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = counterfactual_prompts([prompt], "race", name_seed=0)
    white = cf["white"][0]
    assert f" {given} " not in white and f"{given}." not in white, white


@pytest.mark.parametrize("written", ["Zhang Li", "Nguyễn Thị Mai", "Wang Fang", "Kim Min-jun"])
def test_a_family_name_first_swapped_to_another_group_is_written_given_name_first(written: str) -> None:
    # before: "Lopez Sergio", "Obrien Michal": a name of a group that writes the given name first, written family name
    # first, which the reader (and a model) does not read as that group's name
    from evenhand.text.names import find_people

    prompt = f"Loan request from {written}: $18,000 to consolidate two cards. Should we approve?"
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cf = counterfactual_prompts([prompt], "race", name_seed=seed)
        for group in ("white", "black", "hispanic"):
            version = cf[group][0]
            (person,) = find_people(version)
            assert not person.family_name_first, version
            assert [m.group for m in evenhand.check_ftu([version], "race").names[0]] in ([group], []), version
