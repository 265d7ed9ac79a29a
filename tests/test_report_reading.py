"""A report read in one minute: a biased run (a bank's support assistant, with planted biases for gender, age and
religion) leads with a headline per attribute, then each concern and watch in plain words with the pair of replies
that shows it side by side, then the ok findings folded per attribute; NaN rows are one line per attribute; the
console follows the same order; wrong predictions are shown once per person. Checked as a reader would, too: a
screenshot at 1400 px in headless Chromium, and where things land on the first screen."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from rich.console import Console
from typer.testing import CliRunner

import evenhand
from evenhand.cli import app
from evenhand.metrics import neutralize_pairs, rouge_l_scores
from evenhand.report import render_html
from evenhand.report.console import print_assessment
from evenhand.report.digest import digest

sys.path.insert(0, str(Path(__file__).parent))
from _bias_fixtures import CONTENT_B, HARSH, TOPICS, planted_table

Chromium = Callable[..., subprocess.CompletedProcess[str]]
NEUTRAL = {"harsh": 1 / 3, "plain": 1 / 3, "warm": 1 / 3}
COLDER = {"harsh": 0.6, "plain": 0.3, "warm": 0.1}
ATTRIBUTES = ["gender", "age", "religion"]


def bank_table(n_prompts: int = 60, samples: int = 3) -> pd.DataFrame:
    """Own responses of a support assistant: male replies about other things (similarity), colder replies for old
    customers and for Muslim customers (sentiment); one block of prompts per attribute."""
    parts = [
        planted_table("gender", {"female": {"content_a": 1.0}, "male": {"content_a": 0.5, "content_b": 0.5}},
                      base={"content_a": 1.0}, n_prompts=n_prompts, samples=samples),
        planted_table("age", {"old": COLDER}, base=NEUTRAL, n_prompts=n_prompts, samples=samples, seed=1),
        planted_table("religion", {"muslim": COLDER}, base=NEUTRAL, n_prompts=n_prompts, samples=samples, seed=2),
    ]  # fmt: skip
    for i, part in enumerate(parts):
        part["prompt_id"] += 10_000 * i  # distinct prompts per attribute's block
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def bank() -> evenhand.Assessment:  # a whole assessment: the tests that take it (or doc, html) are marked pipeline
    return evenhand.assess(
        task="text_generation", responses=bank_table(), attributes=ATTRIBUTES, embedder=False, n_resamples=200,
        store=None, progress=False, name="Bank support assistant",
    )  # fmt: skip


@pytest.fixture(scope="module")
def doc(bank: evenhand.Assessment) -> dict[str, Any]:
    return bank.to_dict(include_responses=False)


@pytest.fixture(scope="module")
def html(doc: dict[str, Any]) -> str:
    return render_html(doc)


def _findings(doc: dict[str, Any], *severities: str) -> list[dict[str, Any]]:
    return [f for f in doc["verdict"]["findings"] if f["severity"] in severities]


def _pairs(bank: evenhand.Assessment, attribute: str, a: str, b: str) -> pd.DataFrame:
    rows = bank.responses[(bank.responses["attribute"] == attribute) & (bank.responses["status"] == "ok")]
    left, right = rows[rows["group"] == a], rows[rows["group"] == b]
    return left.merge(right, on=["prompt_id", "sample"], suffixes=("_a", "_b"))


# ------------------------------------------------------------------------------------------------ the document
@pytest.mark.pipeline
def test_the_run_has_what_the_report_must_lead_with(doc: dict[str, Any]) -> None:
    findings = [f for f in doc["verdict"]["findings"] if f["risk"] == "counterfactual"]  # the planted risk
    by_attribute = {a: [f for f in findings if f["attribute"] == a] for a in ATTRIBUTES}
    assert [f["severity"] for f in by_attribute["gender"]] == ["concern"]
    assert all(f["severity"] == "concern" for f in by_attribute["age"] if "old" in f["groups"])
    muslim = [f for f in by_attribute["religion"] if "muslim" in f["groups"]]
    assert len(muslim) == 5 and all(f["severity"] == "concern" for f in muslim)
    assert sum(f["severity"] == "ok" for f in by_attribute["religion"]) >= 8


@pytest.mark.pipeline
def test_each_counterfactual_concern_carries_the_pair_that_shows_it(
    bank: evenhand.Assessment, doc: dict[str, Any]
) -> None:
    # a counterfactual finding compares two groups; the observational rows (people no name list places, issue 33)
    # compare two sets of prompts and have no pair to show
    counterfactual = [f for f in _findings(doc, "concern", "watch") if f["groups"]]
    assert counterfactual
    for f in counterfactual:
        assert "example" in f, f["sentence"]
    assert not any("example" in f for f in _findings(doc, "ok"))  # an ok has nothing to show
    for f in counterfactual:
        # issue 37: the typical pair first (example), then the most extreme one (extreme_example), which is the one
        # checked here; a finding whose typical pair is also the most extreme has the one
        ex, (a, b) = f.get("extreme_example", f["example"]), f["groups"]
        assert f["example"]["label"] == "typical" and (f["example"]["group_a"], f["example"]["group_b"]) == (a, b)
        assert (ex["group_a"], ex["group_b"]) == (a, b)
        pairs = _pairs(bank, f["attribute"], a, b)
        assert ex["n_pairs"] == len(pairs)
        if ex["kind"] == "sentiment":
            gaps = pairs["sentiment_a"].to_numpy(float) - pairs["sentiment_b"].to_numpy(float)
            direction = 1 if pairs["sentiment_a"].mean() >= pairs["sentiment_b"].mean() else -1
            assert ex["value"] == pytest.approx(direction * np.max(direction * gaps))  # the largest gap, its way
            colder = a if direction < 0 else b
            assert ex[f"score_{'a' if colder == a else 'b'}"] < ex[f"score_{'b' if colder == a else 'a'}"]
            if "muslim" in (a, b):  # the planted colder group's reply in the pair is the harsh one
                side = "a" if a == "muslim" else "b"
                assert ex[f"response_{side}"] in {t.format(topic=topic) for t in HARSH for topic in TOPICS}
        else:
            assert ex["kind"] == "similarity" and ex["measure"] == "ROUGE-L" and f["attribute"] == "gender"
            neutral = neutralize_pairs(pairs["response_a"].tolist(), pairs["response_b"].tolist(), "gender")
            assert ex["value"] == pytest.approx(np.nanmin(rouge_l_scores(neutral.neutral1, neutral.neutral2)))
            assert ex["response_b"] in CONTENT_B  # the planted difference: male replies about something else


# ------------------------------------------------------------------------------------------------ the report
@pytest.mark.pipeline
def test_report_leads_with_headlines_then_concerns_then_folded_ok(doc: dict[str, Any], html: str) -> None:
    verdict = html[html.index('<section id="verdict">') : html.index("</section>", html.index('id="verdict"'))]
    headline = verdict.index('<ul class="headlines">')
    articles = [m.start() for m in re.finditer(r'<article class="finding (concern|watch)">', verdict)]
    kinds = re.findall(r'<article class="finding (concern|watch)">', verdict)
    ok = verdict.index('id="ok-findings"')
    assert headline < articles[0] and articles[-1] < ok  # headline first, concerns before ok
    assert kinds == sorted(kinds)  # every concern before any watch ("concern" < "watch")
    assert len(articles) == len(_findings(doc, "concern", "watch"))  # no ok finding among them
    # the headline per attribute, in the use case's order, with the counts of the verdict
    items = re.findall(r'<li class="headline (\w+)">.*?<strong>(.*?)</strong>: (.*?)</li>', verdict)
    assert [name for _, name, _ in items] == ["whole use case", *ATTRIBUTES]
    counts = {name: text for _, name, text in items}
    assert re.fullmatch(r"1 concern(, \d+ (pairs? )?ok)?", counts["gender"]), counts["gender"]
    assert re.fullmatch(r"\d+ concerns, (\d+ to watch, )?\d+ (pairs? )?ok", counts["religion"]), counts["religion"]
    assert counts["religion"].startswith(f"{sum(f['attribute'] == 'religion' for f in _findings(doc, 'concern'))} ")
    # ok findings: folded, one closed <details> per attribute, their sentences only inside it
    folds = re.findall(r'<details class="ok-line"( open)?>', verdict)
    assert folds and not any(folds)
    assert len(folds) == len({f["attribute"] for f in _findings(doc, "ok")})
    for f in _findings(doc, "ok"):
        escaped = f["sentence"].replace("'", "&#39;").replace('"', "&#34;")
        assert escaped not in verdict[:ok], f["sentence"]


@pytest.mark.pipeline
def test_a_concern_reads_words_first_then_the_pair_then_the_numbers(doc: dict[str, Any], html: str) -> None:
    gender = next(f for f in _findings(doc, "concern") if f["attribute"] == "gender")
    start = html.index("<strong>gender</strong> · female vs male")
    article = html[start : html.index("</article>", start)]
    words, pair = article.index('class="finding-words"'), article.index('class="pair example"')
    numbers = article.index('<details class="numbers">')
    assert words < pair < numbers
    assert gender["example"]["response_a"] in article and gender["example"]["response_b"] in article
    assert "Typical pair" in article and "a typical pair: its ROUGE-L is the nearest to the median" in article
    assert "noise floor" in article[numbers:]  # the evidence's numbers, folded under the plain words


@pytest.mark.pipeline
def test_nan_rows_are_one_line_per_attribute(doc: dict[str, Any], html: str) -> None:
    undefined = [r for r in doc["metrics"] if r["value"] is None]
    assert len([r for r in undefined if r["metric"] == "COBS"]) == 1 + 3 + 15  # every row stays in the JSON
    stereotypes = html[html.index("<h3>Stereotypes") : html.index("<h3>", html.index("<h3>Stereotypes") + 4)]
    lines = re.findall(r'<p class="nan-line small">.*?<strong>(.*?)</strong>', stereotypes, re.S)
    assert lines == ATTRIBUTES and "<table" not in stereotypes  # no table of 19 NaN rows
    assert "COBS (15 pairs of groups)" in stereotypes
    assert html.count('title="undefined: see the note below"') == 0  # no NaN row left in any table


@pytest.mark.pipeline
def test_evenhand_report_rerenders_the_examples_from_results_json(
    bank: evenhand.Assessment, doc: dict[str, Any], tmp_path: Path
) -> None:
    bank.write_json(tmp_path / "results.json", include_responses=False)  # the responses are not needed
    result = CliRunner().invoke(app, ["report", str(tmp_path / "results.json")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    for f in _findings(doc, "concern"):
        assert html.count(f["example"]["response_a"].replace("'", "&#39;")) >= 1
    lines = [line for line in result.output.splitlines() if line.strip()]
    headline = digest(doc).headline  # type: ignore[union-attr]
    shown = " ".join(" ".join(lines[1:4]).split())  # the console wraps a long headline at its width
    assert lines[0].startswith("verdict: CONCERN") and shown.startswith(" ".join(headline.split())), lines[:4]
    assert all(line.startswith("  ") for line in lines[1:4]), lines[:4]  # ... keeping its indent
    first_ok = next(i for i, line in enumerate(lines) if line.startswith("  ok "))
    last_concern = max(i for i, line in enumerate(lines) if line.startswith("  concern "))
    assert last_concern < first_ok and lines[-1].startswith("wrote ")


# ------------------------------------------------------------------------------------------------ the console
def test_a_wrapped_line_keeps_its_indent_and_data_is_not_markup() -> None:
    from rich.markup import escape

    from evenhand.report.console import _say

    console = Console(width=40, record=True, color_system=None)
    _say(console, "  [green]ok[/] " + escape(" ".join(["[b]gender[/b]"] * 6)))  # data, escaped as the console does
    _say(console, "verdict: OK — a use case whose name is long enough to wrap at forty columns")
    lines = console.export_text().splitlines()
    cut = next(i for i, line in enumerate(lines) if line.startswith("verdict"))
    assert lines[0].startswith("  ok [b]gender[/b]") and cut >= 3, lines
    assert all(line.startswith("  ") and line == line.rstrip() for line in lines[:cut]), lines  # indent, no padding
    assert not any(line.startswith(" ") for line in lines[cut:]), lines  # an unindented line wraps as before


@pytest.mark.pipeline
def test_the_console_follows_the_report_order(doc: dict[str, Any]) -> None:
    console = Console(width=1000, record=True)
    print_assessment(console, doc)
    lines = console.export_text().splitlines()
    assert lines[0].startswith("verdict: CONCERN (")
    assert lines[1].startswith("  whole use case: 1 ok; gender: 1 concern")
    severity = [line.split()[0] for line in lines if re.match(r"  (concern|watch|ok) ", line)]
    assert severity == sorted(severity, key=["concern", "watch", "ok"].index) and severity[0] == "concern"
    # one line per attribute (and the whole use case) that has ok findings: gender's are its toxicity, refusal and
    # length findings
    assert severity.count("ok") == len({f["attribute"] for f in _findings(doc, "ok")}) == 4
    concern = next(i for i, line in enumerate(lines) if line.startswith("  concern counterfactual (gender"))
    assert lines[concern + 1] == "    typical pair:"  # issue 37: labelled, the typical pair first
    assert re.match(r"      female\s*: “", lines[concern + 2]) and re.match(r"      male\s*: “", lines[concern + 3])
    table = next(i for i, line in enumerate(lines) if "evenhand: Bank support assistant" in line)
    assert table > max(i for i, line in enumerate(lines) if line.startswith("  ok "))
    nan = [line for line in lines if line.startswith("NaN (")]
    assert [line.split(")")[0][5:] for line in nan] == ATTRIBUTES  # one line per attribute, not 19+ rows
    assert not any(" NaN " in line for line in lines[table:] if not line.startswith("NaN ("))  # none in the table


# ------------------------------------------------------------------------------------------------ a reader's view
_LAYOUT = """<script>
addEventListener("load", () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const q = (s) => document.querySelector(s);
  const sides = document.querySelectorAll("article.finding .pair > div");
  const out = document.createElement("pre");
  out.id = "layout";
  out.textContent = JSON.stringify({
    headline: box(q("ul.headlines")), concern: box(q("article.finding.concern")), ok: box(q("#ok-findings")),
    a: box(sides[0]), b: box(sides[1]), scroll: document.documentElement.scrollWidth,
  });
  document.body.appendChild(out);
});
</script>"""


@pytest.mark.browser
@pytest.mark.subprocess
@pytest.mark.pipeline
def test_the_report_at_1400_px_in_headless_chromium(html: str, chromium: Chromium, tmp_path: Path) -> None:
    report = tmp_path / "report.html"
    report.write_text(html, encoding="utf-8")
    shot = tmp_path / "report.png"
    run = chromium(report.as_uri(), f"--screenshot={shot}", "--window-size=1400,900", "--hide-scrollbars")
    assert shot.is_file() and shot.stat().st_size > 20_000, run.stderr[-2000:]
    assert not [line for line in run.stderr.splitlines() if "CONSOLE" in line]
    # where things land (a copy without the policy that forbids scripts, with a script that measures the layout)
    probe = tmp_path / "probe.html"
    probe.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html).replace(
        "</body>", _LAYOUT + "</body>"), encoding="utf-8")  # fmt: skip
    dom = chromium(probe.as_uri(), "--window-size=1400,900", "--dump-dom")
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom.stdout, re.S)
    assert found, dom.stderr[-2000:]
    layout = json.loads(found.group(1).replace("&quot;", '"'))
    assert layout["headline"][1] < 400  # the headline near the top of the first screen
    assert layout["concern"][1] < 900  # the first concern starts on the first screen, without scrolling
    a, b = layout["a"], layout["b"]
    assert a[1] == b[1] and b[0] > a[2]  # the two replies side by side
    assert layout["ok"][1] > layout["concern"][3]  # the ok findings after the concerns
    assert layout["scroll"] <= 1400  # no sideways scrolling at 1400 px


# ------------------------------------------------------------------------------------------------ one per person
def test_a_wrong_prediction_is_shown_once_per_person() -> None:
    groups = ["a"] * 6 + ["b"] * 6
    prompts = [f"Applicant {i}: approve?" for i in range(12)]

    def llm(prompt: str, seed: int | None = None) -> str:
        return "no" if seed == 1 else "yes"  # two of three answers of each person say yes

    a = evenhand.assess(
        task="classification", prompts=prompts, client=llm, groups=groups, labels=["0", "1"] * 6,
        person_level=True, prevalence_parity=True, attributes=["gender"], count=3,
        generation_options={"seed": 0}, n_resamples=50, store=None, progress=False, embedder=False,
    )  # fmt: skip
    wrong = a.to_dict(include_responses=False)["worst_examples"]["misclassified"]
    assert len(wrong) == 5 and len({w["prompt"] for w in wrong}) == 5  # one per person, not one per answer
    assert [w["group"] for w in wrong[:2]] == ["a", "b"]  # groups still take turns
    truth_0 = next(w for w in wrong if w["truth"] == "0")
    assert (truth_0["n_wrong"], truth_0["n_answers"]) == (2, 3)
    assert "wrong in 2 of this person's 3 answers" in a.to_html()


# ------------------------------------------------------------------------------------------------ other shapes
def _finding(severity: str, risk: str, attribute: str | None, groups: list[str] | None) -> dict[str, Any]:
    sentence = f"{risk} {attribute} {groups} is {severity}"
    evidence = [{"metric": "M", "value": 0.5, "ci_low": 0.4, "ci_high": 0.6, "p_adjusted": 0.0004, "units": 40,
                 "severity": severity}]  # fmt: skip
    return {"risk": risk, "attribute": attribute, "groups": groups, "class": None, "severity": severity,
            "sentence": sentence, "metric": "M", "evidence": evidence}  # fmt: skip


def test_headlines_name_pairs_only_when_every_ok_is_a_pair_and_a_toxic_concern_shows_its_reply() -> None:
    doc = {
        "plan": {"use_case": {"name": "t", "attributes": ["race", "gender"]}},
        "verdict": {"status": "concern", "summary": "1 concern, 1 to watch, 3 ok", "notes": [], "findings": [
            _finding("concern", "toxicity", None, None),
            _finding("watch", "stereotype", "gender", None),
            _finding("ok", "counterfactual", "gender", ["female", "male"]),
            _finding("ok", "stereotype", "race", None),
            _finding("ok", "counterfactual", "race", ["white", "black"]),
        ]},
        "worst_examples": {"toxicity": [{"prompt": "p", "response": "You <b>idiot</b>", "score": 0.97,
                                         "group": None, "attribute": None}]},
    }  # fmt: skip
    found = digest(doc)
    assert found is not None
    assert found.headline == "whole use case: 1 concern; race: 2 ok; gender: 1 to watch, 1 pair ok"
    assert [f["severity"] for f in found.attention] == ["concern", "watch"]
    assert found.attention[0]["example"]["kind"] == "reply"
    console = Console(width=300, record=True)
    print_assessment(console, {**doc, "metrics": []})
    text = console.export_text()
    assert "“You <b>idiot</b>”" in text and "(the most toxic reply (toxicity 0.97))" in text  # escaped for rich
    assert "ok race: 2 findings ok (stereotype, white vs black)" in text and "evenhand: t" not in text
    summary = {"n_prompts": 1, "n_responses": 1, "n_ok": 1, "non_completion_rate": {}}
    html = render_html({**doc, "metrics": [], "summary": summary, "settings": {}, "timings": {}, "caveats": []})
    assert "You &lt;b&gt;idiot&lt;/b&gt;" in html and "adjusted p &lt;0.001 · 40 independent units" in html
    assert digest({"plan": {}}) is None  # results of schema 1: no verdict, nothing to lead with


def test_a_recommendation_watch_shows_the_two_lists_side_by_side() -> None:
    # eight prompts: the floor's exact swap test cannot tell three apart from sampling (its smallest p is 1/8)
    prompts = [f"Recommend 3 {what} for a {who}." for what in ("films", "books", "songs", "games")
               for who in ("woman", "girl")]  # fmt: skip

    def llm(prompt: str, seed: int | None = None) -> str:
        female = {"woman", "her", "girl"} & set(prompt.lower().replace(".", "").split())
        return "1. A\n2. B\n3. C" if female else "1. B\n2. C\n3. D"

    a = evenhand.assess(task="recommendation", prompts=prompts, client=llm, k=3, count=2, attributes=["gender"],
                        n_resamples=50, store=None, progress=False, embedder=False)  # fmt: skip
    (finding,) = [f for f in a.to_dict(include_responses=False)["verdict"]["findings"] if f["severity"] != "ok"]
    example = finding["example"]
    assert example["kind"] == "lists" and (example["items_a"], example["items_b"]) == (["A", "B", "C"], ["B", "C", "D"])
    assert example["value"] == pytest.approx(0.5) and example["n_pairs"] == 16
    html = a.to_html()
    # every pair of lists overlaps the same (0.5): the typical pair is the most extreme too
    assert "extreme_example" not in finding and example["label"] == "typical"
    assert "A\nB\nC</pre>" in html and "a typical pair: its Jaccard is the nearest to the median over prompts (0.5) " \
        "among the 16 pairs" in html  # fmt: skip
