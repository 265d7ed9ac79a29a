"""The adaptive concurrency limit (evenhand/generation/pacing.py): unit tests on a fake clock, and a run against a
loopback server that serves a fixed number of requests at a time and answers 429 beyond (tests/capped_server.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from pathlib import Path

import pytest
from capped_server import CappedServer

from evenhand.generation import OpenAIClient, RetryableError, generate
from evenhand.generation.pacing import (
    DEFAULT_MAX_CONCURRENCY,
    AdaptiveConcurrency,
    FixedConcurrency,
    Ticket,
    choose_pacing,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _pacer(initial: int = 4, maximum: int = 64, hold_rtts: int = 16) -> tuple[AdaptiveConcurrency, FakeClock]:
    clock = FakeClock()
    return AdaptiveConcurrency(initial=initial, maximum=maximum, clock=clock, hold_rtts=hold_rtts), clock


async def _fill(pacer: AdaptiveConcurrency) -> list[Ticket]:
    """Take every free place (the limit holds the rest back, as the runner's waiting workers are)."""
    return [await pacer.acquire() for _ in range(max(1, int(pacer.limit)) - pacer.in_flight)]


async def _rounds(pacer: AdaptiveConcurrency, rounds: int, refuse: float = 0.0, seed: int = 0) -> None:
    """``rounds`` round trips at the limit: fill it, answer every request (a share ``refuse`` with 429)."""
    rng = random.Random(seed)
    for _ in range(rounds):
        for ticket in await _fill(pacer):
            pacer.release(ticket, "congested" if rng.random() < refuse else "clean")


def test_clean_answers_raise_the_limit_and_never_above_the_maximum() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=4, maximum=20)
        tickets = await _fill(pacer)
        assert [t.level for t in tickets] == [1, 2, 3, 4] and pacer.in_flight == 4
        for t in tickets:
            pacer.release(t, "clean")
        assert pacer.limit == 6.0  # +0.5 per clean answer before any refusal: x1.5 per round trip
        await _rounds(pacer, 20)
        assert pacer.limit == 20.0 and pacer.stats.peak == 20  # capped by the maximum
        assert pacer.safe is None and pacer.stats.cuts == 0

    asyncio.run(go())


def test_an_answer_that_held_nothing_back_does_not_raise_the_limit() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=8)
        for _ in range(20):  # one request at a time: the limit of 8 is not what holds anything back
            pacer.release(await pacer.acquire(), "clean")
        assert pacer.limit == 8.0

    asyncio.run(go())


def test_a_429_cuts_the_limit_multiplicatively_once_per_round() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=16)
        tickets = await _fill(pacer)
        pacer.release(tickets[-1], "congested")  # refused at 16 in flight
        assert pacer.limit == 12.0 and pacer.safe == 15 and pacer.stats.cuts == 1
        for t in tickets[:-1]:  # sent before the cut: that cut answered for them
            pacer.release(t, "congested")
        assert pacer.limit == 12.0 and pacer.stats.cuts == 1
        late = await pacer.acquire()  # sent after the cut, refused above the safe level: cut again
        pacer.release(dataclasses.replace(late, level=16), "congested")
        assert pacer.limit == 9.0 and pacer.stats.cuts == 2

    asyncio.run(go())


def test_a_503_is_a_refusal_other_failures_say_nothing_about_the_pace() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=2)

        async def fail(status: int) -> None:
            await asyncio.sleep(0)  # on the wire for a moment, so that both are in flight
            raise RetryableError(f"HTTP {status}", status=status)

        async def both(status: int) -> None:  # two at once: the second is sent at the limit
            outcomes = await asyncio.gather(pacer.call(fail, status), pacer.call(fail, status), return_exceptions=True)
            assert all(isinstance(o, RetryableError) for o in outcomes)

        for status in (500, 502, 408):
            await both(status)
        assert pacer.limit == 2.0 and pacer.stats.refused == 0 and pacer.in_flight == 0
        await both(503)
        assert pacer.stats.refused == 2 and pacer.stats.cuts == 1 and pacer.limit == 1.0 and pacer.in_flight == 0

    asyncio.run(go())


def test_the_limit_grows_back_fast_to_the_safe_level_holds_then_probes() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=32, hold_rtts=4)
        tickets = await _fill(pacer)
        pacer.release(tickets[-1], "congested")  # refused at 32: safe level 31
        assert pacer.safe == 31 and pacer.limit == 24.0
        for t in tickets[:-1]:
            pacer.release(t, "clean")
        limits = []
        while not limits or limits[-1] <= 31.0:
            await _rounds(pacer, 1)
            limits.append(pacer.limit)
            assert len(limits) < 10
        assert limits[0] == 31.0  # +1 per answer back to the safe level within a round trip, not above it
        assert 3 <= len(limits) - 1 <= 5  # held there for 4 round trips (counted from when it got there)
        assert limits[-1] < 33.0  # then +1 per round trip
        probe = await pacer.acquire()
        # a probe above the safe level is refused
        pacer.release(dataclasses.replace(probe, level=33, full=True), "congested")
        assert pacer.safe == 32 and pacer._hold == 8  # about the same level again: probe half as often

    asyncio.run(go())


def test_retry_after_holds_new_requests_until_it_passes_or_the_server_answers() -> None:
    async def go() -> None:
        pacer = AdaptiveConcurrency(initial=4, maximum=8)
        a, b = await pacer.acquire(), await pacer.acquire()
        pacer.release(a, "congested", retry_after=0.3)
        waiting = asyncio.ensure_future(pacer.acquire())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # places are free (limit 3, 1 in flight), but the server said to wait
        pacer.release(b, "clean")  # ... and then answered: it is serving again
        await asyncio.sleep(0)
        assert waiting.done()
        pacer.release(waiting.result(), "congested", retry_after=0.1)
        loop = asyncio.get_running_loop()
        start = loop.time()
        pacer.release(await pacer.acquire(), "neutral")  # no answer comes: wait for the Retry-After itself
        assert 0.08 <= loop.time() - start < 1.0

    asyncio.run(go())


def test_no_growth_above_the_safe_level_before_retry_after_passes() -> None:
    async def go() -> None:
        pacer, clock = _pacer(initial=8, hold_rtts=1)
        tickets = await _fill(pacer)
        pacer.release(tickets[-1], "congested", retry_after=30.0)
        for t in tickets[:-1]:
            pacer.release(t, "clean")
        await _rounds(pacer, 10)
        assert pacer.limit == 7.0  # back at the safe level, held there
        clock.now += 31
        await _rounds(pacer, 2)
        assert pacer.limit > 7.0

    asyncio.run(go())


def test_stray_faults_do_not_drive_the_limit_under_its_start() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=16, maximum=64)
        await _rounds(pacer, 200, refuse=0.06, seed=3)  # like a fault server: 6 % of answers 429/503 at random
        assert pacer.safe is None or pacer.safe >= 15
        assert pacer.limit >= 11.0  # never below a single cut from where it started

    asyncio.run(go())


def test_a_rate_limit_that_refuses_everything_brings_the_limit_down() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=32)
        await _rounds(pacer, 3)
        await _rounds(pacer, 20, refuse=1.0)
        assert pacer.limit == 1.0 and pacer.safe is not None and pacer.safe <= 2

    asyncio.run(go())


def test_a_cancelled_waiter_leaves_no_place_taken() -> None:
    async def go() -> None:
        pacer, _ = _pacer(initial=1)
        first = await pacer.acquire()
        waiting = asyncio.ensure_future(pacer.acquire())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        pacer.release(first, "neutral")
        assert pacer.in_flight == 0
        pacer.release(await pacer.acquire(), "clean")
        assert pacer.in_flight == 0

    asyncio.run(go())


def test_choose_pacing() -> None:
    fixed = choose_pacing(8, None, 16, True, 60.0)
    assert isinstance(fixed, FixedConcurrency) and fixed.workers == 8  # a set concurrency stays fixed
    adaptive = choose_pacing(None, None, 16, True, 60.0)
    assert isinstance(adaptive, AdaptiveConcurrency) and adaptive.limit == 16 and adaptive.maximum == 64
    assert adaptive.workers == DEFAULT_MAX_CONCURRENCY
    capped = choose_pacing(None, 10, 16, True, 60.0)
    assert isinstance(capped, AdaptiveConcurrency) and capped.limit == 10 and capped.maximum == 10
    local = choose_pacing(None, None, 64, False, 60.0)  # no server to pace (a local model): the client's number
    assert isinstance(local, FixedConcurrency) and local.workers == 64
    assert choose_pacing(None, 8, 64, False, 60.0).workers == 8
    with pytest.raises(ValueError, match="concurrency 32 is above max_concurrency 16"):
        choose_pacing(32, 16, 16, True, 60.0)
    with pytest.raises(ValueError, match="max_concurrency must be a positive int"):
        choose_pacing(None, 0, 16, True, 60.0)


def test_generate_rejects_concurrency_above_its_maximum() -> None:
    with pytest.raises(ValueError, match="above max_concurrency"):
        generate(["hi"], lambda p: "ok", concurrency=8, max_concurrency=4, store=None, progress=False)


@pytest.mark.server  # 1,200 requests to a loopback server at its real pace
def test_a_capped_server_is_served_at_its_pace_with_few_429s(tmp_path: Path) -> None:
    """24 requests at a time, 50 ms each, 429 with Retry-After: 1 beyond; 600 requests at the default settings."""
    with CappedServer(cap=24, latency=0.05, retry_after="1") as server:
        client = OpenAIClient(server.base_url, "capped", api_key="sk-test")
        prompts = [f"capped {i}" for i in range(600)]
        result = generate(prompts, client, count=2, store=tmp_path / "g.sqlite", progress=False)
        stats = server.stats.as_dict()
    frame = result.to_frame()
    assert (frame["status"] == "ok").all() and len(frame) == 1200
    assert not frame["response"].duplicated().any()
    # few: with a CPU shared with a parallel test worker 5.8% was seen, so the bound leaves room for that
    assert stats["refused"] <= 0.10 * stats["requests"], stats
    assert stats["requests"] == 600 + stats["refused"]  # nothing sent twice but what was refused
    assert stats["peak"] >= 20, stats  # it went above the 16 it starts from, towards the server's 24
