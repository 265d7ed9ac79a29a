"""names18: every group read equally well by the name and identity readers, and a fair model that echoes the name
passes. Read rates per group, null runs on an echoing loopback server and a planted effect per origin.

Run: PYTHONPATH=.:tests:benchmarks nice -n 19 python benchmarks/bench_names18.py [--runs 3] [--null-runs 10]
[--only echo_korean] [--reading] [--no-echo] (with ``PYTHONPATH=<a checkout of main>:...`` the same fixtures run on
the code before the branch).

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
    fixture_table(__doc__ or "", FIXTURES, null_runs=10)
