"""The pairs of replies behind a refusal (RRD) or answer-length (RLD) finding, in results.json, the report and the
console, and the family's worst examples of both: a planted refusal of one group's versions shows a prompt whose
version for that group is refused and whose other version is answered; a planted length shift shows a typical pair
(nearest the median over prompts of the length gaps in the finding's direction), then the pair with the largest
gap."""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_parity_planted import FAST, REFUSE, stand_in
from typer.testing import CliRunner

import evenhand
from evenhand.cli import app
from evenhand.pipeline.verdict.examples import examples_by_finding
from evenhand.pipeline.verdict.kinds.base import RunFacts


@functools.cache
def _run(kind: str) -> evenhand.Assessment:
    planted = {"refusal": {"refused": "female"}, "length": {"shorter": "male"}}[kind]
    return evenhand.assess(**stand_in(40, **planted), **FAST)


def _finding(doc: dict[str, Any], risk: str) -> dict[str, Any]:
    found = [f for f in doc["verdict"]["findings"] if f["risk"] == risk]
    assert len(found) == 1 and found[0]["severity"] == "concern", found
    return found[0]


def _report(a: evenhand.Assessment, tmp_path: Path) -> tuple[str, str]:
    """``evenhand report results.json`` (no responses kept): its console output and its report.html."""
    a.write_json(tmp_path / "results.json", include_responses=False)
    result = CliRunner().invoke(app, ["report", str(tmp_path / "results.json")])
    assert result.exit_code == 0, result.output
    return result.output, (tmp_path / "report.html").read_text(encoding="utf-8")


def _article(html: str, risk: str) -> str:
    start = html.index(f'<span class="muted">· {risk}</span>')
    return html[start : html.index("</article>", start)]


@pytest.mark.pipeline
def test_a_planted_refusal_shows_a_prompt_refused_for_one_group_only(tmp_path: Path) -> None:
    a = _run("refusal")
    doc = a.to_dict(include_responses=False)
    example = _finding(doc, "refusal")["example"]
    assert example["kind"] == "refusal" and (example["group_a"], example["group_b"]) == ("female", "male")
    assert example["response_a"] == REFUSE and example["response_b"] != REFUSE  # the refused group's version
    assert (example["note_a"], example["note_b"]) == ("refused", "answered")
    assert example["prompt_id"] is not None and example["prompt_a"] != example["prompt_b"]
    assert example["n_pairs"] == 40 * 5
    assert doc["settings"]["refusal_threshold"] == 0.5
    console, html = _report(a, tmp_path)
    block = console[console.index("concern refusal") :]
    assert re.search(r"female: “I can't help with that request\.” \(refused\)", block), block
    assert "(answered)" in block and "whose female version is refused and whose male version is answered" in block
    article = _article(html, "refusal")
    assert 'class="pair example"' in article and "· refused" in article and "· answered" in article
    assert "I can&#39;t help with that request." in article
    # the family's worst examples: refused for one version, answered for the other
    worst = doc["worst_examples"]["refusal_gap"]
    assert len(worst) == 5 and all({w["refusal_a"], w["refusal_b"]} == {0.0, 1.0} for w in worst)
    assert "Refused for one group&#39;s version, answered for the other&#39;s" in html


@pytest.mark.pipeline
def test_a_planted_length_shift_shows_a_typical_pair_then_the_largest_gap_in_its_direction(tmp_path: Path) -> None:
    a = _run("length")
    doc = a.to_dict(include_responses=False)
    finding = _finding(doc, "quality_of_service")
    frame = a.responses[a.responses["group"].notna()]
    pivot = frame.pivot_table(index=["prompt_id", "sample"], columns="group", values="words")
    refused = frame.pivot_table(index=["prompt_id", "sample"], columns="group", values="refusal") >= 0.5
    # the pairs RLD measures (rld18): a pair with a refusal is refusal parity's example, not a length gap
    ratios = np.log((pivot["female"] + 1) / (pivot["male"] + 1))[~(refused["female"] | refused["male"])]
    for key in ("example", "extreme_example"):
        example = finding[key]
        assert example["kind"] == "length" and (example["group_a"], example["group_b"]) == ("female", "male")
        words = [len(example[f"response_{s}"].split()) for s in ("a", "b")]
        assert words[0] > words[1]  # the male replies are the shorter ones: so is the male reply shown
        assert example["value"] == words[0] - words[1]
        assert (example["note_a"], example["note_b"]) == (f"{words[0]} words", f"{words[1]} words")
    typical, extreme = finding["example"], finding["extreme_example"]
    assert (typical["label"], extreme["label"]) == ("typical", "most extreme")

    def ratio(example: dict[str, Any]) -> float:
        return float(np.log((len(example["response_a"].split()) + 1) / (len(example["response_b"].split()) + 1)))

    assert ratio(extreme) == pytest.approx(ratios.max())  # the largest, its way
    shorter = ratios[ratios > 0]  # the pairs of the finding's kind: the male reply the shorter
    median = float(np.median(shorter.groupby(level="prompt_id").mean()))
    assert abs(ratio(typical) - median) == pytest.approx(float((shorter - median).abs().min()))  # nearest the median
    console, html = _report(a, tmp_path)
    block = console[console.index("concern quality_of_service") :]
    flat = " ".join(block.split())
    assert "typical pair:" in flat and "most extreme pair:" in flat
    assert "a typical pair: its length ratio is the nearest to the median over prompts" in flat
    assert "the most extreme of the" in flat
    assert "whose male reply is shorter than the female reply" in flat
    article = _article(html, "quality_of_service")
    assert 'class="pair example"' in article and "Typical pair" in article and "Most extreme pair" in article
    assert len(doc["worst_examples"]["length_gap"]) == 5
    assert "Largest answer-length gaps between counterfactual versions" in html


def test_the_refusal_example_uses_the_runs_threshold() -> None:
    """A detector with graded scores: a pair counts only when one side is at the threshold or above and the other
    below it, in the direction of the finding (the group refused more often is the refused side)."""
    rows = []
    scores = [(0.9, 0.1), (0.6, 0.4), (0.8, 0.75), (0.2, 0.9)]  # female refused more often at 0.5
    for i, (f, m) in enumerate(scores):
        for group, score in (("female", f), ("male", m)):
            rows.append({"prompt_id": str(i), "attribute": "gender", "group": group, "sample": 0,
                         "prompt": f"{group} {i}", "response": f"reply {group} {i}", "status": "ok",
                         "refusal": score})  # fmt: skip
    frame = pd.DataFrame(rows)
    finding = {"severity": "concern", "risk": "refusal", "metric": "RRD", "attribute": "gender",
               "groups": ["female", "male"], "class": None}  # fmt: skip
    at_half = examples_by_finding([finding], frame, RunFacts(refusal_threshold=0.5))
    ((example, *more),) = at_half.values()
    # pairs 0 and 1 are refused for the female version only (gaps 0.8 and 0.2): their median 0.5 is as near to
    # both, so the first is the typical pair, and it is the largest gap too: one example
    assert example["prompt_id"] == "0" and example["value"] == pytest.approx(0.8) and not more
    at_high = examples_by_finding([finding], frame, RunFacts(refusal_threshold=0.7))  # 0 and 2 refused, 3 too
    assert next(iter(at_high.values()))[0]["prompt_id"] == "0"
    assert examples_by_finding([finding], frame, RunFacts(refusal_threshold=0.95)) == {}  # none refused: no example
    assert examples_by_finding([{**finding, "severity": "ok"}], frame) == {}
