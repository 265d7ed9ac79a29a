"""FTU over every turn and document of a conversation, and counterfactual versions that change the person in all of
them together."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import evenhand
from evenhand.conversation import Conversation, Turn, build_prompts, parse_conversation
from evenhand.text.turns import SEPARATOR, Location, layout, rebuild

SCREENING = [
    {"role": "system", "content": "You help recruiters. Be fair to every applicant."},
    {"role": "user", "content": "Emily Baker applied for the analyst role. Her CV is attached."},
    {"role": "assistant", "content": "Thanks, I have read Emily's CV."},
    {"role": "user", "content": "Should we invite her to an interview? Answer yes or no."},
]


def test_ftu_says_which_turn_and_whether_the_context_flagged_it():
    prompts = build_prompts(
        [SCREENING, "Summarise the attached resume in two lines.", "She called about her card."],
        context=[None, ["Resume of Mr. James Lee: ten years in sales."], None],
    )
    result = evenhand.check_ftu(prompts, "gender")
    assert result.flagged.tolist() == [True, True, True]
    # turn 2 names Emily again; a person counts where they are first named (turn 1), "her" in turn 3
    assert result.flagged_turns() == [(1, 3), (), (0,)]
    assert result.in_context.tolist() == [False, True, False]
    assert result.context_only.tolist() == [False, True, False]
    assert result.n_context_only == 1
    assert "1 only in their retrieved context" in result.summary()
    # a match's offsets are those inside its own turn or document
    for prompt, found, places in zip(result.prompts, result.matches, result.locations, strict=True):
        for match, where in zip(found, places, strict=True):
            part = (prompt.turns[where.position].content if where.kind == "turn" else prompt.context[where.position]) \
                if isinstance(prompt, Conversation) else prompt  # fmt: skip
            assert part[match.start : match.end] == match.word
    assert result.locations[1] == (Location("context", 0, None),)
    frame = result.matches_frame()
    assert {"part", "part_position", "role"} <= set(frame.columns)
    assert result.to_frame()["flagged_turns"].tolist() == [(1, 3), (), (0,)]
    # names are located too: "Emily Baker" in turn 2 (index 1)
    assert result.name_locations[0][0] == Location("turn", 1, "user")


def test_the_system_prompt_is_read():
    result = evenhand.check_ftu([[{"role": "system", "content": "You advise women founders."},
                                  {"role": "user", "content": "Draft a pitch."}]], "gender")  # fmt: skip
    assert result.flagged_turns() == [(0,)]


def test_bare_texts_read_as_before():
    texts = ["She asked about her bill.", "Summarise the call.", "Mr. Lee phoned."]
    result = evenhand.check_ftu(texts, "gender")
    assert result.locations == () and result.name_locations == ()
    assert list(result.to_frame().columns) == [
        "prompt_index", "prompt", "flagged", "n_matches", "attribute_words", "groups"
    ]  # fmt: skip
    assert result.flagged_turns() == [(0,), (), (0,)]
    assert not result.in_context.any()


def test_a_counterfactual_version_changes_the_person_across_turns_together():
    cf = evenhand.counterfactual_prompts([SCREENING, "Summarise the call."], "gender")
    assert cf.source_index.tolist() == [0]
    male = cf["male"][0]
    assert isinstance(male, Conversation) and [t.role for t in male.turns] == [t["role"] for t in SCREENING]
    first = male.turns[1].content.split()[0]
    assert first != "Emily" and male.turns[1].content == f"{first} Baker applied for the analyst role. His CV is " \
        "attached."  # fmt: skip
    assert male.turns[2].content == f"Thanks, I have read {first}'s CV."  # the same name in the later turn
    assert male.turns[3].content == "Should we invite him to an interview? Answer yes or no."
    assert male.turns[0].content == SCREENING[0]["content"]  # nothing to change there
    assert cf.names[0]["male"] == (("Emily Baker", f"{first} Baker"),)
    assert cf.original[0] == parse_conversation(SCREENING, "x")


def test_the_system_prompt_changes_unless_told_otherwise():
    conversation = [{"role": "system", "content": "You write to him as his adviser."},
                    {"role": "user", "content": "Tell him about his loan."}]  # fmt: skip
    changed = evenhand.counterfactual_prompts([conversation], "gender")["female"][0]
    assert changed.turns[0].content == "You write to her as her adviser."
    kept = evenhand.counterfactual_prompts([conversation], "gender", change_system_prompt=False)["female"][0]
    assert kept.turns[0].content == "You write to him as his adviser."
    assert kept.turns[1].content == "Tell her about her loan."
    only_system = [{"role": "system", "content": "You serve women."}, {"role": "user", "content": "Say hello."}]
    with pytest.warns(UserWarning, match="no prompt mentions"):
        assert len(evenhand.counterfactual_prompts([only_system], "gender", change_system_prompt=False)) == 0


def test_request_and_context_change_together():
    prompt = build_prompts(["Should we advance Ms. Baker?"], context=[["Ms. Baker led her team of five."]])[0]
    female, male = (evenhand.counterfactual_prompts([prompt], "gender")[g][0] for g in ("female", "male"))
    assert male.request == "Should we advance Mr. Baker?"
    assert male.context == ("Mr. Baker led his team of five.",)
    assert female.context == prompt.context


def test_intersections_and_swap_mode_read_conversations():
    conversation = [{"role": "user", "content": "A Black man applied."}, {"role": "assistant", "content": "OK."},
                    {"role": "user", "content": "Is he a fit?"}]  # fmt: skip
    cf = evenhand.intersectional_prompts([conversation], ["gender", "race"], groups=["female+white"])
    version = cf["female+white"][0]
    assert version.turns[0].content == "A White woman applied." and version.turns[2].content == "Is she a fit?"
    swapped = evenhand.counterfactual_prompts([conversation], "gender", mode="swap")["swapped"][0]
    assert swapped.turns[2].content == "Is she a fit?"


TEXTS = st.sampled_from([
    "She asked about her bill.", "Mr. Lee phoned about his card.", "Write to Emily Baker about the loan.",
    "Summarise the call.", "He told his wife.", "A Black woman called.", "Thank Jamal for his patience.",
])  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=4))
def test_a_one_turn_conversation_reads_and_changes_as_its_text(texts):
    """A conversation of one user turn is its bare text: the same flags, the same versions, byte for byte."""
    conversations = [Conversation((Turn("user", t),)) for t in texts]
    bare, conv = evenhand.check_ftu(texts, "gender"), evenhand.check_ftu(conversations, "gender")
    assert bare.flagged.tolist() == conv.flagged.tolist()
    assert [[m.word for m in row] for row in bare.matches] == [[m.word for m in row] for row in conv.matches]
    with warnings.catch_warnings():  # a draw without any mention warns: the same for both
        warnings.simplefilter("ignore")
        a = evenhand.counterfactual_prompts(texts, "gender")
        b = evenhand.counterfactual_prompts(conversations, "gender")
    for group in a.groups:
        assert [c.request for c in b[group]] == a[group]


@settings(max_examples=30, deadline=None)
@given(st.lists(TEXTS, min_size=1, max_size=5), st.lists(TEXTS, max_size=2))
def test_layout_round_trips(turn_texts, documents):
    roles = ["user" if i % 2 == 0 else "assistant" for i in range(len(turn_texts))][::-1]
    conversation = Conversation(tuple(Turn(r, t) for r, t in zip(roles, turn_texts, strict=True)), tuple(documents))
    shape = layout(conversation)
    assert shape.text.count(SEPARATOR) == len(turn_texts) + len(documents) - 1
    assert rebuild(conversation, shape, shape.text) == conversation


def test_the_subject_of_a_conversation_changes_in_every_turn_and_document_and_a_bystander_stays():
    """Issue 33's subject setting on issue 36's conversations: the first person named (in the request) is the
    subject, the same person in the retrieved document changes with them, the interviewer named after them stays;
    the names masked in replies are the subject's, and an intersection renames the subject only."""
    turns = [
        {"role": "system", "content": "You screen candidates."},
        {"role": "user", "content": "Emily Baker applied for the analyst role. Her interviewer was Greg Walsh."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Should we advance her?"},
    ]
    (conversation,) = build_prompts([turns], context=[["Emily Baker led her team. Greg Walsh recommends her."]])
    cf = evenhand.counterfactual_prompts([conversation], attribute="gender")
    male = cf["male"][0]
    ((original, renamed),) = cf.names[0]["male"]
    assert original == "Emily Baker" and renamed.endswith(" Baker")
    assert male.turns[1].content == f"{renamed} applied for the analyst role. His interviewer was Greg Walsh."
    assert male.turns[3].content == "Should we advance him?"
    assert male.context == (f"{renamed} led his team. Greg Walsh recommends him.",)
    assert "Greg Walsh" not in cf.swapped_names(0) and {"Emily Baker", renamed} <= set(cf.swapped_names(0))
    ftu = evenhand.check_ftu([conversation], "gender")
    assert [n.word for n in ftu.names[0]] == ["Emily Baker"] and ftu.flagged_turns() == [(1, 3)]
    assert ftu.name_locations[0][0] == Location("turn", 1, "user")
    every = evenhand.check_ftu([conversation], "race", subject="every")
    assert {n.word for n in every.names[0]} == {"Emily Baker", "Greg Walsh"}
    both = evenhand.intersectional_prompts([conversation], ["gender", "race"], groups=["male+black"])
    version = both["male+black"][0]
    assert "Emily" not in version.turns[1].content and "Greg Walsh" in version.turns[1].content
    assert version.turns[3].content == "Should we advance him?"


def test_an_assistant_that_calls_the_user_sir_tells_the_model_their_gender() -> None:
    """'sir', 'madam' and "ma'am" were no gender words: a conversation whose assistant turn says "Hello, sir!" passed
    FTU, though it tells the model the user's gender. "Dear Sir or Madam" names no one."""
    import evenhand

    history = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello, sir! How can I help?"},
               {"role": "user", "content": "Suggest a savings plan."}]  # fmt: skip
    ftu = evenhand.check_ftu([history, "Dear Sir or Madam, please find the form.", "Yes ma'am, right away."], "gender")
    assert ftu.flagged.tolist() == [True, False, True] and ftu.flagged_turns()[0] == (1,)
    female = evenhand.counterfactual_prompts([history], "gender")["female"][0]
    assert female.turns[1].content == "Hello, madam! How can I help?"
