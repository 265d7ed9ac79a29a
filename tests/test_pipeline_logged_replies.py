"""A decision log as a bank or an HR vendor keeps it: each reply the assistant message the server sent (a JSON
object in a JSONL file, or its JSON text in a CSV cell), tool calls with ``arguments`` as a JSON text. Every reply is
read as its decision, and a planted gap between the groups is found (review9: every such reply was unparsed, or the
file refused)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app

runner = CliRunner()


def _message(word: str, i: int) -> dict[str, Any]:
    lookup = {"id": f"call_{i}a", "type": "function",
              "function": {"name": "lookup_credit", "arguments": json.dumps({"applicant": i})}}
    decide = {"id": f"call_{i}b", "type": "function",
              "function": {"name": "record_decision", "arguments": json.dumps({"decision": word})}}
    return {"role": "assistant", "content": None, "tool_calls": [lookup, decide]}  # fmt: skip


def _log(n: int, gap: float, seed: int = 0) -> pd.DataFrame:
    """``n`` applicants, half women, approved with probability 0.6 (``gap`` less for women)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        gender = "female" if i % 2 else "male"
        p = 0.6 - (gap if gender == "female" else 0.0)
        word = "approve" if rng.random() < p else "deny"
        rows.append({"prompt": f"Applicant {i}: should we approve the loan?", "response": _message(word, i),
                     "applicant_gender": gender})  # fmt: skip
    return pd.DataFrame(rows)


def _assess(table: pd.DataFrame) -> evenhand.Assessment:
    return evenhand.assess(
        task="classification", responses=table, attributes=["gender"], person_level=True,
        tool={"function": "record_decision", "argument": "decision"}, label_parser={"1": ["approve"], "0": ["deny"]},
        group_columns={"gender": "applicant_gender"}, embedder=None, n_resamples=200,
    )  # fmt: skip


@pytest.mark.pipeline
@pytest.mark.parametrize("as_text", [None, "json", "python"])
def test_a_log_of_assistant_messages_is_read_as_decisions(as_text):
    table = _log(200, gap=0.3)
    if as_text == "json":  # a CSV log: the message as its JSON text
        table["response"] = table["response"].map(json.dumps)
    if as_text == "python":  # a frame of messages saved with to_csv: each as Python writes a dict (review10)
        table["response"] = table["response"].map(str)
    assessment = _assess(table)
    assert assessment.responses["label"].notna().all()
    dp = assessment.metrics.set_index("metric").loc["DP"]
    assert dp["value"] > 0.15 and dp["p_adjusted"] < 0.05
    assert "concern" in [f.severity for f in assessment.verdict.findings]


@pytest.mark.pipeline
def test_the_metrics_command_reads_a_jsonl_log_of_messages(tmp_path: Path):
    _log(40, gap=0.0).to_json(tmp_path / "log.jsonl", orient="records", lines=True)
    config = {"use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
              "classification": {"labels": {"1": ["approve"], "0": ["deny"]},
                                 "tool": {"function": "record_decision", "argument": "decision"},
                                 "group_columns": {"gender": "applicant_gender"}},
              "responses": {"path": "log.jsonl"}, "scoring": {"embedder": False, "audit": False},
              "statistics": {"n_resamples": 50}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = runner.invoke(app, ["metrics", str(tmp_path / "log.jsonl"), "--task", "classification", "-a", "gender",
                                 "--config", str(tmp_path / "c.yaml"), "--out", str(tmp_path / "out"), "--no-html"])
    assert result.exit_code == ExitCode.OK, result.output
    responses = pd.read_csv(tmp_path / "out" / "responses.csv")
    assert responses["label"].notna().all()
    assert json.loads(responses["response"][0])["tool_calls"][1]["name"] == "record_decision"


def test_a_message_cell_that_is_no_assistant_message_is_still_one_clear_line(tmp_path: Path):
    table = pd.DataFrame({"prompt": ["a", "b"], "response": ["yes", {"role": "user", "content": "hi"}]})
    table.to_json(tmp_path / "r.jsonl", orient="records", lines=True)
    result = runner.invoke(app, ["metrics", str(tmp_path / "r.jsonl"), "--no-html", "--out", str(tmp_path / "o")])
    assert result.exit_code == ExitCode.BAD_INPUT
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "column 'response' (responses): row 2 holds a dict" in lines[0], lines


def test_a_logged_message_in_words_is_read_as_its_words():
    # a CSV log of plain answers, each the assistant message's JSON text: its words are the reply, not the JSON
    # around them (the label words of "assistant"/"content" keys, a longer "answer", a scorer reading braces)
    table = pd.DataFrame({"prompt": ["Approve applicant 1?", "Approve applicant 2?"],
                          "response": [json.dumps({"role": "assistant", "content": "Yes, approve."}),
                                       {"role": "assistant", "content": [{"type": "text", "text": "No."}]}],
                          "gender": ["female", "male"]})  # fmt: skip
    a = evenhand.assess(task="classification", responses=table, attributes=["gender"], embedder=None, n_resamples=50,
                        label_parser={"1": ["yes"], "0": ["no"]}, person_level=True,
                        group_columns={"gender": "gender"})  # fmt: skip
    assert a.responses["response"].tolist() == ["Yes, approve.", "No."]
    assert a.responses["label"].tolist() == ["1", "0"]


def _templated(with_ids: bool) -> pd.DataFrame:
    """A log whose every prompt is the same template (the applicant's record came from a tool, not kept in the log):
    200 applicants, approved 0.6 for men and 0.4 for women, each row one person."""
    rng = random.Random(1)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 else "male"
        word = "yes" if rng.random() < 0.6 - (0.2 if gender == "female" else 0.0) else "no"
        rows.append({"prompt": "Should we approve this applicant's loan? Answer yes or no.", "response": word,
                     "applicant_gender": gender, **({"prompt_id": f"A{i}"} if with_ids else {})})  # fmt: skip
    return pd.DataFrame(rows)


def test_one_prompt_with_persons_of_different_groups_is_refused_not_taken_for_one_person(tmp_path: Path):
    # the prompt was the unit: 200 persons under one template were 2 units (one per group), and a planted gap of
    # 0.2 read "ok" (DP -0.29 [-0.79, +0.62], adjusted p = 1) (review9)
    settings = {"task": "classification", "attributes": ["gender"], "person_level": True, "embedder": None,
                "group_columns": {"gender": "applicant_gender"}, "label_parser": {"1": ["yes"], "0": ["no"]},
                "n_resamples": 200}  # fmt: skip
    one_prompt = r"rows 1 and 2 are one prompt \(the same prompt text or id\) but persons of different gender groups"
    with pytest.raises(ValueError, match=one_prompt):
        evenhand.assess(responses=_templated(with_ids=False), **settings)
    _templated(with_ids=False).to_csv(tmp_path / "log.csv", index=False)
    config = {"use_case": {"task": "classification", "attributes": ["gender"], "person_level": True},
              "responses": {"path": "log.csv"}, "classification": {"labels": {"1": ["yes"], "0": ["no"]},
                                                                   "group_columns": {"gender": "applicant_gender"}},
              "scoring": {"embedder": False}}  # fmt: skip
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    result = runner.invoke(app, ["assess", str(tmp_path / "c.yaml"), "--no-progress"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    lines = [line for line in result.output.splitlines() if line.strip() and not line.startswith("evenhand: ")]
    assert len(lines) == 1 and "classification.group_columns.gender: rows 1 and 2" in lines[0], lines
    assert "prompt_id column" in lines[0]
    # with an id per person, each is a unit and the gap is found
    a = evenhand.assess(responses=_templated(with_ids=True), **settings)
    dp = a.metrics.set_index("metric").loc["DP"]
    assert dp["p_adjusted"] < 0.05 and a.verdict.status == "concern"


@pytest.mark.pipeline
def test_a_logged_refusal_is_read_as_a_refusal_not_a_failed_request():
    # OpenAI's structured outputs put a refusal in the message's "refusal" field, content null: each was a failed
    # request (NRD: "got no reply"), and the refusal gap itself was never measured (review10)
    rng = random.Random(0)
    refusal = {"role": "assistant", "content": None, "refusal": "I'm sorry, but I can't help with that request."}
    rows = []
    for i, topic in enumerate(["budget travel", "piano lessons", "a bakery plan", "learning Python"] * 10):
        for group, word in (("female", "she"), ("male", "he")):
            said = f"Sure: for {topic}, start small and set goal {rng.randint(1, 9)}."
            answer = {"role": "assistant", "content": said}
            rows.append({"prompt_id": f"p{i}", "attribute": "gender", "group": group,
                         "prompt": f"My friend says {word} wants advice on {topic}.",
                         "response": refusal if group == "female" and rng.random() < 0.4 else answer})  # fmt: skip
    a = evenhand.assess(task="text_generation", responses=pd.DataFrame(rows), attributes=["gender"], embedder=None,
                        n_resamples=200, progress=False)  # fmt: skip
    assert (a.responses["status"] == "ok").all()
    concerns = {f.metric for f in a.verdict.findings if f.severity == "concern"}
    assert "RRD" in concerns and "NRD" not in concerns, concerns
