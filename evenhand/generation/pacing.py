"""Requests in flight at the server's pace: a fixed number, or a limit that adapts to what the server answers.

A server that serves a fixed number of requests at a time and refuses the rest (429 or 503, often with
``Retry-After``) wastes time when we send too few and retries when we send too many. :class:`AdaptiveConcurrency`
finds the level it serves:

- **Growth while answers come back clean**: before the first refusal +0.5 per clean answer (x1.5 per round trip:
  answers come back in waves, and doubling would overshoot by a whole wave); after one, +1 per clean answer back up
  to the *safe level* (one below the in-flight count at which the server refused), then a hold there
  (``hold_rtts`` round trips, doubling each time a probe above it is refused, so a stable cap is probed rarely),
  then +1 per round trip. A round trip of clean answers above the safe level means the server now serves more: the
  fast growth starts again. The limit grows only while it holds requests back, and never above ``maximum``.
- **Multiplicative decrease on 429/503**: the limit is cut by a quarter, at most once per round of requests (a
  refusal of a request sent before the last cut is already answered for), when the refusal is about the pace: it
  came above the safe level (a probe), or refusals are more than 5 % of the recent outcomes above the starting
  limit, more than a quarter below it (a rate limit that refuses everything, a server that now serves fewer). The
  safe level moves below the refused count. A stray 429 among clean answers is a fault, not the pace: a
  fault-injecting server's random 429/503s do not take the limit under where it started.
- **Retry-After**: a refusal that carries one holds new requests back until it passes, unless a clean answer shows
  the server serving again first (a server capped on concurrency answers one within a request's latency; one
  that is rate limited does not), and the limit does not grow above the safe level before it passes. The refused
  request itself waits for it (:class:`~evenhand.generation.limits.RetryPolicy`).

Requests waiting for a retry hold no place: only requests on the wire count. Everything runs on one event loop, so
no locks are needed; the clock is injectable so that tests are deterministic.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from evenhand.errors import InputError

from ._types import RetryableError

T = TypeVar("T")
Outcome = Literal["clean", "congested", "neutral"]

DEFAULT_MAX_CONCURRENCY = 64  # the adaptive limit's ceiling when none is configured
CONGESTION_STATUSES = frozenset({429, 503})  # "too many requests", "overloaded": the server's pace
_DECREASE = 0.75  # multiplicative decrease per cut (the regrowth to the safe level takes a quarter of a round trip)
_HOLD_RTTS = 16  # round trips at the safe level before probing above it (doubles while the same level is refused)
_MAX_HOLD_RTTS = 256
_SLOW_START_GAIN = 0.5  # per clean answer: x1.5 per round trip (answers come in waves: x2 overshoots by a wave)
_RECENT = 64  # outcomes remembered to tell the pace from stray faults
_REFUSED_SHARE = 0.25  # more refusals than this among recent outcomes: the pace, whatever the level
_PLATEAU_SHARE = 0.05  # the same above the starting limit (the goal: at most 5 % of requests refused)
_MIN_SAMPLE = 16  # the share is over at least this many outcomes (one refusal just after a cut is not a quarter)


@dataclass(frozen=True)
class Ticket:
    """A place on the wire: ``seq`` orders sends, ``level`` is the requests in flight when sent, this one included."""

    seq: int
    level: int
    full: bool = True  # sent when the limit was reached: the level at the limit, not one of a wave's first sends
    released: int = 0  # places given back before it was sent


@dataclass
class PacingStats:
    sent: int = 0
    refused: int = 0  # 429/503 answers seen
    cuts: int = 0
    peak: int = 0  # the most requests in flight at once


class FixedConcurrency:
    """``limit`` requests in flight, always (the runner starts that many workers; nothing more to enforce)."""

    adaptive = False

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.workers = limit

    async def call(self, request: Callable[..., Awaitable[T]], *args: Any) -> T:
        return await request(*args)


@dataclass
class AdaptiveConcurrency:
    """The adaptive limit (see the module docstring). ``call(request, *args)`` sends ``request(*args)`` when a place
    is free and learns from how it ended; ``acquire``/``release`` are the same in two steps."""

    initial: int
    maximum: int
    max_pause: float = 60.0  # a Retry-After holds new requests back for at most this long
    clock: Callable[[], float] = time.monotonic
    hold_rtts: int = _HOLD_RTTS
    adaptive = True
    limit: float = field(init=False)
    safe: int | None = field(init=False, default=None)  # one below the level last refused; None: none refused yet
    in_flight: int = field(init=False, default=0)
    stats: PacingStats = field(init=False, default_factory=PacingStats)

    def __post_init__(self) -> None:
        if self.initial < 1 or self.maximum < 1:
            raise InputError(f"concurrency limits must be >= 1, got {self.initial} and {self.maximum}")
        self.limit = float(min(self.initial, self.maximum))
        self._seq = 0
        self._cut_seq = 0  # tickets numbered below this were sent before the last cut
        self._full_seq = 0  # the last send that found the limit reached (or a request waiting)
        self._hold = self.hold_rtts
        self._clean_at_safe = 0  # clean answers since the limit reached the safe level
        self._pause_until = 0.0  # new requests wait until then (a Retry-After), unless a clean answer comes first
        self._grow_after = 0.0  # no growth above the safe level before then (the latest Retry-After)
        self._recent: collections.deque[bool] = collections.deque(maxlen=_RECENT)  # True: refused
        self._clean_above = 0  # clean answers above the safe level since the last cut
        self._proven = 0  # the most in flight at a send answered clean since the last cut
        self._released = 0
        self._waiters: collections.deque[asyncio.Future[Ticket]] = collections.deque()
        self._wake_handle: asyncio.TimerHandle | None = None

    @property
    def workers(self) -> int:
        """How many units the runner works on at once: the ceiling (only ``limit`` of them are on the wire)."""
        return self.maximum

    async def call(self, request: Callable[..., Awaitable[T]], *args: Any) -> T:
        ticket = await self.acquire()
        outcome: Outcome = "neutral"  # a bad request, a timeout, a cancelled run: says nothing about the pace
        retry_after = None
        try:
            result = await request(*args)
            outcome = "clean"
            return result
        except RetryableError as exc:
            if exc.status in CONGESTION_STATUSES:
                outcome, retry_after = "congested", exc.retry_after
            raise
        finally:
            self.release(ticket, outcome, retry_after)

    # -- places on the wire ------------------------------------------------------------------------------------
    def _open(self) -> bool:
        return self.in_flight < max(1, int(self.limit)) and self.clock() >= self._pause_until

    def _grant(self) -> Ticket:
        self._seq += 1
        self.in_flight += 1
        self.stats.sent += 1
        self.stats.peak = max(self.stats.peak, self.in_flight)
        full = self.in_flight >= int(self.limit)
        if full:
            self._full_seq = self._seq
        return Ticket(self._seq, self.in_flight, full, self._released)

    async def acquire(self) -> Ticket:
        """Wait for a place (first come, first served) and take it."""
        if not self._waiters and self._open():
            return self._grant()
        waiter: asyncio.Future[Ticket] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        self._full_seq = self._seq  # a request is held back: the limit is what bounds the requests in flight
        self._wake_later()
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # granted in the same turn it was cancelled: give it back
                self.release(waiter.result(), "neutral")
            elif waiter in self._waiters:
                self._waiters.remove(waiter)
            raise

    def _wake(self) -> None:
        if self._wake_handle is not None:  # woken early (a release): the pending timer is not needed any more
            self._wake_handle.cancel()
            self._wake_handle = None
        while self._waiters and self._open():
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(self._grant())
        self._wake_later()

    def _wake_later(self) -> None:
        """While a Retry-After pause holds waiters back, look again when it ends."""
        if self._waiters and self._wake_handle is None and self.clock() < self._pause_until:
            loop = asyncio.get_running_loop()
            self._wake_handle = loop.call_later(self._pause_until - self.clock(), self._wake)

    def release(self, ticket: Ticket, outcome: Outcome, retry_after: float | None = None) -> None:
        """Give the place back and learn from how the request ended."""
        self.in_flight -= 1
        self._released += 1
        if outcome == "clean":
            self._on_clean(ticket)
        elif outcome == "congested":
            self._on_refused(ticket, retry_after)
        if self._waiters:
            self._wake()

    # -- learning ----------------------------------------------------------------------------------------------
    def _on_clean(self, ticket: Ticket) -> None:
        self._recent.append(False)
        self._pause_until = 0.0  # the server is serving: a Retry-After pause is over
        if ticket.seq > self._full_seq:  # the limit held nothing back since this was sent: no news about more
            return
        after_cut = ticket.seq >= self._cut_seq  # a level counted before the last cut is no evidence
        if after_cut:
            self._proven = max(self._proven, ticket.level)
        if self.safe is not None and after_cut and ticket.level > self.safe:
            # Served above the safe level for a whole round trip, not once (an answer on its way back frees a place
            # the client still counts): the server serves more now, grow fast again.
            self._clean_above += 1
            if self._clean_above >= self.limit:
                self.safe, self._hold, self._clean_above = None, self.hold_rtts, 0
        if self.safe is None:  # exploring: x1.5 per round trip
            self.limit = min(self.limit + _SLOW_START_GAIN, float(self.maximum))
            return
        if self.limit < self.safe:  # back to a level the server served: x2 per round trip
            self.limit = min(self.limit + 1.0, float(self.safe), float(self.maximum))
            self._clean_at_safe = 0
            return
        self._clean_at_safe += 1
        if self._clean_at_safe >= self._hold * self.limit and self.clock() >= self._grow_after:
            self.limit = min(self.limit + 1.0 / self.limit, float(self.maximum))  # +1 per round trip

    def _on_refused(self, ticket: Ticket, retry_after: float | None) -> None:
        self.stats.refused += 1
        self._recent.append(True)
        now = self.clock()
        if retry_after is not None:  # every refusal that says when to come back, a stray one too: without the
            # pause a freed place would be refused again at once, over and over
            wait = min(retry_after, self.max_pause)
            self._grow_after = max(self._grow_after, now + wait)
            self._pause_until = max(self._pause_until, now + wait)
        if ticket.seq < self._cut_seq:  # sent before the last cut, which already answered for it
            return
        share = sum(self._recent) / max(len(self._recent), _MIN_SAMPLE)
        # The requests counted in flight at the send include answers already on their way back: those that came
        # back before this refusal (a refusal comes at once) were not at the server when it refused.
        level = max(1, ticket.level - (self._released - 1 - ticket.released))
        too_high = self.safe is None or level > self.safe
        if too_high and ticket.full and level > self._proven:
            # Refused at a level not served since the last cut (a probe, or the first refusal): too high.
            safe = max(1, level - 1)
            # A probe refused at the level refused before: the cap is stable, probe it half as often.
            same_level = self.safe is not None and safe >= self.safe - 1  # one off: an answer was on its way back
            self._hold = min(_MAX_HOLD_RTTS, self._hold * 2) if same_level else self.hold_rtts
        elif share > _REFUSED_SHARE or (self.safe is not None and self.safe > self.initial and share > _PLATEAU_SHARE):
            # Refused at the safe level or below, more than a stray fault would be: the level counted at a send
            # includes answers already on their way back, so the safe level can be a little too high; or the server
            # now serves fewer. Above where the limit started, refusals are kept under 5 %; below it, a quarter
            # (a fault-injecting server's random 429/503s must not take it under today's fixed default).
            safe = max(1, min(self.safe or level, level) - 1)
        else:
            return  # a stray fault at a level the server serves
        self.safe = safe
        self.limit = max(1.0, min(self.limit * _DECREASE, float(safe)))
        self._clean_at_safe = self._clean_above = self._proven = 0
        self._cut_seq = self._seq + 1
        self._recent.clear()
        self.stats.cuts += 1


Pacing = FixedConcurrency | AdaptiveConcurrency


def choose_pacing(
    concurrency: int | None, max_concurrency: int | None, default: int, adaptive: bool, max_pause: float
) -> Pacing:
    """A fixed ``concurrency`` when one is given (or the client does not talk to a server that sets a pace);
    else the adaptive limit from the client's ``default`` up to ``max_concurrency`` (default
    ``DEFAULT_MAX_CONCURRENCY``). An explicit ``max_concurrency`` also caps a fixed number."""
    if max_concurrency is not None and (
        isinstance(max_concurrency, bool) or not isinstance(max_concurrency, int) or max_concurrency < 1
    ):
        raise InputError(f"max_concurrency must be a positive int or None, got {max_concurrency!r}")
    if concurrency is not None and max_concurrency is not None and concurrency > max_concurrency:
        raise InputError(f"concurrency {concurrency} is above max_concurrency {max_concurrency}")
    if concurrency is not None:
        return FixedConcurrency(concurrency)
    if not adaptive:
        return FixedConcurrency(min(default, max_concurrency or default))
    ceiling = max_concurrency or max(DEFAULT_MAX_CONCURRENCY, default)
    return AdaptiveConcurrency(initial=min(default, ceiling), maximum=ceiling, max_pause=max_pause)
