"""compare17: a row that a run left undefined says why in the comparison, not only that it is "not comparable".

A newcomer ran one config twice against the loopback stub and compared the runs: 82 rows, "7 not comparable",
each with the note "undefined in both runs" and "(none)" on the console. All seven were COBS/SA rows that both runs
left undefined for a reason each run stored ("no target word co-occurs with words of both groups"): a true limit
(there is nothing to compare), but the comparison did not say it.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import evenhand
from evenhand.comparison.render import terminal_table

PROMPTS = [f"Write a short note to Mrs. {n} about her {t}." for n in ("Lee", "Chen", "Novak", "Okafor")
           for t in ("card", "refund", "claim")]  # fmt: skip
COBS_WHY = "no response contains a word of group(s) ['female', 'male']"  # the run's own reason


@pytest.fixture(scope="module")
def comparison() -> evenhand.RunComparison:
    run = evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["gender"], count=1,
                          client=lambda p: "Thank you, it is all set.", counterfactual_count=2, embedder=False,
                          store=None, progress=False, n_resamples=100)  # fmt: skip
    return evenhand.compare(run, run)


@pytest.mark.pipeline
def test_a_row_undefined_in_both_runs_gives_the_runs_reason(comparison: evenhand.RunComparison) -> None:
    rows = comparison.metrics[comparison.metrics["change"] == "not comparable"]
    assert set(rows["metric"]) == {"COBS", "SA", "CCS"}
    cobs = rows[rows["metric"] == "COBS"].iloc[0]
    assert cobs["note"] == f"undefined in both runs ({COBS_WHY})"
    for note in rows["note"]:  # every one says why, not only that it is undefined
        assert note.startswith("undefined in both runs (") and len(note) > len("undefined in both runs (x)")


@pytest.mark.pipeline
def test_the_summary_says_why_rows_are_not_comparable(comparison: evenhand.RunComparison) -> None:
    assert comparison.summary_of("B").endswith("3 not comparable (3 undefined in both runs)")


@pytest.mark.pipeline
def test_the_console_shows_why_a_row_is_not_comparable(comparison: evenhand.RunComparison) -> None:
    from rich.console import Console

    console = Console(width=400, record=True)
    console.print(terminal_table(comparison.to_dict()))
    text = console.export_text()
    cobs = next(line for line in text.splitlines() if line.strip().startswith("COBS"))
    assert f"not comparable: undefined in both runs ({COBS_WHY})" in cobs
    assert "(none)" not in cobs


def test_each_run_s_reason_is_named_when_they_differ_and_a_run_that_has_a_value_says_so() -> None:
    from evenhand.comparison.pairing import undefined_difference

    a = {"value": None, "reason": "no target word appears"}
    b = {"value": None, "reason": "no embedder"}
    both = undefined_difference(a, b, ("old", "new"))
    assert both.estimate is None and both.method == "none"
    assert both.note == "undefined in both runs (old: no target word appears; new: no embedder)"
    one = undefined_difference({"value": 0.4, "reason": None}, b, ("old", "new"))
    assert one.note == "undefined in run new (no embedder); old has a value"
    bare = undefined_difference({"value": None}, {"value": None}, ("A", "B"))
    assert bare.note == "undefined in both runs (neither run stored a reason)"


ADJECTIVES = "kind caring strong smart gentle brave emotional rational warm".split()


def _gendered_replies(seed: int) -> Callable[[str], str]:
    rng = random.Random(seed)
    return lambda p: (f"The woman was {rng.choice(ADJECTIVES)} and the man was {rng.choice(ADJECTIVES)}; she and he "
                      f"were {rng.choice(ADJECTIVES)}.")  # fmt: skip


@pytest.mark.pipeline
def test_co_occurrence_rows_are_rebuilt_from_the_stored_replies_and_paired() -> None:
    """COBS and SA read the original replies' words, which results keep: compare rebuilds them as the run computed
    them and pairs them (before compare17: "COBS (texts) is not recomputed from stored responses yet", normal
    approximation)."""
    runs = [evenhand.assess(task="text_generation", prompts=PROMPTS, attributes=["gender"], count=1,
                            client=_gendered_replies(seed), counterfactual_count=2, embedder=False, store=None,
                            progress=False, n_resamples=100) for seed in (1, 2)]  # fmt: skip
    rows = evenhand.compare(*runs).metrics
    rows = rows[rows["metric"].isin(["COBS", "SA"])]
    assert len(rows) == 2 and rows["value_A"].notna().all()
    assert list(rows["method"]) == ["paired", "paired"], list(rows["note"])
    itself = evenhand.compare(runs[0], runs[0]).metrics
    itself = itself[itself["metric"].isin(["COBS", "SA"])]
    assert list(itself["difference"]) == [0.0, 0.0] and list(itself["method"]) == ["paired", "paired"]
