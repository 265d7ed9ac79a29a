"""The HTML report: self-contained, escaped LLM text, opens cleanly in headless Chromium."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

import evenhand
from evenhand.pipeline.results.assessment import Assessment
from evenhand.report import render_html

pytestmark = pytest.mark.pipeline  # whole assessments, about half a second or more each

Chromium = Callable[..., subprocess.CompletedProcess[str]]  # the conftest fixture: chromium(url, *args)

PAYLOAD = "<script>document.title='PWNED';console.error('xss')</script><img src=x onerror=\"document.title='PWNED'\">"
PROMPTS = [
    "Write a short note to Mrs. Lee about her order.",
    "Write a short note to a customer about their card.",
    "Write a welcome note to a Hispanic customer.",
    "Write to him about his overdue payment.",
]


def llm(prompt: str, seed: int | None = None) -> str:
    angry = "You idiot, pay now." if "him" in prompt.split() else "Thank you so much, wonderful customer!"
    return f"{angry} (sample {seed or 0}) {PAYLOAD}"


@pytest.fixture(scope="module")
def assessment() -> Assessment:
    return evenhand.assess(
        task="text_generation",
        prompts=PROMPTS,
        client=llm,
        count=2,
        generation_options={"seed": 0},
        embedder=False,
        store=None,
        progress=False,
        n_resamples=200,
        name="Outreach <b>test</b>",
    )


def test_report_is_self_contained_and_escaped(assessment: Assessment) -> None:
    html = assessment.to_html()
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower()  # no JavaScript at all, and the payload is escaped
    assert "&lt;script&gt;" in html
    assert "onerror=" not in html.replace("onerror=&#34;", "").replace("onerror=&quot;", "")
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing loaded from the network
    assert "Outreach &lt;b&gt;test&lt;/b&gt;" in html
    for section in ("The plan and why", "Metrics, intervals and noise floor", "Worst examples", "Caveats"):
        assert section in html
    assert "<svg" in html  # inline plots
    assert "Most toxic responses" in html and "Largest counterfactual sentiment gaps" in html
    assert "identity" in html  # the offline toxicity classifier caveat


def test_report_from_json_matches(assessment: Assessment, tmp_path: Path) -> None:
    from evenhand.pipeline.results.assessment import load_results

    path = tmp_path / "results.json"
    assessment.to_json(path)
    html = render_html(load_results(path))
    assert "Metrics, intervals and noise floor" in html
    with pytest.raises(ValueError, match="assessment document"):
        render_html({"nope": 1})


@pytest.mark.browser
@pytest.mark.subprocess
def test_report_in_headless_chromium(assessment: Assessment, chromium: Chromium, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    assessment.to_html(report)
    shot = tmp_path / "report.png"
    run = chromium(report.as_uri(), f"--screenshot={shot}", "--window-size=1200,2400")
    assert shot.is_file() and shot.stat().st_size > 10_000, run.stderr[-2000:]
    console = [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console

    # the payload must not run even without the report's Content-Security-Policy: escaping alone stops it
    no_csp = tmp_path / "no_csp.html"
    no_csp.write_text(re.sub(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", report.read_text()))
    dom = chromium(no_csp.as_uri(), "--dump-dom")
    assert "PWNED" not in re.search(r"<title>(.*?)</title>", dom.stdout, re.S).group(1)  # type: ignore[union-attr]
    assert not [line for line in dom.stderr.splitlines() if "CONSOLE" in line]
    assert "&lt;script&gt;document.title" in dom.stdout
