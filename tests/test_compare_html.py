"""The comparison page: self-contained, verdict on the difference first, escaped text, clean in headless Chromium."""

from __future__ import annotations

import copy
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from test_compare_fixtures import biased_run, fair_run

import evenhand
from evenhand.comparison.render import render_comparison_html

Chromium = Callable[..., subprocess.CompletedProcess[str]]  # the conftest fixture: chromium(url, *args)

PAYLOAD = "<script>document.title='PWNED'</script><img src=x onerror=\"document.title='PWNED'\">"


@pytest.fixture(scope="module")
def html() -> str:
    doc = copy.deepcopy(biased_run().to_dict())
    doc["plan"]["use_case"]["name"] = f"Outreach {PAYLOAD}"
    doc["model"] = {"provider": "openai", "model": f"m {PAYLOAD}"}
    return evenhand.compare(fair_run(), doc, labels=["baseline", f"new {PAYLOAD}"]).to_html()


@pytest.mark.pipeline
def test_page_is_self_contained_and_escaped(html: str) -> None:
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html.lower() and "&lt;script&gt;" in html
    assert "onerror=" not in html.replace("onerror=&#34;", "").replace("onerror=&quot;", "")
    assert not re.search(r"(src|href)=\"(https?:)?//", html)  # nothing loaded from the network
    assert "Content-Security-Policy" in html


def test_verdict_on_the_difference_comes_first(html: str) -> None:
    order = [html.index(s) for s in ("Verdict on the difference", "Runs</h2>", "Findings: what", "Metrics per run")]
    assert order == sorted(order)
    assert "is worse than baseline on gender SCSP (female vs male)" in html
    assert "appeared" in html and "paired by prompt and sample on 24 prompts" in html


def test_render_refuses_other_documents() -> None:
    with pytest.raises(ValueError, match="needs a comparison document"):
        render_comparison_html({"schema": "evenhand/assessment"})


@pytest.mark.browser
@pytest.mark.subprocess
def test_comparison_in_headless_chromium(html: str, chromium: Chromium, tmp_path: Path) -> None:
    page = tmp_path / "comparison.html"
    page.write_text(html, encoding="utf-8")
    shot = tmp_path / "comparison.png"
    run = chromium(page.as_uri(), f"--screenshot={shot}", "--window-size=1200,1800")
    assert shot.is_file() and shot.stat().st_size > 10_000, run.stderr[-2000:]
    assert not [line for line in run.stderr.splitlines() if "CONSOLE" in line]

    # escaping alone must stop the payload, even without the page's Content-Security-Policy
    no_csp = tmp_path / "no_csp.html"
    no_csp.write_text(re.sub(r"<meta http-equiv=\"Content-Security-Policy\"[^>]*>", "", html), encoding="utf-8")
    dom = chromium(no_csp.as_uri(), "--dump-dom")
    title = re.search(r"<title>(.*?)</title>", dom.stdout, re.S)
    assert title is not None and title.group(1).startswith("evenhand comparison: baseline vs new &lt;script&gt;")
    assert "Verdict on the difference" in dom.stdout and "&lt;script&gt;document.title" in dom.stdout
