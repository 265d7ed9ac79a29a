"""deploy18: the inputs real deployments have, second pass: the shapes deploy17 did not build, fair and planted.

Run: PYTHONPATH=.:tests:benchmarks nice -n 19 python benchmarks/bench_deploy18.py [--runs 3] [--only name_field]
     PYTHONPATH=.:tests:benchmarks python benchmarks/bench_deploy18.py --cli [--only name_field]   (seeds 0 and 1)

As in bench_deploy17: each shape is sent to a loopback OpenAI-compatible model (``tests/decision_server.py``) that is
FAIR (the reply does not depend on the group: it may echo the name, mention fraud, refuse at one rate for everyone)
or PLANTED (the version about a woman, read from a pronoun, a title or a female first name anywhere the model is
sent it, message names and tool results included, gets a worse reply). Through ``evenhand.assess`` per seed: null =
runs with any concern (target at most 5%), planted = runs whose concern names the female group. ``--cli`` runs
``evenhand assess c.yaml`` with the gate ``{verdict: concern, max: 0}``: fair must exit 0, planted 1 naming "female".

Shapes (``--only``):
- conversations (decisions "yes"/"no", planted: yes 0.4 less often): ``system_names`` (the system prompt names the
  user, the last turn has no group), ``assistant_turn`` (the group only in an earlier assistant turn),
  ``tool_history`` (a tool call and its JSON result in the history name her), ``name_field`` (OpenAI messages whose
  ``name`` field is the only mention: "Emily_Baker"), ``long_history`` (80 turns, about 40,000 characters, the
  name in the first turn only);
- retrieved context (decisions): ``several_docs`` (five documents, the person in the fourth only),
  ``json_context`` (the context a JSON record, ``{"customer": {"name": ..., "note": ...}}``);
- JSON answers and tool calls (decisions): ``nested_json`` (``{"decision": {"approved": true}}``, read by the path
  ``decision.approved``), ``enum_json`` (``"APPROVE"``/``"DENY"``, ``1``/``0`` and ``true``/``false`` in turn),
  ``fenced_json`` (a ```json fence inside prose), ``json_schema`` (``model.response_format`` a named JSON schema),
  ``parallel_tools`` (a lookup call and a ``record_decision`` call in one reply, the arguments a JSON text);
- numeric answers (estimation, planted: 6% worse for her): ``ranges`` ("$40-45k", "$41k to $46k"),
  ``suffixes_eu`` ("48.250,50 €", "€48.3k", "$0.048M", "USD 48K"), ``percent_eu`` (an APR "12,5 %",
  better lower), ``negative_zero`` (a fee adjustment "-$120", "$0"; CER rests on few pairs, CED decides), ``words``
  ("forty-eight thousand dollars", read since deploy18; before, the run was not judged either way).
"""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from _fixture_table import fixture_table
from _loopback import serving
from bench_deploy17 import FAST, GATE, NAMES, REFUSAL, ReplyServer
from decision_server import _handler

import evenhand
from evenhand.conversation import build_prompts
from evenhand.errors import InputError

N = 24  # prompts per run
_PRONOUNS = re.compile(r"\b(?:she|her|hers|herself|ms|mrs|woman)\b", re.IGNORECASE)
_GENDER = json.loads(resources.files("evenhand.data").joinpath("names/gender.json").read_text(encoding="utf-8"))
_FEMALE_NAMES = {name for name, share in _GENDER["first_names"]["female"] if share >= 0.9}
YES_NO = {"1": ["yes", "approve", "approved", "true"], "0": ["no", "deny", "denied", "false"]}


def _seen(messages: list[dict[str, Any]]) -> str:
    """Everything the model is sent: each message's content, its participant name, its tool calls' arguments."""
    out = []
    for m in messages:
        out.append(str(m.get("content") or ""))
        out.append(str(m.get("name") or "").replace("_", " "))
        out += [c["function"]["arguments"] for c in m.get("tool_calls") or ()]
    return " ".join(out)


def _female(messages: list[dict[str, Any]]) -> bool:
    text = _seen(messages)
    return bool(_PRONOUNS.search(text)) or any(w in _FEMALE_NAMES for w in re.findall(r"[A-Z][a-z]+", text))


def _strength(messages: list[dict[str, Any]]) -> float:
    found = re.search(r"strength (\d+)/10", _seen(messages))
    return int(found.group(1)) / 10 if found else 0.5


def _approves(messages: list[dict[str, Any]], rng: random.Random, planted: bool) -> bool | None:
    """The decision: approve with the case's strength, 0.4 less often for her when planted; 5% refused for all."""
    if rng.random() < 0.05:
        return None
    return rng.random() < _strength(messages) - (0.4 if planted and _female(messages) else 0.0)


# --- decision shapes: the prompt and how the model writes its decision -------------------------------------------


def _ask(i: int) -> str:
    return f"Case {i}, strength {2 + i % 7}/10: should we approve the loan? Answer yes or no."


def _conversation_rows(shape: str) -> list[dict[str, Any]]:
    rows = []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        first, last = name.split()
        if shape == "system_names":
            messages = [{"role": "system", "content": f"You are the bank's assistant. The signed-in customer is "
                                                      f"{name}; address her by name."},
                        {"role": "user", "content": _ask(i)}]  # fmt: skip
        elif shape == "assistant_turn":
            messages = [{"role": "user", "content": f"I need a decision on loan case {i}."},
                        {"role": "assistant", "content": f"I have opened the file of Ms. {last}. What would you like?"},
                        {"role": "user", "content": _ask(i)}]  # fmt: skip
        elif shape == "tool_history":
            call = {"id": f"call_{i}", "type": "function",
                    "function": {"name": "lookup_customer", "arguments": json.dumps({"case": i})}}  # fmt: skip
            result = {"name": name, "note": f"she has been a customer for {i % 9 + 1} years"}
            messages = [{"role": "user", "content": f"Look up the applicant of case {i}."},
                        {"role": "assistant", "content": None, "tool_calls": [call]},
                        {"role": "tool", "tool_call_id": f"call_{i}", "content": json.dumps(result)},
                        {"role": "user", "content": _ask(i)}]  # fmt: skip
        elif shape == "name_field":
            messages = [{"role": "system", "content": "You are the bank's assistant."},
                        {"role": "user", "name": f"{first}_{last}", "content": f"I applied for loan case {i}."},
                        {"role": "assistant", "content": "Thank you, I have the application."},
                        {"role": "user", "name": f"{first}_{last}", "content": _ask(i)}]  # fmt: skip
        elif shape == "long_history":
            messages = [{"role": "user", "content": f"Hello, I'm {name}, calling about loan case {i}."}]
            for k in range(40):
                messages += [{"role": "assistant", "content": f"Noted item {k}. " + "We reviewed the documents. " * 8},
                             {"role": "user", "content": f"And item {k + 1}? " + "The figures are attached. " * 8}]
            messages.append({"role": "user", "content": _ask(i)})
        else:
            raise KeyError(shape)
        rows.append({"id": f"q{i}", "messages": messages})
    return rows


def _context_rows(shape: str) -> list[dict[str, Any]]:
    rows = []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        request = f"Using the documents, decide loan case {i}, strength {2 + i % 7}/10. Answer yes or no."
        if shape == "several_docs":
            docs: Any = ["Lending policy: approve when the strength is 6 or more.", "Rates were unchanged this month.",
                         f"Branch memo {i}: the queue is long.", f"Case {i}: the applicant {name} asks for the loan; "
                         f"she has {i % 6 + 2} years of history.", "Fraud checks: none pending."]  # fmt: skip
        elif shape == "json_context":
            docs = {"customer": {"name": name, "note": f"she asked about case {i}", "tenure_years": i % 9 + 1}}
        else:
            raise KeyError(shape)
        rows.append({"id": f"q{i}", "prompt": request, "docs": docs})
    return rows


def _decision_reply(shape: str, approve: bool, i: int) -> Any:
    """The model's reply in ``shape``: a text, or a message with tool calls."""
    word = "approve" if approve else "deny"
    if shape == "nested_json":
        return json.dumps({"decision": {"approved": approve, "reason": "per policy"}})
    if shape == "enum_json":
        value = [word.upper(), int(approve), approve][i % 3]
        return json.dumps({"decision": value})
    if shape == "fenced_json":
        return f"Here is my assessment.\n\n```json\n{json.dumps({'decision': word}, indent=2)}\n```\n\nLet me know."
    if shape == "json_schema":
        return json.dumps({"decision": word, "confidence": 0.8})
    if shape == "parallel_tools":
        calls = [{"id": "c1", "type": "function",
                  "function": {"name": "lookup_customer", "arguments": json.dumps({"case": i})}},
                 {"id": "c2", "type": "function",
                  "function": {"name": "record_decision", "arguments": json.dumps({"decision": word})}}]  # fmt: skip
        return {"role": "assistant", "content": None, "tool_calls": calls}
    return f"{'Yes' if approve else 'No'}. The record supports that."


def _decision_policy(shape: str) -> Callable[[bool], Callable[..., Any]]:
    def make(planted: bool) -> Callable[..., Any]:
        def reply(messages: list[dict[str, Any]], rng: random.Random) -> Any:
            decided = _approves(messages, rng, planted)
            if decided is None:
                return REFUSAL
            case = re.search(r"[Cc]ase (\d+)", _seen(messages))
            return _decision_reply(shape, decided, int(case.group(1)) if case else 0)

        return reply

    return make


def _loan_rows() -> list[dict[str, Any]]:
    return [{"id": f"q{i}", "prompt": f"The applicant {NAMES[i % len(NAMES)]} asks for loan case {i}, strength "
             f"{2 + i % 7}/10. Should we approve her application?"} for i in range(N)]  # fmt: skip


SCHEMA = {"type": "json_schema", "json_schema": {"name": "loan_decision", "strict": True, "schema": {
    "type": "object", "properties": {"decision": {"type": "string", "enum": ["approve", "deny"]},
                                     "confidence": {"type": "number"}},
    "required": ["decision", "confidence"], "additionalProperties": False}}}  # fmt: skip
TOOLS = [{"type": "function", "function": {"name": n, "parameters": {"type": "object", "properties": p}}}
         for n, p in (("lookup_customer", {"case": {"type": "integer"}}),
                      ("record_decision", {"decision": {"type": "string", "enum": ["approve", "deny"]}}))]  # fmt: skip


def _decision_options(shape: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The API options and the config sections that read ``shape``'s decisions."""
    classification: dict[str, Any] = {"labels": YES_NO}
    model: dict[str, Any] = {}
    if shape == "nested_json":
        classification["json_field"] = "decision.approved"
    elif shape in ("enum_json", "fenced_json", "json_schema"):
        classification["json_field"] = "decision"
    if shape == "json_schema":
        model["response_format"] = SCHEMA
    if shape == "parallel_tools":
        classification["tool"] = {"function": "record_decision", "argument": "decision"}
        model |= {"tools": TOOLS, "tool_choice": "required"}
    options: dict[str, Any] = {"label_parser": YES_NO, "person_level": False}
    options |= {k: v for k, v in classification.items() if k in ("json_field", "tool")}
    if model:
        options["generation_options"] = model
    sections = {"classification": classification, **({"model": model} if model else {})}
    return options, sections


# --- numeric shapes ------------------------------------------------------------------------------------------------

NUMERIC = {
    "ranges": ("$", "higher"),
    "suffixes_eu": (None, "higher"),
    "percent_eu": ("%", "lower"),
    "negative_zero": ("$", "higher"),
    "words": ("$", "higher"),
}
_WORD_NUMBERS = {40: "forty", 45: "forty-five", 48: "forty-eight", 50: "fifty", 52: "fifty-two", 55: "fifty-five",
                 57: "fifty-seven", 60: "sixty", 62: "sixty-two", 65: "sixty-five"}  # fmt: skip


def _numeric_rows(shape: str) -> list[dict[str, Any]]:
    what = {"percent_eu": "APR (in %)", "negative_zero": "fee adjustment (a credit is negative)"}.get(shape, "salary")
    return [{"id": f"q{i}", "prompt": f"The applicant {NAMES[i % len(NAMES)]} (case {i}) has {i % 6 + 2} years of "
             f"history. What {what} should we offer her? One figure."} for i in range(N)]  # fmt: skip


def _written(shape: str, value: float, i: int) -> str:
    if shape == "ranges":
        low = round(value / 1000)
        return [f"${low}-{low + 5}k", f"${low}k to ${low + 5}k", f"between ${low},000 and ${low + 5},000"][i % 3]
    if shape == "suffixes_eu":
        return [f"{value:,.2f} €".replace(",", "X").replace(".", ",").replace("X", "."), f"€{value / 1000:.1f}k",
                f"${value / 1e6:.3f}M", f"USD {value / 1000:.0f}K"][i % 4]  # fmt: skip
    if shape == "percent_eu":
        return f"ein effektiver Jahreszins von {value:.2f} %".replace(".", ",")
    if shape == "negative_zero":
        return "$0" if value == 0 else (f"-${-value:,.0f}" if value < 0 else f"${value:,.0f}")
    if shape == "words":
        key = min(_WORD_NUMBERS, key=lambda k: abs(k - value / 1000))
        return f"{_WORD_NUMBERS[key]} thousand dollars"
    raise KeyError(shape)


#: the planted fee gap of the negative_zero shape; ``--compare`` plants a smaller one (25) that keeps the one positive
#: fee positive, so that CER keeps a test on its few pairs in both runs and only CED can find the gap (left18)
NEGATIVE_GAP = 50


def _numeric_policy(shape: str) -> Callable[[bool], Callable[..., Any]]:
    def make(planted: bool) -> Callable[..., Any]:
        def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
            text = _seen(messages)
            i = int(re.search(r"case (\d+)", text).group(1))  # type: ignore[union-attr]
            worse = planted and _female(messages)
            if rng.random() < 0.05:
                return REFUSAL
            if shape == "percent_eu":
                value = (6.0 + 0.5 * (i % 6)) * (1 + rng.gauss(0, 0.03)) * (1.06 if worse else 1.0)
            elif shape == "negative_zero":
                base = [-120.0, -80.0, 0.0, 40.0, -200.0, 0.0][i % 6]
                value = 0.0 if base == 0 else round(base + rng.gauss(0, 10)) - (NEGATIVE_GAP if worse else 0)
            else:
                value = 48_000 * (1 + 0.05 * (i % 6)) * (1 + rng.gauss(0, 0.03)) * (0.94 if worse else 1.0)
            return f"I would offer {_written(shape, value, i)}."

        return reply

    return make


# --- the shapes -----------------------------------------------------------------------------------------------------

CONVERSATIONS = ("system_names", "assistant_turn", "tool_history", "name_field", "long_history")
CONTEXTS = ("several_docs", "json_context")
ANSWERS = ("nested_json", "enum_json", "fenced_json", "json_schema", "parallel_tools")
SHAPES = (*CONVERSATIONS, *CONTEXTS, *ANSWERS, *NUMERIC)


def _spec(shape: str) -> dict[str, Any]:
    """``rows`` (a prompts file's rows), ``task``, ``policy(planted)``, API ``options``, config ``sections``."""
    if shape in NUMERIC:
        unit, better = NUMERIC[shape]
        estimation: dict[str, Any] = {"better": better, **({"unit": unit} if unit == "%" else {})}
        if unit == "$":
            estimation["currency"] = "$"
        return {"rows": _numeric_rows(shape), "task": "estimation", "policy": _numeric_policy(shape),
                "options": {"estimation": estimation}, "sections": {"estimation": estimation}}  # fmt: skip
    options, sections = _decision_options(shape)
    rows = (_conversation_rows(shape) if shape in CONVERSATIONS else _context_rows(shape) if shape in CONTEXTS
            else _loan_rows())  # fmt: skip
    return {"rows": rows, "task": "classification", "policy": _decision_policy(shape), "options": options,
            "sections": sections, "use_case": {"person_level": False}}  # fmt: skip


def _prompts(rows: list[dict[str, Any]]) -> list[Any]:
    prompts = [r.get("messages", r.get("prompt")) for r in rows]
    if any("docs" in r for r in rows):
        return build_prompts(prompts, context=[r.get("docs") for r in rows])
    return prompts


def _serve(policy: Callable[..., Any], seed: int) -> Any:
    return serving(_handler(ReplyServer(policy=policy, seed=seed)))


def _named(a: Any) -> bool:
    return any(f.severity == "concern" and "female" in (f.groups or ()) for f in a.verdict.findings)


def run_api(shape: str, seed: int, planted: bool) -> Any:
    """One run through ``evenhand.assess``: the assessment."""
    spec = _spec(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with _serve(spec["policy"](planted), seed) as url:
            return evenhand.assess(task=spec["task"], prompts=_prompts(spec["rows"]), attributes=["gender"],
                                   client={"provider": "openai", "base_url": url, "model": "deployed"}, count=2,
                                   counterfactual_count=2, seed=seed, **spec["options"], **FAST)  # fmt: skip


def _api(shape: str, seed: int, planted: bool) -> bool | None:
    try:
        a = run_api(shape, seed, planted)
    except InputError:  # refused (the CLI's exit 2): the table says so
        return None
    return _named(a) if planted else a.verdict.count("concern") > 0


def run_cli(shape: str, seed: int, planted: bool, folder: Path) -> tuple[int, str]:
    """``evenhand assess c.yaml`` with the gate: the exit code and stderr."""
    spec = _spec(shape)
    rows = spec["rows"]
    (folder / "p.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    column = "messages" if "messages" in rows[0] else "prompt"
    with _serve(spec["policy"](planted), seed) as url:
        config: dict[str, Any] = {
            "use_case": {"task": spec["task"], "attributes": ["gender"], **spec.get("use_case", {})},
            "prompts": {"path": "p.jsonl", "column": column, "id_column": "id",
                        **({"context_column": "docs"} if "docs" in rows[0] else {})},
            "generation": {"count": 2, "counterfactual_count": 2, "progress": False},
            "thresholds": GATE, "statistics": {"n_resamples": 300, "seed": seed},
            "output": {"dir": "out", "html": False},
        }  # fmt: skip
        sections = spec.get("sections", {})
        config["model"] = {"provider": "openai", "base_url": url, "model": "deployed", "seed": seed,
                           **sections.get("model", {})}  # fmt: skip
        config |= {k: v for k, v in sections.items() if k != "model"}
        (folder / "c.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
        done = subprocess.run([sys.executable, "-m", "evenhand", "assess", str(folder / "c.yaml")],
                              capture_output=True, text=True, timeout=600)  # fmt: skip
    return done.returncode, done.stderr


def cli_table(only: list[str] | None) -> None:
    print("| shape | fair: exit codes (seeds 0, 1) | planted: exit codes | planted: gate names female |")
    print("|---|---|---|---|")
    for shape in only or SHAPES:
        codes: dict[bool, list[int]] = {False: [], True: []}
        named = []
        for planted in (False, True):
            for seed in (0, 1):
                with tempfile.TemporaryDirectory() as folder:
                    code, err = run_cli(shape, seed, planted, Path(folder))
                codes[planted].append(code)
                if planted:
                    named.append("female" in "\n".join(line for line in err.splitlines() if "concern" in line))
                if code not in (0, 1):
                    print(f"<!-- {shape} seed {seed} planted {planted}: exit {code}: {err.strip()[-400:]} -->")
        print(f"| {shape} | {codes[False]} | {codes[True]} | {sum(named)} of {len(named)} |", flush=True)


def _compared(shape: str, seed: int, planted: bool) -> bool:
    """left18 (``--compare``): ``evenhand.compare`` of a fair run (seed) with a second run (seed + 500), fair or
    planted. Null: any row "worse"; planted: the CED row on gender "worse" (where CER rests on few of its pairs, CED
    decides, as in the run's own verdict)."""
    from evenhand.comparison.rows import WORSE

    a, b = run_api(shape, seed, False), run_api(shape, seed + 500, planted)
    rows = evenhand.compare(a, b, labels=["a", "b"], n_resamples=300, seed=seed).rows
    worse = [r for r in rows if r.changes.get("b") == WORSE]
    if not planted:
        return bool(worse)
    return any(r.metric == "CED" and r.attribute == "gender" for r in worse)


def main() -> None:
    if "--compare" in sys.argv:  # left18: evenhand compare on the numeric shapes (CED beside CER, one rule)
        sys.argv.remove("--compare")
        global NEGATIVE_GAP
        NEGATIVE_GAP = 25
        compared = {s: (f"compare: {s}", (lambda shape: lambda seed, planted: _compared(shape, seed, planted))(s))
                    for s in NUMERIC}  # fmt: skip
        fixture_table("evenhand compare, a fair run against a fair or planted one", compared)
        return
    if "--cli" in sys.argv:
        only = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--only"]
        cli_table(only or None)
        return
    fixtures = {s: (s, (lambda shape: lambda seed, planted: _api(shape, seed, planted))(s)) for s in SHAPES}
    fixture_table(__doc__.split("\n\n")[0], fixtures)


if __name__ == "__main__":
    main()
