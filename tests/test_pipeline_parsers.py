"""Answer parsers: labels for classification, K-item lists for recommendation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evenhand.pipeline.responses.parsers import KeywordLabelParser, parse_list


def test_keyword_parser_first_keyword_wins_whole_words_only() -> None:
    parse = KeywordLabelParser({"1": ["yes", "approve"], "0": ["no", "deny"]})
    assert parse("Yes. I would approve it.") == "1"
    assert parse("No - deny, not yes") == "0"
    assert parse("The answer is: APPROVE") == "1"
    assert parse("nobody knows; yesterday") is None  # 'no'/'yes' only as whole words
    assert parse("") is None
    assert parse(None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer",
    [
        "I would not advance this candidate.",
        "Do not advance.",
        "We shouldn't approve it",
        "I can't approve this application at this time",
        "I would never recommend that we approve it",
    ],
)
def test_a_negated_keyword_is_not_read_as_its_label(answer: str) -> None:
    # "I would not advance this candidate" was read as advance: a decision turned into its opposite. A keyword that
    # a negation governs is not read (counted as unparsed), since the opposite is not always one label
    assert KeywordLabelParser({"1": ["advance", "approve"], "0": ["reject", "deny"]})(answer) is None


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ("I see no problems with this application. Yes, approve.", "1"),
        ("There is no reason to deny: yes.", "1"),
        ("No doubt about it: yes.", "1"),
        ("No red flags here, so my answer is yes", "1"),
        ("No concerns.", None),  # no answer at all: unparsed, never a guess
        ("No, there are no grounds.", "0"),
        ("No.", "0"),
        ("**No**", "0"),
        ("No I would not.", "0"),
        ("No way.", "0"),
        ("no", "0"),
    ],
)
def test_no_before_a_noun_is_no_answer(answer: str, label: str | None) -> None:
    # "I see no problems with this application. Yes, approve." was read as "no": "no" before a noun says there is
    # none of it ("no problems", "no reason", "no doubt"), not the answer, and the decision came out inverted
    assert KeywordLabelParser({"1": ["yes", "approve"], "0": ["no", "deny"]})(answer) == label


def test_a_label_word_that_starts_with_no_is_read_as_written() -> None:
    assert KeywordLabelParser({"0": ["no hire"], "1": ["hire"]})("No hire: the record is thin.") == "0"


def test_a_negation_elsewhere_does_not_hide_the_keyword() -> None:
    parse = KeywordLabelParser({"1": ["advance", "yes"], "0": ["reject", "no"]})
    assert parse("Although she is not local, advance her.") == "1"  # another clause
    assert parse("No, do not advance.") == "0"  # the first keyword is "No"
    assert parse("Not a hard call: reject.") == "0"
    assert parse("It is not a question of merit. Advance.") == "1"
    assert KeywordLabelParser({"0": ["not hire"], "1": ["hire"]})("We should not hire him.") == "0"  # a label word


def test_keyword_parser_pattern() -> None:
    parse = KeywordLabelParser({"positive": ["pos"], "negative": ["neg"]}, pattern=r"label:\s*(\w+)")
    assert parse("Reasoning... negative words, but label: POS") == "positive"
    assert parse("label: unknown") is None
    assert parse("no label here") is None


@pytest.mark.parametrize(
    ("labels", "pattern", "match"),
    [
        ({}, None, "empty"),
        ({"1": "yes"}, None, "list of words"),
        ({"1": ["yes"], "0": ["yes"]}, None, "both"),
        ({"1": ["yes"]}, "(", "regular expression"),
        ({"1": ["yes"]}, "label", "capture group"),
    ],
)
def test_keyword_parser_bad_input(labels: dict, pattern: str | None, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        KeywordLabelParser(labels, pattern)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. Gone Girl\n2. Zodiac\n3. Se7en", ["Gone Girl", "Zodiac", "Se7en"]),
        ("Here you go:\n- **Heat**\n- Ronin.\n- Heat", ["Heat", "Ronin"]),
        ("Gone Girl, Zodiac and Heat", ["Gone Girl", "Zodiac", "Heat"]),
        ("1) A\n2) B\n3) C\n4) D", ["A", "B", "C"]),
        ("", []),
        # as deployed (review5): these were read as '["Heat', 'Ronin**: a heist film', one item of three, ...
        ('["Heat", "Ronin", "Zodiac"]', ["Heat", "Ronin", "Zodiac"]),
        ('```json\n{"films": ["Heat", "Ronin", "Zodiac"]}\n```', ["Heat", "Ronin", "Zodiac"]),
        ('[{"title": "Heat", "year": 1995}, {"title": "Ronin"}, {"title": "Zodiac"}]', ["Heat", "Ronin", "Zodiac"]),
        ("1. **Heat** - a heist film\n2. **Ronin**: car chases\n3. __Zodiac__", ["Heat", "Ronin", "Zodiac"]),
        ("Sure! I recommend: 1. Heat 2. Ronin 3. Zodiac", ["Heat", "Ronin", "Zodiac"]),
        ("1. Spider-Man: No Way Home\n2. Heat\n3. Ronin", ["Spider-Man: No Way Home", "Heat", "Ronin"]),
        ("1. Heat (see [3])\n2. Ronin\n3. Zodiac", ["Heat (see [3])", "Ronin", "Zodiac"]),
        ("**Heat** - a heist film\n**Ronin** - car chases\n* **Zodiac**: a hunt", ["Heat", "Ronin", "Zodiac"]),
    ],
)
def test_parse_list(text: str, expected: list[str]) -> None:
    assert parse_list(text, 3) == expected


def test_parse_list_rejects_bad_k() -> None:
    with pytest.raises(ValueError, match="k must"):
        parse_list("a, b", 0)


@given(
    items=st.lists(st.text(alphabet="abcdefgh ", min_size=1, max_size=12).filter(str.strip), max_size=8),
    k=st.integers(1, 6),
)
def test_parse_list_properties(items: list[str], k: int) -> None:
    text = "\n".join(f"{i + 1}. {item}" for i, item in enumerate(items))
    parsed = parse_list(text, k)
    assert len(parsed) <= k
    keys = [" ".join(p.lower().split()) for p in parsed]
    assert len(keys) == len(set(keys))  # distinct
    assert all(p == p.strip() and p for p in parsed)


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        # reasoning first, the answer last: a criterion's "no" or "reject" is not the decision
        ("Stable income? Yes. Missed payments? No.\n\nFinal answer: no", "0"),
        ("Some would deny her for the gap in her record, but her experience is strong.\n\nDecision: approve", "1"),
        ("**Reasoning:** no degree, which is a concern.\n**Decision:** yes", "1"),
        ("| Criterion | Met |\n|---|---|\n| Degree | No |\n| Experience | Yes |\n\n**Decision: Yes**", "1"),
        ("| Criterion | Met |\n|---|---|\n| Degree | Yes |\n| **Decision** | No |", "0"),
        ("Checks: income yes, references yes.\n\n## Final answer\nDeny", "0"),
        ("Recommendation: approve. Final answer: deny", "0"),  # the last marker
        # the marker governs only where a label follows it
        ("Decision: pending. Yes, approve for now.", "1"),
        ("Decision: I would not approve this.", None),  # negated after the marker: unparsed, never the criteria's
        ("Decision: yes. No further questions.", "1"),
        ("Yes. I would approve it.", "1"),  # no marker: the first keyword, as before
        ("The answer is: deny", "0"),
        ('{"analysis": "Any gaps? No. Defaults? No.", "decision": "yes"}', "1"),  # JSON read as text: its key
    ],
)
def test_the_answer_after_an_answer_marker_is_the_reply_s(answer: str, label: str | None) -> None:
    # A model that reasons or tabulates criteria before it answers ("Missed payments? No. ... Final answer: yes") was
    # read by its first keyword, a criterion's: the decisions of both groups came out as the same criteria, and a
    # model whose final answers favoured one group passed the gate
    assert KeywordLabelParser({"1": ["yes", "approve"], "0": ["no", "deny"]})(answer) == label


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("| # | Title | Why |\n|---|---|---|\n| 1 | Heat | a heist film |\n| 2 | Ronin | cars |\n| 3 | Zodiac | x |",
         ["Heat", "Ronin", "Zodiac"]),
        ("Picks:\n\n| Title | Year |\n|:---|---:|\n| Heat | 1995 |\n| Ronin | 1998 |\n| Zodiac | 2007 |\n\nEnjoy!",
         ["Heat", "Ronin", "Zodiac"]),
        ("| Rank | Product | Rate |\n| --- | --- | --- |\n| 1 | **Roth IRA** | 4% |\n| 2 | 529 plan | 3% |",
         ["Roth IRA", "529 plan"]),  # a named column before a rank; bold removed; a number-like name kept
        ("| Year | Pick |\n|---|---|\n| 1995 | Heat |\n| 1998 | Ronin |", ["Heat", "Ronin"]),  # the first text column
        ("### 1. Heat\nA heist film.\n### 2. Ronin\nCar chases.\n### 3. Zodiac\nA thriller.",
         ["Heat", "Ronin", "Zodiac"]),
        ("## #1: Heat\nWhy: tense.\n## #2: Ronin\nWhy: cars.", ["Heat", "Ronin"]),
    ],
)  # fmt: skip
def test_a_markdown_table_or_numbered_headings_give_their_items(text: str, expected: list[str]) -> None:
    # a table's header, rule line and rows were read as items (or the whole table as one), and a numbered heading's
    # description line as the next item: both versions' lists shared the scaffolding, and a bias passed
    assert parse_list(text, 3) == expected
