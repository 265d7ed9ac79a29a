"""The pairwise judge (issue 38): its answer schema and parser, both-orders agreement, position bias, the JWD
metric (hand-computed and property tests), the paired test over prompts, the same-version floor, the audit on the
shipped labelled pairs, and loopback judges that are good, lazy, position-biased or random."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenhand.errors import InputError
from evenhand.generation import GenerationSettings
from evenhand.generation.judge_audit import MIN_AGREEMENT, audit_judge, labelled_pairs
from evenhand.generation.pair_judge import JudgeItem, LLMPairJudge, judge_request, parse_verdict
from evenhand.generation.structured import AnswerFormatError, AssistantFormatError, tag
from evenhand.metrics.judged_pairs import (
    judged_unequal_share,
    judged_worse_difference,
    pair_verdicts,
    position_bias,
)
from evenhand.stats import confidence_interval, paired_prompt_test
from tests._assistant_servers import WORSE_MARK, assistant_server, client_spec

LABELS = {(p.item.reply_a, p.item.reply_b): p.worse for p in labelled_pairs()}


def known(reply_1: str, reply_2: str) -> str | None:
    """What a good judge sees in a labelled pair, whichever order it is shown in."""
    if (reply_1, reply_2) in LABELS:
        return {"a": "1", "b": "2", "neither": "neither"}[LABELS[(reply_1, reply_2)]]
    if (reply_2, reply_1) in LABELS:
        return {"a": "2", "b": "1", "neither": "neither"}[LABELS[(reply_2, reply_1)]]
    return None


def _judge(url: str, tmp_path: object) -> LLMPairJudge:
    return LLMPairJudge(
        client_spec(url),
        GenerationSettings(temperature=0.0, seed=0, max_tokens=160, store=f"{tmp_path}/s.sqlite", progress=False),
    )


# ------------------------------------------------------------------------------------------- hand-computed figures
def test_both_orders_must_agree_for_a_pair_to_count() -> None:
    a_first = ["first", "second", "neither", "first", "second", "neither"]
    b_first = ["second", "first", "neither", "first", "second", "first"]
    # A first: "first" names A; B first: "first" names B
    assert pair_verdicts(a_first, b_first).tolist() == ["a", "b", "neither", "disagree", "disagree", "disagree"]
    bias = position_bias(a_first, b_first)
    assert float(bias) == pytest.approx(3 / 6)
    assert bias.details == {"n_disagree": 3, "first_favoured": 1, "second_favoured": 1}
    with pytest.raises(InputError, match="expected"):
        pair_verdicts(["1"], ["first"])


def test_jwd_from_the_formula_by_hand() -> None:
    # 8 pairs over 3 prompts; 1 disagrees (left out): of the 7 counted, 3 worse for A, 1 for B, 3 neither
    verdicts = ["a", "a", "neither", "b", "a", "neither", "disagree", "neither"]
    prompts = [0, 0, 0, 1, 1, 2, 2, 2]
    result = judged_worse_difference(verdicts, prompts=prompts)
    assert float(result) == pytest.approx((3 - 1) / 7)
    assert result.details["share_a"] == pytest.approx(3 / 7) and result.details["share_b"] == pytest.approx(1 / 7)
    assert result.details["n_disagree"] == 1 and result.details["position_bias"] == pytest.approx(1 / 8)
    assert result.sizes == {"pairs": 7, "prompts": 3} and result.resampler is not None
    assert result.resampler.unit == "prompt"
    # the resampler recomputes the value from prompt sums: prompt 0 (+2 over 3), 1 (0 over 2), 2 (0 over 2)
    assert result.resampler(np.array([[1.0, 1.0, 1.0]]))[0] == pytest.approx(2 / 7)
    assert result.resampler(np.array([[2.0, 0.0, 1.0]]))[0] == pytest.approx(4 / 8)
    unequal = judged_unequal_share(verdicts, prompts=prompts)
    assert float(unequal) == pytest.approx(4 / 7) and unequal.details["n_unequal"] == 4
    assert np.isnan(float(judged_worse_difference(["disagree", "disagree"])))
    assert "disagree on every pair" in (judged_worse_difference(["disagree"]).reason or "")
    for kind in (list, np.array, pd.Series):
        assert float(judged_worse_difference(kind(["a", "neither"]))) == 0.5  # type: ignore[operator]


# ------------------------------------------------------------------------------------------------ property tests
_VERDICT = st.sampled_from(["a", "b", "neither", "disagree"])
_POSITION = st.sampled_from(["first", "second", "neither"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_VERDICT, min_size=1, max_size=40))
def test_jwd_properties(verdicts: list[str]) -> None:
    result = judged_worse_difference(verdicts)
    counted = [v for v in verdicts if v != "disagree"]
    if not counted:
        assert np.isnan(float(result))
        return
    value = float(result)
    assert -1.0 <= value <= 1.0
    assert value == pytest.approx(result.details["share_a"] - result.details["share_b"])
    swapped = [{"a": "b", "b": "a"}.get(v, v) for v in verdicts]
    assert float(judged_worse_difference(swapped)) == pytest.approx(-value)  # naming the groups the other way
    assert float(judged_worse_difference(verdicts * 3)) == pytest.approx(value)  # the same pairs again
    assert float(judged_worse_difference(counted)) == pytest.approx(value)  # disagreements count for nothing
    unequal = float(judged_unequal_share(verdicts))
    assert abs(value) <= unequal + 1e-12 and 0.0 <= unequal <= 1.0


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(_POSITION, _POSITION), min_size=1, max_size=40))
def test_both_orders_properties(answers: list[tuple[str, str]]) -> None:
    a_first, b_first = [a for a, _ in answers], [b for _, b in answers]
    verdicts = pair_verdicts(a_first, b_first)
    mirrored = pair_verdicts(b_first, a_first)  # the same answers with the groups named the other way
    assert verdicts.tolist() == [{"a": "b", "b": "a"}.get(v, v) for v in mirrored.tolist()]
    assert float(position_bias(a_first, b_first)) == pytest.approx(float(np.mean(verdicts == "disagree")))
    # a judge that answers by position alone ("first" both times) disagrees with itself on every pair
    assert float(position_bias(["first"] * len(answers), ["first"] * len(answers))) == 1.0


# ------------------------------------------------------------------------------- paired test and same-version floor
def _simulated(worse_for_a: float, n_prompts: int = 60, pairs: int = 3, seed: int = 0) -> tuple[list[str], list[int]]:
    rng = np.random.default_rng(seed)
    verdicts, prompts = [], []
    for p in range(n_prompts):
        for _ in range(pairs):
            r = rng.random()
            verdicts.append("a" if r < worse_for_a else "b" if r < worse_for_a + 0.05 else "neither")
            prompts.append(p)
    return verdicts, prompts


def test_the_paired_test_over_prompts_finds_a_planted_effect_and_not_a_null_one() -> None:
    def p_value(verdicts: list[str], prompts: list[int]) -> float:
        worse_a = [float(v == "a") for v in verdicts]
        worse_b = [float(v == "b") for v in verdicts]
        return float(paired_prompt_test(worse_a, worse_b, prompts, n_permutations=1999, seed=1).p_value)

    planted = _simulated(0.25)
    null = _simulated(0.05)
    assert p_value(*planted) < 0.01
    assert p_value(*null) > 0.05
    jwd = judged_worse_difference(planted[0], prompts=planted[1])
    interval = confidence_interval(jwd, n_resamples=500, seed=0)
    assert interval.low > 0 and interval.unit == "prompt"
    # two replies to the same version: the floor counts what the judge calls unequal with no group difference
    floor = judged_unequal_share(null[0], prompts=null[1])
    assert 0.05 < float(floor) < 0.15


# ------------------------------------------------------------------------------------------- the answer schema
def test_the_fixed_answer_schema_and_its_parser() -> None:
    request = judge_request("P1", "R1", "P2", "R2")
    key = tag("P1", "R1", "P2", "R2")
    assert f"<<REPLY-1-{key}>>\nR1\n<</REPLY-1-{key}>>" in request and f"<<VERDICT-{key}>>" in request
    ok = parse_verdict(f'<<VERDICT-{key}>>{{"worse": 2, "harm": "refusal", "reason": "  B  was refused "}}'
                       f"<</VERDICT-{key}>>", key)  # fmt: skip
    assert (ok.worse, ok.harm, ok.reason) == ("second", "refusal", "B was refused")
    neither = parse_verdict(f'<<VERDICT-{key}>>{{"worse": "Neither", "harm": "stereotype"}}<</VERDICT-{key}>>', key)
    assert (neither.worse, neither.harm, neither.reason) == ("neither", None, "")
    other = parse_verdict(f'<<VERDICT-{key}>>{{"worse": "1", "harm": null}}<</VERDICT-{key}>>', key)
    assert other.harm == "other"
    for bad, why in [("nothing", "no <<VERDICT"), (f'<<VERDICT-{key}>>{{"worse": "A"}}<</VERDICT-{key}>>', "'worse'"),
                     (f'<<VERDICT-{key}>>{{"worse": "1", "harm": "rude"}}<</VERDICT-{key}>>', "'harm'"),
                     (f"<<VERDICT-{key}>>[]<</VERDICT-{key}>>", "not a JSON object")]:  # fmt: skip
        with pytest.raises(AnswerFormatError, match=why):
            parse_verdict(bad, key)


# ----------------------------------------------------------------------------------------- loopback judges, audit
def test_the_labelled_pairs_are_balanced() -> None:
    pairs = labelled_pairs()
    worse = [p.worse for p in pairs]
    assert len(pairs) == 150 and worse.count("neither") == 50 and worse.count("a") == worse.count("b") == 50
    assert {p.harm for p in pairs} == {"less help", "harsher tone", "stereotype", "refusal", None}
    assert len({p.attribute for p in pairs}) == 8 and len({p.id for p in pairs}) == 150


@pytest.mark.parametrize(
    ("behaviour", "trusted", "agreement", "bias"),
    [("good", True, 1.0, 0.0), ("lazy", False, 50 / 150, 0.0), ("position", False, 0.0, 1.0)],
)
@pytest.mark.server
def test_the_audit_trusts_a_good_judge_and_catches_a_lazy_and_a_position_biased_one(
    tmp_path: object, behaviour: str, trusted: bool, agreement: float, bias: float
) -> None:
    with assistant_server(judge=behaviour, known=known) as (url, counter):
        audit = audit_judge(_judge(url, tmp_path))
        assert counter["total"] == 300  # both orders of 150 pairs, concurrently through the runner
    assert audit.trusted is trusted and audit.agreement == pytest.approx(agreement)
    assert audit.position_bias == pytest.approx(bias)
    assert (audit.agreement >= MIN_AGREEMENT) is trusted
    if not trusted:
        assert "NOT trusted" in audit.summary() and "decide no verdict" in audit.summary()
    assert audit.to_dict()["trusted"] is trusted


@pytest.mark.slow
def test_a_random_judge_is_caught_too(tmp_path: object) -> None:
    with assistant_server(judge="coin") as (url, _):
        audit = audit_judge(_judge(url, tmp_path))
    assert not audit.trusted and audit.position_bias > 0.3


def test_judging_is_stored_and_resumable_and_quotes_the_reason(tmp_path: object) -> None:
    items = [JudgeItem("He asks.", "Here are five steps.", "She asks.", f"No. {WORSE_MARK}"),
             JudgeItem("He asks.", "Here are steps.", "She asks.", "Here are steps.")]  # fmt: skip
    with assistant_server(judge="good") as (url, counter):
        judged = _judge(url, tmp_path).judge_pairs(items)
        again = _judge(url, tmp_path).judge_pairs(items)
        assert counter["total"] == 4  # the second judge read every answer back from the store
    assert [j.verdict for j in judged] == ["b", "neither"] == [j.verdict for j in again]
    assert judged[0].reason == "reply 2 gives less help than the other" and judged[0].harm == "less help"
    assert judged[1].harm is None


def test_a_judge_that_breaks_the_schema_stops_with_a_clear_error(tmp_path: object) -> None:
    with assistant_server(judge="garbled") as (url, counter):
        judge = LLMPairJudge(client_spec(url), GenerationSettings(store=None, progress=False, seed=0), max_attempts=2)
        with pytest.raises(AssistantFormatError, match="judging pairs: 2 of 2 questions got no usable answer"):
            judge.judge_pairs([JudgeItem("a", "b", "c", "d")])
        assert counter["total"] == 4  # bounded: two attempts of both orders
