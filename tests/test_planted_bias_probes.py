"""Planted-bias probes of the verdict: own-responses tables with a known bias (and null tables with none), at
realistic sizes, and what the verdict must say about them.

Each probe plants one bias in bring-your-own responses (``tests/_bias_fixtures.planted_table``) and checks the
verdict finds it as a concern (or watch where the rules cap it) for the right attribute and pair of groups, with
the right direction in its sentence; null tables must raise no concern (a false-alarm rate near the tests' level
over many seeds), and tiny samples must say the evidence is thin. No embedder, cheap scorers, bounded sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

sys.path.insert(0, str(Path(__file__).parent))
from _bias_fixtures import planted_table

FAST: dict[str, Any] = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
NEUTRAL = {"harsh": 1 / 3, "plain": 1 / 3, "warm": 1 / 3}
COLDER = {"harsh": 0.5, "plain": 0.3, "warm": 0.2}  # one group's replies: more often curt and blaming


def _text(table: pd.DataFrame, attribute: str, **kwargs: Any) -> evenhand.Assessment:
    return evenhand.assess(task="text_generation", responses=table, attributes=[attribute], **{**FAST, **kwargs})


def _findings(a: evenhand.Assessment, risk: str, attribute: str | None) -> list[Any]:
    return [f for f in a.verdict.findings if f.risk == risk and f.attribute == attribute]


def _pair(a: evenhand.Assessment, risk: str, attribute: str, x: str, y: str) -> Any:
    found = [f for f in _findings(a, risk, attribute) if f.groups is not None and set(f.groups) == {x, y}]
    assert len(found) == 1, [(f.risk, f.attribute, f.groups) for f in a.verdict.findings]
    return found[0]


def _sentiment_lower(sentence: str, lower: str, higher: str) -> bool:
    """The sentence says responses to ``higher`` score higher than responses to ``lower``."""
    said = f"responses to the {higher} version score higher on sentiment than responses to the {lower} version"
    return said in sentence


# ------------------------------------------------------------------------------------------------ planted
@pytest.mark.parametrize(
    ("attribute", "colder", "n_prompts"),
    [("gender", "female", 200), ("race", "black", 150), ("religion", "muslim", 150)],
)
@pytest.mark.pipeline
def test_a_colder_tone_for_one_group_is_a_concern_named_the_right_way(
    attribute: str, colder: str, n_prompts: int
) -> None:
    a = _text(planted_table(attribute, {colder: COLDER}, base=NEUTRAL, n_prompts=n_prompts, samples=5), attribute)
    assert a.verdict.status == "concern"
    concerns = [f for f in _findings(a, "counterfactual", attribute) if f.severity == "concern"]
    assert concerns, a.verdict.summary
    untouched = []
    for f in _findings(a, "counterfactual", attribute):
        assert f.groups is not None
        if colder in f.groups:  # every pair with the colder group is a concern, said the right way round
            other = next(g for g in f.groups if g != colder)
            assert f.severity == "concern" and f.metric in ("SCSP", "WCSP"), (f.groups, f.sentence)
            assert _sentiment_lower(f.sentence, colder, other), f.sentence
        elif f.severity == "concern":
            untouched.append(f.groups)
    # pairs of two untouched groups: Benjamini-Hochberg bounds the share of false discoveries, not their number, so
    # among many true ones (5 pairs x 2 tests for religion) one chance discovery may slip in; more would be a bug
    assert len(untouched) <= 1, untouched


@pytest.mark.pipeline
def test_different_content_for_one_group_is_a_similarity_concern() -> None:
    table = planted_table(
        "gender", {"female": {"content_a": 1.0}, "male": {"content_a": 0.6, "content_b": 0.4}},
        base={"content_a": 1.0}, n_prompts=200, samples=5,
    )  # fmt: skip
    finding = _pair(_text(table, "gender"), "counterfactual", "gender", "female", "male")
    assert finding.severity == "concern" and finding.metric in ("CROUGE-L", "CBLEU")
    assert "less alike than two responses to the same prompt" in finding.sentence
    sentiment = [e for e in finding.evidence if e.metric in ("SCSP", "WCSP")]
    assert sentiment and all(e.severity == "ok" for e in sentiment)  # the content pools carry no sentiment


@pytest.mark.pipeline
def test_content_divergence_is_found_by_a_tiny_callable_embedder_too() -> None:
    table = planted_table(
        "gender", {"female": {"content_a": 1.0}, "male": {"content_b": 1.0}}, base={"content_a": 1.0},
        n_prompts=100, samples=3,
    )  # fmt: skip

    def bag_of_letters(texts: list[str]) -> np.ndarray:  # a tiny deterministic embedder
        return np.array([[t.lower().count(c) + 1.0 for c in "abcdefghijklmnopqrstuvwxyz"] for t in texts])

    a = _text(table, "gender", embedder=bag_of_letters)
    ccs = next(e for e in _pair(a, "counterfactual", "gender", "female", "male").evidence if e.metric == "CCS")
    assert ccs.severity == "concern" and ccs.gap is not None and ccs.gap > 0


def _toxic_score(texts: list[str]) -> list[float]:
    return [0.95 if "idiot" in t else 0.02 for t in texts]


@pytest.mark.pipeline
def test_toxic_replies_in_a_tenth_of_the_use_case_are_a_concern() -> None:
    table = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=200, samples=5, seed=4)
    rng = np.random.default_rng(4)
    hit = table["group"].isna() & (rng.random(len(table)) < 0.10)
    table.loc[hit, "response"] = "You are an idiot. " + table.loc[hit, "response"]
    a = _text(table, "gender", toxicity=_toxic_score)
    (finding,) = _findings(a, "toxicity", None)
    assert finding.severity == "concern" and finding.metric in ("TF", "TP")
    assert "score as toxic" in finding.sentence


def _with_adjectives(stereotyped: bool, seed: int = 1) -> pd.DataFrame:
    """Original replies that end with a sentence about her or him and two adjectives: stereotyped (she is
    emotional, he is logical) or drawn independently of the pronoun."""
    table = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=100, samples=5, seed=seed)
    rng = np.random.default_rng(seed)
    originals = table.index[table["group"].isna()]
    extra = []
    for j in range(len(originals)):
        pronoun = "She" if j % 2 else "He"
        warm = (pronoun == "She") if stereotyped else bool(rng.random() < 0.5)
        extra.append(f" {pronoun} is {'emotional and gentle' if warm else 'logical and ambitious'}.")
    table.loc[originals, "response"] = table.loc[originals, "response"] + extra
    return table


@pytest.mark.pipeline
def test_stereotyped_adjectives_next_to_group_words_are_worth_watching() -> None:
    stereotype = _findings(_text(_with_adjectives(True), "gender"), "stereotype", "gender")
    assert any(
        f.severity == "watch" and "more than shuffling the group mentions gives" in f.sentence for f in stereotype
    )
    assert all(f.severity != "concern" for f in stereotype)  # co-occurrence alone never makes a concern


@pytest.mark.pipeline
def test_adjectives_independent_of_the_group_are_not_flagged() -> None:
    """COBS and SA are above 0 on any corpus (their bootstrap intervals exclude 0 here too): only the shuffle test
    tells, and the interval shown agrees with it (joined with 0 where the test does not reject: issue 27)."""
    a = _text(_with_adjectives(False), "gender")
    cobs = a.metrics.set_index("metric").loc["COBS"]
    assert cobs["value"] > 0 and cobs["ci_low"] == 0 and "joined with 0" in cobs["reason"]
    assert all(f.severity == "ok" for f in _findings(a, "stereotype", "gender")), a.verdict.summary


def _classification(n: int, rate: dict[str, float], *, error: str = "dp", seed: int = 0) -> evenhand.Assessment:
    """``n`` applicants, alternately female and male; ``rate`` is the approval rate (``error="dp"``) or the rate of
    wrongly refused qualified applicants (``error="fnr"``) of each group."""
    rng = np.random.default_rng(seed)
    groups = ["female" if i % 2 else "male" for i in range(n)]
    truth = ["1" if rng.random() < 0.5 else "0" for _ in range(n)]
    answers = []
    for group, label in zip(groups, truth, strict=True):
        if error == "dp":
            answers.append("yes" if rng.random() < rate[group] else "no")
        else:  # qualified: refused at the group's rate; unqualified: mostly refused
            refuse = rng.random() < (rate[group] if label == "1" else 0.8)
            answers.append("no" if refuse else "yes")
    table = pd.DataFrame({"prompt": [f"Applicant {i}: approve the loan? Answer yes or no." for i in range(n)],
                          "response": answers})  # fmt: skip
    fields = {"prevalence_parity": True} if error == "dp" else {"prevalence_parity": False, "intervention": "assistive"}
    return evenhand.assess(
        task="classification", responses=table, labels=truth, groups=groups, person_level=True,
        attributes=["gender"], label_parser={"1": ["yes"], "0": ["no"]}, positive_label="1",
        n_resamples=200, progress=False, **fields,
    )  # fmt: skip


def test_a_demographic_parity_gap_is_a_concern_with_both_rates() -> None:
    finding = _pair(_classification(300, {"female": 0.35, "male": 0.6}), "allocational", "gender", "female", "male")
    assert finding.severity == "concern" and finding.metric == "DP"
    assert " for female, " in finding.sentence and " for male)" in finding.sentence
    assert _pair(_classification(300, {"female": 0.5, "male": 0.5}), "allocational", "gender", "female",
                 "male").severity != "concern"  # fmt: skip


def test_a_false_negative_gap_is_a_concern() -> None:
    a = _classification(300, {"female": 0.4, "male": 0.1}, error="fnr")
    finding = _pair(a, "allocational", "gender", "female", "male")
    assert finding.severity == "concern" and finding.metric == "FNRD"
    fnrd = next(e for e in finding.evidence if e.metric == "FNRD")
    assert fnrd.value is not None and fnrd.value > 0  # female minus male: female's rate is the higher one
    null = _classification(300, {"female": 0.2, "male": 0.2}, error="fnr")
    assert null.verdict.count("concern") == 0


def _recommendations(biased: bool, n: int = 150, samples: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    films = ["Heat", "Alien", "Up", "Jaws", "Ronin", "Zodiac", "Fargo", "Brazil", "Rocky", "Psycho"]
    rows = []
    for i in range(n):
        for group, noun in (("female", "woman"), ("male", "man")):
            pool = (films[5:] if group == "female" else films[:5]) if biased else films[:7]
            for s in range(samples):
                items = rng.choice(pool, 3, replace=False)
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": s,
                             "prompt": f"Recommend 3 films for a {noun}, request {i}.",
                             "response": "\n".join(f"{k + 1}. {x}" for k, x in enumerate(items))})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("biased", [True, False])
def test_different_lists_per_group_are_a_recommendation_concern(biased: bool) -> None:
    a = evenhand.assess(task="recommendation", responses=_recommendations(biased), attributes=["gender"], k=3,
                        n_resamples=200, progress=False)  # fmt: skip
    finding = _pair(a, "counterfactual", "gender", "female", "male")
    assert finding.severity == ("concern" if biased else "ok"), finding.sentence


def test_a_one_sided_list_shift_is_a_recommendation_concern() -> None:
    """Only the male versions change: in 5% of prompts they always give the same list from the same pool. The larger
    of the two groups' own same-prompt floors is the baseline, so the shift is first order against it (against the
    averaged floor, as before, this seed's data came out ok; measured: 3 of 4 seeds a concern, against 0 of 4)."""
    table = _recommendations(False, n=150, samples=3)
    rng = np.random.default_rng(0)
    shifted = set(rng.choice(150, 7, replace=False).tolist())
    hit = (table["group"] == "male") & table["prompt_id"].isin(shifted)
    table.loc[hit, "response"] = "1. Heat\n2. Alien\n3. Up"
    a = evenhand.assess(task="recommendation", responses=table, attributes=["gender"], k=3, n_resamples=200,
                        progress=False)  # fmt: skip
    assert _pair(a, "counterfactual", "gender", "female", "male").severity == "concern"


@pytest.mark.pipeline
def test_the_cli_finds_a_planted_age_bias_in_a_csv(tmp_path: Path) -> None:
    table = planted_table("age", {"old": COLDER}, base=NEUTRAL, n_prompts=80, samples=5, subject="a {group} customer")
    table.to_csv(tmp_path / "own.csv", index=False)
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["metrics", str(tmp_path / "own.csv"), "--task", "text_generation",
                                      "--attribute", "age", "--embedder", "none", "-o", str(out)])  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.output
    import json

    verdict = json.loads((out / "results.json").read_text(encoding="utf-8"))["verdict"]
    assert verdict["status"] == "concern"
    for f in verdict["findings"]:
        if f["risk"] == "counterfactual" and "old" in f["groups"]:
            other = next(g for g in f["groups"] if g != "old")
            assert f["severity"] == "concern" and _sentiment_lower(f["sentence"], "old", other), f


# ------------------------------------------------------------------------------------------------ null and tiny
@pytest.mark.pipeline
def test_null_tables_raise_no_concern_beyond_the_tests_level() -> None:
    """20 null seeds: each has four counterfactual judgements (SCSP, WCSP BH-adjusted together; the CROUGE-L and
    CBLEU floors at 95%), so a few percent may alarm by chance; many more would mean a miscalibrated rule."""
    alarms = []
    for seed in range(20):
        table = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=40, samples=4, seed=100 + seed)
        a = _text(table, "gender", seed=seed)
        alarms.append(a.verdict.count("concern"))
    assert sum(a > 0 for a in alarms) <= 3, alarms


@pytest.mark.parametrize("n_prompts", [10, 20])
@pytest.mark.pipeline
def test_a_tiny_null_sample_is_no_concern_and_says_the_evidence_is_thin(n_prompts: int) -> None:
    for seed in range(3):
        table = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=n_prompts, samples=5, seed=seed)
        a = _text(table, "gender")
        assert a.verdict.count("concern") == 0, [f.sentence for f in a.verdict.findings]
        assert any("the evidence is thin" in note for note in a.verdict.notes), a.verdict.notes
        finding = _pair(a, "counterfactual", "gender", "female", "male")
        assert "too few to" in finding.sentence, finding.sentence


@pytest.mark.pipeline
def test_a_tiny_planted_sample_is_never_an_unqualified_ok() -> None:
    """A real bias on 10 prompts: a concern when the exact tests already show it, else a finding that says the
    evidence is thin, never a plain "ok"."""
    for seed in range(3):
        table = planted_table("gender", {"female": COLDER}, base=NEUTRAL, n_prompts=10, samples=5, seed=seed)
        finding = _pair(_text(table, "gender"), "counterfactual", "gender", "female", "male")
        assert finding.severity == "concern" or "the evidence is thin" in finding.sentence, finding.sentence


# ------------------------------------------------------------------------------------------------ the fixes, directly
@pytest.mark.slow
def test_the_noise_floor_swap_test_keeps_its_level_on_few_prompts() -> None:
    """On 10 null prompts the gap's bootstrap interval alone excluded 0 for ~8% of seeds (one-sided 2.5% meant);
    a concern now also needs the exact swap test, and the two together stay under the level."""
    from evenhand.stats import noise_floor

    alarms, seeds = 0, 60
    for seed in range(seeds):
        t = planted_table("gender", {"female": NEUTRAL}, base=NEUTRAL, n_prompts=10, samples=5, seed=500 + seed)
        a, b = (t[t["group"] == g].sort_values(["prompt_id", "sample"]) for g in ("female", "male"))
        nf = noise_floor(a["response"].tolist(), b["response"].tolist(), a["prompt_id"].to_numpy(), "rouge_l",
                         attribute="gender", n_resamples=200, seed=seed, n_permutations=199)  # fmt: skip
        assert 0 < nf.p_value <= 1
        alarms += bool(nf.gap_interval.low > 0 and nf.p_value < 0.05)
    assert alarms <= 3, alarms  # <= 5% of 60


def test_the_swap_test_finds_a_real_content_difference() -> None:
    from evenhand.stats import noise_floor

    t = planted_table("gender", {"female": {"content_a": 1.0}, "male": {"content_b": 1.0}}, n_prompts=10, samples=3)
    a, b = (t[t["group"] == g].sort_values(["prompt_id", "sample"]) for g in ("female", "male"))
    nf = noise_floor(a["response"].tolist(), b["response"].tolist(), a["prompt_id"].to_numpy(), "rouge_l",
                     n_permutations=199)  # fmt: skip
    assert nf.p_value == pytest.approx(1 / 200) and nf.summary()["p_value"] == nf.p_value
    assert np.isnan(
        noise_floor(a["response"].tolist(), b["response"].tolist(), a["prompt_id"].to_numpy(), "rouge_l").p_value
    )  # fmt: skip  (off unless asked: twice the similarity calls)


def test_group_shuffle_test_on_a_toy_statistic() -> None:
    from evenhand.stats import group_shuffle_test

    texts = ["she A", "she A", "she A", "he B", "he B", "he B", "nobody"]
    versions = {"female": [t.replace("he ", "she ") if t.startswith("he ") else t for t in texts],
                "male": [t.replace("she ", "he ") for t in texts]}  # fmt: skip

    def share_she_a(corpus: list[str]) -> float:  # how often A goes with "she"
        return sum(t == "she A" for t in corpus) / 3

    test = group_shuffle_test(texts, versions, share_she_a, n_permutations=999, seed=0)
    # shuffling 3 "she" among 6 texts: all three on the A texts has probability 1/20
    assert test.p_value == pytest.approx(1 / 20, abs=0.02) and test.details["n_shuffled"] == 6
    assert test.details["n_texts"] == 6  # "nobody" mentions no group: left out of the statistic
    flat = group_shuffle_test(texts, versions, lambda c: 0.5, n_permutations=99, seed=0)
    assert flat.p_value == 1.0 and flat.details.get("stopped_early")  # no association: stops after 10 hits
    one_group = group_shuffle_test(["she A"], {"female": ["she A"], "male": ["he A"]}, share_she_a)
    assert np.isnan(one_group.p_value) and "fewer than two groups" in (one_group.reason or "")


@pytest.mark.slow
def test_the_shuffle_moves_prompts_not_single_answers() -> None:
    """Answers to one prompt repeat its group word and its topic: shuffling single answers would make the null far
    too narrow (p < 0.05 on ~90% of unbiased corpora); shuffling prompts keeps the test at its level."""
    from evenhand.metrics.cooccurrence import cooccurrence_bias, load_word_list
    from evenhand.pipeline.families.stereotype import _group_versions
    from evenhand.stats import group_shuffle_test

    words = list(load_word_list("adjective"))[:200]

    def cobs(corpus: list[str]) -> float:
        return float(cooccurrence_bias(corpus, attribute="gender", groups=("female", "male")).value)

    rejections = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        texts, prompts = [], []
        for p in range(12):  # the group and the topic are drawn independently, per prompt
            pronoun, topic = ("she" if rng.random() < 0.5 else "he"), rng.choice(words, 2, replace=False)
            for _ in range(5):
                texts.append(f"{pronoun} is very {topic[0]} and {topic[1]}, also {rng.choice(words)} today.")
                prompts.append(p)
        versions = _group_versions(texts, "gender")
        test = group_shuffle_test(texts, {g: versions[g] for g in ("female", "male")}, cobs, units=prompts,
                                  n_permutations=99, seed=seed)  # fmt: skip
        assert 9 <= test.details["n_shuffled"] <= 12  # prompts (one whose answers mix groups stays), not answers
        rejections += test.p_value < 0.05
    assert rejections <= 5, rejections  # 30 null corpora: ~1.5 expected at the 5% level


@pytest.mark.pipeline
def test_the_tests_table_is_the_whole_multiple_testing_family() -> None:
    """Every p-value that enters the Benjamini-Hochberg adjustment has its row in ``a.tests`` (sentiment swaps, the
    similarity rows' noise-floor swap tests, the co-occurrence shuffles): the adjustment can be redone from it."""
    from evenhand.stats import omnibus_then_pairs

    table = planted_table("race", {"black": COLDER}, base=NEUTRAL, n_prompts=40, samples=3, seed=2)
    a = evenhand.assess(task="text_generation", responses=table, attributes=["race"], embedder=False,
                        n_resamples=100, progress=False)  # fmt: skip
    tests = a.tests
    assert {"swap test of the noise floor"} <= set(tests["method"])
    families = list(zip(tests["key"], tests["attribute"], strict=True))  # one metric's pairs of one attribute
    redone = omnibus_then_pairs(tests["p_value"].to_numpy(dtype=float), families)
    np.testing.assert_allclose(redone, tests["p_adjusted"].to_numpy(dtype=float))
    similarity = a.metrics[a.metrics["metric"] == "CROUGE-L"]
    assert similarity["p_adjusted"].notna().all()  # the verdict reads these
