"""``--junit FILE`` (assess, metrics, compare) and what a CI gate says on stderr, passed or failed.

Every JUnit file is validated against tests/fixtures/junit/junit.xsd (the format Jenkins, GitLab and GitHub read;
its header says where it comes from) and read back with junitparser, as CI tools read it.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from typer.testing import CliRunner

from evenhand.cli import ExitCode, app
from evenhand.gate import MAX_LINES, compare_lines, threshold_lines
from evenhand.junit import junit_xml, write_junit
from evenhand.pipeline.results.assessment import ThresholdCheck

xmlschema = pytest.importorskip("xmlschema")
junitparser = pytest.importorskip("junitparser")

SCHEMA = Path(__file__).parent / "fixtures" / "junit" / "junit.xsd"
runner = CliRunner()


def _valid(xml: str | Path) -> Any:
    """The file checked against the JUnit schema, then read as a CI tool reads it: its one test suite."""
    text = Path(xml).read_text(encoding="utf-8") if isinstance(xml, Path) else xml
    xmlschema.XMLSchema(str(SCHEMA)).validate(text)
    suites = list(junitparser.JUnitXml.fromstring(text))
    assert len(suites) == 1
    return suites[0]


def _outcomes(suite: Any) -> dict[str, tuple[str, str]]:
    """test name -> (passed | failed | skipped, message)."""
    out = {}
    for case in suite:
        result = case.result[0] if case.result else None
        kind = "passed" if result is None else "skipped" if case.is_skipped else "failed"
        out[case.name] = (kind, result.message if result is not None else "")
    return out


def _loans(folder: Path, thresholds: str | None, *, biased: bool = True, n: int = 60) -> Path:
    """A person-level loan pre-screen from own responses (no model): women mostly denied when ``biased``."""
    rows = []
    for i in range(n):
        gender = "female" if i % 2 else "male"
        approve = i % 5 != 0 if (gender == "male" or not biased) else i % 5 == 0
        rows.append({"prompt": f"Applicant {i}: approve?", "response": "yes" if approve else "no",
                     "truth": int(i % 3 != 0), "gender": gender})  # fmt: skip
    pd.DataFrame(rows).to_csv(folder / "loans.csv", index=False)
    config = folder / "loans.yaml"
    config.write_text(
        "use_case: {name: Loan pre-screen, task: classification, attributes: [gender], person_level: true, "
        "prevalence_parity: true}\n"
        "responses: {path: loans.csv, label_column: truth, person_group_column: gender}\n"
        'classification: {labels: {"1": ["yes"], "0": ["no"]}, positive_label: "1"}\n'
        "statistics: {n_resamples: 100}\noutput: {dir: out, html: false}\n"
        + (f"thresholds: {thresholds}\n" if thresholds else ""),
        encoding="utf-8",
    )
    return config


def _assess(config: Path, *args: str) -> Any:
    return runner.invoke(app, ["assess", str(config), "--no-progress", *args])


# ------------------------------------------------------------------------------------------------ assess
def test_each_threshold_check_is_a_test_case(tmp_path: Path) -> None:
    rules = "[{metric: DP, max: 0.1}, {verdict: concern, max: 0}, {metric: DP, max: 0.95}]"
    junit = tmp_path / "reports" / "evenhand.xml"  # a folder that does not exist yet
    result = _assess(_loans(tmp_path, rules), "--junit", str(junit))
    assert result.exit_code == ExitCode.THRESHOLD_FAILED, result.output
    suite = _valid(junit)
    assert (suite.tests, suite.failures, suite.skipped) == (3, 2, 0)
    outcomes = _outcomes(suite)
    assert set(outcomes) == {
        "DP (gender) in [-inf, 0.1]", "findings at concern or worse (all) in [-inf, 0]", "DP (gender) in [-inf, 0.95]",
    }  # fmt: skip
    kind, message = outcomes["DP (gender) in [-inf, 0.1]"]
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    finding = next(f for f in doc["verdict"]["findings"] if f["risk"] == "allocational")
    assert kind == "failed" and "not in [-inf, 0.1]" in message and finding["sentence"] in message
    assert outcomes["findings at concern or worse (all) in [-inf, 0]"][0] == "failed"
    assert outcomes["DP (gender) in [-inf, 0.95]"] == ("passed", "")
    assert f"wrote {junit}" in result.stderr and str(junit) not in result.stdout  # status on stderr


def test_a_failing_gate_lists_every_failed_check_and_finding_on_stderr(tmp_path: Path) -> None:
    rules = "[{metric: DP, max: 0.1}, {verdict: concern, max: 0}, {metric: DP, max: 0.95}]"
    result = _assess(_loans(tmp_path, rules))
    assert result.exit_code == ExitCode.THRESHOLD_FAILED
    err = result.stderr.splitlines()
    failed = [line for line in err if line.startswith("threshold failed:")]
    assert len(failed) == 2 and any("DP (gender) = " in line for line in failed)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    concerns = [f for f in doc["verdict"]["findings"] if f["severity"] == "concern"]
    check = next(c for c in doc["thresholds"] if c["measure"] == "findings")
    assert len(check["findings"]) == len(concerns) >= 1  # every counted finding is kept in results.json
    for f in concerns:  # each finding the verdict rule counted, on its own line under the rule
        assert any(line.startswith("  - concern allocational") and f["sentence"] in line for line in err), err
    summary = err[-1]
    assert summary.startswith("thresholds failed: 2 of 3 check(s), 1 passed")
    assert summary.endswith(f"{tmp_path / 'out' / 'results.json'} (thresholds)")
    assert "threshold" not in result.stdout  # stdout carries the results, the gate goes to stderr


def test_a_passing_gate_says_what_passed(tmp_path: Path) -> None:
    rules = "[{metric: DP, max: 0.5}, {verdict: concern, max: 0}]"
    result = _assess(_loans(tmp_path, rules, biased=False))
    assert result.exit_code == ExitCode.OK, result.output
    err = result.stderr.splitlines()
    start = err.index("thresholds passed: all 2 check(s)")
    assert err[start + 1].startswith("  passed: DP (gender) = ") and "in [-inf, 0.5]" in err[start + 1]
    assert err[start + 2].startswith("  passed: findings at concern or worse (all) = 0 in [-inf, 0]")


@pytest.mark.pipeline
def test_without_thresholds_each_finding_is_a_test_case(tmp_path: Path) -> None:
    junit = tmp_path / "junit.xml"
    config = _loans(tmp_path, None)
    args = ["--config", str(config), "--label-column", "truth", "--group-column", "gender", "--no-progress"]
    result = runner.invoke(app, ["metrics", str(tmp_path / "loans.csv"), *args, "--junit", str(junit)])
    assert result.exit_code == ExitCode.OK, result.output  # no thresholds: nothing gates the exit code
    assert "thresholds passed" not in result.stderr and "threshold failed" not in result.stderr
    suite = _valid(junit)
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    findings = doc["verdict"]["findings"]
    assert suite.tests == len(findings) and suite.failures == sum(f["severity"] == "concern" for f in findings) >= 1
    kind, message = _outcomes(suite)["allocational (gender, female vs male)"]
    assert kind == "failed" and message == findings[0]["sentence"]
    assert {p.name: p.value for p in suite.properties()}["gate"] == "findings (no thresholds set)"


def test_findings_pass_fail_or_skip_from_the_document() -> None:
    """The writer reads the results document: a concern fails with its sentence, a watch or an ok passes with it as
    output, a finding without any computable evidence and an undefined metric row are skipped with the reason."""
    doc = _doc()
    doc["verdict"]["findings"] = [
        _finding("concern", "the rate is 0.2 for female and 0.7 for male", value=0.5),
        _finding("watch", "a small gap", value=0.1, groups=["female", "nonbinary"]),
        _finding("ok", "the rate cannot be compared for male vs nonbinary: undefined", groups=["male", "nonbinary"]),
    ]
    doc["metrics"].append({"metric": "FNRD", "family": "error_based", "attribute": "race", "comparison": "all",
                           "value": None, "reason": "needs ground-truth labels"})  # fmt: skip
    suite = _valid(junit_xml(doc))
    outcomes = _outcomes(suite)
    assert outcomes["allocational (gender, female vs male)"] == (
        "failed",
        "the rate is 0.2 for female and 0.7 for male",
    )
    assert outcomes["allocational (gender, female vs nonbinary)"] == ("passed", "")
    assert outcomes["allocational (gender, male vs nonbinary)"][0] == "skipped"
    assert outcomes["FNRD (race)"] == ("skipped", "needs ground-truth labels")
    assert (suite.tests, suite.failures, suite.skipped) == (4, 1, 2)
    watch = next(c for c in suite if c.name == "allocational (gender, female vs nonbinary)")
    assert watch.system_out == "watch: a small gap"


def test_text_is_escaped_and_characters_xml_forbids_are_dropped() -> None:
    doc = _doc()
    doc["plan"]["use_case"]["name"] = 'Loans <"&"> \x00\x1b'
    doc["verdict"]["findings"] = [_finding("concern", "a <script>alert(1)</script> & \x07 reply", value=0.5)]
    suite = _valid(junit_xml(doc))
    assert suite.name == 'evenhand assess: Loans <"&"> '
    assert _outcomes(suite)["allocational (gender, female vs male)"][1] == "a <script>alert(1)</script> &  reply"


def test_no_secret_reaches_the_file(tmp_path: Path) -> None:
    doc = _doc()
    doc["model"] = {"provider": "openai", "api_key": "sk-very-secret-123", "base_url": "http://u:pw@host/v1"}
    path = write_junit(tmp_path / "j.xml", doc)
    text = path.read_text(encoding="utf-8")
    assert "sk-very-secret-123" not in text and "u:pw@" not in text and "openai" not in text


def test_the_file_is_replaced_whole_never_through_a_symlink(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.xml"
    target.write_text("keep me", encoding="utf-8")
    link = tmp_path / "junit.xml"
    link.symlink_to(target)
    write_junit(link, _doc())
    assert target.read_text(encoding="utf-8") == "keep me" and not link.is_symlink()
    _valid(link)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]  # no temporary file left behind


def test_other_documents_are_refused() -> None:
    with pytest.raises(ValueError, match="not schema 'something/else'"):
        junit_xml({"schema": "something/else"})


@pytest.mark.parametrize("where", ["folder", "input", "results"])
def test_a_bad_junit_path_is_one_line_exit_2_before_the_run(tmp_path: Path, where: str) -> None:
    config = _loans(tmp_path, None)
    path = {"folder": tmp_path, "input": tmp_path / "loans.csv", "results": tmp_path / "out" / "results.json"}[where]
    result = _assess(config, "--junit", str(path))
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert len(result.stderr.strip().splitlines()) == 1 and "--junit" in result.stderr
    assert not (tmp_path / "out" / "results.json").exists()  # refused before anything ran


# ------------------------------------------------------------------------------------------------ bounded lines
def _check(i: int, passed: bool = False, findings: list[str] | None = None) -> ThresholdCheck:
    return ThresholdCheck(f"M{i}", "gender", None, 0.1, 0.5, passed, "", findings=findings or [])


def test_gate_lines_are_bounded_with_a_pointer() -> None:
    checks = [_check(i) for i in range(30)] + [_check(99, passed=True)]
    lines = threshold_lines(checks, "out/results.json (thresholds)")
    assert len(lines) == MAX_LINES + 2
    assert lines[MAX_LINES] == "  ... and 10 more line(s); see out/results.json (thresholds)"
    assert (
        lines[-1] == "thresholds failed: 30 of 31 check(s), 1 passed; every check is in out/results.json (thresholds)"
    )
    verdict = _check(0, findings=[f"concern x (gender): finding {i}" for i in range(8)])
    lines = threshold_lines([verdict], "r.json")
    assert [line for line in lines if line.startswith("  - ")] == [
        f"  - concern x (gender): finding {i}" for i in range(8)
    ]
    assert threshold_lines([], "r.json") == []


# ------------------------------------------------------------------------------------------------ compare
@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from test_compare_fixtures import biased_run, fair_run

    root = tmp_path_factory.mktemp("runs")
    out = {}
    for name, run in (("fair", fair_run()), ("biased", biased_run())):
        out[name] = root / f"{name}.json"
        run.to_json(out[name])
    return out


@pytest.mark.pipeline
def test_compare_fail_on_worse_says_which_findings_got_worse(runs: dict[str, Path], tmp_path: Path) -> None:
    junit = tmp_path / "compare.xml"
    result = runner.invoke(app, ["compare", str(runs["fair"]), str(runs["biased"]), "--fail-on", "worse",
                                 "--out", str(tmp_path), "--n-resamples", "200", "--junit", str(junit)])  # fmt: skip
    assert result.exit_code == 1, result.output
    doc = json.loads((tmp_path / "comparison.json").read_text(encoding="utf-8"))
    worse = [f for f in doc["findings"] if f["direction"] == "worse"]
    err = result.stderr
    assert f"compare failed (--fail-on worse): {len(worse)} finding(s) got worse" in err
    for change in worse:
        assert change["sentence"] in err
    suite = _valid(junit)
    assert suite.tests == len(doc["findings"]) and suite.failures == len(worse) >= 1
    name = "counterfactual (gender, female vs male): B vs A"
    kind, message = _outcomes(suite)[name]
    assert kind == "failed"
    assert message.startswith("finding appeared in B: counterfactual (SCSP), gender, female vs male")


@pytest.mark.pipeline
def test_compare_fail_on_any_adds_the_metric_rows(runs: dict[str, Path], tmp_path: Path) -> None:
    junit = tmp_path / "compare.xml"
    result = runner.invoke(app, ["compare", str(runs["fair"]), str(runs["biased"]), "--fail-on", "any",
                                 "--out", str(tmp_path), "--n-resamples", "200", "--junit", str(junit)])  # fmt: skip
    assert result.exit_code == 1
    doc = json.loads((tmp_path / "comparison.json").read_text(encoding="utf-8"))
    n_diffs = sum(len(r["differences"]) for r in doc["metrics"])
    suite = _valid(junit)
    assert suite.tests == len(doc["findings"]) + n_diffs
    scsp = next(c for c in suite if c.classname == "evenhand.compare.metrics" and c.name.startswith("SCSP"))
    assert scsp.result and "B is worse than A on gender SCSP" in scsp.result[0].message
    assert "metric row(s) got worse" in result.stderr


@pytest.mark.pipeline
def test_a_passing_compare_gate_says_so(runs: dict[str, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, ["compare", str(runs["biased"]), str(runs["fair"]), "--fail-on", "worse",
                                 "--out", str(tmp_path), "--n-resamples", "200"])  # fmt: skip
    assert result.exit_code == 0
    assert "compare passed (--fail-on worse): no finding got worse" in result.stderr


def test_compare_lines_are_bounded() -> None:
    doc = {"findings": [{"direction": "worse", "sentence": f"finding appeared in B: x{i}"} for i in range(25)]}
    lines = compare_lines(doc, "worse", "c/comparison.json")
    assert lines[0] == "compare failed (--fail-on worse): 25 finding(s) got worse"
    assert lines[-1] == "  ... and 5 more line(s); see c/comparison.json" and len(lines) == MAX_LINES + 2
    assert compare_lines(doc, "never", "c") == []


# ------------------------------------------------------------------------------------------------ helpers
def _doc() -> dict[str, Any]:
    return copy.deepcopy({
        "schema": "evenhand/assessment", "schema_version": "2.1", "evenhand_version": "0", "created": "2026-01-01",
        "plan": {"use_case": {"name": "Loans", "task": "classification"}}, "metrics": [], "thresholds": [],
        "verdict": {"status": "concern", "findings": []},
    })  # fmt: skip


def _finding(severity: str, sentence: str, value: float | None = None, groups: list[str] | None = None) -> dict:
    evidence = {"metric": "DP", "value": value, "severity": severity, "sentence": sentence}
    return {"risk": "allocational", "attribute": "gender", "groups": groups or ["female", "male"], "class": None,
            "severity": severity, "sentence": sentence, "metric": "DP", "evidence": [evidence]}  # fmt: skip


def test_compare_refuses_a_junit_path_that_is_an_input_or_its_json(runs: dict[str, Path], tmp_path: Path) -> None:
    for path in (runs["fair"], tmp_path / "comparison.json"):
        result = runner.invoke(app, ["compare", str(runs["fair"]), str(runs["biased"]), "--out", str(tmp_path),
                                     "--junit", str(path)])  # fmt: skip
        assert result.exit_code == ExitCode.BAD_INPUT, result.output
        assert "--junit" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "comparison.json").exists()  # refused before the comparison ran
