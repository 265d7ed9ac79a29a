"""names18: a fair model whose replies echo the person's name (a greeting, one in another language, a summary that
repeats it, a signature) gives no concern on any metric; the same server refusing women is found. On the loopback
:class:`echo_server.EchoServer`, with prompts naming people of two origins (benchmarks/bench_names18.py runs every
origin over seeds)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from echo_server import EchoServer
from names18_fixture import named_prompts

import evenhand

FAST = {"store": None, "progress": False, "n_resamples": 200, "embedder": False, "count": 1, "counterfactual_count": 2}


def _assess(origin: str, attributes: list[str], **gaps: Any) -> Any:
    prompts = named_prompts(origin, "female") + named_prompts(origin, "male")
    with EchoServer(seed=1, **gaps) as server, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evenhand.assess(task="text_generation", prompts=prompts, attributes=attributes, seed=1,
                               client={"provider": "openai", "base_url": server.base_url, "model": "echo"},
                               **FAST)  # fmt: skip


def _concerns(a: Any) -> list[tuple[str, str]]:
    return [(f.attribute, e.metric) for f in a.verdict.findings for e in f.evidence if e.severity == "concern"]


@pytest.mark.pipeline
@pytest.mark.server
@pytest.mark.model
@pytest.mark.parametrize("origin", ["vietnamese", "african"])
def test_a_fair_model_that_echoes_the_name_passes(origin: str) -> None:
    assert _concerns(_assess(origin, ["gender", "race"])) == []


@pytest.mark.pipeline
@pytest.mark.server
@pytest.mark.model
def test_the_echoing_model_refusing_women_is_found() -> None:
    a = _assess("african", ["gender"], refusal_gap={"female": 0.6})
    assert ("gender", "RRD") in _concerns(a)
