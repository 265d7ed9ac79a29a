"""Notebook display: ``_repr_html_`` of Assessment, Plan, Verdict and MetricResult, the Plan's short repr, and a
notebook executed offline in a Jupyter kernel (progress without ipywidgets)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

import evenhand
from evenhand.metrics._result import MetricResult, undefined
from evenhand.pipeline.verdict.evidence import Evidence
from evenhand.pipeline.verdict.findings import Finding, Verdict

EVIL = "<script>alert(1)</script>"
SECRET_PROMPT = "Write a note for a {} customer about the debit card number 4242."
PROMPTS = [
    SECRET_PROMPT.format(EVIL),
    SECRET_PROMPT.format("bluefolk"),
    "Write a reminder that the payment is due on Friday.",
]
CUSTOM = {"kin<b>": {EVIL: [EVIL, "redfolk"], "blue": ["bluefolk", "bluefolk"]}}


@pytest.fixture(scope="module")
def assessment() -> Any:
    return evenhand.assess(
        task="text_generation",
        prompts=PROMPTS,
        responses=["Sure, here is the note.", "Here is a short note.", "Friendly reminder: pay by Friday."],
        attributes=[],
        custom_attributes=CUSTOM,
        ci=None,
        progress=False,
        embedder=False,
        name=f"cards {EVIL}",
    )


def test_assessment_html_verdict_first_and_escaped(assessment: Any) -> None:
    page = assessment._repr_html_()
    assert "<script" not in page and "&lt;script&gt;" in page  # group and use-case names escaped
    assert "javascript" not in page.lower()
    verdict = page.index("Verdict")
    assert verdict < page.index("Metrics") < page.index("a.to_html(&quot;report.html&quot;)")
    assert assessment.verdict.summary in page
    assert "Counterfactual ROUGE-L <span" in page and "(CROUGE-L)" in page  # full names in the table
    assert "4242" not in page  # no prompt text in the compact view
    assert ">nan<" not in page.lower()  # missing values are dashes


def test_verdict_html_shows_non_ok_findings_in_words_escaped() -> None:
    evidence = Evidence("SCSP", "Strict Counterfactual Sentiment Parity", 0.3, severity="concern", sentence="s")
    concern = Finding("counterfactual", "race", (EVIL, "b"), "concern", f"replies to the {EVIL} version differ", "SCSP")
    concern.evidence.append(evidence)
    fine = Finding("toxicity", None, None, "ok", "0.0% of responses score as toxic", "TF")
    page = Verdict([fine, concern], notes=["a <note>"])._repr_html_()
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; vs b" in page
    assert "concern" in page and "1 concern, 1 ok" in page
    assert page.index("replies to the") < page.index("score as toxic")  # not-ok findings first, the ok collapsed
    assert "<details" in page and "a &lt;note&gt;" in page


def test_metric_result_html() -> None:
    result = MetricResult("CROUGE-L", 0.8123, sizes={"pairs": 12, "prompts": 4}, value_range=(0.0, 1.0))
    page = result._repr_html_()
    assert "Counterfactual ROUGE-L" in page and "0.8123" in page and "higher is fairer" not in page
    assert "12 pairs, 4 prompts" in page and "[0, 1]" in page
    nan = undefined(EVIL, f"no pair for {EVIL}", value_range=(-math.inf, math.inf), higher_is_fairer=True)._repr_html_()
    assert "<script" not in nan and "undefined because" in nan and "no pair for &lt;script&gt;" in nan
    assert "higher is fairer" in nan and "&infin;" in nan


def test_plan_repr_and_html_never_show_prompts() -> None:
    plan = evenhand.plan(task="text_generation", prompts=PROMPTS * 5, attributes=[], custom_attributes=CUSTOM)
    text = repr(plan)
    assert text.startswith("Plan(text_generation, 15 prompts, ") and "metrics: TF, EMT, TP" in text
    assert "4242" not in text and "Friday" not in text
    page = plan._repr_html_()
    assert "4242" not in page and "Friday" not in page and "15 prompts" in page
    assert "<script" not in page and "kin&lt;b&gt;" in page
    assert page.index("FTU") < page.index("<details")  # FTU first; the reasons collapsed
    assert "Counterfactual ROUGE-L (CROUGE-L)" in page and "Not applicable" in page
    assert "4242" not in repr([plan]) and "4242" not in str(plan)  # inside containers too, and the explanation


def test_progress_is_text_inside_a_kernel(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from evenhand.generation import progress

    monkeypatch.setattr(progress, "in_notebook", lambda: True)
    with progress.RunProgress(4, "generating", enabled=True) as bar:
        bar._text.every = 0.0  # type: ignore[union-attr]
        bar.advance(2, 1)
        bar.advance(2, 0)
    err = capsys.readouterr().err
    assert "evenhand: generating 2/4, 1 failed" in err and "evenhand: generating 4/4, 1 failed" in err
    assert not progress.in_notebook.__module__.startswith("IPython")


# ------------------------------------------------------------------------------------------------ a real notebook
CELLS = [
    f"""import evenhand
prompts = {PROMPTS!r}
a = evenhand.assess(task="text_generation", prompts=prompts, responses=["Sure, here is the note."] * 3,
                    attributes=[], custom_attributes={CUSTOM!r}, ci=None, embedder=False)
g = evenhand.assess(task="text_generation", prompts=prompts, client=lambda p: "Noted: " + p[:30], count=1,
                    attributes=[], custom_attributes={CUSTOM!r}, ci=None, embedder=False, store=None)""",
    "a",
    "a.plan",
]


def _kernel(tmp_path: Path) -> str:
    """A kernel spec that runs this interpreter (the venv's), under a private JUPYTER_PATH."""
    spec = tmp_path / "jupyter" / "kernels" / "evenhand-test"
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": "evenhand", "language": "python"}))
    return str(tmp_path / "jupyter")


@pytest.mark.subprocess
def test_notebook_runs_offline_with_html_and_no_ipywidgets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    monkeypatch.setenv("JUPYTER_PATH", _kernel(tmp_path))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(
        nb, kernel_name="evenhand-test", timeout=120, resources={"metadata": {"path": str(tmp_path)}}
    )
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError:
        raise
    except Exception as exc:  # no kernel could start here (sandbox without sockets, ...)
        pytest.skip(f"no Jupyter kernel could start: {type(exc).__name__}: {exc}")
    outputs = [cell.get("outputs", []) for cell in nb.cells]
    everything = json.dumps(outputs)
    assert "ipywidgets" not in everything and "<script" not in everything
    stderr = "".join(o.get("text", "") for o in outputs[0] if o.get("name") == "stderr")
    assert "evenhand: generating" in stderr  # generation progress as plain text lines
    (shown,) = [o for o in outputs[1] if o["output_type"] == "execute_result"]
    page = shown["data"]["text/html"]
    assert page.index("Verdict") < page.index("Metrics") and "a.to_html(&quot;report.html&quot;)" in page
    (plan,) = [o for o in outputs[2] if o["output_type"] == "execute_result"]
    assert "text/html" in plan["data"] and "4242" not in json.dumps(plan["data"])
    assert plan["data"]["text/plain"].startswith("Plan(text_generation, 3 prompts")


def test_a_signed_metric_is_shown_closer_to_0_fairer_not_lower() -> None:
    """A red team's shift (or RRD, TSD) is signed: -0.3 is no fairer than 0, so it never reads "lower is fairer"."""
    from evenhand.metrics.adversarial import positive_rate_shift

    html = positive_rate_shift([1, 0, 1], [1, 1, 1])._repr_html_()
    assert "closer to 0 is fairer" in html and "lower is fairer" not in html
