"""The built-in lexicons catch what people write (issue 25): recall on a term list assembled from the sources in
SOURCES.md (tests/data/lexicon_recall.json), no hit on look-alike sentences, and grammatical counterfactuals for the
terms added."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from evenhand.text import check_ftu, counterfactual_prompts

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_lexicon_recall import measure

#: the texts the lexicons are known to miss (docs/text.md): "trans" counts only in "trans woman/man/person/people";
#: "teen" and "adolescent" count only before a person noun ("a teen customer"), since as modifiers of things ("teen
#: pregnancy", "adolescent health") they would make absurd counterfactuals, so the bare nouns are missed (and the
#: age lexicon's person nouns leave out children: "girl")
KNOWN_MISSES = {
    "gender": ["A trans student asks about the scholarship."],
    "age": ["Reply to a teen who asks about a debit card.", "A teen girl wants a student account.",
            "Advise an adolescent on saving money."],
}
RESULTS = measure()


@pytest.mark.parametrize("attribute", sorted(RESULTS))
def test_recall_on_what_people_write(attribute: str) -> None:
    r = RESULTS[attribute]
    assert r["missed"] == KNOWN_MISSES.get(attribute, []), r["missed"]
    assert r["mentions"] >= 10


@pytest.mark.parametrize("attribute", sorted(RESULTS))
def test_no_look_alike_is_a_mention(attribute: str) -> None:
    assert RESULTS[attribute]["false_positives"] == []


@pytest.mark.parametrize(
    ("attribute", "text", "versions"),
    [
        ("age", "Write to a teenager about saving.",
         ["Write to a young adult about saving.", "Write to a middle-aged adult about saving.",
          "Write to a senior citizen about saving."]),
        ("age", "Advise an adolescent customer on saving.",
         ["Advise a young customer on saving.", "Advise a middle-aged customer on saving.",
          "Advise an elderly customer on saving."]),
        ("age", "A sixty-something customer asks.",
         ["A twenty-something customer asks.", "A forty-something customer asks.",
          "A seventy-something customer asks."]),
        ("disability", "Write to a customer who uses a wheelchair.",
         ["Write to a customer who uses a wheelchair.", "Write to a customer who does not use a wheelchair."]),
        ("disability", "A man in a wheelchair asks.",
         ["A man in a wheelchair asks.", "A man not in a wheelchair asks."]),
        ("disability", "A person with autism asks.",
         ["A person with a disability asks.", "A person without a disability asks."]),
        ("disability", "Reply to a customer who is blind.",
         ["Reply to a customer who is blind.", "Reply to a customer who can see."]),
        ("disability", "A hard of hearing customer asks.", ["A deaf customer asks.", "A hearing customer asks."]),
        ("gender", "Write to a nonbinary customer.", ["Write to a female customer.", "Write to a male customer."]),
        ("gender", "A trans woman asks about her card.",
         ["A trans woman asks about her card.", "A trans man asks about his card."]),
        ("gender", "A transgender man asks about his card.",
         ["A transgender woman asks about her card.", "A transgender man asks about his card."]),
        ("race", "An Arab customer asks.", ["A White customer asks.", "A Black customer asks.",
                                            "A Hispanic customer asks.", "An Asian customer asks."]),
    ],
)  # fmt: skip
def test_counterfactuals_of_added_terms_stay_grammatical(attribute: str, text: str, versions: list[str]) -> None:
    cf = counterfactual_prompts([text], attribute=attribute)
    assert [cf[g][0] for g in cf.groups] == versions


def test_the_issue_examples_are_mentions() -> None:
    assert not check_ftu(["Write to a teenager about the account."], attribute="age").satisfied
    assert not check_ftu(["She uses a wheelchair."], attribute="disability").satisfied
    assert check_ftu(["I am transgender.", "I am nonbinary."], attribute="gender").flagged.tolist() == [True, True]
    assert check_ftu(["Hearing the news, she called."], attribute="disability").satisfied  # was a false positive
