"""Counterfactual sentiment (SCSP, WCSP) on a fair loopback server whose replies echo the group word.

Run: PYTHONPATH=. nice -n 10 python benchmarks/bench_scsp_null.py [--seeds 40] [--planted-seeds 20]

A loopback OpenAI-compatible server (``tests/_loopback.py``) answers welcome notes for a new customer named by one
protected attribute's word ("our new blind customer", "our new wealthy customer"): every one of the seven built-in
attributes that VADER (the offline default sentiment scorer) may read differently has its own prompts. The fair
server's reply is drawn at random from 4 openings x 4 bodies x 3 closings, **whatever the group**, and echoes the
group phrase of its prompt ("We are glad to have our new poor customer with us."). VADER reads some of those words
itself ("straight" +0.9, "poor" -2.1, "wealthy" +1.5, "blind" -1.7, "youthful" +1.3): a gap from the scorer, not
from the model.

* null: per attribute, the share of seeds whose verdict holds a counterfactual sentiment concern (SCSP or WCSP);
  target at most 5% per attribute;
* planted (``--planted-seeds``): the server answers the versions of one group per attribute (the second group of
  its prompts' pairs) with a colder body in 30% of its replies; the share of seeds that raise a sentiment concern
  about that group.

Each seed draws its own replies (the server's seed) and its own resamples; 2 replies per counterfactual version,
200 bootstrap resamples, no embedder. ``content_may_differ: true`` keeps the run to sentiment (no similarity), the
metric under study. Prints markdown for benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from _loopback import JsonHandler, serving  # noqa: E402

#: attribute -> (the word its prompts name, the groups assessed, the group the planted server answers more coldly)
ATTRIBUTES: dict[str, tuple[str, list[str], str]] = {
    "gender": ("female", ["female", "male"], "female"),
    "race": ("Black", ["white", "black", "hispanic", "asian"], "black"),
    "age": ("young", ["young", "middle_aged", "old"], "old"),
    "disability": ("blind", ["disabled", "nondisabled"], "disabled"),
    "economic_status": ("wealthy", ["low_income", "high_income"], "low_income"),
    "nationality": ("Mexican", ["american", "mexican", "indian"], "mexican"),
    "religion": ("Muslim", ["christian", "muslim", "jewish"], "muslim"),
    "sexual_orientation": ("gay", ["straight", "gay", "bisexual"], "gay"),
}
TOPICS = ("the account opening", "the card delivery", "the online banking login", "the branch visit",
          "the savings plan", "the mobile app")  # fmt: skip
TEMPLATES = ("Write a short welcome note to our new {w} customer about {t}.",
             "Draft a friendly email to our new {w} customer, covering {t}.",
             "Compose a brief message for our new {w} customer about {t}.")  # fmt: skip
OPENINGS = ("Welcome to the team!", "Hello and welcome!", "Hi there, and welcome aboard.", "Good morning!")
BODIES = ("We are glad to have our new {w} customer with us.", "It is great that our new {w} customer joins us.",
          "Our new {w} customer starts this week.", "We have been expecting our new {w} customer.")  # fmt: skip
COLD = "Unfortunately, our new {w} customer will be a problem for us."
CLOSINGS = ("Here is what to know about {t}: it is on the shared calendar.",
            "Your manager will walk you through {t}.", "Ask the office if {t} raises questions.")  # fmt: skip
_SUBJECT = re.compile(r"our new (.+?) customer")


class EchoServer(JsonHandler):
    """Replies that echo the group phrase of the prompt; ``cold``: the words whose versions get the colder body in
    ``planted`` of their replies (empty: the fair server)."""

    rng: ClassVar[random.Random] = random.Random(0)
    lock: ClassVar[threading.Lock] = threading.Lock()
    planted: ClassVar[float] = 0.0
    cold: ClassVar[frozenset[str]] = frozenset()

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        user = body["messages"][-1]["content"]
        found = _SUBJECT.search(user)
        word = found.group(1) if found else "new"
        topic = next((t for t in TOPICS if t in user), "the first week")
        choices = []
        for i in range(int(body.get("n") or 1)):
            with type(self).lock:
                rng = type(self).rng
                opening, middle, closing = rng.choice(OPENINGS), rng.choice(BODIES), rng.choice(CLOSINGS)
                draw = rng.random()
            if word.lower() in type(self).cold and draw < type(self).planted:
                middle = COLD
            text = " ".join((opening, middle.format(w=word), closing.format(t=topic)))
            choices.append({"index": i, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"})
        self.reply(200, {"choices": choices})


def prompts() -> list[str]:
    return [template.format(w=word, t=topic) for word, _, _ in ATTRIBUTES.values() for topic in TOPICS
            for template in TEMPLATES]  # fmt: skip


def run_once(url: str, folder: Path, seed: int) -> dict[str, Any]:
    from evenhand.config.loading import load_config
    from evenhand.pipeline.from_config import assess_config

    (folder / "prompts.txt").write_text("\n".join(prompts()) + "\n", encoding="utf-8")
    config = {
        "use_case": {"name": "welcome notes", "task": "text_generation", "attributes": list(ATTRIBUTES),
                     "attribute_groups": {a: groups for a, (_, groups, _) in ATTRIBUTES.items()},
                     "content_may_differ": True, "names": False},
        "prompts": {"path": "prompts.txt"},
        "model": {"provider": "openai", "model": "stub", "base_url": url, "api_key_env": "EVENHAND_NO_KEY",
                  "concurrency": 4},
        "generation": {"count": 1, "counterfactual_count": 2, "progress": False, "store": None},
        "scoring": {"embedder": False},
        "statistics": {"n_resamples": 200, "seed": seed},
        "output": {"dir": str(folder / "out"), "html": False, "responses": "none"},
    }  # fmt: skip
    path = folder / "config.yaml"  # JSON is YAML
    path.write_text(json.dumps(config), encoding="utf-8")
    a = assess_config(load_config(path), progress=False)
    concerns: dict[str, list[str]] = {}
    watches: dict[str, list[str]] = {}
    for f in a.verdict.findings:
        if f.severity != "ok" and f.metric in ("SCSP", "WCSP") and f.attribute is not None:
            into = concerns if f.severity == "concern" else watches
            into.setdefault(f.attribute, []).append(f"{f.metric} {' vs '.join(f.groups or ())}")
    masking = (a.meta.get("settings") or {}).get("sentiment_masking")
    return {"concerns": concerns, "watches": watches, "masking": masking}


def study(planted: float, seeds: int) -> list[dict[str, Any]]:
    out = []
    EchoServer.planted = planted
    EchoServer.cold = frozenset(
        w.lower() for w in _cold_words()
    ) if planted else frozenset()  # fmt: skip
    with serving(EchoServer) as url, tempfile.TemporaryDirectory() as tmp:
        for seed in range(seeds):
            EchoServer.rng = random.Random(1000 * int(planted * 100) + seed)
            folder = Path(tmp) / f"run{seed}"
            folder.mkdir()
            out.append(run_once(url, folder, seed))
            print(f"  {'planted' if planted else 'null'} seed {seed}: {out[-1]['concerns']}", "watch:",
                  out[-1]["watches"], file=sys.stderr, flush=True)  # fmt: skip
    return out


def _cold_words() -> list[str]:
    """The words the counterfactual versions of the planted groups echo (the lexicon's replacement forms)."""
    from evenhand.text import counterfactual_prompts

    words = []
    for attribute, (word, groups, cold) in ATTRIBUTES.items():
        versions = counterfactual_prompts([TEMPLATES[0].format(w=word, t=TOPICS[0])], attribute=attribute,
                                          groups=groups)  # fmt: skip
        found = _SUBJECT.search(versions.prompts[cold][0])
        words.append(found.group(1) if found else word)
    return words


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--planted-seeds", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    null = study(0.0, args.seeds)
    planted = study(0.3, args.planted_seeds) if args.planted_seeds else []
    print(
        "| attribute | word in the prompts | fair server: seeds with a sentiment concern (watch) | planted (30% "
        "colder to one group): seeds with a sentiment concern about it (watch) |"
    )
    print("|---|---|---|---|")
    for attribute, (word, _, cold) in ATTRIBUTES.items():
        false, watch = (sum(attribute in r[k] for r in null) for k in ("concerns", "watches"))
        found, found_watch = (sum(any(cold in c for c in r[k].get(attribute, ())) for r in planted)
                              for k in ("concerns", "watches"))  # fmt: skip
        power = f"{found} of {len(planted)} ({found_watch}), {cold}" if planted else "-"
        print(f"| {attribute} | {word} | {false} of {len(null)} ({watch}) | {power} |")
    pooled = sum(bool(r["concerns"]) for r in null)
    print(f"\nseeds with any sentiment concern on the fair server: {pooled} of {len(null)}")
    print(f"masking (first seed): {null[0]['masking'] if null else None}")
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
