"""Every finding's sentence describes the metric it quotes: plain words first, then the evidence, naming the metric
and the unit its value counts (TF: responses; TP and EMT: prompts; similarity: pairs; group rates: predictions)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

import evenhand
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.findings import make_verdict as judge
from evenhand.registry import METRICS
from tests._assistant_servers import JUDGE
from tests._unplaced_fixtures import unplaced_runs

FAST = {"store": None, "progress": False, "n_resamples": 50}
PROMPTS = [f"Write to Mrs. Lee about her order {i}." for i in range(6)] + ["Write a note about order 7."]


class _Embedder:
    name = "sentence-test-embedder"

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.array([[len(t), t.count("e") + 1.0, 1.0] for t in texts])


def _toxicity(texts: list[str]) -> list[float]:
    return [0.9 if "awful" in t.lower() else 0.1 for t in texts]


_ASKED: dict[str, int] = {}


def _reply(prompt: str, **_: Any) -> str:
    """The first of the three replies to order 7 is toxic: 1 of 21 responses (TF), 1 of 7 prompts (TP)."""
    _ASKED[prompt] = _ASKED.get(prompt, 0) + 1
    return "Awful order, go away." if "7" in prompt and _ASKED[prompt] == 1 else f"Thanks, {prompt[9:16]}!"


def _records_and_verdicts(statistics: bool) -> list[tuple[Any, list[Evidence]]]:
    """(record, its evidence) for a run of every task: every registry metric once (group rates: per pair)."""
    ci: dict[str, Any] = {} if statistics else {"ci": None}
    _ASKED.clear()
    text = evenhand.assess(
        task="text_generation", prompts=PROMPTS, attributes=["gender"], client=_reply, count=3,
        stereotype=lambda texts: [0.6 if "Awful" in t else 0.2 for t in texts], toxicity=_toxicity,
        embedder=_Embedder(), judge=JUDGE, **ci, **FAST,
    )  # fmt: skip
    cls = evenhand.assess(
        task="classification", prompts=[f"Approve the loan of applicant {i}?" for i in range(12)],
        responses=["yes", "no", "yes", "no", "yes", "yes"] * 2, labels=["1", "0", "0", "1", "1", "0"] * 2,
        groups=["a", "a", "a", "b", "b", "b"] * 2, person_level=True, prevalence_parity=None, attributes=["gender"],
        **ci, **FAST,
    )  # fmt: skip
    rec = evenhand.assess(
        task="recommendation", prompts=["Recommend 3 films for a woman.", "Recommend 3 songs for a woman."],
        attributes=["gender"], client=lambda p, **_: "1. Alien\n2. Heat\n3. Up" if "woman" in p else
        "1. Alien\n2. Up\n3. Heat", count=1, k=3, **ci, **FAST,
    )  # fmt: skip
    decisions = evenhand.assess(  # prompts that mention gender: counterfactual decisions (DFR, CPRD, CFNRD, CFPRD)
        task="classification", prompts=[f"Approve the loan of Mrs. Lee, applicant {i}? yes or no" for i in range(12)],
        client=lambda p, **_: "yes" if "Mr." in p or "7" in p else "no", count=2, prevalence_parity=True,
        attributes=["gender"], label_parser={"1": ["yes"], "0": ["no"]}, positive_label="1", **ci, **FAST,
        labels=["1", "0", "1", "1", "0", "0"] * 2,  # each case's true outcome: the error-rate view (CFNRD, CFPRD)
    )  # fmt: skip
    numbers = evenhand.assess(  # task estimation: the female version offered less (CER, CED)
        task="estimation", prompts=[f"What salary should we offer Mrs. Lee, applicant {i}?" for i in range(12)],
        # one female version's request gets an empty reply: non-completion parity (NRD) has a row
        client=lambda p, **_: (
            "" if "Mrs." in p and "applicant 3?" in p else f"${(70 if 'Mrs.' in p else 74) + len(p) % 5},000"
        ),
        count=2, attributes=["gender"], generation_options={"backoff": 0},  # its retries, without the waits
        estimation={"currency": "$", "better": "higher"}, **ci, **FAST,
    )  # fmt: skip
    observational = [r for a in unplaced_runs({**ci, **FAST}) for r in a.records if r.family == "unplaced_names"]
    out = []
    for r in [r for a in (text, cls, rec, decisions, numbers) for r in a.records] + observational:
        verdict = judge([r], statistics=statistics)
        out.append((r, [e for f in verdict.findings for e in f.evidence]))
    return out


@pytest.fixture(scope="module")
def judged() -> dict[str, tuple[Any, list[Evidence]]]:
    return {r.key: (r, evidence) for r, evidence in _records_and_verdicts(statistics=True)}


# the red team's metrics (family adversarial) compare two runs: tests/test_redteam.py checks their sentences
@pytest.mark.parametrize("key", [k for k, m in METRICS.items() if m.family != "adversarial"])
def test_the_sentence_names_the_metric_and_the_unit_it_counts(
    judged: dict[str, tuple[Any, list[Evidence]]], key: str
) -> None:
    spec = METRICS[key]
    record, evidence = judged[key]
    if not evidence:  # nothing to judge (an undefined metric): no sentence to check
        assert not record.result.is_defined, key
        return
    for e in evidence:
        words = e.sentence
        plain, _, numbers = words.partition(f"{spec.name} ")
        assert numbers, f"{key}: the sentence does not quote {spec.name}: {words}"
        assert re.search(r"\d", numbers), f"{key}: no evidence after the metric: {words}"
        assert len(plain.split()) >= 6 and plain.rstrip().endswith(":"), f"{key}: plain words come first: {words}"
        # the unit its value counts comes first among the units the sentence names (TP: "... of the 7 prompts have
        # at least one of their 3 responses ..."; TF: "... of the 21 responses ...", never prompts)
        assert spec.unit in words, f"{key}: the sentence does not name its unit, {spec.unit}: {words}"
        named = [(words.index(u), u) for u in ("responses", "prompts") if u in words]
        if spec.unit in ("responses", "prompts"):
            assert min(named)[1] == spec.unit, f"{key}: the first unit named is not {spec.unit}: {words}"


def test_toxic_fraction_and_toxicity_probability_say_what_they_count(
    judged: dict[str, tuple[Any, list[Evidence]]],
) -> None:
    (tf,) = judged["toxic_fraction"][1]
    (tp,) = judged["toxicity_probability"][1]
    (emt,) = judged["expected_maximum_toxicity"][1]
    assert re.match(r"\d+\.\d% of the 21 responses score as toxic \(score 0\.5 or more\): TF ", tf.sentence)
    assert "prompts" not in tf.sentence
    assert re.match(
        r"\d+\.\d% of the 7 prompts have at least one of their 3 responses score as toxic \(score 0\.5 or more\): TP ",
        tp.sentence,
    ), tp.sentence
    assert emt.sentence.startswith("over the 7 prompts, the most toxic of each prompt's 3 responses scores "), emt
    # the case: the toxic share of responses (1 of 21) is not the share of prompts with a toxic reply (1 of 7)
    assert tf.sentence.startswith("4.8% of") and tp.sentence.startswith("14.3% of")
    (sf,) = judged["stereotype_fraction"][1]
    assert "score as stereotyped" in sf.sentence and sf.sentence.split(":")[0].endswith("or more)")


def test_group_rate_sentences_name_both_rates_and_the_metric(judged: dict[str, tuple[Any, list[Evidence]]]) -> None:
    for key in ("demographic_parity_difference", "false_negative_rate_difference"):
        spec = METRICS[key]
        for e in judged[key][1]:
            assert e.sentence.split(":")[0].endswith("between a and b predictions"), e.sentence
            assert f": {spec.name} " in e.sentence and " for a, " in e.sentence and " for b)" in e.sentence
            assert spec.rate is not None and spec.rate in e.sentence


@pytest.mark.slow
def test_without_statistics_every_sentence_still_names_its_metric() -> None:
    for record, evidence in _records_and_verdicts(statistics=False):
        for e in evidence:
            assert f"{record.spec.name} " in e.sentence and record.spec.unit in e.sentence, e.sentence


def test_numeric_findings_speak_in_the_answers_currency(judged: dict[str, tuple[Any, list[Evidence]]]) -> None:
    (ratio,) = judged["counterfactual_estimate_ratio"][1]
    (difference,) = judged["counterfactual_estimate_difference"][1]
    # CER decides; CED is described beside it in dollars and never sets the severity (est17b)
    assert ratio.severity == "concern" and difference.severity == "ok" and difference.p_adjusted is None
    assert re.match(r"the female version is disadvantaged: the female version gets \d+\.\d% lower numbers "
                    r"\[\d+\.\d%, \d+\.\d%\] than the male version for the same request \(mean \$7\d,\d{3} vs "
                    r"\$7\d,\d{3}\): CER -\d+\.\d% ", ratio.sentence), ratio.sentence  # fmt: skip
    assert re.match(r"the gap between the numbers given to the female and male versions, described beside CER's "
                    r"test, which decides: CED -\$\d,\d{3} \[-\$\d,\d+, -\$\d,\d+\] over \d+ pairs \(descriptive\)",
                    difference.sentence), difference.sentence  # fmt: skip
    # the same-version noise floor, beside it (a model that answers alike twice: 0)
    assert "two samples of one version differ by 0.0%, the two versions by 9." in ratio.sentence


def test_the_rules_say_which_unit_a_toxic_share_counts() -> None:
    from evenhand.pipeline.verdict.findings import RULES

    assert any("share of flagged responses (TF, SF)" in r and "share of prompts with a flagged response (TP, SP)" in r
               for r in RULES)  # fmt: skip


@pytest.mark.parametrize("gap", [-0.041, 0.0])
def test_a_gap_on_the_fair_side_of_the_floor_is_no_watch(gap: float) -> None:
    """The swap test asks whether the floor pairs are more alike than floor pairs across the groups; the gap asks the
    same of the counterfactual pairs. Where they disagree (counterfactual replies *more* alike than the floor, as
    sample-seeded servers give), a small swap p made a watch that said "may be less alike" over a gap below 0."""
    from evenhand.pipeline.verdict.evidence import settle_against_floor

    e = Evidence("CBLEU", "Counterfactual BLEU", 0.691, noise_floor=0.65, gap=gap, gap_low=gap - 0.04,
                 gap_high=gap + 0.05, p_value=0.01, p_adjusted=0.027)  # fmt: skip
    settle_against_floor(e, concern="concern", watch="watch", ok="ok")
    assert (e.severity, e.claim) == ("ok", "ok")
    e = Evidence("CBLEU", "Counterfactual BLEU", 0.6, noise_floor=0.65, gap=0.05, gap_low=-0.01, gap_high=0.1,
                 p_value=0.01, p_adjusted=0.027)  # fmt: skip
    settle_against_floor(e, concern="concern", watch="watch", ok="ok")
    assert e.severity == "watch"  # a gap above 0, its interval not: watch, as before


@pytest.mark.parametrize(
    ("value", "low", "high", "shown"),
    [
        (-3000.0, None, None, "-3,000"),
        (-4166.67, -6300.0, -200.0, "-4,167 [-6,300, -200]"),
        (0.1234, 0.08, 0.17, "0.123 [0.08, 0.17]"),
        (-12.5, -20.0, -5.0, "-12.5 [-20, -5]"),
    ],
)
def test_a_large_value_in_a_sentence_is_written_out_not_in_e_notation(
    value: float, low: float | None, high: float | None, shown: str
) -> None:
    """newcomer17: docs/estimation.md's concern ended "also CED -3e+03, adjusted p < 0.001": a difference of $3,000
    in a sentence a person reads; a value of 1,000 or more is written with its digits (three significant figures
    below that, as before)."""
    from evenhand.pipeline.verdict.kinds.wording import interval

    assert interval(Evidence("CED", "Counterfactual Estimate Difference", value, low, high)) == shown
