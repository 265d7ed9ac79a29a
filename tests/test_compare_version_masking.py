"""``compare`` rebuilds a run's similarities (CROUGE-L, CBLEU) from its stored replies masked as the run masked them:
the words in which *any* version of the prompt differs and the names of *all* versions, not only the pair's two
(compare14). "an Asian" makes "a"/"an" a swapped word the run masks in every version; the white/black pair alone
shares "a", so a rebuild per pair could not reproduce the stored value and fell back to a normal approximation."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import evenhand
from evenhand.comparison.pairing import NORMAL, normal_difference
from evenhand.pipeline.responses.frame import counterfactual_pairs
from evenhand.pipeline.responses.masked_replies import SWAPPED_TOKEN, masked_pairs, pair_versions
from evenhand.pipeline.verdict.kinds.base import RunFacts
from evenhand.pipeline.verdict.kinds.similarity import KIND as SIMILARITY
from evenhand.registry import metric as registry_metric

FAST = {"embedder": False, "n_resamples": 200, "store": None, "progress": False}
TOPICS = ["our new mobile app", "the branch closing", "the card renewal", "the missed payment", "the savings account",
          "the loan options"]  # fmt: skip
PROMPTS = [f"Write a friendly message to a White customer about {t}." for t in TOPICS]
WORDS = "thanks please note kindly today soon always happy glad welcome service team help".split()


def noisy_echo(seed: int) -> Callable[[str], str]:
    """A fair assistant: echoes the prompt (its version's article and group word too), then six random words."""
    rng = random.Random(seed)
    return lambda prompt: f"Hello! {prompt} " + " ".join(rng.choice(WORDS) for _ in range(6))


def _run(path: Path) -> evenhand.Assessment:
    run = evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["race"], client=noisy_echo(7), count=1,
                          counterfactual_count=2, **FAST)  # fmt: skip
    run.to_json(path)
    return run


@pytest.mark.pipeline
def test_a_run_compared_with_itself_reproduces_every_similarity_row_and_pairs_it(tmp_path: Path) -> None:
    _run(tmp_path / "a.json")
    rows = evenhand.compare(tmp_path / "a.json", tmp_path / "a.json").metrics
    similarity = rows[rows["metric"].isin(["CROUGE-L", "CBLEU"])]
    assert len(similarity) == 12  # 6 pairs of the 4 race versions, two metrics
    assert (similarity["method"] == "paired").all(), similarity[["metric", "comparison", "note"]].to_string()
    assert (similarity["difference"] == 0).all()


def _three_versions() -> pd.DataFrame:
    rows = []
    for group, words, name in (("white", "a White", "Sullivan"), ("black", "a Black", "Cadet"),
                               ("asian", "an Asian", "Kang")):  # fmt: skip
        prompt = f"Write to {words} customer, Mr. {name}, about the loan."
        reply = f"Dear Mr. {name}, as {words} customer and a friend of Mr. Kang you qualify."
        rows.append({"prompt_id": 0, "attribute": "race", "group": group, "sample": 0, "prompt": prompt,
                     "response": reply, "status": "ok"})  # fmt: skip
    original = "Write to a customer, Mr. Sullivan, about the loan."
    rows.append({"prompt_id": 0, "attribute": None, "group": None, "sample": 0, "prompt": original, "response": "Hi.",
                 "status": "ok"})  # fmt: skip
    return pd.DataFrame(rows)


def test_a_pair_is_masked_over_every_version_of_its_prompt_not_only_its_own_two() -> None:
    frame = _three_versions()
    pairs = counterfactual_pairs(frame, "race", "white", "black")
    a, b = masked_pairs(frame, "race", pairs)
    # "a"/"an" is swapped by the asian version, and Kang is the asian version's name: both masked, as the run did
    assert a == b == [f"Dear Mr. [NAME], as {SWAPPED_TOKEN} {SWAPPED_TOKEN} customer and {SWAPPED_TOKEN} friend of "
                      "Mr. [NAME] you qualify."]  # fmt: skip
    alone = masked_pairs(pair_versions(pairs, "race"), "race", pairs)  # the pair's own two versions only
    assert alone[0] == ["Dear Mr. [NAME], as a [MASK] customer and a friend of Mr. Kang you qualify."]


@pytest.mark.pipeline
def test_the_example_reads_each_pair_as_the_metric_compared_it(tmp_path: Path) -> None:
    run = _run(tmp_path / "a.json")
    row = run.metrics[(run.metrics["metric"] == "CBLEU") & (run.metrics["comparison"] == "white vs black")]
    pairs = counterfactual_pairs(run.responses, "race", "white", "black")
    facts = RunFacts(attribute_specs=run.plan.use_case.attribute_specs, responses=run.responses)
    reading = SIMILARITY.read_pairs(registry_metric("CBLEU"), "race", ("white", "black"), pairs, facts)
    assert reading is not None
    # CBLEU is the mean of the pairs' BLEU: the example's readings average to the stored value
    assert float(np.mean(reading.shown)) == pytest.approx(float(row["value"].iloc[0]), abs=1e-9)


def test_the_normal_approximation_stays_within_the_difference_s_possible_range() -> None:
    # a run whose CBLEU fell back to its stored intervals (the newcomer's +0.943 [+0.721, +1.17])
    base = {"key": "counterfactual_bleu", "value": 0.05, "ci_low": 0.0, "ci_high": 0.1, "ci_level": 0.95}
    run = {"key": "counterfactual_bleu", "value": 0.993, "ci_low": 0.7, "ci_high": 1.0, "ci_level": 0.95}
    diff = normal_difference(base, run, 0.95, "as a test")
    assert diff.method == NORMAL and diff.estimate == pytest.approx(0.943)
    assert diff.low is not None and diff.high is not None
    assert -1.0 <= diff.low < diff.estimate < diff.high == 1.0  # CBLEU lies in [0, 1]: two runs differ by at most 1
    assert "clipped to [-1, +1]" in diff.note
    inside = normal_difference({**base, "value": 0.5, "ci_low": 0.45, "ci_high": 0.55}, {**run, "value": 0.55,
                               "ci_low": 0.5, "ci_high": 0.6}, 0.95, "as a test")  # fmt: skip
    assert "clipped" not in inside.note and inside.high is not None and inside.high < 1
    # a metric without a finite bound (COBS in [0, inf)) is never clipped
    cobs = {"key": "cooccurrence_bias", "value": 0.1, "ci_low": 0.0, "ci_high": 0.2}
    wide = normal_difference(cobs, {**cobs, "value": 5.0, "ci_low": 1.0, "ci_high": 9.0}, 0.95, "as a test")
    assert wide.high is not None and wide.high > 8 and "clipped" not in wide.note
