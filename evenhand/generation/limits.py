"""Client-side rate limits (requests and tokens per minute) and retry backoff with jitter."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from evenhand.errors import InputError


class TokenBucket:
    """Async token bucket: ``rate_per_minute`` refilled continuously, bursts up to one second's worth.

    ``acquire(cost)`` waits until ``cost`` units are available; ``refund(delta)`` corrects an estimate after the
    fact (negative deltas make the bucket owe units, delaying later callers).
    """

    def __init__(self, rate_per_minute: float) -> None:
        if rate_per_minute <= 0:
            raise InputError(f"rate limits must be positive, got {rate_per_minute}")
        self.rate = rate_per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.updated = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now

    async def acquire(self, cost: float = 1.0) -> None:
        cost = min(cost, self.capacity)  # a single request larger than the burst still goes through, alone
        async with self._lock:  # FIFO: waiters are served in arrival order
            while True:
                self._refill()
                if self.level >= cost:
                    self.level -= cost
                    return
                await asyncio.sleep((cost - self.level) / self.rate)

    def refund(self, delta: float) -> None:
        self._refill()
        self.level = min(self.capacity, self.level + delta)


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter; a server's ``Retry-After`` takes precedence (plus a little jitter).

    Every wait is capped at ``max_delay``, a ``Retry-After`` included, so a run is bounded: per sample at most
    ``max_retries`` waits. The defaults (8 retries, 9 attempts) lose a sample with probability ``p**9`` when a share
    ``p`` of requests fails independently: 2e-5 at 30 % faults; the waits add up to at most 64 s (0.25 s doubling,
    before jitter halves them on average).
    """

    max_retries: int = 8
    base_delay: float = 0.25
    max_delay: float = 60.0

    def delay(self, attempt: int, retry_after: float | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        rnd = (rng or random).random()
        if retry_after is not None:
            return min(self.max_delay, retry_after) * (1.0 + 0.1 * rnd)
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (0.5 + 0.5 * rnd)


class RateLimits:
    """The limits shared by all workers of one run (either may be None)."""

    def __init__(self, requests_per_minute: float | None = None, tokens_per_minute: float | None = None) -> None:
        self.requests = TokenBucket(requests_per_minute) if requests_per_minute else None
        self.tokens = TokenBucket(tokens_per_minute) if tokens_per_minute else None

    async def acquire(self, estimated_tokens: int) -> None:
        if self.requests is not None:
            await self.requests.acquire(1.0)
        if self.tokens is not None:
            await self.tokens.acquire(float(estimated_tokens))

    def settle(self, estimated_tokens: int, used_tokens: int | None) -> None:
        if self.tokens is not None and used_tokens is not None:
            self.tokens.refund(float(estimated_tokens - used_tokens))
