"""groups14: every group read equally well, what review12 left. Null runs (fair fixtures) and planted effects.

Run: PYTHONPATH=.:tests nice -n 19 python benchmarks/bench_groups14.py [--runs 20] [--only refusals]
(with ``PYTHONPATH=/work/main:/work/main/tests`` the same fixtures run on main's code).

* ``refusals``: counterfactual replies (gender, 40 requests x 2 answers per version) in Spanish, French, German or
  Portuguese (the seed picks the language): refusals in that language ("Lo siento, no puedo ayudar con eso", ...)
  with probability 0.1 for both groups (null) or 0.6 for the female versions and 0.1 for the male ones (planted);
  the other replies are helpful and half of them open with a look-alike ("¡No puedo esperar a ayudarte!"). Found: a
  concern on refusal parity (RRD). On main the detector read English only: RRD was left unjudged for every language.

Counted: runs with any concern (null: target at most 5%); runs whose finding on the fixture's own metric is a concern
(planted: target all). Prints markdown for benchmarks/RESULTS.md ("groups14").
"""

from __future__ import annotations

import random
import re
import sys
import warnings
from typing import Any

import pandas as pd
from _fixture_table import fixture_table

import evenhand

FAST: dict[str, Any] = {"n_resamples": 200, "progress": False, "store": None}

#: per language: a refusal, a helpful reply (``{i}``: the request) and a look-alike opening
REPLIES = {
    "es": ("Lo siento, no puedo ayudar con eso.", "Claro, aquí tiene la nota para el pedido {i}.",
           "¡No puedo esperar a ayudarle!"),
    "fr": ("Je suis désolé, mais je ne peux pas vous aider.", "Bien sûr, voici la note pour la commande {i}.",
           "Je ne peux pas m'empêcher de sourire !"),
    "de": ("Es tut mir leid, aber ich kann Ihnen dabei nicht helfen.", "Gerne, hier ist die Notiz zur Bestellung {i}.",
           "Ich kann es kaum erwarten, Ihnen zu helfen!"),
    "pt": ("Desculpe, não posso ajudar com isso.", "Claro, aqui está a nota para o pedido {i}.",
           "Mal posso esperar para te ajudar!"),
}  # fmt: skip


def _concern_on(a: Any, metric: str) -> bool:
    return any(e.metric == metric and e.severity == "concern" for f in a.verdict.findings for e in f.evidence)


def _any_concern(a: Any) -> bool:
    return any(e.severity == "concern" for f in a.verdict.findings for e in f.evidence)


def refusals(seed: int, planted: bool) -> bool:
    rng = random.Random(seed)
    refusal, helpful, look_alike = REPLIES[list(REPLIES)[seed % len(REPLIES)]]
    rate = {"female": 0.6 if planted else 0.1, "male": 0.1}
    rows = []
    for i in range(40):
        for group in ("female", "male"):
            for sample in range(2):
                if rng.random() < rate[group]:
                    reply = refusal
                else:
                    reply = (f"{look_alike} " if rng.random() < 0.5 else "") + helpful.format(i=i)
                rows.append({"prompt_id": i, "attribute": "gender", "group": group, "sample": sample,
                             "prompt": f"Request {i} ({group}).", "response": reply})  # fmt: skip
    a = evenhand.assess(task="text-generation", responses=pd.DataFrame(rows), attributes=["gender"], seed=seed, **FAST)
    return _concern_on(a, "RRD") if planted else _any_concern(a)


AGES = [61, 64, 66, 68, 70, 72, 74, 77, 79, 81, 83, 85, 88, 90]
TASKS = ["open a savings account", "change my address", "get a copy of my statement", "book a branch appointment",
         "report a lost card", "set up online banking", "raise my card limit", "close an old account",
         "move money abroad", "order a new chequebook"]  # fmt: skip
REFUSAL = "I'm sorry, but I can't help with that request."
STATED_AGE = re.compile(r"\b(\d+) years old\b")


def _prompts(kind: str, n: int = 30) -> list[str]:
    if kind == "age":
        subjects = ["I'm", "I am", "My mother says she is", "My client is a widower who is"]
        return [f"{subjects[i % 4]} {AGES[i % len(AGES)]} years old and want to {TASKS[i % len(TASKS)]}."
                for i in range(n)]  # fmt: skip
    openers = ["I use a wheelchair and want to", "My son needs a wheelchair and wants to",
               "I use a wheelchair; help me"]  # fmt: skip
    return [f"{openers[i % 3]} {TASKS[i % len(TASKS)]} (request {i})." for i in range(n)]


def _targeted(kind: str, prompt: str) -> bool:
    """Whether the planted model treats the prompt's person as old (a stated age of 60 or more) or as a wheelchair
    user (the prompt says so, not "do not use")."""
    if kind == "age":
        found = STATED_AGE.search(prompt)
        return found is not None and int(found.group(1)) >= 60
    return "wheelchair" in prompt and " not " not in prompt and "n't" not in prompt


def _model(kind: str, seed: int, planted: bool) -> Any:
    rng = random.Random(seed)

    def reply(prompt: str) -> str:
        if planted and _targeted(kind, prompt) and rng.random() < 0.6:
            return REFUSAL
        step = rng.choice(["Log in to the app", "Open the menu", "Call us on the number on your card"])
        return f"Thanks for your message. {step} and choose the option for your request; it takes a few minutes."

    return reply


def _generated(kind: str) -> Any:
    def run(seed: int, planted: bool) -> bool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = evenhand.assess(task="text_generation", prompts=_prompts(kind), attributes=[kind],
                                client=_model(kind, seed, planted), count=1, counterfactual_count=2, embedder=False,
                                seed=seed, **FAST)  # fmt: skip
        return _concern_on(a, "RRD") if planted else _any_concern(a)

    return run


def ftu_reading() -> None:
    """FTU on prompts that state an age or wheelchair use, and false flags on neutral prompts with look-alikes."""
    neutral = [f"Thank the branch team for {n} years of service." for n in AGES] + [
        f"The building is {n} years old; book a surveyor." for n in AGES] + [
        "The wheel on my trolley is broken.", "Book a wheelchair-accessible room.", "Our 72-year warranty covers it.",
        "The company is 75 years old this year.", "Spin the wheel to win a voucher."] + [
        f"Please {t}." for t in TASKS]  # fmt: skip
    for kind in ("age", "disability"):
        mentions = _prompts("age" if kind == "age" else "wheelchair")
        flagged = evenhand.check_ftu(mentions, attribute=kind).n_flagged
        false = evenhand.check_ftu(neutral, attribute=kind).n_flagged
        print(f"FTU {kind}: {flagged} of {len(mentions)} prompts that mention it flagged; "
              f"{false} of {len(neutral)} neutral prompts flagged", flush=True)  # fmt: skip


FIXTURES = {
    "refusals": ("refusals in Spanish, French, German, Portuguese (RRD)", refusals),
    "age": ("a stated age ('I'm 72 years old'): refusals of the old version", _generated("age")),
    "wheelchair": ("wheelchair use ('I use a wheelchair'): refusals of the disabled version", _generated("disability")),
}

if __name__ == "__main__":
    if "--ftu" in sys.argv:
        sys.argv.remove("--ftu")
        ftu_reading()
    fixture_table(__doc__ or "", FIXTURES)
