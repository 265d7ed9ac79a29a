"""Whose name counts (issue 33, item 4): the subject of a prompt; the people no list can place (item 3); templates
filled with names of each group; intersections that swap names (item 5)."""

from __future__ import annotations

import pytest

from evenhand.errors import InputError
from evenhand.text import check_ftu, counterfactual_prompts, fill_templates, intersectional_prompts
from evenhand.text.name_subjects import check_subject

NOTES = "Summarise the notes: Lakisha Gadson interviewed Ahmed Hassan; his reference Greg Baker agreed."


def test_the_first_person_named_is_the_subject_by_default() -> None:
    r = check_ftu([NOTES], "race")
    assert [n.word for n in r.names[0]] == ["Lakisha Gadson"] and r.subject == "first"
    cf = counterfactual_prompts([NOTES], "race")
    for group in cf.groups:
        assert "Ahmed Hassan" in cf[group][0] and "Greg Baker" in cf[group][0]  # bystanders kept as written
        ((old, _),) = cf.names[0][group]
        assert old == "Lakisha Gadson"


def test_every_person_or_a_named_subject() -> None:
    every = counterfactual_prompts([NOTES], "race", subject="every")
    assert {old for pairs in every.names[0].values() for old, _ in pairs} == {"Lakisha Gadson", "Greg Baker"}
    assert check_ftu([NOTES], "race", subject="every").subject == "every"
    # the subject named per prompt (a column): a bystander never decides FTU
    given = check_ftu([NOTES], "race", subject=["Ahmed Hassan"])
    assert given.satisfied and given.unplaced_words() == ["Ahmed Hassan"] and given.subject == "given"
    cf = counterfactual_prompts([NOTES], "race", subject=["Greg Baker"])
    for group in cf.groups:
        assert cf[group][0].startswith("Summarise the notes: Lakisha Gadson interviewed Ahmed Hassan")
    assert check_ftu([NOTES], "race", subject=[None]).satisfied
    assert check_ftu(["Thank Ms. Washington."], "race", subject=["Ms. Washington"]).n_flagged == 1
    # a subject no list knows is found where the prompt writes it
    unknown = check_ftu(["Please thank Oluwaseun Adeyemi for the reply."], "race", subject=["Oluwaseun Adeyemi"])
    assert unknown.unplaced_words() == ["Oluwaseun Adeyemi"]


def test_a_subject_with_an_apostrophe_is_found_in_its_curly_form() -> None:
    """A subject named "Oluwaseun O'Adeyemi" (no list knows it) is found where the prompt writes "O’Adeyemi" (U+2019)
    or "OʼAdeyemi" (U+02BC), and the other way round; a prompt that writes another name still has no subject."""
    for written, given in [("O’Adeyemi", "O'Adeyemi"), ("OʼAdeyemi", "O'Adeyemi"), ("O'Adeyemi", "O’Adeyemi")]:
        prompt = f"Please thank Oluwaseun {written} for the reply."
        found = check_ftu([prompt], "race", subject=[f"Oluwaseun {given}"])
        assert found.unplaced_words() == [f"Oluwaseun {written}"], (written, given)
    other = check_ftu(["Please thank Oluwaseun O’Neill."], "race", subject=["Oluwaseun O'Adeyemi"])
    assert other.unplaced_words() == []


def test_bad_subjects() -> None:
    with pytest.raises(InputError, match="subject must be one of"):
        check_ftu([NOTES], "race", subject="last")
    with pytest.raises(InputError, match="2 people for 1 prompts"):
        check_ftu([NOTES], "race", subject=["a", "b"])
    with pytest.raises(InputError, match=r"subject\[0\]"):
        check_subject([3], 1)  # type: ignore[list-item]


def test_people_no_list_can_place() -> None:
    r = check_ftu(["Email Fatima Al-Sayed.", "Email Jamal Jones.", "Summarise the call."], "race")
    assert r.n_unplaced == 1 and r.unplaced[0][0].attribute == "race" and r.unplaced[2] == ()
    religion = check_ftu(["Email Fatima Al-Sayed.", "Email Jamal Jones."], "religion")
    assert religion.n_unplaced == 2  # no name data for religion: every named subject
    # a name signals no age or disability (people.json read_without_lists holds religion and nationality only)
    assert check_ftu(["Email Fatima Al-Sayed."], "age").n_unplaced == 0
    assert check_ftu(["Email Fatima Al-Sayed."], "disability").n_unplaced == 0
    assert check_ftu(["Email Jamal Jones."], {"a": ["x"], "b": ["y"]}).n_unplaced == 0  # a custom list: not counted
    assert check_ftu(["Email Fatima Al-Sayed."], "race", names=False).unplaced == ()
    # a prompt with a word of the attribute is not counted: "Mr." places Mr. Chen for gender, and its versions change it
    assert check_ftu(["Write to Mr. Chen about his loan."], "gender").n_unplaced == 0


def test_summary_counts_say_what_they_count() -> None:
    r = check_ftu(["Email Jamal Jones.", "Email Jamal Jones, a Black applicant."], "race")
    assert "2 name a person whose name signals a group, 1 of them with attribute words too" in r.summary()


def test_intersections_swap_names() -> None:
    cf = intersectional_prompts(["Write a rejection email to Lakisha Washington and thank her."], ["gender", "race"])
    assert len(cf) == 1 and cf.names_checked
    for group in cf.groups:
        ((old, new),) = cf.names[0][group]
        assert old == "Lakisha Washington" and new in cf[group][0]
        gender, race = group.split("+")
        r = check_ftu([cf[group][0]], ["gender", "race"])
        assert {(n.attribute, n.group) for n in r.names[0]} == {("gender", gender), ("race", race)}, cf[group][0]
        assert ("thank her" if gender == "female" else "thank him") in cf[group][0]
    words_only = intersectional_prompts(
        ["Write to Lakisha Washington.", "A Black man called."], ["gender", "race"], names=False
    )
    assert len(words_only) == 1 and words_only.names == ()


def test_templates_are_filled_per_group_seeded_and_recorded() -> None:
    template = "Write a rejection email to {name} and thank {them}. {They} applied as {title} {last_name}."
    cf = fill_templates([template, "Dear {first_name}, {their} file is here."], "race", names_per_group=3, seed=4)
    assert len(cf) == 6 and cf.source_index.tolist() == [0, 0, 0, 1, 1, 1] and cf.name_seed == 4
    assert cf.groups == ("white", "black", "hispanic", "asian")
    again = fill_templates([template, "Dear {first_name}, {their} file is here."], "race", names_per_group=3, seed=4)
    assert all(cf[g] == again[g] for g in cf.groups)  # seeded
    for row in range(3):
        texts = [cf[g][row] for g in cf.groups]
        read = check_ftu(texts, ["gender", "race"])
        races = [{n.group for n in found if n.attribute == "race"} for found in read.names]
        assert races == [{g} for g in cf.groups], texts
        genders = {n.group for found in read.names for n in found if n.attribute == "gender"}
        assert len(genders) == 1  # the person's gender is held equal across the race versions
        for group, text in zip(cf.groups, texts, strict=True):
            ((placeholder, name),) = cf.names[row][group]
            assert placeholder == "" and name in text and "{" not in text
            pronoun = "her" if genders == {"female"} else "him"
            assert f"thank {pronoun}." in text
    assert cf.swapped_names(0) == tuple(dict.fromkeys(p[0][1] for p in cf.names[0].values()))
    gender = fill_templates(["Dear {name}, {they} said."], "gender", names_per_group=2)
    for row in range(2):
        assert len({gender[g][row].split()[2] for g in gender.groups}) == 1  # one surname for both versions
    assert fill_templates(["To {name}."], ["gender", "race"], groups=["female+black"]).groups == ("female+black",)


@pytest.mark.parametrize(
    ("templates", "message"),
    [
        (["Hello {nam}."], "unknown placeholder"),
        (["Hello there."], "names nobody"),
        (["Hello {name"], "not a valid template"),
    ],
)
def test_bad_templates(templates: list[str], message: str) -> None:
    with pytest.raises(InputError, match=message):
        fill_templates(templates)


def test_bad_template_arguments() -> None:
    with pytest.raises(InputError, match="names_per_group"):
        fill_templates(["{name}"], names_per_group=0)
    with pytest.raises(InputError, match="name lists"):
        fill_templates(["{name}"], "religion")
    with pytest.raises(InputError, match="unknown group"):
        fill_templates(["{name}"], "race", groups=["purple"])
