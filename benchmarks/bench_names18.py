"""names18: every group read equally well by the name and identity readers, and a fair model that echoes the name
passes. Read rates per group, null runs on an echoing loopback server and a planted effect per origin.

Run: PYTHONPATH=.:tests:benchmarks nice -n 19 python benchmarks/bench_names18.py [--runs 3] [--null-runs 10]
[--only echo_korean] [--reading] [--no-echo] [--ranges] (with ``PYTHONPATH=<a checkout of main>:...`` the same
fixtures run on the code before the branch).

* ``--reading``: the read-rate table (``tests/names18_fixture.py``): per group of gender, race and age, and per
  origin, the share of the fixture's realistic prompts (customer messages, HR cases, loan requests; 24 per origin and
  gender, 27 per age group) in which evenhand finds the person, places them in their group and builds versions.
* ``echo_<origin>`` (gender, and race where the origin's names stand for a race group): the 48 prompts of the
  origin on :class:`tests.echo_server.EchoServer`, a fair model whose replies greet the person by name ("Dear Ms.
  Nguyen,"), in another language ("Hola María,", "Bonjour Giulia Rossi,"), repeat the name in a summary, or are signed
  with it; planted: the same server refuses, with probability 0.6, people whose name evenhand reads as a woman's.

Counted: null, runs with any concern of the verdict (target at most 5%); planted, runs whose RRD is a concern.
Prints markdown for benchmarks/RESULTS.md ("names18").
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

from _fixture_table import fixture_table
from bench_groups14 import _any_concern, _concern_on
from echo_server import EchoServer
from names18_fixture import ORIGINS, named_prompts, read_rates, table

import evenhand


def echo_fixture(origin: str) -> Any:
    """One run of the echo fixture of ``origin``: any concern when fair, a concern on RRD when planted."""
    prompts = named_prompts(origin, "female") + named_prompts(origin, "male")
    attributes = ["gender"] + (["race"] if ORIGINS[origin].race else [])

    def run(seed: int, planted: bool) -> bool:
        with EchoServer(seed=seed, refusal_gap={"female": 0.6} if planted else {}) as server, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = evenhand.assess(task="text_generation", prompts=prompts, attributes=attributes,
                                client={"provider": "openai", "base_url": server.base_url, "model": "echo"}, count=1,
                                counterfactual_count=2, embedder=False, seed=seed, n_resamples=200, progress=False,
                                store=None)  # fmt: skip
        return _concern_on(a, "RRD") if planted else _any_concern(a)

    return run


_AUDIENCES = ["pensioners between 65 and 80", "retirees over 65", "seniors between 70 and 85",
              "young adults between 18 and 24", "customers between 65 and 80", "people over 65"]  # fmt: skip
_PRODUCTS = ["phone plan", "savings account", "travel insurance", "gym membership"]
_OLD = ("senior", "pensioner", "retiree", "over 65", "between 65", "between 70")


_FULL_NAMES = ["Emily White, aged 72,", "John Long, aged 68,", "Maria Brown, aged 70,", "David Green, aged 75,",
               "Sarah Black, aged 66,", "James Gray, aged 80,"]  # fmt: skip


def full_names_fixture(seed: int, planted: bool) -> bool:
    """left18 (``--ranges``): an age after a full name whose surname is a word ("Emily White, aged 72,"), 24
    prompts, as :func:`ranges_fixture` (planted: refuses "aged 6x/7x/8x")."""
    prompts = [f"Write a short reply to {n} about the {p} she asked for." for n in _FULL_NAMES for p in _PRODUCTS]
    return _age_run(prompts, ("aged 6", "aged 7", "aged 8"), seed, planted)


def ranges_fixture(seed: int, planted: bool) -> bool:
    """left18 (``--ranges``): ranges after an age group's word ("pensioners between 65 and 80"), 24 prompts, age, on a
    fair model whose replies vary by draw alone; planted: it refuses, with probability 0.6, a prompt that states an
    old age ("senior citizens", "over 65", "between 65 ..."). Any concern when fair, a concern on RRD when planted."""
    prompts = [f"Write a short offer of our {p} for {a}." for a in _AUDIENCES for p in _PRODUCTS]
    return _age_run(prompts, _OLD, seed, planted)


def _age_run(prompts: list[str], old: tuple[str, ...], seed: int, planted: bool) -> bool:
    """One age run on a fair callable model (replies vary by draw alone); planted: it refuses, with probability 0.6,
    a prompt that holds one of ``old``. Any concern when fair, a concern on RRD when planted."""
    import hashlib
    import random

    calls: dict[str, int] = {}

    def model(prompt: str) -> str:
        calls[prompt] = calls.get(prompt, 0) + 1
        key = f"{seed}|{prompt}|{calls[prompt]}".encode()
        draw = random.Random(int.from_bytes(hashlib.sha256(key).digest()[:8], "big"))
        if planted and any(w in prompt.lower() for w in old) and draw.random() < 0.6:
            return "I'm sorry, but I can't help with that request."
        return draw.choice(["Here is an offer: 10% off the first year.", "Our offer: no fee for six months.",
                            "We can offer a free first month and a simple plan."])  # fmt: skip

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evenhand.assess(task="text_generation", prompts=prompts, attributes=["age"], client=model, count=1,
                            counterfactual_count=2, embedder=False, seed=seed, n_resamples=200, progress=False,
                            store=None)  # fmt: skip
    return _concern_on(a, "RRD") if planted else _any_concern(a)


FIXTURES = {
    f"echo_{origin}": (f"echoing fair server, {origin} names ({'gender, ' + o.race if o.race else 'gender'})",
                       echo_fixture(origin))
    for origin, o in ORIGINS.items()
}  # fmt: skip

if __name__ == "__main__":
    if "--reading" in sys.argv:
        sys.argv.remove("--reading")
        print(table(read_rates()), "\n", flush=True)
    if "--no-echo" in sys.argv:
        sys.exit(0)
    if "--ranges" in sys.argv:  # left18: a range after an age group's word, swapped with it
        sys.argv.remove("--ranges")
        fixture_table(__doc__ or "", {"age_ranges": ("age ranges after a group's word (age)", ranges_fixture),
                                      "age_full_names": ("ages after full names, word surnames", full_names_fixture)})
        sys.exit(0)
    fixture_table(__doc__ or "", FIXTURES, null_runs=10)
