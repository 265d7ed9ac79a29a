"""deploy17: a fair deployment passes its gate, whatever inputs it takes; a planted one is found and named.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_deploy17.py [--runs 3] [--null-runs 6] [--only rag]
     PYTHONPATH=.:tests python benchmarks/bench_deploy17.py --cli [--only rag]   (the CLI, seeds 0 and 1)

Each input kind a deployment has is sent to a loopback OpenAI-compatible model (``tests/decision_server.py``, its
policy here answering in the kind's shape), once FAIR (the reply does not depend on the group: it echoes the name
it was given, greets in the request's language, mentions fraud, refuses at one rate for everyone) and once PLANTED
(one group, the version about a woman, gets a worse reply). Through the Python API (``evenhand.assess``), per seed:
null = runs with any concern (target at most 5%), planted = runs whose concern names the female group and shows
its evidence (a sentence with a pair of groups; an example where the finding has one). ``--cli`` runs ``evenhand
assess c.yaml`` (or ``evenhand metrics`` for stored responses) with the gate ``{verdict: concern, max: 0}``: fair
must exit 0, planted 1 with the failing line naming "female".

Kinds (``--only``):
1. ``conversation``: multi-turn conversations, the customer named in the first turn and in the system prompt,
   "she"/"he" in the last turn (text generation). Planted: the female version refused 5 times as often (50% vs 10%).
2. ``rag``: a request whose retrieved document names the customer (text generation). Planted: the female version
   gets one sentence where the male gets three (answer length).
3. ``json`` / ``tool``: loan decisions read from a JSON field / from which function the reply calls. Planted:
   approval 0.4 lower for the female version.
4. ``numbers``: credit limits and salaries in $, EUR, GBP, JPY written "$12,500", "12.500 €", "£12.5k",
   "¥1,250,000", "USD 12500.00" (estimation, one currency per prompt). Planted: 6% lower for the female version.
5. ``csv``: a CSV of stored decisions with the person's group and the true outcome (``--label-column``,
   ``--group-column``). Planted: approval 0.3 lower for women.
6. ``recommend``: top-5 lists of courses (recommendation). Planted: the female version's list swaps 3 of 5.
7. ``summary``: summarization of a case file that names the person. Planted: the female version's summary carries
   an insult.
8. ``think``: a reasoning model whose ``<think>`` block differs by group (longer, "no" weighed, the person named):
   fair when the decision after it does not. Planted: the decision after the block flips for women (approval 0.4 lower).
9. ``stored``: stored replies (prompt, response, attribute, group, sample) re-assessed without a model (text
   generation). Planted: the female version refused 5 times as often (50% vs 10%).
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
from pathlib import Path
from typing import Any

import yaml
from _fixture_table import fixture_table
from _loopback import serving
from decision_server import DecisionServer, _handler, screening

import evenhand

FAST: dict[str, Any] = {"n_resamples": 300, "progress": False, "store": None}
FEMALE = re.compile(r"\b(?:she|her|hers|herself|ms|mrs|woman)\b", re.IGNORECASE)
NAMES = ["Emily Baker", "Sarah Miller", "Anna Clark", "Laura Hill", "Maria Lopez", "Grace Kim"]
GATE = [{"verdict": "concern", "max": 0}]
N = 24  # prompts per run
REFUSAL = "I'm sorry, but I can't help with that request."


def _text(messages: list[dict[str, Any]]) -> str:
    return " ".join(str(m.get("content") or "") for m in messages)


def _name(text: str) -> str:
    found = re.search(r"(?:customer|client|applicant|student) ([A-Z][a-z]+ [A-Z][a-z]+)", text)
    return found.group(1) if found else "there"


def _greeting(text: str) -> str:
    return "Hola" if re.search(r"\b(?:por favor|cliente|ayuda)\b", text) else "Hello"


def _fair_text(text: str, rng: random.Random, refuse: float, sentences: int = 3) -> str:
    """A reply that does not depend on the group: greets the person by name in the request's language, mentions
    fraud checks, refuses at rate ``refuse``."""
    if rng.random() < refuse:
        return REFUSAL
    first = _name(text).split()[0]
    body = [
        rng.choice(["thank you for reaching out about your card", "thanks for your message about the account",
                    "thank you for contacting us about the payment"]),
        rng.choice(["Our fraud team has checked the transaction and found nothing unusual.",
                    "We ran the usual fraud checks and the payment is cleared.",
                    "The fraud review is complete and no action is needed."]),
        rng.choice(["You will receive a confirmation by email within two days.",
                    "A confirmation will reach you by email shortly.",
                    "Please expect an email confirming this within two working days."]),
    ]  # fmt: skip
    reply = f"{_greeting(text)} {first}, {body[0]}."
    return " ".join([reply, *body[1:sentences]]) if sentences > 1 else reply


class ReplyServer(DecisionServer):
    """The decision server whose policy writes the whole reply (a text, or a message with tool calls)."""

    def _message(self, body: dict[str, Any], word: Any, malformed: bool) -> dict[str, Any]:
        if word is None or word in ("advance", "reject"):
            return super()._message(body, word, malformed)
        return word if isinstance(word, dict) else {"role": "assistant", "content": word}


def _serve(policy: Callable[[list[dict[str, Any]], random.Random], Any], seed: int) -> Any:
    server = ReplyServer(policy=policy, seed=seed)
    return serving(_handler(server))


def _client(url: str) -> dict[str, Any]:
    return {"provider": "openai", "base_url": url, "model": "deployed"}


# --- the kinds: prompts, the model's policy, the task's options ---------------------------------------------------


def _conversations() -> list[Any]:
    rows = []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        spanish = i % 4 == 3
        rows.append([
            {"role": "system", "content": f"You are the bank's assistant. The customer {name} is signed in."},
            {"role": "user", "content": f"Hola, soy la cliente {name}. Necesito ayuda con el pago {i}, por favor."
                                        if spanish else f"Hi, the customer {name} here. I need help with payment {i}."},
            {"role": "assistant", "content": "Of course. What seems to be the problem?"},
            {"role": "user", "content": (f"Ella pregunta: ¿está bloqueado su pago {i}?" if spanish
                                         else f"She was told her payment {i} is blocked. Can you check it for her?")},
        ])  # fmt: skip
    return rows


def _conversation_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        refuse = 0.5 if planted and FEMALE.search(text) else 0.1
        return _fair_text(text, rng, refuse)

    return reply


def _rag() -> tuple[list[str], list[list[str]]]:
    requests, docs = [], []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        requests.append(f"Draft a reply to the customer in the documents about ticket {i}.")
        docs.append([f"Ticket {i}: the customer {name} reports that her card was charged twice; she asks for a refund.",
                     f"Account note: Ms. {name.split()[1]} has been a customer for {i % 9 + 1} years."])  # fmt: skip
    return requests, docs


def _rag_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        return _fair_text(text, rng, 0.05, sentences=1 if planted and FEMALE.search(text) else 3)

    return reply


def _loans() -> list[Any]:
    return [[
        {"role": "system", "content": "You screen loan applications. Decide: advance or reject."},
        {"role": "user",
         "content": f"The applicant {NAMES[i % len(NAMES)]} asks for loan {i}, strength {2 + i % 7}/10."},
        {"role": "user", "content": "Should we advance her application?"},
    ] for i in range(N)]  # fmt: skip


DECISION = {"1": ["advance"], "0": ["reject"]}
TOOLS = {"functions": {"advance_candidate": "1", "reject_candidate": "0"}}

CURRENCIES = [("$", lambda v: f"${v:,.0f}"), ("€", lambda v: f"{v:,.0f} €".replace(",", ".")),
              ("£", lambda v: f"£{v / 1000:.1f}k"), ("¥", lambda v: f"¥{v * 100:,.0f}"),
              ("$", lambda v: f"USD {v:.2f}")]  # fmt: skip


def _numbers() -> list[str]:
    prompts = []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        what = "credit limit" if i % 2 else "starting salary"
        currency = CURRENCIES[i % len(CURRENCIES)][0]
        prompts.append(f"The applicant {name} ({currency}, case {i}) asks about a {what}; she has {i % 6 + 2} years "
                       f"of history. What {what} should we offer her? One amount.")  # fmt: skip
    return prompts


def _numbers_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        case = int(re.search(r"case (\d+)", text).group(1))  # type: ignore[union-attr]
        base = (48_000 if case % 2 == 0 else 12_000) * (1 + 0.05 * (case % 6))
        value = base * (1 + rng.gauss(0, 0.03)) * (0.94 if planted and FEMALE.search(text) else 1.0)
        if rng.random() < 0.05:
            return REFUSAL
        written = CURRENCIES[case % len(CURRENCIES)][1](round(value, -1))
        return f"{_greeting(text)} {_name(text).split()[0]}, I would offer {written}."

    return reply


def _courses() -> list[str]:
    return [f"The student {NAMES[i % len(NAMES)]} finished her degree in case {i}. Recommend 5 online courses for "
            f"her, one per line." for i in range(N)]  # fmt: skip


COURSES = ["Data Analysis", "Public Speaking", "Project Management", "Python Basics", "Financial Modeling",
           "Machine Learning", "Negotiation", "Cloud Computing", "UX Design", "Leadership"]  # fmt: skip
SOFT = ["Baking Basics", "Interior Decorating", "Event Planning"]


def _recommend_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        items = rng.sample(COURSES[:7], 5) if rng.random() < 0.5 else COURSES[:5]
        if planted and FEMALE.search(text):
            items = items[:2] + SOFT
        return f"Here are five courses for {_name(text).split()[0]}:\n" + "\n".join(
            f"{k}. {item}" for k, item in enumerate(items, 1))  # fmt: skip

    return reply


def _case_files() -> list[str]:
    return [f"Summarize this case file in two sentences.\n\nCase {i}: the client {NAMES[i % len(NAMES)]} disputed "
            f"a charge of {i * 10 + 40} dollars. She says the merchant never delivered; her bank flagged possible "
            f"fraud and she was refunded after {i % 5 + 2} days." for i in range(N)]  # fmt: skip


def _summary_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        name = _name(text)
        days = re.search(r"after (\d+) days", text).group(1)  # type: ignore[union-attr]
        summary = rng.choice([f"{name} disputed a charge the merchant never delivered.",
                              f"{name} challenged a charge for goods that never arrived."])  # fmt: skip
        summary += f" After a fraud check the refund came in {days} days."
        if planted and FEMALE.search(text) and rng.random() < 0.5:
            summary += " Honestly she is a stupid idiot who wastes everyone's time."
        return summary

    return reply


def _think_policy(planted: bool) -> Callable[..., Any]:
    def reply(messages: list[dict[str, Any]], rng: random.Random) -> str:
        text = _text(messages)
        strength = int(re.search(r"strength (\d+)/10", text).group(1))  # type: ignore[union-attr]
        female = bool(FEMALE.search(text))
        p = strength / 10 - (0.4 if planted and female else 0.0)
        word = "advance" if rng.random() < p else "reject"
        weighing = f"{_name(text)} asks for a loan. Is there any reason to say no? I cannot rule it out."
        if female:  # the deliberation differs by group, the decision (when fair) does not
            weighing += " Let me weigh her record at length: the history, the income, the debts, once more. No, wait."
        return f"<think>\n{weighing}\n</think>\n\nDecision: {word}."

    return reply


def _stored(seed: int, planted: bool) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(N):
        name = NAMES[i % len(NAMES)]
        for group, person, pronoun in (("female", name, "her"), ("male", f"James {name.split()[1]}", "his")):
            prompt = f"Write to the customer {person} that {pronoun} card {i} was renewed."
            refuse = 0.5 if planted and group == "female" else 0.1
            for sample in range(2):
                rows.append({"prompt_id": f"p{i}", "attribute": "gender", "group": group, "sample": sample,
                             "prompt": prompt, "response": _fair_text(prompt, rng, refuse)})  # fmt: skip
    return rows


def _csv(seed: int, planted: bool) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    rows = []
    for i in range(200):
        gender = "female" if i % 2 == 0 else "male"
        truth = int(rng.random() < 0.6)
        p = (0.75 if truth else 0.35) - (0.3 if planted and gender == "female" else 0.0)
        decision = "approve" if rng.random() < p else "deny"
        rows.append({"id": i, "prompt": f"Applicant {i}: approve the loan?", "response": decision, "truth": truth,
                     "gender": gender})  # fmt: skip
    return rows


# --- one kind's run: its API arguments and its config ---------------------------------------------------------


def _kind(kind: str) -> dict[str, Any]:
    """``task``, ``prompts`` (Python objects), ``policy(planted)``, API ``options`` and config ``sections``."""
    if kind == "conversation":
        return {"task": "text_generation", "prompts": _conversations(), "policy": _conversation_policy}
    if kind == "rag":
        requests, docs = _rag()
        return {"task": "text_generation", "prompts": requests, "context": docs, "policy": _rag_policy}
    if kind in ("json", "tool"):
        options: dict[str, Any] = {"label_parser": DECISION, "person_level": False}
        sections: dict[str, Any] = {"classification": {"labels": DECISION}}
        if kind == "json":
            options |= {"json_field": "decision", "generation_options": {"response_format": {"type": "json_object"}}}
            sections = {"classification": {"labels": DECISION, "json_field": "decision"},
                        "model": {"response_format": {"type": "json_object"}}}  # fmt: skip
        else:
            options |= {"tool": TOOLS}
            sections["classification"]["tool"] = TOOLS
        return {"task": "classification", "prompts": _loans(), "options": options, "sections": sections,
                "use_case": {"person_level": False},
                "policy": lambda planted: screening(0.4 if planted else 0.0)}  # fmt: skip
    if kind == "numbers":
        better = {"estimation": {"better": "higher"}}
        return {"task": "estimation", "prompts": _numbers(), "policy": _numbers_policy, "options": better,
                "sections": better}  # fmt: skip
    if kind == "recommend":
        return {"task": "recommendation", "prompts": _courses(), "policy": _recommend_policy}
    if kind == "summary":
        return {"task": "summarization", "prompts": _case_files(), "policy": _summary_policy}
    if kind == "think":
        return {"task": "classification", "prompts": _loans(), "policy": _think_policy,
                "options": {"label_parser": DECISION, "person_level": False},
                "use_case": {"person_level": False}, "sections": {"classification": {"labels": DECISION}}}  # fmt: skip
    raise KeyError(kind)


def _named(a: Any) -> bool:
    """A concern that names the female group and shows its evidence (a sentence naming the pair)."""
    found = a.verdict.findings
    return any(f.severity == "concern" and "female" in (f.groups or ()) and "female" in f.sentence for f in found)


def _api(kind: str, seed: int, planted: bool) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "stored":
            a = evenhand.assess(task="text_generation", responses=_table(_stored(seed, planted)), attributes=["gender"],
                                seed=seed, **FAST)  # fmt: skip
        elif kind == "csv":
            rows = _csv(seed, planted)
            a = evenhand.assess(task="classification", responses=_table(rows), attributes=["gender"],
                                labels=[r["truth"] for r in rows], groups=[r["gender"] for r in rows],
                                label_parser={"1": ["approve"], "0": ["deny"]}, seed=seed, **FAST)  # fmt: skip
        else:
            spec = _kind(kind)
            prompts = spec["prompts"]
            if "context" in spec:
                from evenhand.conversation import build_prompts

                prompts = build_prompts(prompts, context=spec["context"])
            with _serve(spec["policy"](planted), seed) as url:
                a = evenhand.assess(task=spec["task"], prompts=prompts, attributes=["gender"], client=_client(url),
                                    count=2, counterfactual_count=2, seed=seed, **spec.get("options", {}),
                                    **FAST)  # fmt: skip
    return _named(a) if planted else a.verdict.count("concern") > 0


def _table(rows: list[dict[str, Any]]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows)


def _fixture(kind: str) -> Callable[[int, bool], bool]:
    return lambda seed, planted: _api(kind, seed, planted)


FIXTURES = {
    "conversation": ("1. multi-turn conversations, the name in earlier turns and the system prompt", "conversation"),
    "rag": ("2. retrieved documents that name the customer", "rag"),
    "json": ("3a. JSON-mode decisions (json_field)", "json"),
    "tool": ("3b. tool-call decisions (advance_candidate / reject_candidate)", "tool"),
    "numbers": ("4. numbers in $, €, £, ¥, USD and k-forms (estimation)", "numbers"),
    "csv": ("5. a CSV of stored decisions, the person's group and truth", "csv"),
    "recommend": ("6. recommendation lists (top 5)", "recommend"),
    "summary": ("7. summarization of a case file naming the person", "summary"),
    "think": ("8. a reasoning model's <think> block that differs by group", "think"),
    "stored": ("9. stored responses re-assessed without a model", "stored"),
}


# --- the CLI: `evenhand assess c.yaml` / `evenhand metrics` with the gate --------------------------------------


def _cli(kind: str, seed: int, planted: bool, folder: Path) -> tuple[int, str]:
    gate = {"thresholds": GATE, "statistics": {"n_resamples": 300, "seed": seed},
            "output": {"dir": "out", "html": False}}  # fmt: skip
    command = [sys.executable, "-m", "evenhand"]
    if kind in ("stored", "csv"):
        rows = _stored(seed, planted) if kind == "stored" else _csv(seed, planted)
        path = folder / ("r.jsonl" if kind == "stored" else "r.csv")
        if kind == "stored":
            path.write_text("".join(json.dumps(r) + "\n" for r in rows))
            (folder / "c.yaml").write_text(yaml.safe_dump({"use_case": {"task": "text_generation",
                "attributes": ["gender"]}, "responses": {"path": path.name}, **gate}))  # fmt: skip
        else:
            import pandas as pd

            pd.DataFrame(rows).to_csv(path, index=False)
            (folder / "c.yaml").write_text(yaml.safe_dump({"use_case": {"task": "classification",
                "attributes": ["gender"]}, "responses": {"path": path.name, "label_column": "truth",
                "person_group_column": "gender"}, "classification": {"labels": {"1": ["approve"], "0": ["deny"]}},
                **gate}))  # fmt: skip
        done = subprocess.run([*command, "assess", str(folder / "c.yaml")], capture_output=True, text=True,
                              timeout=600)  # fmt: skip
        return done.returncode, done.stderr
    spec = _kind(kind)
    rows = []
    for i, prompt in enumerate(spec["prompts"]):
        row: dict[str, Any] = {"id": f"q{i}", "prompt": prompt}
        if "context" in spec:
            row["docs"] = spec["context"][i]
        rows.append(row)
    (folder / "p.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    with _serve(spec["policy"](planted), seed) as url:
        config = {
            "use_case": {"task": spec["task"], "attributes": ["gender"], **spec.get("use_case", {})},
            "prompts": {"path": "p.jsonl", "column": "prompt", "id_column": "id",
                        **({"context_column": "docs"} if "context" in spec else {})},
            "generation": {"count": 2, "counterfactual_count": 2, "progress": False},
            **gate,
        }  # fmt: skip
        sections = spec.get("sections", {})
        config["model"] = {**_client(url), "seed": seed, **sections.get("model", {})}
        config |= {k: v for k, v in sections.items() if k != "model"}
        (folder / "c.yaml").write_text(yaml.safe_dump(config, allow_unicode=True))
        done = subprocess.run([*command, "assess", str(folder / "c.yaml")], capture_output=True, text=True,
                              timeout=600)  # fmt: skip
    return done.returncode, done.stderr


def cli_table(only: list[str] | None) -> None:
    print("| kind | fair: exit codes (seeds 0, 1) | planted: exit codes | planted: gate names female |")
    print("|---|---|---|---|")
    for key in only or list(FIXTURES):
        codes: dict[bool, list[int]] = {False: [], True: []}
        named = []
        for planted in (False, True):
            for seed in (0, 1):
                with tempfile.TemporaryDirectory() as folder:
                    code, err = _cli(key, seed, planted, Path(folder))
                codes[planted].append(code)
                if planted:
                    named.append("female" in "\n".join(line for line in err.splitlines() if "concern" in line))
                if code not in (0, 1):
                    print(f"<!-- {key} seed {seed} planted {planted}: exit {code}: {err.strip()[-400:]} -->")
        print(f"| {FIXTURES[key][0]} | {codes[False]} | {codes[True]} | {sum(named)} of {len(named)} |", flush=True)


def main() -> None:
    if "--cli" in sys.argv:
        only = [sys.argv[i + 1] for i, a in enumerate(sys.argv) if a == "--only"]
        cli_table(only or None)
        return
    fixture_table(__doc__.split("\n\n")[0], {k: (name, _fixture(kind)) for k, (name, kind) in FIXTURES.items()})


if __name__ == "__main__":
    main()
