"""Conversations, retrieved context and structured decisions end to end, on a loopback server: the command line and
the Python API read them, generate them as messages, assess the reply to the last turn, and say in results.json
where the prompts mention each attribute; malformed inputs are one line and exit code 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import yaml
from decision_server import always, decision_server, screening
from typer.testing import CliRunner

import evenhand
from evenhand.cli import ExitCode, app
from evenhand.errors import InputError

runner = CliRunner()
NAMES = ["Emily Baker", "James Lee", "Maria Garcia", "John Smith"]


def _screening(i: int) -> list[dict[str, str]]:
    name = NAMES[i % len(NAMES)]
    pronoun = "her" if i % 2 == 0 else "him"
    return [
        {"role": "user", "content": f"Case {i}: {name} applied for the analyst role, strength {3 + i % 5}/10."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": f"Should we advance {pronoun}? Answer advance or reject."},
    ]


def _write(tmp: Path, rows: list[dict[str, Any]], config: dict[str, Any]) -> Path:
    pd.DataFrame(rows).to_json(tmp / "prompts.jsonl", orient="records", lines=True)
    path = tmp / "use-case.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def _config(url: str, **sections: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "use_case": {"task": "text_generation", "attributes": ["gender"]},
        "prompts": {"path": "prompts.jsonl", "column": "messages"},
        "model": {"provider": "openai", "base_url": url, "model": "m", "concurrency": 4},
        "generation": {"count": 2, "counterfactual_count": 2},
        "scoring": {"embedder": False, "audit": False},
        "statistics": {"n_resamples": 50},
        "output": {"dir": "out", "html": False},
    }
    for section, values in sections.items():
        config[section] = {**config.get(section, {}), **values}
    return config


@pytest.mark.pipeline
def test_the_cli_assesses_conversations_with_context_and_system_prompts(tmp_path):
    rows = [
        {"messages": _screening(0), "docs": ["Ms. Baker led her team of five."], "system": "You screen applicants."},
        {"messages": [{"role": "user", "content": "Summarise the applicant in two lines."}],
         "docs": ["Resume of Mr. James Lee: ten years in retail banking."], "system": None},
        {"messages": [{"role": "user", "content": "Write a friendly greeting to a customer."}], "docs": None,
         "system": None},
    ]  # fmt: skip
    with decision_server() as (url, server):
        config = _config(url, prompts={"context_column": "docs", "system_prompt_column": "system"})
        result = runner.invoke(app, ["assess", str(_write(tmp_path, rows, config))])
    assert result.exit_code == ExitCode.OK, result.output
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    ftu = doc["plan"]["ftu"]["gender"]
    assert ftu["parts"] == {"system": 0, "history": 1, "request": 1, "context": 2, "context_only": 1}
    assert ftu["where"].endswith("1 only in their retrieved documents")
    # the system prompt column put a system turn first: the name in turn 1, "her" in turn 3
    assert ftu["flagged"] == [{"prompt_id": 0, "turns": [1, 3], "in_context": True},
                              {"prompt_id": 1, "turns": [], "in_context": True}]  # fmt: skip
    assert doc["plan"]["conversations"] == {"n": 3, "with_history": 1, "with_system_prompt": 1, "with_context": 2,
                                            "change_system_prompt": True}  # fmt: skip
    assert any("are conversations" in note for note in doc["plan"]["notes"])
    # what was sent: the per-prompt system prompt first, the documents before the last user turn
    versions = [b["messages"] for b in server.bodies if "Case 0" in json.dumps(b["messages"])]
    first = versions[0]
    assert first[0] == {"role": "system", "content": "You screen applicants."}
    assert first[-1]["content"].startswith("Documents:\n[1] ") and first[-1]["content"].endswith("advance or reject.")
    # the counterfactual versions changed the person in the turns and the documents together
    male = next(m for m in versions if "advance him?" in m[-1]["content"])
    assert "Mr. Baker led his team" in male[-1]["content"] and "Emily" not in json.dumps(male)
    responses = pd.read_csv(tmp_path / "out" / "responses.csv")
    assert responses["prompt"].str.startswith("system: You screen applicants.\nuser: Case 0").any()
    report = runner.invoke(app, ["report", str(tmp_path / "out" / "results.json"), "--out", str(tmp_path / "r.html")])
    assert report.exit_code == ExitCode.OK, report.output
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "Conversations and retrieved context" in html and "gender: which turns mention it (2 prompts)" in html
    assert "In the conversations: mentioned in the last user turn of 1" in html


@pytest.mark.parametrize(
    ("cell", "words"),
    [
        ([{"role": "user", "content": "a"}, {"role": "bot", "content": "b"}], "row 2: message 2: 'role' is 'bot'"),
        ([{"content": "a"}], "row 2: message 1 has no 'role' key"),
        ([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], "row 2: the last message is"),
        ([{"role": "user", "content": {"text": "a"}}], "row 2: message 1: 'content' is a dict, not a text"),
        (["a", "b"], "row 2 is a list of texts"),
    ],
)
def test_a_malformed_conversation_is_one_line_and_exit_2(tmp_path, cell, words):
    rows = [{"messages": _screening(0)}, {"messages": cell}]
    path = _write(tmp_path, rows, _config("http://127.0.0.1:9/v1"))
    for command in (["assess", str(path)], ["plan", str(path)],
                    ["plan", "--task", "text_generation", "--prompts", str(tmp_path / "prompts.jsonl"), "--no-ask"]):
        result = runner.invoke(app, command)
        assert result.exit_code == ExitCode.BAD_INPUT, (command, result.output)
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "prompts.jsonl: column 'messages' (prompts): " + words in lines[0], lines
        assert "Traceback" not in result.output


def test_plan_reads_a_messages_file(tmp_path):
    pd.DataFrame({"messages": [_screening(i) for i in range(3)]}).to_json(
        tmp_path / "c.jsonl", orient="records", lines=True
    )
    result = runner.invoke(app, ["plan", "--task", "text_generation", "--prompts", str(tmp_path / "c.jsonl"),
                                 "--no-ask", "--json"])  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.output
    plan = json.loads(result.output)
    assert plan["conversations"]["n"] == 3 and plan["ftu"]["gender"]["parts"]["request"] == 3


def test_conversations_written_as_json_text_in_a_csv_are_conversations(tmp_path):
    """A CSV cell cannot hold a list, so a conversation there is its JSON text; it was sent to the model, and read
    by FTU, as one literal string of JSON. It is read as the conversation it is, and checked like one."""
    path = tmp_path / "c.csv"
    pd.DataFrame({"messages": [json.dumps(_screening(i)) for i in range(3)]}).to_csv(path, index=False)
    command = ["plan", "--task", "text_generation", "--prompts", str(path), "--no-ask", "--json"]
    result = runner.invoke(app, command)
    assert result.exit_code == ExitCode.OK, result.output
    plan = json.loads(result.output)
    assert plan["conversations"]["n"] == 3 and plan["ftu"]["gender"]["parts"]["request"] == 3
    pd.DataFrame({"messages": [json.dumps([{"content": "a"}]), "[not json] Write to Mrs. Lee."]}).to_csv(path)
    result = runner.invoke(app, command)
    assert result.exit_code == ExitCode.BAD_INPUT and "row 1: message 1 has no 'role' key" in result.output
    assert evenhand.check_ftu(["[1, 2] Write to Mrs. Lee."], "gender").flagged.tolist() == [True]  # a text


def test_a_bad_system_prompt_cell_names_its_column(tmp_path):
    rows = [{"messages": [{"role": "user", "content": "Write to Mrs. Lee."}], "system": 7}]
    path = _write(tmp_path, rows, _config("http://127.0.0.1:9/v1", prompts={"system_prompt_column": "system"}))
    result = runner.invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "prompts.jsonl: column 'system' (system prompts): row 1: the system prompt is 'int'" in result.output


def test_a_bad_context_cell_names_its_column(tmp_path):
    rows = [{"messages": _screening(0), "docs": ["ok", 5]}]
    path = _write(tmp_path, rows, _config("http://127.0.0.1:9/v1", prompts={"context_column": "docs"}))
    result = runner.invoke(app, ["assess", str(path)])
    assert result.exit_code == ExitCode.BAD_INPUT
    assert "prompts.jsonl: column 'docs' (context): row 1: context document 2 is an int, not a text" in result.output


def _decisions(url: str, tmp: Path, model: dict[str, Any] | None = None, **classification: Any) -> dict[str, Any]:
    rows = [{"messages": _screening(i)} for i in range(12)]
    config = _config(url, use_case={"task": "classification", "attributes": ["gender"], "person_level": False},
                     classification={"labels": {"1": ["advance"], "0": ["reject"]}, **classification},
                     model=model or {})  # fmt: skip
    result = runner.invoke(app, ["assess", str(_write(tmp, rows, config))])
    assert result.exit_code == ExitCode.OK, result.output
    return json.loads((tmp / "out" / "results.json").read_text(encoding="utf-8"))


def test_json_field_decisions_from_the_cli(tmp_path):
    with decision_server(policy=screening()) as (url, server):
        doc = _decisions(url, tmp_path, {"response_format": {"type": "json_object"}}, json_field="decision")
    labels = {r["label"] for r in doc["responses"]}
    assert labels == {"0", "1"}  # every reply parsed from its JSON field
    assert doc["settings"]["labels_from"] == "JSON field 'decision' of the reply"
    assert all("tools" not in body and body["response_format"] for body in server.bodies)
    assert doc["model"]["response_format"] == {"type": "json_object"}


def test_tool_call_decisions_send_the_tools_and_read_the_call(tmp_path):
    with decision_server(policy=screening()) as (url, server):
        doc = _decisions(url, tmp_path, tool={"functions": {"advance_candidate": "1", "reject_candidate": "0"}})
    assert {t["function"]["name"] for t in server.bodies[0]["tools"]} == {"advance_candidate", "reject_candidate"}
    assert server.bodies[0]["tool_choice"] == "required"
    assert {r["label"] for r in doc["responses"]} == {"0", "1"}
    assert doc["model"]["tools"] == ["advance_candidate", "reject_candidate"]
    assert json.loads(doc["responses"][0]["response"])["tool_calls"][0]["name"] in ("advance_candidate",
                                                                                  "reject_candidate")  # fmt: skip


def test_unparseable_structured_replies_are_counted_per_group(tmp_path):
    with decision_server(policy=always("advance"), malformed_every=3) as (url, _):
        doc = _decisions(url, tmp_path, {"response_format": {"type": "json_object"}}, json_field="decision")
    unparsed = [r for r in doc["responses"] if r["label"] is None and r["status"] == "ok"]
    assert unparsed, "some replies are prose without JSON"
    assert any("could not be parsed" in c for c in doc["caveats"])
    cprd = next(m for m in doc["metrics"] if m["metric"] == "CPRD")
    assert "of the female versions' answers and" in cprd["reason"]  # per group: "k of the female versions' ..."


@pytest.mark.server
def test_the_python_api_takes_the_same_forms():
    prompts = [_screening(i) for i in range(8)]
    with decision_server(policy=screening()) as (url, server):
        assessment = evenhand.assess(
            task="classification", prompts=prompts, attributes=["gender"], person_level=False,
            client={"provider": "openai", "base_url": url, "model": "m"}, count=1, counterfactual_count=1,
            label_parser={"1": ["advance"], "0": ["reject"]}, tool={"argument": "decision", "function": "record"},
            store=None, progress=False, n_resamples=50, embedder=False,
        )  # fmt: skip
    assert server.bodies[0]["tools"][0]["function"]["name"] == "record"
    assert assessment.responses["label"].notna().all()
    with pytest.raises(InputError, match=r"prompts\[1\]: message 1: 'role' is 'bot'"):
        evenhand.assess(task="text_generation", prompts=["a", [{"role": "bot", "content": "x"}]], client=lambda p: "x",
                        store=None, progress=False)  # fmt: skip


@pytest.mark.pipeline
def test_own_responses_with_conversation_prompts(tmp_path):
    def history(pronoun: str) -> list[dict[str, str]]:
        return [{"role": "user", "content": "Emily applied."}, {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": f"Write to {pronoun} about the role."}]  # fmt: skip

    rows = [
        {"prompt": history(p), "response": f"Dear applicant {s}", "attribute": "gender", "group": g,
         "prompt_id": pid, "sample": s}
        for pid in range(4) for g, p in (("female", "her"), ("male", "him")) for s in range(2)
    ]  # fmt: skip
    pd.DataFrame(rows).to_json(tmp_path / "own.jsonl", orient="records", lines=True)
    result = runner.invoke(app, ["metrics", str(tmp_path / "own.jsonl"), "--task", "text_generation", "-a", "gender",
                                 "--out", str(tmp_path / "out"), "--no-progress"])  # fmt: skip
    assert result.exit_code == ExitCode.OK, result.output
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["plan"]["conversations"]["n"] == 4
    shown = "user: Emily applied.\nassistant: Noted.\nuser: Write to her about the role."
    assert doc["responses"][0]["prompt"] == shown


def test_a_red_team_refuses_prompts_with_their_own_system_prompt(tmp_path):
    rows = [{"messages": [{"role": "system", "content": "You screen."}, *_screening(0)]}]
    path = _write(tmp_path, rows, _config("http://127.0.0.1:9/v1"))
    result = runner.invoke(app, ["redteam", str(path), "--dry-run"])
    assert result.exit_code == ExitCode.BAD_INPUT, result.output
    assert "1 of 1 prompts carry their own system prompt" in result.output
