"""The pairs shown for a finding (issue 37): a typical pair first (nearest the median over prompts of the
per-prompt differences that drive the finding), then the most extreme; for refusal, length and decision findings,
pairs of that kind only; and the finding's sentence leads with the strongest metric that crossed."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.examples import examples_by_finding
from evenhand.pipeline.verdict.findings import _sentence, _strength
from evenhand.pipeline.verdict.kinds.base import RunFacts
from evenhand.pipeline.verdict.kinds.pair_reading import typical_and_extreme


def test_typical_and_extreme_by_hand() -> None:
    # prompts p (pairs 0, 1), q (2), r (3, 4); pair 5 is not of the finding's kind
    strength = [1.0, 3.0, 2.5, 0.5, 0.5, 9.0]
    eligible = [True, True, True, True, True, False]
    prompts = ["p", "p", "q", "r", "r", "q"]
    # per-prompt means 2.0, 2.5, 0.5 -> median 2.0; nearest pair: 1.0 and 3.0 are 1 away, 2.5 is 0.5 away
    assert typical_and_extreme(strength, eligible, prompts) == (2, 1, 2.0)
    assert typical_and_extreme([np.nan, 1.0], [True, False], ["a", "b"]) is None
    assert typical_and_extreme([1.0, 1.0], [True, True], ["a", "b"]) == (0, 0, 1.0)  # ties: the first


def _frame(pairs: list[tuple[str, str, dict[str, float]]]) -> pd.DataFrame:
    rows = []
    for i, (a, b, extra) in enumerate(pairs):
        for group, text in (("female", a), ("male", b)):
            row = {"prompt_id": f"p{i}", "attribute": "gender", "group": group, "sample": 0,
                   "prompt": f"Write to {group} {i}", "response": text, "status": "ok"}  # fmt: skip
            row.update({k.removesuffix(f"_{group}"): v for k, v in extra.items() if k.endswith(group)})
            rows.append(row)
    return pd.DataFrame(rows)


def _finding(metric: str, risk: str) -> dict[str, object]:
    return {"severity": "concern", "risk": risk, "metric": metric, "attribute": "gender",
            "groups": ["female", "male"], "class": None}  # fmt: skip


def test_a_similarity_finding_shows_the_echoed_name_before_the_refusal() -> None:
    """The issue's case: the replies differ pair after pair by the name they echo; one pair is a baseline refusal
    against a normal reply. The refusal is the most extreme pair, not the typical one."""
    names = ["Emily", "Sarah", "Anna", "Laura", "Grace", "Julia", "Chloe", "Emma"]
    others = ["James", "David", "Tom", "Mark", "Peter", "Paul", "Sam", "Noah"]
    pairs = [(f"Dear {f}, thank you for your application to the analyst role; we will be in touch soon.",
              f"Dear {m}, thank you for your application to the analyst role; we will contact you soon.", {})
             for f, m in zip(names, others, strict=True)]  # fmt: skip
    pairs.append(("I'm sorry, I can't help with that.", "Dear Ben, thank you for your application to the analyst "
                  "role; we will be in touch soon.", {}))  # fmt: skip
    gender = RunFacts(attribute_specs={"gender": "gender"})
    found = examples_by_finding([_finding("CROUGE-L", "counterfactual")], _frame(pairs), gender)
    (typical, extreme) = next(iter(found.values()))
    assert typical["label"] == "typical" and "I'm sorry" not in typical["response_a"]
    assert typical["response_a"].startswith("Dear ") and typical["response_b"].startswith("Dear ")
    assert extreme["label"] == "most extreme" and extreme["response_a"] == "I'm sorry, I can't help with that."
    assert extreme["value"] < typical["value"]  # the least alike
    assert typical["caption"].startswith("a typical pair: its ROUGE-L is the nearest to the median over prompts (")
    assert extreme["caption"].startswith("the most extreme of the 9 pairs (ROUGE-L ")


def test_a_decision_finding_shows_flipped_pairs_in_the_models_words() -> None:
    yes, no = "Yes, advance this candidate.", "No, do not advance."
    pairs = [(yes, no, {"label_female": "1", "label_male": "0"}),  # flipped, the female version favoured
             (yes, yes, {"label_female": "1", "label_male": "1"}),
             (no, no, {"label_female": "0", "label_male": "0"}),
             (no, yes, {"label_female": "0", "label_male": "1"})]  # flipped the other way: not of the finding's kind
    pairs += [(yes, no, {"label_female": "1", "label_male": "0"})] * 2
    frame = _frame(pairs)
    facts = RunFacts(positive_label="1", label_words={"1": "yes", "0": "no"})
    found = examples_by_finding([_finding("CPRD", "allocational")], frame, facts)
    examples = next(iter(found.values()))
    assert all(e["kind"] == "decision" for e in examples)
    assert all((e["note_a"], e["note_b"]) == ("yes", "no") for e in examples)  # the model's words, not '1'
    assert "whose female version gets 'yes' and whose male version does not" in examples[0]["caption"]
    assert examples_by_finding([_finding("CPRD", "allocational")], frame) == {}  # no positive label known


def test_the_sentence_leads_with_the_strongest_and_names_the_others() -> None:
    weak = Evidence("CROUGE-L", "Counterfactual ROUGE-L", 0.61, 0.58, 0.64, p_adjusted=0.03, severity="concern",
                    sentence="replies are less alike than two replies to the same prompt")  # fmt: skip
    strong = Evidence("SCSP", "Strict Counterfactual Sentiment Parity", 0.24, 0.16, 0.31, p_adjusted=0.0004,
                      severity="concern", sentence="replies to the female version score higher on sentiment")
    watch = Evidence("WCSP", "Weak Counterfactual Sentiment Parity", 0.1, 0.0, 0.2, p_adjusted=0.07,
                     severity="watch", sentence="w")
    ok = Evidence("CBLEU", "Counterfactual BLEU", 0.2, severity="ok", sentence="o")
    ordered = sorted([weak, ok, watch, strong], key=_strength)
    assert [e.metric for e in ordered] == ["SCSP", "CROUGE-L", "WCSP", "CBLEU"]
    assert _sentence(ordered) == (
        "replies to the female version score higher on sentiment; also CROUGE-L 0.61 [0.58, 0.64], adjusted p = "
        "0.030 (concern) and WCSP 0.1 [0, 0.2], adjusted p = 0.070 (watch)"
    )
    assert _sentence([ok]) == "o"


@pytest.mark.parametrize("key", ["example", "extreme_example"])
def test_examples_keys_in_results_json(key: str) -> None:
    from evenhand.pipeline.verdict.examples import attach_examples, finding_key

    finding = _finding("RRD", "refusal")
    verdict = {"findings": [dict(finding)]}
    attach_examples(verdict, {finding_key(finding): [{"label": "typical"}, {"label": "most extreme"}]})
    assert verdict["findings"][0][key]["label"] == ("typical" if key == "example" else "most extreme")


def test_one_orientation_per_attribute_the_lexicons_group_order() -> None:
    """Race's lexicon lists white before black: the rate tests, the signed gap, the evidence and the finding name the
    pair "white vs black" (as the counterfactual rows do), not in text order ("black − white")."""
    import evenhand

    groups = ["black"] * 12 + ["white"] * 12
    answers = ["yes"] * 3 + ["no"] * 9 + ["yes"] * 9 + ["no"] * 3
    prompts = [f"Applicant {i}: approve the loan?" for i in range(24)]
    by_prompt = dict(zip(prompts, answers, strict=True))
    a = evenhand.assess(task="classification", prompts=prompts, client=lambda p: by_prompt[p], groups=groups,
                        person_level=True, prevalence_parity=True, attributes=["race"], count=1, n_resamples=50,
                        store=None, progress=False)  # fmt: skip
    test = a.tests.iloc[0]
    assert (test["group_a"], test["group_b"]) == ("white", "black")
    assert test["rate_a"] == pytest.approx(0.75) and test["difference"] == pytest.approx(0.5)
    row = a.metrics.set_index("metric").loc["DP"]
    assert row["signed_direction"] == "white minus black" and row["signed_difference"] == pytest.approx(0.5)
    findings = [f for f in a.verdict.findings if f.groups]  # DP's, and PRRD's (refusals: none here)
    assert {f.metric for f in findings} == {"DP", "PRRD"} and {f.groups for f in findings} == {("white", "black")}
    # the same persons listed white first: the same orientation; compare and JUnit read the rows, so follow it
    from evenhand.comparison import compare
    from evenhand.junit import junit_xml

    order = list(range(12, 24)) + list(range(12))
    b = evenhand.assess(task="classification", prompts=[prompts[i] for i in order], client=lambda p: by_prompt[p],
                        groups=[groups[i] for i in order], person_level=True, prevalence_parity=True,
                        attributes=["race"], count=1, n_resamples=50, store=None, progress=False)  # fmt: skip
    assert b.metrics.set_index("metric").loc["DP", "signed_direction"] == "white minus black"
    page = compare(a, b, n_resamples=50).to_html()
    assert "white − black" in page and "black − white" not in page and "black vs white" not in page
    xml = junit_xml(b.to_dict(include_responses=False))
    assert "white vs black" in xml and "black vs white" not in xml


def test_a_group_rate_whose_groups_are_not_the_prompts_never_says_names() -> None:
    """Names signal the prompts' groups, not a column's: a group rate says names only when its groups were read from
    the prompts (tests/test_verdict_group_source.py); a pair of versions says them."""
    from evenhand import metrics as M
    from evenhand.pipeline.evidence.records import MetricRecord, pair
    from evenhand.pipeline.verdict.findings import _say_how_signalled
    from evenhand.pipeline.verdict.qualifiers import SignalledByNames

    dp = M.demographic_parity_difference([1, 0, 1, 1], ["white", "white", "black", "black"])
    rrd = M.refusal_rate_difference([1, 0], [0, 0])
    signals = {"race": "names"}
    for key, result, said in (("demographic_parity_difference", dp, False), ("refusal_rate_difference", rrd, True)):
        rec = MetricRecord(key, "race", pair("white", "black"), result)
        e = Evidence(rec.name, rec.spec.full_name, float(result.value), severity="watch")
        _say_how_signalled(rec, e, signals)
        assert e.qualified(SignalledByNames) is said, key


def test_compares_overall_word_follows_its_finding_counts() -> None:
    """Findings worse and none improved read "worse", whatever metric rows did; rows decide only without a finding
    change; both ways is "mixed"."""
    from evenhand.comparison.findings import FindingChange
    from evenhand.comparison.result import RunComparison

    class Row:
        def __init__(self, change: str) -> None:
            self.changes = {"B": change}

    def status(findings: list[str], rows: list[str]) -> str:
        moves = [("appeared", "worse") if x == "worse" else ("went away", "improved") for x in findings]
        changes = [FindingChange("counterfactual", "gender", ("female", "male"), None, "B", "A", "ok", "concern", c,
                                 d, "") for c, d in moves]  # fmt: skip
        comparison = RunComparison([], [Row(r) for r in rows], changes)  # type: ignore[list-item]
        return comparison.status_of("B")

    assert status(["worse"] * 13, ["improved", "improved"]) == "worse"
    assert status(["worse", "improved"], []) == "mixed"
    assert status([], ["worse", "improved"]) == "mixed"
    assert status([], ["improved", "no clear change"]) == "improved"
    assert status([], []) == "no clear change"


def test_counterfactual_rows_follow_the_lexicon_whatever_the_inputs_order() -> None:
    """Replies given male first: the rows still compare female with male, as gender's lexicon orders them."""
    import sys
    from pathlib import Path

    import evenhand

    sys.path.insert(0, str(Path(__file__).parent))
    from _bias_fixtures import response_set

    rs = response_set("none", n_prompts=12, samples=2, seed=0)
    cf = rs.counterfactual_responses["gender"]
    kwargs = rs.assess_kwargs() | {"counterfactual_responses": {"gender": {"male": cf["male"], "female": cf["female"]}}}
    a = evenhand.assess(**kwargs, embedder=False, n_resamples=50, store=None, progress=False)
    pairs = {(r["group_a"], r["group_b"]) for _, r in a.metrics.iterrows() if isinstance(r["group_a"], str)}
    assert pairs == {("female", "male")}


def test_a_numeric_finding_shows_a_typical_pair_of_its_direction_before_the_most_extreme() -> None:
    # the female version gets less in 5 pairs (log ratios 0.051, 0.105, 0.030, 0.693, 0.041: median 0.051, the
    # first pair); one pair the other way, not of the finding's kind
    amounts = [(95_000.0, 100_000.0), (72_000.0, 80_000.0), (58_200.0, 60_000.0), (50_000.0, 100_000.0),
               (104_000.0, 100_000.0), (96_000.0, 100_000.0)]  # fmt: skip
    pairs = [(f"${a:,.0f}", f"${b:,.0f}", {"estimate_female": a, "estimate_male": b}) for a, b in amounts]
    found = examples_by_finding([_finding("CER", "allocational")], _frame(pairs))
    typical, extreme = next(iter(found.values()))
    assert typical["kind"] == extreme["kind"] == "estimate"
    assert typical["label"] == "typical" and typical["value"] == pytest.approx(-5_000.0)
    assert (typical["note_a"], typical["note_b"]) == ("95,000", "100,000")
    assert extreme["label"] == "most extreme" and extreme["value"] == pytest.approx(-50_000.0)
    assert "among the 5 pairs whose male version gets a higher number than its female version of the 6 pairs" in \
        typical["caption"]  # fmt: skip


def test_a_run_that_masked_names_reads_its_pairs_masked() -> None:
    """With the names masked (issue 33), a pair whose replies differ only by the name they echo is as alike as two
    equal replies, as the run's metric compared them; the example still shows the replies as written."""
    first = [("Emily", "James"), ("Sarah", "David"), ("Anna", "Peter"), ("Laura", "Mark")]
    rows = []
    for i, (f, m) in enumerate(first):
        changed = i == 3  # one pair differs beyond the name
        for group, name in (("female", f), ("male", m)):
            reply = f"Dear {name}, thank you for your application; we will be in touch soon."
            if changed and group == "female":
                reply = f"Dear {name}, we cannot take your application further at this time."
            rows.append({"prompt_id": f"p{i}", "attribute": "gender", "group": group, "sample": 0,
                         "prompt": f"Write to {name} Walker about the analyst role.", "response": reply,
                         "status": "ok"})  # fmt: skip
    frame = pd.DataFrame(rows)
    finding = [_finding("CROUGE-L", "counterfactual")]
    gender = RunFacts(attribute_specs={"gender": "gender"})
    (masked,) = examples_by_finding(finding, frame, replace(gender, names_masked=True)).values()
    (plain,) = examples_by_finding(finding, frame, gender).values()
    assert masked[0]["label"] == "typical" and masked[0]["value"] == pytest.approx(1.0)  # the echo is not a difference
    # without the run's name masking, the names are still words in which the versions' prompts differ, which the
    # similarities mask alike on both sides (review5): the echo is no difference either way
    assert plain[0]["value"] == pytest.approx(1.0)
    assert masked[0]["response_a"].startswith("Dear ") and "[NAME]" not in masked[0]["response_a"]
    assert masked[1]["label"] == "most extreme" and "cannot take" in masked[1]["response_a"]
