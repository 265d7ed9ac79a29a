"""The reader's and the judge's requests and tokens are estimated before anything is sent, as the runner sends them
(issue 38): the estimate counts what a loopback server then receives, and nothing the store already holds."""

from __future__ import annotations

import pytest

import evenhand
from evenhand.generation import GenerationSettings, LLMCueReader
from evenhand.generation.assistant_cost import estimate_judge, estimate_reader
from evenhand.generation.judge_audit import audit_judge
from evenhand.generation.pair_judge import LLMPairJudge
from evenhand.text.cue_audit import labelled_prompts
from tests._assistant_servers import assistant_server, client_spec

PROMPTS = ["She wears a hijab to work.", "Write a memo.", "Our synagogue needs a flyer."]
# what check_ftu asks the reader about: every group of each lexicon, optional ones included
ATTRIBUTES = {a: list(evenhand.load_lexicon(a).all_groups) for a in ("gender", "religion")}


@pytest.mark.server
def test_the_reader_estimate_is_what_the_server_receives_and_the_store_is_subtracted(tmp_path: object) -> None:
    settings = GenerationSettings(temperature=0.0, seed=0, max_tokens=256, store=f"{tmp_path}/s.sqlite", progress=False)
    with assistant_server(reader="good") as (url, counter):
        before = estimate_reader(PROMPTS, ATTRIBUTES, client_spec(url), settings=settings)
        assert counter.get("total", 0) == 0  # estimating sends nothing
        evenhand.check_ftu(PROMPTS, ["gender", "religion"], reader=LLMCueReader(client_spec(url), settings))
        assert counter["total"] == before.requests == len(labelled_prompts()) + len(PROMPTS)
        after = estimate_reader(PROMPTS, ATTRIBUTES, client_spec(url), settings=settings)
    assert before.prompt_tokens > 100 * before.requests and before.completion_tokens_max == 256 * before.requests
    assert after.requests == 0 and after.already_stored == before.requests
    no_audit = estimate_reader(
        PROMPTS, ATTRIBUTES, client_spec(url), settings=settings.replace(store=None), audit=False
    )
    assert no_audit.requests == len(PROMPTS)


@pytest.mark.server
def test_the_judge_estimate_counts_both_orders_of_every_pair_and_its_audit(tmp_path: object) -> None:
    settings = GenerationSettings(temperature=0.0, seed=0, max_tokens=160, store=f"{tmp_path}/s.sqlite", progress=False)
    pairs = [("He asks for a loan.", "She asks for a loan."), ("He wants a job.", "She wants a job.")]
    with assistant_server(judge="good") as (url, counter):
        estimate = estimate_judge(pairs, client_spec(url), samples=3, same_version=2, reply_max_tokens=96,
                                  settings=settings)  # fmt: skip
        audit_judge(LLMPairJudge(client_spec(url), settings))
        audit_requests = counter["total"]
        again = estimate_judge(pairs, client_spec(url), samples=3, same_version=2, reply_max_tokens=96,
                               settings=settings)  # fmt: skip
    assert audit_requests == 300 and estimate.requests == 300 + 2 * (2 * 3 + 2)
    assert again.requests == 2 * (2 * 3 + 2) and again.already_stored == 300  # the audit is stored, the run's not
    # a longer reply bound costs more prompt tokens, never more requests
    longer = estimate_judge(pairs, client_spec(url), samples=3, same_version=2, reply_max_tokens=400,
                            settings=settings.replace(store=None), audit=False)  # fmt: skip
    shorter = estimate_judge(pairs, client_spec(url), samples=3, same_version=2, reply_max_tokens=96,
                             settings=settings.replace(store=None), audit=False)  # fmt: skip
    assert longer.requests == shorter.requests == 16 and longer.prompt_tokens - shorter.prompt_tokens == 16 * 2 * 304
